"""The leaderboard `aviary grade --out DIR` writes: real games, a real browser, from file://.

`aviary grade` itself plays the games (in-process players and a program, unsandboxed)
against a small ladder of quick levels (random, textbook depth 1 and 2): two players
that play, one program whose every answer is an attack on the page (its output is kept
with its losses), and one that cannot run. The pages are opened straight from disk in
Chromium, where a fetch of a local file would fail: they must work without one, and
show what programs chose as text, never run it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from aviary.arena.grade import Grade
from aviary.arena.ladder import Ladder, Level
from aviary.arena.leaderboard import index_page, script_data

CHROMIUM = os.environ.get("AVIARY_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
EVIL = "</script><img src=x onerror=alert(1)>"
LEVELS = (Level("L0", "aviary:random", 0, 0, 0, games=10),
          Level("L1", "aviary:textbook?depth=1", 300, 200, 400, 300, 200, 400, 10),
          Level("L2", "aviary:textbook?depth=2", 800, 650, 950, 500, 300, 700, 10))
LADDER = Ladder("pikachu", {"n": 8}, LEVELS, {"games": 30, "commit": "abc1234"})


def build(folder: Path) -> tuple[Path, list[str]]:
    """Grade four players with `aviary grade`; (index.html, the players best first)."""
    (folder / "ladder.json").write_text(LADDER.to_json())
    evil = folder / "evil.py"
    evil.write_text(f"#!{sys.executable}\nprint({EVIL!r})\n")
    evil.chmod(0o755)
    subprocess.run(
        [sys.executable, "-m", "aviary", "grade", "--game", "pikachu", "--n", "8", "--time",
         "0.5", "--budget", "4", "--jobs", "1", "--sandbox", "none", "--ladder",
         str(folder / "ladder.json"), "--out", str(folder / "site"), "rnd=aviary:random",
         "tb=aviary:textbook?depth=1", f"evil={evil}", "broken=./missing.py"],
        check=True, capture_output=True, timeout=300, cwd=folder)
    graded = json.loads((folder / "site" / "grades.json").read_text())
    return folder / "site" / "index.html", [player["name"] for player in graded["players"]]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    return build(tmp_path_factory.mktemp("grade"))


def test_the_site_escapes_what_programs_chose(site):
    index, found = site
    assert found[-1] == "broken" and set(found) == {"rnd", "tb", "evil", "broken"}
    text = index.read_text()
    assert "player program not found: ./missing.py" in text
    pages = list((index.parent / "games").glob("*.html"))
    assert len(pages) == 12  # four games each of three players that ran
    said = [page.read_text() for page in pages]
    assert not any(EVIL in page for page in said)
    assert sum("onerror=alert(1)" in page for page in said) >= 4  # evil's output, escaped
    assert "</" not in script_data({"name": EVIL})


def test_a_name_is_escaped_wherever_it_is_shown():
    grade = Grade(EVIL, "x", 100.0, 0.0, 200.0, "L1", 2, {"illegal": 1}, {"L1": (1.0, 2)})
    page = index_page([grade], LADDER, {"game": EVIL, "machine": {"processor": EVIL}}, [])
    assert EVIL not in page and page.count("&lt;/script&gt;&lt;img") >= 4


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


def column(page, number: int) -> list[float]:
    """The values column `number` (from 1) sorts by, row by row."""
    return [float(cell.get_attribute("data-sort")) for cell in
            page.locator(f"#players tbody tr td:nth-child({number})").all()]


def test_every_player_is_shown_and_any_column_sorts(page, site):
    index, found = site
    page.goto(index.as_uri())
    assert serious_violations(page) == []
    assert names(page) == found  # best first, as graded
    row = page.locator("#players tbody tr", has_text="broken")
    assert "not graded" in row.inner_text() and "./missing.py" in row.inner_text()
    evil = page.locator("#players tbody tr", has_text="evil").locator("td")
    assert "=" in evil.nth(6).inner_text()  # its forfeits, by reason
    assert any(evil.nth(7 + i).inner_text().endswith(("/2", "/4")) for i in range(3))
    page.get_by_role("button", name="player").click()
    assert names(page) == sorted(names(page))
    assert page.locator("#players th", has_text="player").get_attribute("aria-sort") == "ascending"
    page.get_by_role("button", name="player").click()
    assert names(page) == sorted(names(page), reverse=True)
    page.get_by_role("button", name="Elo", exact=True).focus()  # the keyboard sorts too
    page.keyboard.press("Enter")
    assert column(page, 3) == sorted(column(page, 3), reverse=True)
    assert names(page)[-1] == "broken" and "not graded" in page.locator(
        "#players tbody tr").last.inner_text()
    page.get_by_role("button", name="Elo", exact=True).click()
    assert column(page, 3) == sorted(column(page, 3)) and names(page)[0] == "broken"
    page.get_by_role("button", name="games").click()
    games = column(page, 6)
    assert games == sorted(games, reverse=True) and games == [4, 4, 4, 0]
    levels = page.locator("#levels tbody tr").all_inner_texts()
    assert len(levels) == 3 and "random mover" in levels[0]
    assert "random mover is 0" in page.locator("body").inner_text()
    about = page.locator("dl.about").inner_text()
    assert "pikachu" in about and "n=8" in about and "0.5" in about


def test_what_a_program_printed_is_shown_as_text(page, site):
    index, _ = site
    page.goto(index.as_uri())
    rank = names(page).index("evil") + 1  # the rows are in the grade's order here
    page.locator(f"#player-{rank} summary").click()
    page.locator(f"#player-{rank} a").first.click()
    page.wait_for_url("**/games/*.html")
    assert EVIL in page.locator("#result").inner_text()
    assert page.locator("#result img").count() == 0


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
