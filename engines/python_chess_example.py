#!/usr/bin/env python3
"""Using ndchess from Python with python-chess (`pip install chess`).

Usage: python3 python_chess_example.py [path to ndchess]   (default: ndchess on PATH)

Shows the three things a Python host usually does: configure the engine,
analyse a position with several lines, and play a game (here a short
Chess960 game of the engine against itself). python-chess manages
UCI_Chess960 and UCI_Variant itself; the variant options of the ndchess
extension (UCI_Variant other than chess, Dimension, EdgeLength, …) are for
hosts that speak the extension (docs/protocol.md), since python-chess only
knows boards it can represent. Run by tests/python_chess.rs.
"""

import sys

import chess
import chess.engine


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "ndchess"
    with chess.engine.SimpleEngine.popen_uci([path]) as engine:
        print(f"engine: {engine.id.get('name')}")
        engine.configure({"Hash": 64, "Threads": 1, "Move Overhead": 30})

        board = chess.Board()
        for info in engine.analyse(board, chess.engine.Limit(depth=8), multipv=3):
            print(f"line {info['multipv']}: {info['score'].white()} {board.variation_san(info['pv'])}")

        board = chess.Board.from_chess960_pos(0)
        for _ in range(12):
            if board.is_game_over():
                break
            result = engine.play(board, chess.engine.Limit(time=0.05))
            print(f"{board.san(result.move)}", end=" ", flush=True)
            board.push(result.move)
        print()
        print(board.fen())
    return 0


if __name__ == "__main__":
    sys.exit(main())
