#!/usr/bin/env python3
"""Self-play games through python-chess's UCI client (issue acceptance 1).

Usage: uci_games.py <path to ndchess>

Plays one full game of classical chess and one of Chess960 at 50 ms per
move with chess.engine.SimpleEngine.popen_uci. python-chess checks every
bestmove, ponder move and pv move against its own move generator (an
illegal one raises or is logged as an error); any warning or error that
python-chess logs about the engine fails the run, as does a game that
reaches no result by the rules.
"""

import logging
import sys

import chess
import chess.engine

# A game without a result by the rules after this many plies means the
# engine or the driver is broken (the fifty-move rule alone ends every
# game long before: at most ~100 plies without a pawn move or capture).
MAX_PLIES = 1200


class Complaints(logging.Handler):
    """Collects what python-chess logs at WARNING and above."""

    def __init__(self):
        super().__init__(level=logging.WARNING)
        self.records = []

    def emit(self, record):
        self.records.append(self.format(record))


def play_game(engine_path, board, label, complaints):
    with chess.engine.SimpleEngine.popen_uci([engine_path]) as engine:
        plies = 0
        while not board.is_game_over(claim_draw=True):
            if plies >= MAX_PLIES:
                raise AssertionError(f"{label}: no result after {plies} plies")
            result = engine.play(board, chess.engine.Limit(time=0.05), info=chess.engine.INFO_ALL)
            if result.move is None:
                raise AssertionError(f"{label}: no move in a live position {board.fen()}")
            if result.move not in board.legal_moves:
                raise AssertionError(f"{label}: illegal move {result.move} in {board.fen()}")
            pv = result.info.get("pv", [])
            probe = board.copy()
            for m in pv:
                if m not in probe.legal_moves:
                    raise AssertionError(f"{label}: illegal pv move {m} in {probe.fen()}")
                probe.push(m)
            board.push(result.move)
            plies += 1
        outcome = board.outcome(claim_draw=True)
        if complaints.records:
            raise AssertionError(f"{label}: python-chess complained: {complaints.records}")
        print(
            f"{label}: {board.result(claim_draw=True)} ({outcome.termination.name.lower()}) "
            f"after {plies} plies"
        )
        return board


def main():
    engine_path = sys.argv[1]
    complaints = Complaints()
    logging.getLogger("chess.engine").addHandler(complaints)

    play_game(engine_path, chess.Board(), "chess", complaints)

    # Start 0 (BBQNNRKR) has its king on g1 next to the h-rook, so
    # castling king-takes-rook notation is the only one that works there.
    sp = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    board = chess.Board.from_chess960_pos(sp)
    played = play_game(engine_path, board, f"chess960 position {sp}", complaints)
    replay = played.root()
    castlings = 0
    for m in played.move_stack:
        castlings += replay.is_castling(m)
        replay.push(m)
    print(f"chess960 position {sp}: {castlings} castling moves (read by python-chess as king takes rook)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
