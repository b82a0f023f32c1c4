#!/usr/bin/env python3
"""Analysis mode and configuration through python-chess's XBoard client
(XBoard issue, acceptance 1).

Usage: xboard_analyse.py <path to ndchess>

- `analyse` (post + analyze, then `.`, `exit`, `ping`) on a published
  mate in 2 (vondele/matetrack, tests/data/tactics_chess.epd, first
  problem) must report the mate score and a legal pv starting with the
  mating move;
- analysis restricted to one root move (exclude all / include) must keep
  that move first;
- `configure` of memory and cores and of the engine's own options works;
- the engine plays in Chess960 after analysis in the same process.
Any warning or error python-chess logs fails the run (apart from its
rejection of sigterm=0, see xboard_games.py).
"""

import sys

import chess
import chess.engine

from harness import Complaints, check_pv

# Expected messages: python-chess rejects sigterm=0 (see xboard_games.py),
# and it sends "." before "exit" when an analysis ends but does not read
# the "stat01: ..." status line the protocol defines as the answer to ".".
EXPECTED = ("Rejecting feature sigterm=0", "Unexpected engine output: 'stat01: ")

# tests/data/tactics_chess.epd, first line (vondele/matetrack): "bm #2".
MATE_IN_2 = "2brrb2/8/p7/7Q/1p1kpPp1/1P1pN1K1/3P4/8 w - - 0 1"


def analyse_only(engine, board, move, label):
    """Analyses `board` with `move` as the only root move (python-chess
    sends "exclude all" and "include MOVE"); the pv must start with it."""
    info = engine.analyse(board, chess.engine.Limit(time=0.3), root_moves=[move])
    pv = info.get("pv", [])
    print(f"{label}: pv {[board.xboard(m) for m in pv]}")
    if not pv or pv[0] != move:
        raise AssertionError(f"{label}: expected {board.xboard(move)} first, got {pv}")
    check_pv(board, pv, label)


def main():
    engine_path = sys.argv[1]
    complaints = Complaints(EXPECTED)
    with chess.engine.SimpleEngine.popen_xboard([engine_path]) as engine:
        print("engine:", engine.id.get("name"))
        engine.configure({"memory": 32, "ResignThreshold": 800})

        # One search thread for the mate: a single-threaded search is the
        # same at every run and finds this mate at depth 6 (some 8,000
        # nodes), whatever the machine's load; two threads on a loaded
        # machine have been seen to miss it within the second (an open
        # search weakness, docs/engine.md), which is not what this test is
        # about. Two cores are configured below.
        board = chess.Board(MATE_IN_2)
        info = engine.analyse(board, chess.engine.Limit(time=1.0))
        score = info["score"].relative
        pv = info.get("pv", [])
        print(f"mate in 2: score {score}, depth {info.get('depth')}, pv {[m.uci() for m in pv]}")
        if score != chess.engine.Mate(2):
            raise AssertionError(f"expected mate in 2, got {score}")
        if not pv:
            raise AssertionError("no pv in analysis")
        check_pv(board, pv, "mate in 2")
        after = board.copy()
        for m in pv[:3]:
            after.push(m)
        if not after.is_checkmate():
            raise AssertionError(f"pv {pv} does not mate in 2")

        engine.configure({"cores": 2})

        # Restricted root: exclude all, include one quiet move.
        analyse_only(engine, chess.Board(), chess.Move.from_uci("a2a3"), "restricted")

        # Fischer random castling through the protocol: python-chess sends
        # "include O-O" and reads the engine's pv, written O-O.
        board = chess.Board("1r2k2r/8/8/8/8/8/8/1R2K2R w HBhb - 0 1", chess960=True)
        castle = next(m for m in board.legal_moves if board.is_kingside_castling(m))
        analyse_only(engine, board, castle, "fischerandom castling")

        # A streaming analysis: several thinking lines, deepening.
        depths = []
        with engine.analysis(chess.Board(), chess.engine.Limit(time=0.5)) as analysis:
            for info in analysis:
                if "depth" in info:
                    depths.append(info["depth"])
                    check_pv(chess.Board(), info.get("pv", []), "stream")
        print(f"streamed depths: {depths}")
        if len(depths) < 3 or depths != sorted(depths):
            raise AssertionError(f"expected deepening thinking output, got {depths}")

        # A node limit: python-chess sends "nps 1" and "st NODES".
        board = chess.Board()
        result = engine.play(board, chess.engine.Limit(nodes=200000), info=chess.engine.INFO_ALL)
        nodes = result.info.get("nodes", 0)
        print(f"node limit 200000: {result.move}, {nodes} nodes reported")
        if result.move not in board.legal_moves:
            raise AssertionError(f"illegal move {result.move} under a node limit")
        if nodes > 200000 + 5000:
            raise AssertionError(f"node limit exceeded: {nodes}")

        # And play on in Chess960 with the same process.
        board = chess.Board.from_chess960_pos(0)
        for _ in range(6):
            result = engine.play(board, chess.engine.Limit(time=0.05))
            if result.move not in board.legal_moves:
                raise AssertionError(f"illegal move {result.move} in {board.fen()}")
            board.push(result.move)
        print(f"fischerandom after analysis: {board.fen()}")
    complaints.check("analysis")
    return 0


if __name__ == "__main__":
    sys.exit(main())
