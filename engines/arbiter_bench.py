"""Arbiter overhead: ndchess's `match` beside fastchess on the same games.

Both managers play the same 20 games (10 EPD openings of 8 random plies,
drawn with python-chess from seed 5, each with the seats swapped) between
two ndchess processes at a fixed depth, -concurrency 2, -maxmoves 100.
Runs alternate, 5 of each; medians of wall time and of the CPU time of the
whole process tree are printed per move. Results: docs/performance.md.

Usage: python3 engines/arbiter_bench.py NDCHESS FASTCHESS DEPTH
(fastchess is not packaged: build it from its source with `make`.)
"""
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import chess
import chess.pgn

nd, fc, depth = sys.argv[1], sys.argv[2], sys.argv[3]
work = tempfile.mkdtemp(prefix="arbiter-bench-")
rng = random.Random(5)
epd = []
while len(epd) < 10:
    b = chess.Board()
    for _ in range(8):
        b.push(rng.choice(list(b.legal_moves)))
    if not b.is_game_over():
        epd.append(b.epd())
with open(f"{work}/open.epd", "w") as f:
    f.write("\n".join(epd) + "\n")

common = [f"-engine", f"cmd={nd}", "name=a", "-engine", f"cmd={nd}", "name=b",
          "-each", "proto=uci", f"depth={depth}", "option.Hash=8", "-rounds", "10",
          "-games", "2", "-repeat", "-concurrency", "2",
          "-openings", "file=open.epd", "format=epd", "-maxmoves", "100"]
commands = {
    "ndchess": [nd, "match"] + common + ["-quiet", "-pgnout", "g.pgn"],
    "fastchess": [fc] + common + ["-pgnout", "file=g.pgn"],
}


def plies(path):
    n = 0
    with open(path) as f:
        while (g := chess.pgn.read_game(f)) is not None:
            n += len(list(g.mainline_moves()))
    return n


rows = {k: [] for k in commands}
for _ in range(5):
    for name, cmd in commands.items():
        subprocess.run(["rm", "-f", "g.pgn", "g.pgn.journal", "config.json"], cwd=work)
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.time()
        subprocess.run(cmd, cwd=work, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        wall = time.time() - t0
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = r1.ru_utime - r0.ru_utime + r1.ru_stime - r0.ru_stime
        rows[name].append((wall, cpu, plies(f"{work}/g.pgn")))
for name, r in rows.items():
    w = statistics.median(x[0] for x in r)
    c = statistics.median(x[1] for x in r)
    m = statistics.median(x[2] for x in r)
    print(f"{name} depth={depth}: wall {w:.2f} s, cpu {c:.2f} s, moves {m}, "
          f"wall per move x2 {2000 * w / m:.3f} ms, cpu per move {1000 * c / m:.3f} ms, "
          f"cpu share {c / (2 * w) * 100:.1f} % of 2 cores")
