"""What the python-chess test scripts share: collecting python-chess's
complaints about the engine, checking a pv, and playing a full game.

The scripts run with tests/python/ as their own directory on sys.path
(python puts a script's directory first), so `import harness` works.
"""

import logging

# A game without a result by the rules after this many plies means the
# engine or the driver is broken (the fifty-move rule alone ends every
# game long before: at most ~100 plies without a pawn move or capture).
MAX_PLIES = 1200


class Complaints(logging.Handler):
    """Collects what python-chess logs at WARNING and above, except the
    messages a script names as expected (each with its reason there)."""

    def __init__(self, expected=()):
        super().__init__(level=logging.WARNING)
        self.expected = tuple(expected)
        self.records = []
        logging.getLogger("chess.engine").addHandler(self)

    def emit(self, record):
        text = self.format(record)
        if not any(e in text for e in self.expected):
            self.records.append(text)

    def check(self, label):
        if self.records:
            raise AssertionError(f"{label}: python-chess complained: {self.records}")


def check_pv(board, pv, label):
    """Every move of `pv` is legal from `board` (python-chess's generator)."""
    probe = board.copy()
    for m in pv:
        if m not in probe.legal_moves:
            raise AssertionError(f"{label}: illegal pv move {m} in {probe.fen()}")
        probe.push(m)


def play_game(engine, board, label, limit, complaints):
    """Plays `board` to its end by the rules with `engine` moving for both
    sides; every move and pv is checked. Returns the board and the number
    of draw offers the engine made (XBoard; always 0 over UCI)."""
    import chess.engine

    plies = 0
    offers = 0
    while not board.is_game_over(claim_draw=True):
        if plies >= MAX_PLIES:
            raise AssertionError(f"{label}: no result after {plies} plies")
        result = engine.play(board, limit, info=chess.engine.INFO_ALL)
        if result.resigned:
            raise AssertionError(f"{label}: the engine resigned")
        offers += result.draw_offered
        if result.move is None:
            raise AssertionError(f"{label}: no move in a live position {board.fen()}")
        if result.move not in board.legal_moves:
            raise AssertionError(f"{label}: illegal move {result.move} in {board.fen()}")
        check_pv(board, result.info.get("pv", []), label)
        board.push(result.move)
        plies += 1
    outcome = board.outcome(claim_draw=True)
    complaints.check(label)
    print(
        f"{label}: {board.result(claim_draw=True)} ({outcome.termination.name.lower()}) "
        f"after {plies} plies, {offers} draw offers"
    )
    return board, offers


def count_castlings(played):
    """Castling moves in the game `played` (a board with its move stack)."""
    replay = played.root()
    castlings = 0
    for m in played.move_stack:
        castlings += replay.is_castling(m)
        replay.push(m)
    return castlings
