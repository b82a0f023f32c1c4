#!/usr/bin/env python3
"""Analysis and configuration through python-chess's UCI client (issue
acceptance 1).

Usage: uci_analyse.py <path to ndchess>

- the options python-chess reads from `uci`, with their ranges;
- `configure` Hash and Threads (then a search still works);
- `analyse` with MultiPV 3: three lines with different first moves, every
  pv legal (python-chess parses each move against its own generator);
- UCI_ShowWDL: python-chess reads the `wdl` field;
- an infinite `analysis` stopped by the client;
- a game move with pondering;
- a mated position: `bestmove (none)`.
Any warning or error python-chess logs about the engine fails the run.
"""

import sys

import chess
import chess.engine

from harness import Complaints


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def main():
    engine_path = sys.argv[1]
    complaints = Complaints()
    with chess.engine.SimpleEngine.popen_uci([engine_path]) as engine:
        opts = engine.options
        for name in ["Hash", "Threads", "MultiPV", "Move Overhead", "Dimension", "EdgeLength"]:
            check(name in opts and opts[name].type == "spin", f"spin option {name}: {opts.get(name)}")
            check(opts[name].min is not None and opts[name].max is not None, f"{name} has min/max")
        for name in ["Ponder", "UCI_Chess960", "UCI_ShowWDL"]:
            check(opts[name].type == "check", f"check option {name}")
        check(opts["Clear Hash"].type == "button", "Clear Hash is a button")
        variants = opts["UCI_Variant"].var
        for v in ["chess", "chess960", "cylinder", "torus", "diamond", "cylinder-diamond", "cube"]:
            check(v in variants, f"UCI_Variant lists {v}: {variants}")
        print(f"options: {len(opts)}, variants: {' '.join(variants)}")

        engine.configure({"Hash": 32, "Threads": 2})
        engine.ping()

        board = chess.Board()
        board.push_san("e4")
        infos = engine.analyse(board, chess.engine.Limit(depth=8), multipv=3)
        check(len(infos) == 3, f"three lines: {infos}")
        firsts = set()
        for i, info in enumerate(infos, 1):
            check(info.get("multipv") == i, f"multipv {i}: {info}")
            check("score" in info and info.get("depth", 0) >= 8, f"score and depth: {info}")
            pv = info.get("pv", [])
            check(pv, f"pv present: {info}")
            firsts.add(pv[0])
            print(f"multipv {i}: {info['score'].relative} {board.variation_san(pv)}")
        check(len(firsts) == 3, f"three different first moves: {firsts}")

        engine.configure({"UCI_ShowWDL": True, "Threads": 1, "Hash": 16})
        info = engine.analyse(board, chess.engine.Limit(depth=6))
        wdl = info.get("wdl")
        check(wdl is not None and wdl.relative.total() == 1000, f"wdl parsed: {info}")
        print(f"wdl at depth 6: {wdl.relative}")

        with engine.analysis(chess.Board()) as analysis:
            for info in analysis:
                if info.get("depth", 0) >= 7 and "pv" in info:
                    break
        best = analysis.wait().move
        check(best in chess.Board().legal_moves, f"bestmove after stop: {best}")
        print(f"infinite analysis stopped at depth >= 7, bestmove {best}")

        result = engine.play(board, chess.engine.Limit(time=0.1), ponder=True)
        check(result.move in board.legal_moves, "ponder game move legal")
        after = board.copy()
        after.push(result.move)
        check(result.ponder is None or result.ponder in after.legal_moves, "ponder move legal")
        # The next request stops the ponder search and starts a new one.
        after.push(result.ponder or next(iter(after.legal_moves)))
        result = engine.play(after, chess.engine.Limit(time=0.05))
        check(result.move in after.legal_moves, "move after pondering legal")
        print(f"pondering: played {result.move}")

        mated = chess.Board("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1")
        check(mated.is_checkmate(), "test position is mate")
        result = engine.play(mated, chess.engine.Limit(depth=3))
        check(result.move is None, f"no move when mated: {result}")
        engine.ping()
    check(not complaints.records, f"python-chess complained: {complaints.records}")
    print("python-chess analysis and configuration: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
