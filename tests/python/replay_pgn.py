"""Replays an arbiter PGN with python-chess (an independent chess
implementation) and checks every move and every result.

For each game: every move must be legal on python-chess's board (a move
python-chess rejects makes the PGN reader record an error); a game whose
Termination is "normal" must end in a position python-chess also calls
over, with the same result (draws by repetition and the fifty-move rule
count as claimable); any other game must not be over on python-chess's
board before its last move.

Prints one line per game and exits 1 when any game disagrees.
Usage: python3 replay_pgn.py FILE.pgn
"""
import sys

import chess
import chess.pgn


def main(path):
    bad = 0
    n = 0
    with open(path, encoding="utf-8") as f:
        while True:
            game = chess.pgn.read_game(f)
            if game is None:
                break
            n += 1
            problems = [str(e) for e in game.errors]
            board = game.board()
            moves = list(game.mainline_moves())
            for i, m in enumerate(moves):
                if not board.is_legal(m):
                    problems.append(f"ply {i + 1}: {m} is illegal")
                    break
                if board.is_game_over(claim_draw=False) and i < len(moves):
                    problems.append(f"the game was over before ply {i + 1}")
                    break
                board.push(m)
            if int(game.headers.get("PlyCount", len(moves))) != len(moves):
                problems.append("PlyCount differs from the moves read")
            result = game.headers.get("Result")
            term = game.headers.get("Termination", "normal")
            outcome = board.outcome(claim_draw=True)
            resigned = game.end().comment.strip().endswith(" resigns")
            if term == "normal" and resigned:
                if outcome is not None and board.is_game_over(claim_draw=False):
                    problems.append("a resignation in a finished game")
            elif term == "normal":
                if outcome is None:
                    problems.append(f"Result {result} but python-chess sees no end")
                elif outcome.result() != result:
                    problems.append(
                        f"Result {result} but python-chess gives {outcome.result()}"
                        f" ({outcome.termination.name})")
            elif board.outcome(claim_draw=False) is not None:
                problems.append(f"Termination {term} but the rules ended the game")
            status = "ok" if not problems else "BAD " + "; ".join(problems)
            bad += bool(problems)
            print(f"game {n}: {len(moves)} plies, {result}, {term}: {status}")
    print(f"{n} games, {bad} disagree")
    return 1 if bad or n == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
