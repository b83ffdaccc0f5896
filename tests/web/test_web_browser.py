"""The pages in a real browser: Debian's chromium driven by Playwright, against `aviary serve`.

Every registered board game is played to its end by clicks (or arrow keys) against
the engine at 0.1 s a move, with a move limit so that any game ends soon; every game
comes back after a reload and from its link in a fresh browser; the same flows run
on a 390x844 touch screen and by keyboard alone; axe-core checks every page. No page
may raise an error or log one to the console. Screenshots of each page, desktop and
phone, are kept in out/screenshots/. Skips when chromium is not installed (CI
installs it: .ci/run).
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from conftest import endgame_board
from PIL import Image

from aviary.games import registry

CHROMIUM = os.environ.get("AVIARY_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
SCREENSHOTS = Path(__file__).resolve().parents[2] / "out" / "screenshots"
BOARD_GAMES = [spec.name for spec in registry.board_games()]
PAGE_GAMES = [spec.name for spec in registry.TOOLS.values() if spec.web is not None]
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True,
         "device_scale_factor": 1}
DESKTOP = {"viewport": {"width": 1280, "height": 820}}
FAILED_LOAD = "Failed to load resource: the server responded with a status of 4"

if not Path(CHROMIUM).exists():
    if os.environ.get("CI"):  # CI installs it (.ci/run): missing there is a failure
        raise RuntimeError(f"CI: chromium not found at {CHROMIUM}; .ci/run installs it")
    pytest.skip("Debian's chromium is not installed (apt-get install chromium)",
                allow_module_level=True)
pytestmark = pytest.mark.slow
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def serve(folder: Path, *options: str, port: int | None = None):
    """Start `aviary serve OPTIONS` in a child process; (its URL, the process, its log)."""
    port = port or free_port()
    log = (folder / "serve.log").open("w")
    process = subprocess.Popen(
        [sys.executable, "-m", "aviary", "serve", "--port", str(port), *options],
        stdout=log, stderr=subprocess.STDOUT, env={**os.environ})
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while True:
        try:
            with urllib.request.urlopen(url + "/api/games", timeout=2):
                break
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                pytest.fail(f"aviary serve did not start: {(folder / 'serve.log').read_text()}")
            time.sleep(0.2)
    return url, process, log


@pytest.fixture(scope="module")
def bare_server(session_cache, tmp_path_factory):
    """`aviary serve` started without a classifier or an arena database."""
    url, process, log = serve(tmp_path_factory.mktemp("bare"), "--workers", "1")
    yield url
    process.terminate()
    process.wait(timeout=30)
    log.close()


@pytest.fixture(scope="module")
def server(session_cache, arena_db, tmp_path_factory):
    """`aviary serve` in a child process, as a user starts it."""
    folder = tmp_path_factory.mktemp("serve")
    train = folder / "train.txt"
    train.write_text("".join(
        f"{label} {text}\n" for label, text in [
            ("Boston,_MA", "wicked cold in boston harbor today fenway"),
            ("Boston,_MA", "red sox at fenway park tonight boston"),
            ("Boston,_MA", "commuting on the T in boston again"),
            ("Chicago,_IL", "deep dish pizza in chicago loop"),
            ("Chicago,_IL", "windy city cubs at wrigley chicago"),
            ("Chicago,_IL", "lake michigan shore chicago morning"),
        ] * 3))
    url, process, log = serve(folder, "--workers", "4", "--classify-train", str(train),
                              "--arena", str(arena_db), "--upload-mb", "1")
    yield url
    process.terminate()
    process.wait(timeout=30)
    log.close()


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, headless=True)
        yield launched
        launched.close()


class Watched:
    """Opens pages in fresh browser contexts and keeps every page error and console error."""

    def __init__(self, browser) -> None:
        self.browser = browser
        self.contexts: list = []
        self.errors: list[str] = []
        self.allowed: tuple[str, ...] = ()

    def open(self, **settings):
        context = self.browser.new_context(**(settings or DESKTOP))
        context.set_default_timeout(180_000)  # a cold table build or compile on a loaded machine
        self.contexts.append(context)
        opened = context.new_page()
        opened.on("pageerror", lambda error: self.errors.append(f"page error: {error}"))
        opened.on("console", lambda message: self.errors.append(f"console: {message.text}")
                  if message.type == "error" and not message.text.startswith(self.allowed)
                  else None)
        return opened

    def close(self) -> None:
        for context in self.contexts:
            context.close()


@pytest.fixture
def browse(browser):
    watched = Watched(browser)
    yield watched
    watched.close()
    assert not watched.errors, f"errors on the page: {watched.errors}"


@pytest.fixture
def page(browse):
    return browse.open()


@pytest.fixture
def phone(browse):
    return browse.open(**PHONE)


def shot(page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


def serious_violations(page) -> list[str]:
    """axe-core's serious and critical findings on the page as it is now."""
    from axe_playwright_python.sync_playwright import Axe

    found = Axe().run(page).response["violations"]
    return [f"{v['id']} ({v['impact']}): {v['help']}: "
            f"{[n['target'] for n in v['nodes']][:3]}"
            for v in found if v["impact"] in ("serious", "critical")]


def played(page) -> list[str]:
    """The move list's plies as the page shows them."""
    return page.locator("#move-list button.ply").all_inner_texts()


def wait_for_turn(page, decisions: int) -> str:
    """Wait until a person is to move (or the game is over) after `decisions` moves."""
    page.wait_for_function(
        """(before) => {
             const board = document.getElementById('board');
             return board.dataset.turn === 'over' ||
               (board.dataset.turn === 'human' && Number(board.dataset.decisions) !== before);
           }""", arg=decisions, timeout=120_000)
    return page.locator("#board").get_attribute("data-turn")


def play_one_move(page) -> None:
    """Make the first offered move as a person would: a key, a piece then its square, a button."""
    first = page.locator("#moves .move-button").first.get_attribute("data-move")
    keys = page.evaluate("() => view.keys")
    key = next((k for k, text in keys.items() if text == first), None)
    if key is not None:
        page.keyboard.press(key)
    elif page.locator(".cell.movable").count():
        page.locator(".cell.movable").first.click()
        page.locator(".cell.target").first.click()
    elif page.locator(".cell.target").count():
        page.locator(".cell.target").first.click()
    else:
        page.click("#legal summary")
        page.locator("#moves .move-button").first.click()


def test_the_index_lists_every_board_game_and_the_tools(page, server):
    page.goto(server + "/")
    page.wait_for_selector("#games li")
    titles = page.locator("#games li a").all_inner_texts()
    assert len(titles) == len(BOARD_GAMES)
    assert page.locator("a[href='/classify']").count() == 1
    page.wait_for_selector("#arena-state:has-text('Ready')")
    assert page.locator("#classify-state").inner_text() == "Ready: 2 classes."
    shot(page, "index")


@pytest.mark.parametrize("name", BOARD_GAMES)
def test_a_game_is_played_to_its_end_by_clicks_against_the_engine(page, server, name):
    page.goto(f"{server}/play/{name}?seconds=0.1&max_plies=40")
    decisions = -1
    for _ in range(200):
        if wait_for_turn(page, decisions) == "over":
            break
        decisions = int(page.locator("#board").get_attribute("data-decisions"))
        play_one_move(page)
    result = page.locator("#result").inner_text()
    assert result.startswith("Result: ")
    assert len(played(page)) >= 2  # the person moved and the engine answered
    assert page.locator("#thinking").inner_text().count("depth") >= 1
    shot(page, f"play-{name}")


def test_pikachu_endgame_pasted_then_won_by_the_engine(page, server):
    page.goto(f"{server}/play/pikachu?n=7&seconds=0.2")
    page.wait_for_selector(".cell.movable")
    page.fill("#position-board", endgame_board())
    page.select_option("#position-player", "w")
    page.click("#paste")
    page.wait_for_function("() => view.board.indexOf('B') === 45")
    assert page.locator(".cell .piece").count() == 3
    page.click(".cell[data-cell='3']")  # the white Pichu on d1
    targets = sorted(int(c) for c in page.locator(".cell.target").evaluate_all(
        "cells => cells.map(c => c.dataset.cell)"))
    assert targets == [2, 4, 10]  # c1, e1, d2: the rules' destinations
    page.click(".cell[data-cell='10']")
    page.wait_for_function("() => document.getElementById('result').dataset.over === 'yes'")
    assert page.locator("#result").inner_text() == "Result: b wins (captured-all)"
    assert played(page) == ["d1-d2", "d7-d1"]
    # the engine's winning move is highlighted and its score is a win for b, labelled so
    lit = page.locator(".cell.last").evaluate_all("cells => cells.map(c => c.dataset.cell)")
    assert sorted(int(c) for c in lit) == [3, 45]
    assert "b wins in" in page.locator("#eval-text").inner_text()
    assert "for w (moves first)" in page.locator("#eval-text").inner_text()
    shot(page, "pikachu-endgame")
    # undo after the engine's win: back to before the person's move, and play goes on
    page.click("#undo")
    page.wait_for_function("() => view.decisions === 0 && document.getElementById('board')"
                           ".dataset.turn === 'human'")
    assert page.locator("#result").inner_text() == ""
    page.click(".cell[data-cell='3']")
    page.click(".cell[data-cell='2']")  # d1-c1 this time
    wait_for_turn(page, 0)
    assert played(page)[0] == "d1-c1" and len(played(page)) >= 2  # the engine answered


def test_undo_flip_and_copy_work_on_the_page(browse, page, server):
    browse.allowed = (FAILED_LOAD,)  # the refused paste below: the browser logs its 400
    page.goto(f"{server}/play/pikachu?n=7&seconds=0.1")
    page.wait_for_selector(".cell.movable")
    start = page.evaluate("() => view.board")
    # your side (w, whose Pichus start on the first rows of the board text) at the bottom
    assert page.locator("#board .cell").first.get_attribute("data-cell") == "48"
    assert page.locator("#board .cell").last.get_attribute("data-cell") == "0"
    page.click("#flip")
    assert page.locator("#board .cell").first.get_attribute("data-cell") == "0"
    play_one_move(page)
    wait_for_turn(page, 0)
    assert page.locator("#board").get_attribute("data-decisions") == "2"
    assert page.locator("#undo").is_enabled() and page.locator("#move-now").is_disabled()
    assert page.locator("#move-now").evaluate("b => getComputedStyle(b).opacity") != "1"
    page.click("#undo")
    page.wait_for_function("() => view.decisions === 0")
    assert page.evaluate("() => view.board") == start
    assert page.input_value("#position-board") == start
    page.fill("#position-board", "nonsense")
    page.click("#paste")
    page.wait_for_function("() => document.getElementById('error').textContent !== ''")
    assert "not a pikachu position" in page.locator("#error").inner_text()
    assert page.evaluate("() => view.board") == start


def test_engine_against_engine_and_move_now(page, server):
    page.goto(f"{server}/play/pikachu?n=7&seconds=30&side=none&max_plies=2")
    thinking = "() => document.getElementById('board').dataset.thinking === 'yes'"
    reported = "() => document.getElementById('thinking').textContent.includes('depth')"
    page.wait_for_function(thinking)
    page.wait_for_function(reported)
    page.click("#move-now")
    page.wait_for_function("() => view.decisions >= 1")
    page.wait_for_function(thinking)
    page.wait_for_function(reported)
    page.click("#move-now")
    page.wait_for_function("() => document.getElementById('result').dataset.over === 'yes'")
    assert "move-limit" in page.locator("#result").inner_text()


def test_sebastian_a_whole_game_following_the_advice_then_replayed(page, server):
    page.goto(server + "/sebastian")
    page.wait_for_selector("#scorecard tr.category")
    for turn in range(13):
        for roll in (1, 2, 3):
            page.click("#roll")
            page.wait_for_function(f"() => document.getElementById('roll-number').textContent"
                                   f" === '{roll}' && document.querySelector('#advice tbody tr')")
            if roll < 3:
                page.click("#advice tbody tr.best")  # marks the dice the advice rerolls
                marked = page.locator(".die.reroll").count()
                assert page.locator("#roll").inner_text() == f"Reroll {marked} dice"
        if turn == 6:
            shot(page, "sebastian")
        page.click("#advice tbody tr.best")  # the best category
        page.wait_for_function(f"() => document.querySelectorAll('#scorecard tr.category')"
                               f".length === {12 - turn}")
    page.wait_for_selector("#result:has-text('Final score')")
    total = int(page.locator("#total").inner_text())
    assert page.locator("#result").inner_text() == f"Final score: {total}"
    assert page.locator("#log li").count() == 13 * 4  # three rolls and a category a turn
    page.click("#replay-next")
    assert page.locator("#replay-position").inner_text() == "step 2 of 52"
    assert page.locator("#replay-step").inner_text().startswith("roll 2: ")
    shot(page, "sebastian-end")


def test_classify_a_typed_tweet_shows_its_class_and_the_words_behind_it(page, server):
    page.goto(server + "/classify")
    page.wait_for_selector("#classes:has-text('Classes:')")
    page.fill("#text", "deep dish pizza by the lake in chicago")
    page.click("#classify")
    page.wait_for_selector("#evidence tr[data-token='chicago']")
    assert page.locator("#answer").inner_text().startswith("Chicago,_IL (P = ")
    assert page.locator("#evidence tr[data-token='chicago'] .bar").count() == 1
    shot(page, "classify")


def test_horizon_upload_then_click_draws_the_three_lines(browse, page, server, tmp_path):
    browse.allowed = (FAILED_LOAD,)  # the refused upload below: the browser logs its 413
    from aviary.horizon import synthetic

    photo = synthetic.generate(5, height=192, width=256)
    path = tmp_path / "ridge.png"
    Image.fromarray(photo.rgb).save(path)
    page.goto(server + "/horizon")
    page.wait_for_selector("#limit:has-text('MB')")
    page.set_input_files("#photo", str(path))
    page.wait_for_selector("#canvas[data-lines='simple map']")
    box = page.locator("#canvas").bounding_box()
    col, row = 100, int(photo.ridge[100])
    page.mouse.click(box["x"] + col * box["width"] / 256, box["y"] + row * box["height"] / 192)
    page.wait_for_selector("#canvas[data-lines='simple map human']")
    assert "human line through row" in page.locator("#status").inner_text()
    shot(page, "horizon")
    big = tmp_path / "big.bin"
    big.write_bytes(b"\0" * (2 * 1024 * 1024))
    page.set_input_files("#photo", str(big))
    page.wait_for_selector("#error:has-text('too large')")


def test_arena_standings_and_a_game_replayed_move_by_move(page, server):
    page.goto(server + "/arena")
    page.wait_for_selector("#standings tbody tr")
    assert page.locator("#standings tbody tr").count() == 2
    assert page.locator("#games tbody tr").count() == 4
    page.wait_for_selector("#ply:has-text('ply 0')")
    page.click("#next")
    assert page.locator("#ply").inner_text().startswith("ply 1 of ")
    page.click("#last")
    page.wait_for_selector("#result:has-text('Result:')")
    assert re.fullmatch(r"Result: (1-0|0-1|1/2-1/2) \([a-z-]+\)",
                        page.locator("#result").inner_text())
    shot(page, "arena")


# --- a game that lasts ----------------------------------------------------------------


def play_moves(page, count: int) -> None:
    """`count` moves by the person (the engine answering each), from a fresh page."""
    decisions = -1
    for _ in range(count):
        if wait_for_turn(page, decisions) == "over":
            return
        decisions = int(page.locator("#board").get_attribute("data-decisions"))
        play_one_move(page)
    wait_for_turn(page, decisions)


def game_shown(page) -> tuple[str, list[str]]:
    page.wait_for_function("() => view && document.getElementById('board').dataset.turn"
                           " !== 'engine'")
    return page.evaluate("() => view.board"), played(page)


@pytest.mark.parametrize("name", BOARD_GAMES)
def test_a_game_comes_back_after_a_reload_and_from_its_link_in_a_fresh_browser(
        browse, server, name):
    page = browse.open()
    page.goto(f"{server}/play/{name}?seconds=0.05")
    play_moves(page, 2)
    board, moves = game_shown(page)
    assert len(moves) >= 3
    assert "moves=" in page.url
    evaluation = page.locator("#eval-text").inner_text()
    page.reload()
    assert game_shown(page) == (board, moves)
    assert page.locator("#eval-text").inner_text() == evaluation
    assert not serious_violations(page)
    shot(page, f"play-{name}")
    shared = browse.open()  # a new context: no cookie, no storage, only the link
    shared.goto(page.url)
    assert game_shown(shared) == (board, moves)


def test_random_ijk_tiles_come_back_after_a_reload_and_in_an_exported_record(browse, server):
    page = browse.open()
    page.goto(f"{server}/play/ijk?mode=nondet&seconds=0.05")
    play_moves(page, 2)
    board, moves = game_shown(page)
    page.reload()
    assert game_shown(page) == (board, moves)
    page.click("#export")
    record = page.input_value("#record-text")
    assert '[Options "variant=course mode=nondet"]' in record and " @" in record
    fresh = browse.open()
    fresh.goto(f"{server}/play/ijk")
    fresh.wait_for_selector("#board .cell")
    fresh.fill("#record-text", record)
    fresh.click("#import")
    fresh.wait_for_url("**mode=nondet**")
    assert game_shown(fresh) == (board, moves)


def test_a_game_whose_session_was_reclaimed_goes_on_where_it_was(browse, server):
    browse.allowed = (FAILED_LOAD,)  # the browser logs the move refused with 404 itself
    page = browse.open()
    page.goto(f"{server}/play/pikachu?n=7&seconds=0.05")
    play_moves(page, 1)
    board, moves = game_shown(page)
    # the server lets the session go (as after idling): the next move replays the record
    page.evaluate("() => fetch(`/api/sessions/${view.id}`, {method: 'DELETE'})")
    play_one_move(page)
    wait_for_turn(page, len(moves))
    assert played(page)[:len(moves)] == moves and len(played(page)) == len(moves) + 2


def test_sebastian_comes_back_after_a_reload(browse, server):
    page = browse.open()
    page.goto(server + "/sebastian")
    page.wait_for_selector("#scorecard tr.category")
    page.click("#roll")
    page.wait_for_function("() => document.getElementById('roll-number').textContent === '1'")
    page.click("#dice [data-index='0']")
    page.click("#roll")
    page.wait_for_function("() => document.getElementById('roll-number').textContent === '2'")
    dice = page.locator("#dice .die").all_inner_texts()
    log = page.locator("#log li").all_inner_texts()
    page.reload()
    page.wait_for_selector("#scorecard tr.category")
    assert page.locator("#dice .die").all_inner_texts() == dice
    assert page.locator("#log li").all_inner_texts() == log
    assert page.locator("#roll-number").inner_text() == "2"
    shared = browse.open()
    shared.goto(page.url)
    shared.wait_for_selector("#scorecard tr.category")
    assert shared.locator("#log li").all_inner_texts() == log


def test_a_failed_start_shows_one_message_and_no_page_error(browse, server):
    browse.allowed = (FAILED_LOAD,)  # the browser logs the refused request itself
    page = browse.open()
    page.goto(f"{server}/play/pikachu?n=6")  # refused in the link: the default is played
    page.wait_for_selector("#error:not(:empty)")
    assert page.locator("#error").inner_text() == (
        'The link\'s n = "6" is refused: it must be at least 7; using 8.')
    page.wait_for_selector("#board .cell")
    assert page.evaluate("() => view.rows") == 8
    page.fill("#opt-n", "6")
    page.click("#new-game")  # typed in the form: the browser refuses it there (min 7)
    page.wait_for_timeout(300)
    assert page.evaluate("() => document.getElementById('opt-n').validity.valid") is False
    assert page.evaluate("() => view.rows") == 8
    assert page.locator(".error:not(:empty)").count() == 1
    page.goto(f"{server}/play/chess")
    page.wait_for_selector("#error:not(:empty)")
    assert page.locator("#error").inner_text().startswith("unknown board game 'chess'")
    assert "{" not in page.locator("body").inner_text()  # a page, not raw JSON
    page.wait_for_selector("#other-games:not([hidden])")  # the list is fetched after the error
    assert page.locator("#other-games a").count() == len(BOARD_GAMES)
    shot(page, "failed-start")


def test_step_back_through_the_move_list_and_play_from_there(page, server):
    page.goto(f"{server}/play/pikachu?n=7&seconds=0.05")
    play_moves(page, 2)
    moves = played(page)
    positions = page.evaluate("() => view.positions")
    page.locator("#move-list button.ply").first.click()
    assert page.evaluate("() => [...document.querySelectorAll('#board .cell')]"
                         ".sort((a, b) => a.dataset.cell - b.dataset.cell)"
                         ".map(c => c.querySelector('.piece') ? c.querySelector('.piece')"
                         ".textContent : '.').join('')") == positions[1].replace("#", ".")
    assert page.locator("#status").inner_text().startswith("Showing the position after ply 1")
    page.click("#nav-next")
    assert page.locator("#move-list [aria-current='step']").inner_text() == moves[1]
    page.click("#nav-last")
    assert page.locator("#status").inner_text().startswith("w to move")
    page.locator("#move-list button.ply").nth(1).click()
    page.click("#play-from-here")  # the engine's first answer stays, the person moves next
    page.wait_for_function("() => view.decisions === 2 && document.getElementById('board')"
                           ".dataset.turn === 'human'")
    assert played(page) == moves[:2]


def test_hint_resign_export_and_import(browse, server):
    page = browse.open()
    page.goto(f"{server}/play/pikachu?n=7&seconds=0.05")
    play_moves(page, 1)
    page.click("#hint")
    page.wait_for_selector("#hint-text:has-text('Hint: ')")
    hinted = page.locator("#hint-text").inner_text().removeprefix("Hint: ")
    assert hinted in page.evaluate("() => view.moves.map(m => m.text)")
    assert page.locator(".cell.hinted").count() == 2
    page.click("#export")
    record = page.input_value("#record-text")
    assert '[Game "pikachu"]' in record and '[Options "n=7"]' in record
    assert " ".join(played(page)) in record.replace("1. ", "").replace("2. ", "")
    page.click("#resign")
    assert page.locator("#resign").inner_text() == "Really resign?"  # one click asks again
    assert page.locator("#result").inner_text() == ""
    page.click("#resign")
    page.wait_for_selector("#result:has-text('resigned')")
    assert page.locator("#result").inner_text() == "Result: b wins (resigned)"
    page.click("#export")
    record = page.input_value("#record-text")
    fresh = browse.open()
    fresh.goto(f"{server}/play/pikachu")
    fresh.wait_for_selector("#board .cell")
    fresh.fill("#record-text", record)
    fresh.click("#import")
    fresh.wait_for_selector("#result:has-text('resigned')")
    assert played(fresh) == played(page)
    assert fresh.evaluate("() => view.board") == page.evaluate("() => view.board")


def test_a_piece_is_dragged_to_its_square(page, server):
    page.goto(f"{server}/play/pikachu?n=7&seconds=0.05")
    page.wait_for_selector(".cell.movable")
    move = page.evaluate("() => view.moves.find(m => m.start !== null && m.end !== null)")
    source = page.locator(f".cell[data-cell='{move['start']}']").bounding_box()
    target = page.locator(f".cell[data-cell='{move['end']}']").bounding_box()
    page.mouse.move(source["x"] + source["width"] / 2, source["y"] + source["height"] / 2)
    page.mouse.down()
    page.mouse.move(target["x"] + target["width"] / 2, target["y"] + target["height"] / 2,
                    steps=5)
    page.mouse.up()
    page.wait_for_function("() => view.decisions >= 1")
    assert played(page)[0] == move["text"]


# --- tools without their start options ------------------------------------------------


def test_tools_started_without_their_options_say_how_to_enable_them(page, bare_server):
    page.goto(bare_server + "/")
    page.wait_for_selector("#classify-state:has-text('Not enabled')")
    page.wait_for_selector("#arena-state:has-text('Not enabled')")
    assert "--arena DB" in page.locator("#arena-state").inner_text()
    page.goto(bare_server + "/classify")
    page.wait_for_selector("#not-enabled:visible")
    assert "--classify-train" in page.locator("#not-enabled").inner_text()
    assert page.locator("#classify").is_disabled()
    page.goto(bare_server + "/arena")
    page.wait_for_selector("#not-enabled:visible")
    assert "aviary serve --arena" in page.locator("#not-enabled").inner_text()
    assert page.locator("#error").inner_text() == ""
    assert not serious_violations(page)


# --- a phone, a keyboard, a screen reader ---------------------------------------------

PAGES = ["/", *(f"/play/{name}" for name in BOARD_GAMES), *(f"/{name}" for name in PAGE_GAMES),
         "/classify", "/horizon", "/arena"]


def page_name(path: str) -> str:
    return path.strip("/").replace("/", "-") or "index"


@pytest.mark.parametrize("path", PAGES)
def test_every_page_fits_a_phone_and_passes_axe(phone, server, path):
    phone.goto(f"{server}{path}{'?seconds=0.05' if path.startswith('/play/') else ''}")
    phone.wait_for_load_state("networkidle")
    if path.startswith("/play/"):
        phone.wait_for_selector("#board .cell")
    assert phone.evaluate("() => document.documentElement.scrollWidth") <= 390
    assert not serious_violations(phone)
    shot(phone, f"phone-{page_name(path)}")


@pytest.mark.parametrize("name", [name for name in BOARD_GAMES if name != "ijk"])
def test_a_game_by_taps_on_a_phone_then_reloaded(phone, server, name):
    phone.goto(f"{server}/play/{name}?seconds=0.05")
    phone.wait_for_selector(".cell.movable")
    cell = phone.locator(".cell").first.bounding_box()
    assert cell["width"] >= 40  # a finger's size, not 980 px at 0.4 scale
    assert phone.locator("#board").bounding_box()["width"] <= 390
    phone.locator(".cell.movable").first.tap()
    phone.locator(".cell.target").first.tap()
    wait_for_turn(phone, 0)
    moves = played(phone)
    assert len(moves) == 2
    phone.reload()
    phone.wait_for_selector("#move-list button.ply")
    assert played(phone) == moves


def swipe(page, dx: float, dy: float) -> None:
    """A real one-finger swipe across the board (touch events through DevTools)."""
    box = page.locator("#board").bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    cdp = page.context.new_cdp_session(page)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    for step in range(1, 6):
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [
            {"x": x + dx * step / 5, "y": y + dy * step / 5}]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


def test_ijk_by_swipes_on_a_phone(phone, server):
    phone.goto(f"{server}/play/ijk?seconds=0.05")
    phone.wait_for_function("() => document.getElementById('board').dataset.turn === 'human'")
    swipe(phone, 0, 120)  # down
    wait_for_turn(phone, 0)
    assert played(phone)[0] == "D"
    swipe(phone, -120, 0)  # left
    wait_for_turn(phone, 2)
    assert played(phone)[2] == "L"


def press_until_focused(page, selector: str, most: int = 80) -> None:
    for _ in range(most):
        page.keyboard.press("Tab")
        if page.evaluate("(s) => document.activeElement.matches(s)", selector):
            return
    raise AssertionError(f"Tab never reached {selector}")


def focused_cell(page) -> int:
    return int(page.evaluate("() => document.activeElement.dataset.cell"))


def walk(page, to: int, cols: int) -> None:
    """Arrow keys from the focused square to square `to` (squares off the board are skipped)."""
    for _ in range(40):
        at = focused_cell(page)
        if at == to:
            return
        rows, steps = divmod(to, cols)[0] - divmod(at, cols)[0], to % cols - at % cols
        if page.evaluate("() => flipped"):  # the board is drawn turned: so are the keys
            rows, steps = -rows, -steps
        keys = ([("ArrowDown" if rows > 0 else "ArrowUp")] if rows else []) + \
               ([("ArrowRight" if steps > 0 else "ArrowLeft")] if steps else [])
        for key in keys:
            page.keyboard.press(key)
            if focused_cell(page) != at:
                break
    raise AssertionError(f"the arrow keys never reached square {to}")


@pytest.mark.parametrize("name", BOARD_GAMES)
def test_a_game_by_keyboard_alone(page, server, name):
    page.goto(f"{server}/play/{name}?seconds=0.05")
    page.wait_for_function("() => document.getElementById('board').dataset.turn === 'human'")
    if name == "ijk":  # moves are the arrow keys themselves
        press_until_focused(page, "#board")
        page.keyboard.press("ArrowLeft")
        wait_for_turn(page, 0)
        assert played(page)[0] == "L"
    else:
        press_until_focused(page, "#board .cell")
        move = page.evaluate("() => view.moves.find(m => m.start !== null && m.end !== null)")
        cols = page.evaluate("() => view.cols")
        walk(page, move["start"], cols)
        label = page.evaluate("() => document.activeElement.getAttribute('aria-label')")
        assert "can move" in label
        page.keyboard.press("Enter")
        walk(page, move["end"], cols)
        assert "move here" in page.evaluate(
            "() => document.activeElement.getAttribute('aria-label')")
        page.keyboard.press("Enter")
        wait_for_turn(page, 0)
        assert played(page)[0] == move["text"]
    press_until_focused(page, "#undo")
    page.keyboard.press("Enter")
    page.wait_for_function("() => view.decisions === 0")
    press_until_focused(page, "#hint")
    page.keyboard.press("Enter")
    page.wait_for_selector("#hint-text:has-text('Hint: ')")
    press_until_focused(page, "#move-list button.ply, #nav-first")


def luminance(css: str) -> float:
    red, green, blue = (int(v) / 255 for v in re.findall(r"\d+", css)[:3])
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
              for c in (red, green, blue)]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(first: str, second: str) -> float:
    high, low = sorted((luminance(first), luminance(second)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_move_dots_and_frames_stand_out_from_both_square_colours(page, server):
    """WCAG's 3:1 for graphics: the move dots, the movable and last-move frames."""
    page.goto(f"{server}/play/pikachu?n=7&seconds=0.05")
    play_moves(page, 1)
    page.locator(".cell.movable").first.click()
    marks = page.evaluate("""() => {
        const style = (selector, pseudo, property) => [...document.querySelectorAll(selector)]
          .map(c => [getComputedStyle(c, pseudo)[property], getComputedStyle(c).backgroundColor]);
        return {dots: style('.cell.target', '::before', 'backgroundColor'),
                frames: style('.cell.movable:not(.selected)', '::after', 'borderTopColor'),
                last: style('.cell.last', null, 'boxShadow')};
    }""")
    assert marks["dots"] and marks["frames"] and marks["last"]
    for mark, square in marks["dots"] + marks["frames"] + marks["last"]:
        assert contrast(mark, square) >= 3, (mark, square)


def test_sebastian_dice_and_rows_and_the_arena_replay_by_keyboard(page, server):
    page.goto(server + "/sebastian")
    page.wait_for_selector("#scorecard tr.category")
    press_until_focused(page, "#roll")
    page.keyboard.press("Enter")
    page.wait_for_function("() => document.getElementById('roll-number').textContent === '1'")
    press_until_focused(page, "#dice [data-index='2']")
    page.keyboard.press("Space")
    assert page.locator("#dice [data-index='2']").get_attribute("aria-pressed") == "true"
    page.wait_for_selector("#advice tbody tr.best")
    press_until_focused(page, "#advice tr.best button")
    page.keyboard.press("Enter")  # the advice's keep: its dice marked to reroll
    marked = page.locator("#dice .die.reroll").count()
    assert page.locator("#roll").inner_text() == f"Reroll {marked} dice"
    page.goto(server + "/arena")
    page.wait_for_selector("#games tbody tr")
    press_until_focused(page, "#games tbody tr:nth-child(2) button")
    page.keyboard.press("Enter")
    page.wait_for_selector("#replay-title:has-text('game 2')")
    press_until_focused(page, "#next")
    page.keyboard.press("Enter")
    assert page.locator("#ply").inner_text().startswith("ply 1 of ")
    page.keyboard.press("ArrowRight")
    assert page.locator("#ply").inner_text().startswith("ply 2 of ")


@pytest.mark.parametrize("path", ["/", "/classify", "/horizon", "/arena",
                                  *(f"/{name}" for name in PAGE_GAMES)])
def test_every_tool_page_passes_axe_on_a_desktop(page, server, path):
    page.goto(server + path)
    page.wait_for_load_state("networkidle")
    assert not serious_violations(page)
    shot(page, f"desktop-{page_name(path)}")


def test_a_clock_runs_for_the_side_to_move_and_its_flag_ends_the_game(browse, server):
    page = browse.open()
    # two people at one board (no engine to wait for), 3 s each and 5 s a move
    page.goto(f"{server}/play/pikachu?n=7&side=both&clock=0.05%2B5")
    page.wait_for_selector(".clock.running")
    assert page.locator(".clock.running").get_attribute("data-side") == "0"
    play_one_move(page)
    page.wait_for_selector(".clock.running[data-side='1']")
    left = page.evaluate("() => clock.left")
    assert left[0] > 3  # white used under 5 s: its increment came after its move
    play_one_move(page)
    page.wait_for_selector(".clock.running[data-side='0']")
    page.wait_for_selector("#result:has-text('time')", timeout=30_000)
    assert page.locator("#result").inner_text() == "Result: b wins (time)"
    assert "ending=time" in page.url
    page.reload()
    page.wait_for_selector("#result:has-text('time')")
    assert page.locator(".clock").first.is_visible()


def test_a_draw_offer_is_declined_by_an_engine_that_has_not_searched_and_taken_by_people(
        page, server):
    page.goto(f"{server}/play/pikachu?n=7&seconds=0.05")
    page.wait_for_selector(".cell.movable")
    page.click("#draw")
    page.wait_for_selector("#hint-text:has-text('declines')")
    assert page.locator("#result").inner_text() == ""
    page.select_option("#side", "both")
    page.click("#draw")
    page.wait_for_selector("#result:has-text('draw (agreed)')")
    assert "ending=agreed" in page.url
    page.reload()
    page.wait_for_selector("#result:has-text('draw (agreed)')")


def test_a_dropped_connection_while_the_engine_thinks_reconnects_and_the_game_goes_on(
        page, server):
    sockets: list = []
    page.on("websocket", lambda opened: sockets.append(opened))
    page.goto(f"{server}/play/pikachu?n=7&seconds=3")
    page.wait_for_selector(".cell.movable")
    play_one_move(page)
    page.wait_for_function("() => document.getElementById('board').dataset.thinking === 'yes'")
    page.evaluate("() => socket.close()")  # as a network drop: the server stops that search
    page.wait_for_function("() => view.decisions === 2", timeout=120_000)
    assert len(played(page)) == 2 and page.locator("#error").inner_text() == ""
    assert len(sockets) == 2  # the engine's answer came over the new connection


def test_betsy_undo_after_the_kingfisher_is_taken_resumes_play(page, server):
    cells = ["."] * 64
    cells[4], cells[8], cells[60], cells[63] = "K", "P", "q", "k"  # e1, a2 | e8, h8
    page.goto(f"{server}/play/betsy?seconds=0.1&board={''.join(cells)}&player=w")
    page.wait_for_selector(".cell.movable")
    page.click(".cell[data-cell='8']")
    page.click(".cell[data-cell='16']")  # a2a3: the Quetzal takes the Kingfisher
    page.wait_for_selector("#result:has-text('b wins')")
    assert played(page) == ["a2a3", "e8e1"]
    page.click("#undo")
    page.wait_for_function("() => view.decisions === 0 && document.getElementById('board')"
                           ".dataset.turn === 'human'")
    page.click(".cell[data-cell='4']")
    page.click(".cell[data-cell='3']")  # e1d1: out of the Quetzal's file
    wait_for_turn(page, 0)
    assert played(page)[0] == "e1d1" and len(played(page)) == 2  # the engine answered


def boxes_overlap(first: dict, second: dict) -> bool:
    return not (first["x"] + first["width"] <= second["x"]
                or second["x"] + second["width"] <= first["x"]
                or first["y"] + first["height"] <= second["y"]
                or second["y"] + second["height"] <= first["y"])


@pytest.mark.parametrize("n, size", [(16, (1280, 800)), (10, (1280, 800)), (8, (1280, 800)),
                                     (16, (375, 812)), (8, (375, 812))])
def test_the_board_scales_to_the_window(browse, server, n, size):
    """A wide board beside the Moves panel neither overlaps it nor scrolls the page sideways;
    on a phone every board fits the width."""
    width, height = size
    phone = width < 600
    page = browse.open(**({**PHONE, "viewport": {"width": width, "height": height}} if phone
                          else {"viewport": {"width": width, "height": height}}))
    page.goto(f"{server}/play/pikachu?n={n}&seconds=0.05")
    page.wait_for_selector("#board .cell.movable")
    board = page.locator("#board").bounding_box()
    moves = page.locator("#record").bounding_box()
    assert not boxes_overlap(board, moves), (board, moves)
    assert board["x"] + board["width"] <= width, board
    assert page.evaluate("() => document.documentElement.scrollWidth") <= width
    cell = page.locator("#board .cell").first.bounding_box()["width"]
    assert cell >= 18, cell
    if n == 8 and not phone:
        assert cell == 56  # a usual board keeps its full size
    if not phone:
        assert board["y"] + board["height"] <= height, board  # the whole board in view
    if n == 16 and not phone:
        shot(page, "pikachu-n16")


def test_a_bad_seconds_value_is_refused_where_it_is_typed_and_the_game_goes_on(page, server):
    page.goto(f"{server}/play/pikachu?n=7&seconds=-5")
    page.wait_for_selector(".cell.movable")
    assert page.locator("#error").inner_text() == (
        'The link\'s seconds = "-5" is refused: it must be from 0.05 to 600 seconds; using 1.')
    page.fill("#seconds", "700")
    page.locator("#seconds").dispatch_event("change")  # as when the field is left
    page.wait_for_selector("#seconds-error:has-text('must be from 0.05 to 600')")
    assert page.input_value("#seconds") == "1"
    assert page.locator("#seconds").get_attribute("aria-invalid") == "true"
    page.fill("#seconds", "0.1")
    page.locator("#seconds").dispatch_event("change")
    assert page.locator("#seconds-error").inner_text() == ""
    play_one_move(page)
    wait_for_turn(page, 0)  # the engine answered: the game did not stall
    assert len(played(page)) == 2 and "seconds=0.1" in page.url


def test_bad_deep_links_are_refused_with_a_clear_message(browse, server):
    browse.allowed = (FAILED_LOAD,)  # the refused position: the browser logs its 400
    page = browse.open()
    page.goto(f"{server}/play/pikachu?n=7&seconds=0.1&board={'w' * 49}&player=w")
    page.wait_for_selector(".cell.movable")
    assert page.locator("#error").inner_text() == (
        "The game in the link could not be set up (that pikachu position is already over "
        "(b wins (no-move)): set one where the game goes on); a new game started.")
    page.goto(f"{server}/play/pikachu?n=&side=7&seconds=0.1")
    page.wait_for_selector(".cell.movable")
    error = page.locator("#error").inner_text()
    assert "The link's n is empty: it must be a whole number; using 8." in error
    assert 'The link\'s side = "7" is refused: it must be 0, 1, both or none; you play w.' in error
    assert "''" not in error and page.input_value("#side") == "0"


def test_offer_draw_after_a_hint_is_answered(page, server):
    page.goto(f"{server}/play/pikachu?n=7&seconds=0.1")
    page.wait_for_selector(".cell.movable")
    page.click("#hint")
    page.wait_for_selector("#hint-text:has-text('Hint: ')")
    page.wait_for_selector("#draw:enabled")
    page.click("#draw")
    page.wait_for_selector("#hint-text:has-text('declines the draw')")
    assert page.locator("#result").inner_text() == ""


def test_clocks_are_not_given_back_on_reload_and_undo_rewinds_them(page, server):
    page.goto(f"{server}/play/pikachu?n=7&side=both&clock=1%2B0")
    page.wait_for_selector(".clock.running[data-side='0']")
    time.sleep(2.5)
    play_one_move(page)  # w used about 2.5 s
    page.wait_for_selector(".clock.running[data-side='1']")
    assert page.evaluate("() => clock.left[0]") < 58
    page.click("#undo")  # back to the start: the clocks as they were there
    page.wait_for_function("() => view.decisions === 0")
    assert page.evaluate("() => clock.left[0]") > 59
    play_one_move(page)
    page.wait_for_selector(".clock.running[data-side='1']")
    page.wait_for_function("() => location.search.includes('moves=')")
    page.evaluate("() => updateAddress()")
    time.sleep(3)  # the page is away 3 s on b's time, then reloaded
    page.reload()
    page.wait_for_selector(".clock.running[data-side='1']")
    assert page.evaluate("() => clock.left[1]") < 57.5  # the 3 s away were charged to b


def test_a_server_stopped_while_the_engine_thinks_shows_a_banner_and_the_game_goes_on(
        browse, session_cache, tmp_path):
    """The server stops mid-search: the page says "connection lost, reconnecting…", retries
    by itself, and once a server is back on the port the engine's move comes."""
    browse.allowed = ("WebSocket connection to", "Failed to load resource: net::", FAILED_LOAD)
    (tmp_path / "first").mkdir()
    (tmp_path / "again").mkdir()
    url, process, log = serve(tmp_path / "first", "--workers", "1")
    restarted = None
    try:
        page = browse.open()
        page.goto(f"{url}/play/pikachu?n=7&seconds=3")
        page.wait_for_selector(".cell.movable")
        play_one_move(page)
        page.wait_for_function("() => document.getElementById('board').dataset.thinking === 'yes'")
        process.terminate()
        process.wait(timeout=30)
        page.wait_for_selector("#connection:visible")
        assert page.locator("#connection").inner_text() == "connection lost, reconnecting…"
        time.sleep(2)  # a few retries fail meanwhile
        restarted = serve(tmp_path / "again", "--workers", "1", port=int(url.rsplit(":", 1)[1]))
        page.wait_for_function("() => view.decisions === 2", timeout=120_000)
        page.wait_for_selector("#connection", state="hidden")
        assert len(played(page)) == 2 and page.locator("#error").inner_text() == ""
        assert page.locator("#board").get_attribute("data-turn") == "human"
    finally:
        for running, opened in ((process, log), restarted[1:] if restarted else (None, None)):
            if running is not None and running.poll() is None:
                running.terminate()
                running.wait(timeout=30)
            if opened is not None:
                opened.close()


def test_a_game_is_reviewed_with_grades_progress_and_better_moves(page, server):
    page.goto(f"{server}/play/pikachu?n=7&side=both")
    page.wait_for_selector(".cell.movable")
    for decisions in range(6):
        page.wait_for_function(f"() => view.decisions === {decisions} && humanTurn()")
        play_one_move(page)
    page.wait_for_function("() => view.decisions === 6")
    page.click("#review")
    page.wait_for_selector("#review-status:has-text('Reviewed: 6 moves')", timeout=120_000)
    rows = page.locator("#review-list button.review-ply")
    assert rows.count() == 6
    texts = rows.all_inner_texts()
    graded = [re.search(r": (best|good|inaccuracy|mistake|blunder)", text) for text in texts]
    assert all(graded), texts
    assert "review's" in page.locator("#eval-graph").get_attribute("aria-label")
    rows.nth(2).click()  # the position before the third ply
    assert page.evaluate("() => browsing") == 2
    if "better" in texts[2]:
        assert page.locator(".cell.hinted").count() >= 1
    assert not serious_violations(page)
    shot(page, "pikachu-review")


def test_captured_pieces_rematch_and_copy_link(page, server):
    cells = ["."] * 49
    cells[17], cells[31], cells[0] = "w", "b", "w"  # d3, d5, a1
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.goto(f"{server}/play/pikachu?n=7&side=both&board={''.join(cells)}&player=w")
    page.wait_for_selector(".cell.movable")
    assert page.locator("#rematch").is_hidden()
    page.click(".cell[data-cell='17']")
    page.click(".cell[data-cell='24']")  # d3-d4, next to b's Pichu
    page.wait_for_function("() => view.decisions === 1")
    page.click(".cell[data-cell='31']")
    page.click(".cell[data-cell='17']")  # d5-d3 takes it
    page.wait_for_selector("#captured:has-text('w has lost 1: w')")
    page.click("#copy-link")
    page.wait_for_selector("#copy-link-note:has-text('Link copied.')")
    assert page.evaluate("() => navigator.clipboard.readText()") == page.url
    page.click("#resign")
    page.click("#resign")  # confirmed: the game is over, and a rematch is offered
    page.wait_for_selector("#rematch:visible")
    page.click("#rematch")
    page.wait_for_function("() => view.decisions === 0 && !view.outcome")
    assert page.evaluate("() => [view.rows, view.cols]") == [7, 7]
    assert page.locator("#rematch").is_hidden() and page.locator("#captured").inner_text() == ""


def test_touch_targets_are_44_px_and_arena_tables_scroll_on_a_phone(phone, server):
    phone.goto(f"{server}/play/pikachu?seconds=0.05")
    phone.wait_for_selector(".cell.movable")
    small = phone.evaluate("""() => [...document.querySelectorAll('button, select, summary')]
        .filter(b => b.offsetParent !== null)
        .map(b => [b.id || b.textContent, b.getBoundingClientRect()])
        .filter(([_, r]) => r.height < 44 || r.width < 44).map(([name]) => name)""")
    assert small == [], small
    phone.goto(f"{server}/arena")
    phone.wait_for_selector("#standings tbody tr")
    box = phone.locator(".table-scroll").first
    assert box.evaluate("b => getComputedStyle(b).overflowX") == "auto"
    assert phone.evaluate("() => document.documentElement.scrollWidth") <= 390
    assert not serious_violations(phone)


# --- levels, sliding pieces, long games, the engine's log ---------------------------------------

def _ladder_game():
    """(game name, the link's options) of a game with a calibrated ladder, or a skip."""
    from aviary.arena import ladder

    for spec in registry.board_games():
        for found in ladder.available(spec.name):
            options = "&".join(f"{key}={str(value).lower()}"
                               for key, value in found.settings.items())
            return spec.name, options, found
    pytest.skip("no game has a calibrated ladder yet")


def test_the_ladders_levels_are_offered_and_the_engine_plays_one(page, bare_server):
    name, options, found = _ladder_game()
    level = found.levels[1].name
    page.goto(f"{bare_server}/play/{name}?{options}&side=1&level={level}&seconds=0.05")
    wait_for_turn(page, 0)
    strength = page.locator("#strength")
    assert page.locator("#strength-label").is_visible()
    assert strength.locator("option").count() == len(found.levels) + 1
    assert strength.input_value() == level
    assert f"level {level} (" in strength.locator("option:checked").inner_text()
    assert len(played(page)) == 1  # the level moved first
    assert f"level {level}:" in page.locator("#thinking").inner_text()
    assert page.evaluate("() => view.level.name") == level
    assert f"level={level}" in page.url
    page.reload()  # the link keeps the level
    wait_for_turn(page, 0)
    assert page.evaluate("() => view.level && view.level.name") == level
    option = next(o for o in page.evaluate("() => info.options") if o["kind"] == "int")
    other = option["minimum"] if str(found.settings.get(option["name"])) != str(
        option["minimum"]) else option["maximum"]
    page.fill(f"#opt-{option['name']}", str(other))
    page.locator(f"#opt-{option['name']}").dispatch_event("change")
    assert not page.locator("#strength-label").is_visible()  # no ladder for those settings
    assert strength.input_value() == ""


def test_a_moved_piece_slides_unless_motion_is_reduced(browse, bare_server):
    slides = {}
    for motion in ("no-preference", "reduce"):
        page = browse.open(**DESKTOP, reduced_motion=motion)
        page.goto(f"{bare_server}/play/pikachu?n=6&side=0&seconds=0.05")
        wait_for_turn(page, -1)
        page.locator(".cell.movable").first.click()
        page.locator(".cell.target").first.click()
        wait_for_turn(page, 0)
        slides[motion] = int(page.locator("#board").get_attribute("data-slides") or 0)
    assert slides == {"no-preference": 2, "reduce": 0}  # the person's move and the engine's


def test_move_numbers_past_99_are_not_cut_off(page, bare_server):
    import random as chance

    game = registry.GAMES["ijk"].make()
    rng, state, texts = chance.Random(3), game.start(), []
    while len(texts) < 250 and game.outcome(state) is None:
        if game.is_chance(state):
            move = game.sample_chance(state, rng)
            texts.append("@" + game.move_text(state, move))
        else:
            move = rng.choice(game.legal_moves(state))
            texts.append(game.move_text(state, move))
        state = game.play(state, move)
    page.goto(f"{bare_server}/play/ijk?side=both&moves={'%20'.join(texts)}")
    page.wait_for_function("() => document.querySelectorAll('#move-list li').length >= 123")
    fits = page.evaluate("""() => {
      const list = document.getElementById('move-list');
      const item = list.querySelector("li[value='123']");
      item.scrollIntoView();
      const number = item.querySelector('.number'), box = list.getBoundingClientRect();
      const shown = number.getBoundingClientRect();
      return {text: number.textContent, inside: shown.left >= box.left && shown.right <= box.right,
              whole: number.scrollWidth <= number.clientWidth,
              list: list.scrollWidth <= list.clientWidth};
    }""")
    assert fits == {"text": "123.", "inside": True, "whole": True, "list": True}


def test_the_engines_log_wraps_inside_its_panel(page, bare_server):
    page.goto(f"{bare_server}/play/pikachu?n=8&side=1&seconds=1")
    wait_for_turn(page, -1)
    log = page.locator("#thinking")
    assert "depth" in log.inner_text()
    sizes = log.evaluate("""(box) => ({scroll: box.scrollWidth, client: box.clientWidth,
      right: box.getBoundingClientRect().right,
      panel: document.getElementById('record').getBoundingClientRect().right,
      longest: Math.max(...[...box.children].map((line) => line.textContent.length))})""")
    assert sizes["longest"] * 7 > sizes["client"]  # wider than the panel, were it not wrapped
    assert sizes["scroll"] <= sizes["client"] and sizes["right"] <= sizes["panel"]
