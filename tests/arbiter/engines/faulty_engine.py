"""A misbehaving UCI engine for the arbiter's fault tests: it relays a real
engine (`ndchess uci`) and misbehaves in one way, chosen by its first
argument, once the game has reached move AFTER (its second argument):

  illegal  answers a well-formed but illegal move (a1a1)
  crash    exits in the middle of the game
  hang     never answers `go` (the process stays alive)
  nouci    never answers `uci`
  noready  answers `uci` but never `isready`
  garbage  writes bytes that are not UTF-8 and a bestmove that is no move
  slow     answers `go` 200 ms after its clock has run out

Usage: python3 faulty_engine.py MODE AFTER ENGINE [ARGS...]
"""
import subprocess
import sys
import threading
import time

mode, after, engine = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
child = subprocess.Popen(engine, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         text=True, bufsize=1)
out = sys.stdout
lock = threading.Lock()
state = {"moves": 0, "silent": False}


def emit(line):
    with lock:
        out.write(line + "\n")
        out.flush()


def relay():
    for line in child.stdout:
        line = line.rstrip("\n")
        if state["silent"]:
            continue
        if mode == "noready" and line == "readyok":
            continue
        emit(line)


threading.Thread(target=relay, daemon=True).start()

for line in sys.stdin:
    cmd = line.strip()
    words = cmd.split()
    if not words:
        continue
    if mode == "nouci" and words[0] == "uci":
        continue
    if words[0] == "position":
        state["moves"] = len(words) - words.index("moves") - 1 if "moves" in words else 0
    if words[0] == "go" and state["moves"] >= after:
        if mode == "illegal":
            emit("bestmove a1a1")
            continue
        if mode == "crash":
            child.kill()
            sys.exit(3)
        if mode == "hang":
            state["silent"] = True
            continue
        if mode == "garbage":
            with lock:
                sys.stdout.buffer.write(b"\xff\xfe garbage \x00\x01\n")
                sys.stdout.flush()
            emit("bestmove @@@@")
            continue
        if mode == "slow":
            times = dict(zip(words[1::2], words[2::2]))
            # The side to move is the one whose clock the arbiter gives
            # first in its position; both clocks are equal early on, so
            # sleeping past the larger one is past the mover's.
            left = max(int(times.get("wtime", 0)), int(times.get("btime", 0)))
            time.sleep(left / 1000.0 + 0.2)
    if words[0] == "quit":
        child.stdin.write("quit\n")
        child.stdin.flush()
        break
    child.stdin.write(line)
    child.stdin.flush()
