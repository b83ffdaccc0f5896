"""The leaderboard `aviary grade --out DIR` writes: real games, a real browser, from file://.

The games are a real arena database, played by the arena's runner: two graded players
against a small ladder of quick levels (random, textbook depth 1 and 2), and a third
player that could not run. One graded player is named like an attack: its name must be
shown as text, never run. The pages are opened straight from disk in Chromium, where a
fetch of a local file would fail: they must work without one.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from aviary.arena import runner
from aviary.arena.grade import grades
from aviary.arena.ladder import Ladder, Level
from aviary.arena.leaderboard import script_data, write_site
from aviary.arena.players import PlayerSpec
from aviary.arena.schedule import Config
from aviary.arena.store import Store

CHROMIUM = os.environ.get("AVIARY_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
EVIL = "</script><img src=x onerror=alert(1)>"
LEVELS = (Level("L0", "aviary:random", 0, 0, 0, games=10),
          Level("L1", "aviary:textbook?depth=1", 300, 200, 400, 300, 200, 400, 10),
          Level("L2", "aviary:textbook?depth=2", 800, 650, 950, 500, 300, 700, 10))
LADDER = Ladder("pikachu", {"n": 8}, LEVELS, {"games": 30, "commit": "abc1234"})
GRADED = [("rnd", "aviary:random"), (EVIL, "aviary:textbook?depth=1")]
ABOUT = {"game": "pikachu", "settings": {"n": 8}, "seconds": 0.2, "date": "2026-12-02",
         "commit": "abc1234", "machine": {"processor": "AMD EPYC", "cores": 2},
         "load": [1.0, 2.5], "budget": 4, "target": 75, "sandbox": "none"}


def build(folder: Path) -> tuple[Path, list]:
    """Play the games (the arena's ladder mode pairs each graded player with the levels
    near it, never with the other one) and write the site; (index.html, the grades)."""
    players = [PlayerSpec(*GRADED[0]), PlayerSpec("L0", LEVELS[0].spec),
               PlayerSpec("L1", LEVELS[1].spec), PlayerSpec(*GRADED[1]),
               PlayerSpec("L2", LEVELS[2].spec)]
    config = Config(game="pikachu", players=players, seconds=0.2, games=14,
                    game_options={"n": 8}, mode="ladder", max_plies=20, sandbox="none")
    with Store(folder / "grade.sqlite") as store:
        store.create(config)
        runner.run(store, jobs=1)
        found = grades(store, LADDER, [*GRADED, ("broken", "./missing.py")],
                       {"broken": "player program not found: ./missing.py <script>"})
        return write_site(folder / "site", store, found, LADDER, ABOUT), found


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    return build(tmp_path_factory.mktemp("grade"))


def test_the_site_escapes_what_programs_chose(site):
    index, found = site
    text = index.read_text()
    assert EVIL not in text and "&lt;/script&gt;&lt;img" in text
    assert "./missing.py &lt;script&gt;" in text
    pages = list((index.parent / "games").glob("*.html"))
    assert len(pages) == 14
    for page in pages:
        assert EVIL not in page.read_text()
    assert "</" not in script_data({"name": EVIL})
    assert {grade.name for grade in found} == {"rnd", EVIL, "broken"}


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's chromium is not installed (apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, headless=True)
        yield launched
        launched.close()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    opened = context.new_page()
    opened.problems = []
    opened.on("pageerror", lambda error: opened.problems.append(f"page error: {error}"))
    opened.on("console", lambda message: opened.problems.append(message.text)
              if message.type == "error" else None)
    opened.on("dialog", lambda dialog: (opened.problems.append(f"dialog: {dialog.message}"),
                                        dialog.dismiss()))
    yield opened
    assert opened.problems == []
    context.close()


def serious_violations(page) -> list[str]:
    """axe-core's serious and critical findings, as the web app's pages are held to."""
    axe = pytest.importorskip("axe_playwright_python.sync_playwright")
    before = len(page.problems)
    found = axe.Axe().run(page).response["violations"]
    # axe itself reads the stylesheets by XMLHttpRequest, which file:// refuses: its own
    # failures are no page's
    page.problems[before:] = [problem for problem in page.problems[before:]
                              if "XMLHttpRequest" not in problem and "ERR_FAILED" not in problem]
    return [f"{v['id']}: {v['help']}" for v in found if v["impact"] in ("serious", "critical")]


def names(page) -> list[str]:
    return page.locator("#players tbody tr td:nth-child(2)").all_inner_texts()


def test_every_player_is_shown_and_any_column_sorts(page, site):
    index, found = site
    page.goto(index.as_uri())
    assert serious_violations(page) == []
    assert names(page) == [grade.name for grade in found]  # best first, as graded
    row = page.locator("#players tbody tr", has_text="broken")
    assert "not graded" in row.inner_text() and "missing.py <script>" in row.inner_text()
    evil = page.locator("#players tbody tr", has_text="onerror")
    points = evil.locator("td").nth(7 + 1).inner_text()  # against L1
    assert points.endswith("/2")
    page.get_by_role("button", name="player").click()
    assert names(page) == sorted(names(page))
    assert page.locator("#players th", has_text="player").get_attribute("aria-sort") == "ascending"
    page.get_by_role("button", name="player").click()
    assert names(page) == sorted(names(page), reverse=True)
    page.get_by_role("button", name="Elo", exact=True).focus()  # the keyboard sorts too
    page.keyboard.press("Enter")
    elo = page.locator("#players tbody tr td:nth-child(3)").all_inner_texts()
    assert elo[-1] == "not graded" and names(page)[-1] == "broken"
    graded = [float(text) for text in elo if text[0] in "+-"]
    assert graded == sorted(graded, reverse=True) and len(graded) == 2
    page.get_by_role("button", name="games").click()
    games = [int(text) for text in
             page.locator("#players tbody tr td:nth-child(6)").all_inner_texts()]
    assert games == sorted(games, reverse=True) and games[-1] == 0 and games[0] > 0
    levels = page.locator("#levels tbody tr").all_inner_texts()
    assert len(levels) == 3 and "random mover" in levels[0]
    assert "random mover is 0" in page.locator("body").inner_text()
    assert "AMD EPYC, 2 cores" in page.locator("dl.about").inner_text()


def test_a_game_link_opens_a_replay_that_steps(page, site):
    index, _ = site
    page.goto(index.as_uri())
    page.locator("#player-1 summary").click()
    link = page.locator("#player-1 a").first
    link.click()
    page.wait_for_url("**/games/*.html")
    ply = page.locator("#ply")
    total = int(ply.inner_text().split(" of ")[1].split(":")[0])
    assert ply.inner_text().startswith("move 0 of") and total > 0
    assert serious_violations(page) == []
    start = page.locator("#board").get_attribute("aria-label")
    page.keyboard.press("ArrowRight")
    assert ply.inner_text().startswith("move 1 of")
    assert page.locator("#board").get_attribute("aria-label") != start
    assert page.locator("#board .cell.last").count() >= 1  # the squares the move changed
    page.get_by_role("button", name="last move").click()
    assert ply.inner_text().startswith(f"move {total} of {total}")
    page.get_by_role("button", name="previous move").click()
    assert ply.inner_text().startswith(f"move {total - 1} of")
    assert "Result:" in page.locator("#result").inner_text()
    page.get_by_role("link", name="leaderboard").click()
    assert page.locator("#players").is_visible()
