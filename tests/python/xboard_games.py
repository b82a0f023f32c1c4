#!/usr/bin/env python3
"""Self-play games through python-chess's XBoard client (XBoard issue,
acceptance 1).

Usage: xboard_games.py <path to ndchess> [chess960 start number]

Plays one full game of classical chess and one of Chess960 (variant
fischerandom) at 50 ms per move with chess.engine.SimpleEngine.popen_xboard;
the engine is started without arguments and chooses XBoard from the first
command. python-chess checks every move (`move ...`) and every thinking-output
pv against its own move generator; any warning or error it logs fails the run,
as does a game that reaches no result by the rules. Resignation is switched
off (option Resign=0) so that the games go to their end by the rules.
"""

import sys

import chess
import chess.engine

from harness import Complaints, count_castlings, play_game

# python-chess rejects sigterm=0 (it wants to be able to end engines with
# SIGTERM) and says so at WARNING level; ndchess ends on SIGTERM like any
# process, and the XBoard issue asks for sigterm=0, so this one message is
# expected.
EXPECTED = ("Rejecting feature sigterm=0",)


def main():
    engine_path = sys.argv[1]
    complaints = Complaints(EXPECTED)
    limit = chess.engine.Limit(time=0.05)
    with chess.engine.SimpleEngine.popen_xboard([engine_path]) as engine:
        engine.configure({"Resign": False})
        play_game(engine, chess.Board(), "normal", limit, complaints)

    # Start 0 (BBQNNRKR): the king on g1 beside the h-rook, where castling
    # must be written O-O (python-chess sends and reads it so in fischerandom).
    sp = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    with chess.engine.SimpleEngine.popen_xboard([engine_path]) as engine:
        engine.configure({"Resign": False})
        board = chess.Board.from_chess960_pos(sp)
        played, _ = play_game(engine, board, f"fischerandom position {sp}", limit, complaints)
    print(f"fischerandom position {sp}: {count_castlings(played)} castling moves")
    return 0


if __name__ == "__main__":
    sys.exit(main())
