"""`arena run --openings FILE`: tournaments from given start positions (an opening book, a
set of test positions), each played once with each player first, like the random ones."""

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from aviary.arena.export import benchmarks_page, read_export
from aviary.arena.games import make_game
from aviary.arena.players import PlayerSpec
from aviary.arena.schedule import Config

ROOT = Path(__file__).resolve().parents[2]
GAME = make_game("pikachu", {"n": "7"})
# two middle games of Pikachu n=7, as the records store positions (`Game.encode`)
FIRST = "w .......wwwwwww..wwwwwwwb...bbb.bbb.bbbbbbb......."
SECOND = "b .......wwwwww..wwwww.w.....wbbbbbbbbbbbbb........"


def arena(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "aviary", "arena", *args],
                          capture_output=True, text=True, timeout=300)


def test_each_round_starts_from_the_next_given_position_once_with_each_player_first(tmp_path):
    book = tmp_path / "book.txt"
    book.write_text(f"# two test positions\n{FIRST}\n\n{SECOND}\n")
    db = tmp_path / "t.sqlite"
    result = arena("run", "--n", "7", "--time", "0.5", "--games", "6", "--max-plies", "6",
                   "--jobs", "1", "--openings", str(book), "--db", str(db),
                   "a=aviary:random?seed=1", "b=aviary:random?seed=2")
    assert result.returncode == 0, result.stderr
    with sqlite3.connect(db) as connection:
        rows = connection.execute("SELECT round, first, opening FROM games ORDER BY id").fetchall()
    assert rows == [(0, "a", FIRST), (0, "b", FIRST), (1, "a", SECOND), (1, "b", SECOND),
                    (2, "a", FIRST), (2, "b", FIRST)]
    out = tmp_path / "t.jsonl"
    assert arena("export", str(db), "--out", str(out)).returncode == 0
    header = json.loads(out.read_text().splitlines()[0])
    assert header["config"]["openings"] == [FIRST, SECOND]
    page = benchmarks_page([read_export(out)])
    assert "openings: 2 given positions" in page and "--openings OPENINGS.txt" in page
    assert "--opening-plies" not in page


def test_the_given_openings_survive_the_stored_configuration():
    """`arena resume` plans from the configuration in the database: the positions with it."""
    config = Config("pikachu", [PlayerSpec("a", "aviary:random")], 1.0, 2,
                    game_options={"n": 7}, openings=(FIRST, SECOND))
    assert Config.from_json(config.to_json()) == config
    old = json.loads(config.to_json())
    del old["openings"]  # a database from before --openings
    assert Config.from_json(json.dumps(old)).openings == ()


@pytest.mark.parametrize(("text", "says"), [
    (f"{FIRST}\nw abc\n", "line 2: not a pikachu position (board must have"),
    ("nonsense\n", "line 1: not a pikachu position"),
    ("w " + "w" * 49 + "\n", "line 1: the game is already over"),
    ("# only a comment\n\n", "no position in it"),
])
def test_a_bad_openings_file_is_one_line_naming_the_line_and_exit_2(tmp_path, text, says):
    book = tmp_path / "book.txt"
    book.write_text(text)
    db = tmp_path / "t.sqlite"
    result = arena("run", "--n", "7", "--openings", str(book), "--db", str(db),
                   "aviary:random", "aviary:random?seed=2")
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and says in result.stderr, result.stderr
    assert f"--openings {book}" in result.stderr and "Traceback" not in result.stderr
    assert not db.exists()


def test_a_missing_openings_file_is_one_line_and_exit_2(tmp_path):
    result = arena("run", "--n", "7", "--openings", str(tmp_path / "none.txt"),
                   "--db", str(tmp_path / "t.sqlite"), "aviary:random", "aviary:random?seed=2")
    assert result.returncode == 2
    assert result.stderr.strip().endswith("none.txt: No such file or directory")


def test_the_committed_fox_geese_positions_are_openings_the_arena_plays(tmp_path):
    """benchmarks/positions/: test positions docs/games/foxgeese.md names, played as the
    docs say (here two plies of each of the first pair's games)."""
    book = ROOT / "benchmarks" / "positions" / "foxgeese-elephants-geese-draws.txt"
    db = tmp_path / "t.sqlite"
    result = arena("run", "--game", "foxgeese", "--option", "variant=elephants",
                   "--openings", str(book), "--time", "0.5", "--games", "2", "--max-plies", "2",
                   "--jobs", "1", "--db", str(db), "aviary:random", "aviary:random?seed=2")
    assert result.returncode == 0, result.stderr
    first = next(line for line in book.read_text().splitlines() if not line.startswith("#"))
    with sqlite3.connect(db) as connection:
        openings = [row[0] for row in connection.execute("SELECT opening FROM games")]
    assert openings == [first, first]
