"""Browser test of `ndchess serve` in a real Chromium (tests/gui/browser.rs).

Usage: gui_browser.py URL NDCHESS OUTDIR

Drives the page as a person would: chooses variants, clicks pieces and
targets, types moves, resigns, imports a PGN, exports PGN and SVG. Checks:
- the highlighted targets of a clicked piece are exactly the destinations of
  that piece's moves in the engine's own move list (`ndchess perft --divide`
  run as a separate process on the page's position text) and, for chess,
  python-chess's legal moves;
- the engine answers, games end by mate and by resignation, a synchronous
  turn is committed and revealed, a PGN import reaches the position
  python-chess reaches, the exported PGN replays in python-chess, the
  exported SVG parses as XML with one cell per board cell;
- bad input (a malformed typed move) is shown as an error and changes
  nothing.
Screenshots (PNG) of every board go to OUTDIR. Exits non-zero on failure.
"""

import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import chess
import chess.pgn
from playwright.sync_api import sync_playwright

URL, NDCHESS, OUTDIR = sys.argv[1], sys.argv[2], sys.argv[3]
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
os.makedirs(OUTDIR, exist_ok=True)
SVG_NS = "{http://www.w3.org/2000/svg}"


def log(*args):
    print("gui_browser:", *args, flush=True)


def state(page):
    return page.evaluate("window.ndchess.state")


def new_game(page, spec, humans="0", fen="", movetime="100", depth="", tc=""):
    count = page.evaluate("window.ndchess.messages")
    page.fill("#tc", tc)
    page.fill("#variant", spec)
    page.fill("#fen", fen)
    page.fill("#humans", humans)
    page.fill("#movetime", movetime)
    page.fill("#depth", depth)
    page.click("#new")
    # The new game's state has arrived and it is a person's turn (or over).
    page.wait_for_function(
        "([spec, count]) => window.ndchess.messages > count && window.ndchess.state"
        " && window.ndchess.state.spec === spec && window.ndchess.state.history.length === 0"
        " && (window.ndchess.state.asking !== null || window.ndchess.state.result !== null)",
        arg=[spec, count],
        timeout=60000,
    )
    return state(page)


def divide(spec, fen):
    """The engine's root moves of `fen`, from a separate process."""
    out = subprocess.run(
        [NDCHESS, "perft", "--variant", spec, "--fen", fen, "--depth", "1", "--divide"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    moves = set()
    for line in out.splitlines():
        if ":" in line and not line.startswith("Nodes"):
            mv, _, n = line.partition(":")
            if n.strip().isdigit():
                moves.add(mv.strip())
    return moves


def cell_of(page, name):
    return int(page.get_attribute(f'#board rect[data-name="{name}"]', "data-cell"))


def name_of(page, cell):
    return page.get_attribute(f"#c{cell}", "data-name")


def click_and_count(page, spec, from_cell):
    """Clicks the piece on `from_cell`; checks the highlighted targets
    against the engine's move list; returns the targets' cells."""
    st = state(page)
    page.click(f"#c{from_cell}")
    highlighted = sorted(
        int(x) for x in page.eval_on_selector_all("#board rect.target", "els => els.map(e => e.dataset.cell)")
    )
    listed = sorted({l["to"] for l in st["legal"] if l["from"] == from_cell})
    assert highlighted == listed, f"{spec}: highlighted {highlighted} but the page's list says {listed}"
    texts = {l["text"] for l in st["legal"] if l["from"] == from_cell}
    if not st["simultaneous"]:
        start = name_of(page, from_cell)
        # The engine's moves from this cell (a name followed by a digit is
        # a longer cell name: a10 is not a1).
        engine = {m for m in divide(spec, st["fen"]) if m.startswith(start) and not m[len(start)].isdigit()}
        assert texts == engine, f"{spec}: the page offers {sorted(texts)}, the engine {sorted(engine)}"
    log(f"{spec}: {name_of(page, from_cell)} has {len(highlighted)} highlighted targets, as listed")
    return highlighted


def play_click(page, spec, from_name=None, to_name=None, expect_plies=2):
    """Plays a move by two clicks (the first legal move if none is named)
    and waits for the record to grow by `expect_plies` or the game to end."""
    st = state(page)
    before = len(st["history"])
    if from_name is None:
        first = next(l for l in st["legal"] if l["from"] is not None)
        from_cell, to_cell = first["from"], first["to"]
    else:
        from_cell, to_cell = cell_of(page, from_name), cell_of(page, to_name)
    targets = click_and_count(page, spec, from_cell)
    assert to_cell in targets, f"{spec}: {to_name} is not highlighted"
    page.click(f"#c{to_cell}")
    if page.is_visible("#promo"):
        page.click("#promo button >> nth=0")
    page.wait_for_function(
        "([n, k]) => { const s = window.ndchess.state; return s.result !== null"
        " || (s.history.length >= n + k && (s.asking !== null || s.result !== null)); }",
        arg=[before, expect_plies],
        timeout=120000,
    )
    return state(page)


def shot(page, name):
    path = os.path.join(OUTDIR, name + ".png")
    page.locator("#board").screenshot(path=path)
    log("screenshot", path)


def python_chess_targets(fen, square_name):
    board = chess.Board(fen)
    sq = chess.parse_square(square_name)
    return {chess.square_name(m.to_square) for m in board.legal_moves if m.from_square == sq}


def main():
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1700, "height": 1100}, accept_downloads=True)
        page.on("pageerror", lambda e: (_ for _ in ()).throw(AssertionError(f"page error: {e}")))
        page.goto(URL)
        page.wait_for_function("window.ndchess && window.ndchess.state !== null", timeout=30000)

        # Chess against the engine: targets checked against python-chess too.
        st = new_game(page, "chess")
        assert len(st["legal"]) == 20
        for sq in ["e2", "g1"]:
            cell = cell_of(page, sq)
            page.click(f"#c{cell}")
            shown = {name_of(page, int(c)) for c in page.eval_on_selector_all(
                "#board rect.target", "els => els.map(e => e.dataset.cell)")}
            assert shown == python_chess_targets(st["fen"], sq), (sq, shown)
            page.click(f"#c{cell}")  # deselect
        st = play_click(page, "chess", "e2", "e4")
        assert st["history"][0]["text"] == "e4", st["history"]
        st = play_click(page, "chess", "g1", "f3")
        board = chess.Board()
        for step in st["history"]:
            board.push_san(step["text"])
        assert board.fen().split(" ")[:4] == st["fen"].split(" ")[:4], (board.fen(), st["fen"])
        shot(page, "chess")

        # Analysis: two lines live, a PV move shown on the board, back.
        page.fill("#multipv", "2")
        page.click("#analyse")
        page.wait_for_function("document.querySelectorAll('#info .line').length >= 2", timeout=60000)
        page.wait_for_function("document.querySelectorAll('#info .pv span').length >= 3", timeout=60000)
        fen_game = state(page)["fen"]
        page.click("#info .line >> nth=0 >> .pv span >> nth=0")
        page.wait_for_selector("#preview-bar", state="visible")
        assert page.inner_text("#fen-line") != fen_game, "the preview shows another position"
        page.screenshot(path=os.path.join(OUTDIR, "page-analysis.png"))
        page.click("#back")
        page.wait_for_selector("#preview-bar", state="hidden")
        page.click("#analyse")
        page.wait_for_function("!window.ndchess.state.analysing")
        assert state(page)["fen"] == fen_game, "analysis and previews change nothing"
        log("analysis: two lines shown, a PV move previewed")

        # Bad input: a malformed typed move is refused, nothing changes.
        fen_before = state(page)["fen"]
        errors_before = len(page.evaluate("window.ndchess.errors"))
        page.fill("#move-text", "zz9")
        page.click("#play")
        page.wait_for_function(f"window.ndchess.errors.length > {errors_before}")
        assert page.inner_text("#error").strip() != ""
        assert state(page)["fen"] == fen_before
        # A typed move in SAN works.
        before = len(state(page)["history"])
        page.fill("#move-text", "d4")
        page.click("#play")
        page.wait_for_function(
            f"window.ndchess.state.history.length >= {before + 2} || window.ndchess.state.result !== null",
            timeout=120000,
        )

        # Resignation.
        page.click("#resign")
        page.wait_for_function("window.ndchess.state.result !== null")
        st = state(page)
        assert st["result"] == "0-1" and "resign" in st["reason"], st["result"]

        # Clocks: the engine thinks by its clock; a person who does not move
        # loses on time.
        st = new_game(page, "chess", tc="0:3+0")
        assert st["clocks_ms"] and st["clocks_running"] == [0], st["clocks_ms"]
        st = play_click(page, "chess", "e2", "e4")
        assert st["clocks_ms"][0] < 3000 and st["clocks_ms"][1] < 3000, st["clocks_ms"]
        assert "white" in page.inner_text("#clocks")
        page.wait_for_function("window.ndchess.state.result !== null", timeout=30000)
        st = state(page)
        assert st["result"] == "0-1" and "on time" in st["reason"], (st["result"], st["reason"])
        log("clocks: the engine moved by its clock, the person lost on time")

        # A game finished by mate, clicked on the board.
        st = new_game(page, "chess", fen="6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1")
        st = play_click(page, "chess", "a1", "a8", expect_plies=1)
        assert st["result"] == "1-0" and "mate" in st["reason"], (st["result"], st["reason"])
        shot(page, "chess-mate")

        # The 3-D diamond, the cube and the 4-D diamond, clicked.
        for spec, name in [("diamond:n=3", "diamond3"), ("cube", "cube"), ("diamond:n=4", "diamond4")]:
            st = new_game(page, spec, movetime="200")
            st = play_click(page, spec)
            assert len(st["history"]) == 2, (spec, st["history"])
            st = play_click(page, spec)
            assert len(st["history"]) == 4, (spec, st["history"])
            assert st["cells"] == page.locator("#board rect[data-cell]").count()
            shot(page, name)
            page.screenshot(path=os.path.join(OUTDIR, "page-" + name + ".png"))

        # A synchronous turn: the person commits, the engine decides
        # without seeing it, the turn is revealed.
        st = new_game(page, "synchronous", movetime="200")
        assert st["simultaneous"] and st["asking"] == 0
        st = play_click(page, "synchronous", "e2", "e4", expect_plies=1)
        assert st["reveal"] and st["reveal"].startswith("e2e4|"), st["reveal"]
        assert "revealed" in page.inner_text("#reveal")
        shot(page, "synchronous")

        # PGN import: the page reaches the position python-chess reaches.
        pgn = '[Event "import"]\n\n1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 a6 *\n'
        new_game(page, "chess", humans="0,1")
        page.fill("#pgn-text", pgn)
        page.click("#import-pgn")
        page.wait_for_function("window.ndchess.state.history.length === 10")
        game = chess.pgn.read_game(__import__("io").StringIO(pgn))
        board = game.end().board()
        assert board.fen().split(" ")[:4] == state(page)["fen"].split(" ")[:4]
        shot(page, "pgn-import")

        # PGN export replays in python-chess to the same position.
        with page.expect_download() as d:
            page.click("#export-pgn")
        path = os.path.join(OUTDIR, "export.pgn")
        d.value.save_as(path)
        with open(path) as f:
            exported = chess.pgn.read_game(f)
        assert exported.end().board().fen() == board.fen(), exported.end().board().fen()

        # Watch: a match published by the arbiter shows live, with clocks
        # and the crosstable.
        page.click("#watch")
        match = subprocess.Popen(
            [NDCHESS, "match", "-engine", f"cmd={NDCHESS}", "name=first", "-engine", f"cmd={NDCHESS}",
             "name=second", "-each", "tc=3+0.05", "-variant", "diamond:n=3", "-games", "2",
             "-maxmoves", "12", "-publish", URL],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        page.wait_for_function(
            "window.ndchess.watched.filter(g => g.result !== null).length >= 2"
            " && window.ndchess.standings.includes('2 of 2')",
            timeout=300000,
        )
        out, _ = match.communicate(timeout=120)
        assert match.returncode == 0, out
        assert "cannot reach" not in out and "went away" not in out, out
        watched = page.evaluate("window.ndchess.watched")
        assert all(g["clocks"] and len(g["clocks_ms"]) == 2 for g in watched), watched
        assert "first" in page.inner_text("#watch-info") or "second" in page.inner_text("#watch-info")
        page.locator("#watch-area").screenshot(path=os.path.join(OUTDIR, "watch.png"))
        log("watched", len(watched), "published games to their end")
        page.click("#watch")

        # SVG export parses as XML with one cell per board cell.
        with page.expect_download() as d:
            page.click("#export-svg")
        path = os.path.join(OUTDIR, "export.svg")
        d.value.save_as(path)
        root = ET.parse(path).getroot()
        rects = [e for e in root.iter(SVG_NS + "rect") if "data-cell" in e.attrib]
        assert len(rects) == 64, len(rects)
        pieces = [e for e in root.iter(SVG_NS + "g") if e.attrib.get("class") == "piece"]
        assert len(pieces) == len(board.piece_map()), (len(pieces), len(board.piece_map()))
        page.goto("file://" + os.path.abspath(path))
        page.screenshot(path=os.path.join(OUTDIR, "export-svg.png"))
        browser.close()
    log("all checks passed")


if __name__ == "__main__":
    main()
