"""The pages in a real browser: Debian's chromium driven by Playwright, against `aviary serve`.

Every registered board game is played to its end by clicks (or arrow keys) against
the engine at 0.1 s a move, with a move limit so that any game ends soon; a
screenshot of each page is kept in out/screenshots/. Skips when chromium is not
installed (CI installs it: .ci/run).
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


@pytest.fixture(scope="module")
def server(web_cache, arena_db, tmp_path_factory):
    """`aviary serve` in a child process, as a user starts it."""
    port = free_port()
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
    log = (folder / "serve.log").open("w")
    process = subprocess.Popen(
        [sys.executable, "-m", "aviary", "serve", "--port", str(port), "--workers", "4",
         "--classify-train", str(train), "--arena", str(arena_db), "--upload-mb", "1"],
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


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 820})
    context.set_default_timeout(180_000)  # a cold table build or compile on a loaded machine
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    yield opened
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def shot(page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True)


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
        page.locator("#moves .move-button").first.click()


def test_the_index_lists_every_board_game_and_the_tools(page, server):
    page.goto(server + "/")
    page.wait_for_selector("#games li")
    titles = page.locator("#games li a").all_inner_texts()
    assert len(titles) == len(BOARD_GAMES)
    assert page.locator("a[href='/classify']").count() == 1
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
    history = page.locator("#history").inner_text().split()
    assert len(history) >= 2  # the person moved and the engine answered
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
    assert page.locator("#history").inner_text() == "d1-d2 d7-d1"
    shot(page, "pikachu-endgame")


def test_undo_flip_and_copy_work_on_the_page(page, server):
    page.goto(f"{server}/play/pikachu?n=7&seconds=0.1")
    page.wait_for_selector(".cell.movable")
    start = page.evaluate("() => view.board")
    assert page.locator("#board .cell").first.get_attribute("data-cell") == "0"
    page.click("#flip")
    assert page.locator("#board .cell").first.get_attribute("data-cell") == "48"
    play_one_move(page)
    wait_for_turn(page, 0)
    assert page.locator("#board").get_attribute("data-decisions") == "2"
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


def test_horizon_upload_then_click_draws_the_three_lines(page, server, tmp_path):
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
