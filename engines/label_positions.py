#!/usr/bin/env python3
"""Relabel an `ndchess tune data` file of chess positions with a stronger
engine's judgement.

A self-play game's result says little about one position of it: a game
of 2,000-node moves is decided by later mistakes as much as by the
position. A stronger engine's score of the position itself is a far less
noisy label. This script asks a UCI engine (Stockfish by default) for
each position's score at a fixed depth and writes the same lines with the
first seat's expected points in place of the game's result, mapped by the
logistic curve 1 / (1 + 10^(-cp / 400)) (a mate counts as 1 or 0).
`ndchess tune fit` reads such fractional points as it reads results
(docs/engine.md, "Weights and tuning").

    python3 engines/label_positions.py --engine /usr/games/stockfish \\
        --depth 8 --every 3 chess.data > chess-sf.data

The positions must be FEN the engine reads (chess; Chess960 with
--chess960). It speaks UCI over pipes itself, so it needs nothing beyond
Python. Progress on stderr every 1,000 positions.
"""

import argparse
import subprocess
import sys


class Uci:
    """A UCI engine on pipes."""

    def __init__(self, command, chess960):
        self.p = subprocess.Popen(
            [command],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self.send("uci")
        self.wait_for("uciok")
        self.send("setoption name Threads value 1")
        self.send("setoption name Hash value 16")
        if chess960:
            self.send("setoption name UCI_Chess960 value true")
        self.send("isready")
        self.wait_for("readyok")

    def send(self, line):
        self.p.stdin.write(line + "\n")

    def wait_for(self, word):
        """The lines up to and including the one that starts with `word`."""
        lines = []
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError(f"the engine ended before '{word}'")
            lines.append(line.strip())
            if line.startswith(word):
                return lines

    def score(self, fen, depth):
        """The side to move's score: ('cp', n) or ('mate', n)."""
        self.send(f"position fen {fen}")
        self.send(f"go depth {depth}")
        last = None
        for line in self.wait_for("bestmove"):
            words = line.split()
            if words[:1] == ["info"] and "score" in words:
                i = words.index("score")
                if words[i + 1] in ("cp", "mate") and words[i + 3 : i + 4] not in (
                    ["lowerbound"],
                    ["upperbound"],
                ):
                    last = (words[i + 1], int(words[i + 2]))
        if last is None:
            raise RuntimeError(f"no score for {fen}")
        return last

    def close(self):
        self.send("quit")
        self.p.wait(timeout=10)


def expected_points(kind, value, white_to_move):
    """White's (the first seat's) expected points from a score of the side
    to move."""
    if kind == "mate":
        mover = 1.0 if value > 0 else 0.0
    else:
        mover = 1.0 / (1.0 + 10.0 ** (-value / 400.0))
    return mover if white_to_move else 1.0 - mover


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data", help="an `ndchess tune data` file of chess positions")
    ap.add_argument("--engine", default="/usr/games/stockfish")
    ap.add_argument("--depth", type=int, default=8)
    ap.add_argument("--every", type=int, default=1, help="keep every N-th position")
    ap.add_argument(
        "--first",
        type=int,
        default=1,
        help="the first position kept (1 = the file's first; with --every 2, 2 keeps the other half)",
    )
    ap.add_argument("--chess960", action="store_true")
    args = ap.parse_args()
    if not 1 <= args.depth <= 40 or args.every < 1 or not 1 <= args.first <= args.every:
        print(
            "error: --depth must be from 1 to 40, --every at least 1 and --first from 1 to --every",
            file=sys.stderr,
        )
        return 2
    try:
        lines = open(args.data, encoding="utf-8").read().splitlines()
    except OSError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    try:
        engine = Uci(args.engine, args.chess960)
    except (OSError, RuntimeError) as e:
        print(f"error: cannot start {args.engine}: {e}", file=sys.stderr)
        return 2
    done = seen = 0
    for n, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            print(line)
            continue
        _, _, fen = line.partition(" ")
        fields = fen.split()
        if len(fields) < 2 or fields[1] not in ("w", "b"):
            print(f"error: line {n}: not '<points> <FEN>'", file=sys.stderr)
            return 1
        seen += 1
        if (seen - args.first) % args.every:
            continue
        try:
            kind, value = engine.score(fen, args.depth)
        except RuntimeError as e:
            print(f"error: line {n}: {e}", file=sys.stderr)
            return 1
        print(f"{expected_points(kind, value, fields[1] == 'w'):.4f} {fen}")
        done += 1
        if done % 1000 == 0:
            print(f"label_positions: {done} positions", file=sys.stderr)
    engine.close()
    print(f"label_positions: {done} positions", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
