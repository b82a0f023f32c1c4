#!/usr/bin/env python3
"""Self-play games through python-chess's UCI client (issue acceptance 1).

Usage: uci_games.py <path to ndchess> [chess960 start number]

Plays one full game of classical chess and one of Chess960 at 50 ms per
move with chess.engine.SimpleEngine.popen_uci. python-chess checks every
bestmove, ponder move and pv move against its own move generator (an
illegal one raises or is logged as an error); any warning or error that
python-chess logs about the engine fails the run, as does a game that
reaches no result by the rules.
"""

import sys

import chess
import chess.engine

from harness import Complaints, count_castlings, play_game


def main():
    engine_path = sys.argv[1]
    complaints = Complaints()
    limit = chess.engine.Limit(time=0.05)
    with chess.engine.SimpleEngine.popen_uci([engine_path]) as engine:
        play_game(engine, chess.Board(), "chess", limit, complaints)

    # Start 0 (BBQNNRKR) has its king on g1 next to the h-rook, so
    # castling king-takes-rook notation is the only one that works there.
    sp = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    with chess.engine.SimpleEngine.popen_uci([engine_path]) as engine:
        board = chess.Board.from_chess960_pos(sp)
        played, _ = play_game(engine, board, f"chess960 position {sp}", limit, complaints)
    print(
        f"chess960 position {sp}: {count_castlings(played)} castling moves "
        "(read by python-chess as king takes rook)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
