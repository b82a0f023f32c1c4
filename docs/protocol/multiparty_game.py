"""Plays a whole 6-player game of the 3-D diamond (edge 10, the game ending
at the first loss) through ndchess's UCI, one engine answering for every
seat, and writes the complete transcript (lines sent start with "> ") to
docs/protocol/multiparty-game.txt.

    cargo build --release
    python3 docs/protocol/multiparty_game.py [NODES] [SEARCH]

NODES per move (default 1800), SEARCH paranoid, brs or maxn (default
paranoid). The game is deterministic for a given build and node count.
"""

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
nodes = int(sys.argv[1]) if len(sys.argv) > 1 else 1800
search = sys.argv[2] if len(sys.argv) > 2 else "paranoid"
engine = subprocess.Popen(
    [str(ROOT / "target/release/ndchess"), "uci"],
    stdin=subprocess.PIPE,
    stdout=subprocess.PIPE,
    text=True,
    bufsize=1,
)
log = []


def send(line):
    log.append("> " + line)
    engine.stdin.write(line + "\n")
    engine.stdin.flush()


def until(pred):
    while True:
        line = engine.stdout.readline()
        if not line:
            raise SystemExit("ndchess ended its output")
        line = line.rstrip("\n")
        log.append(line)
        if pred(line):
            return line


send("uci")
until(lambda l: l == "uciok")
for name, value in [
    ("UCI_Variant", "diamond"),
    ("EdgeLength", "10"),
    ("Players", "6"),
    ("PartyEnd", "first"),
    ("MultiSearch", search),
]:
    send(f"setoption name {name} value {value}")
send("isready")
until(lambda l: l == "readyok")
send("ucinewgame")
moves = []
while len(moves) < 2000:
    send("position startpos moves " + " ".join(moves) if moves else "position startpos")
    send(f"go nodes {nodes}")
    best = until(lambda l: l.startswith("bestmove")).split()[1]
    if best == "(none)":
        break
    moves.append(best)
send("quit")
engine.wait()
out = ROOT / "docs/protocol/multiparty-game.txt"
out.write_text("\n".join(log) + "\n")
print(f"{len(moves)} plies written to {out}", file=sys.stderr)
