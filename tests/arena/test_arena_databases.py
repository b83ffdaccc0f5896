"""Databases that are not ours, or broken: one line, exit 2, and the file left byte for byte.

Real SQLite files: an arena database whose pages past the first are overwritten (the
header and schema page intact), another program's valid database, a directory, a FIFO,
an empty file and random bytes.
"""

import hashlib
import os
import random
import sqlite3
import subprocess

import pytest

from aviary.arena.players import PlayerSpec
from aviary.arena.referee import GameRecord, MoveRecord
from aviary.arena.schedule import Config
from aviary.arena.store import APPLICATION_ID, Store
from aviary.cli import main as cli_main


@pytest.fixture
def arena(capsys):
    """`aviary arena ARGS` through the real dispatcher, in this process (quick)."""
    def run(*args: str) -> subprocess.CompletedProcess:
        capsys.readouterr()
        status = cli_main(["arena", *args])
        out, err = capsys.readouterr()
        return subprocess.CompletedProcess(args, status, out, err)
    return run


def digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def make_arena_db(path) -> None:
    """A real arena database with enough games to fill many pages."""
    config = Config(game="pikachu", players=[PlayerSpec("a", "aviary:random?seed=1"),
                                             PlayerSpec("b", "aviary:random?seed=2")],
                    seconds=1.0, games=60, game_options={"n": 8})
    with Store(path) as store:
        store.create(config)
        for slot in range(40):
            record = GameRecord(slot=slot, first="a", second="b", opening="x" * 64,
                                reason="ply-limit", detail="no result after 30 plies")
            record.moves = [MoveRecord(ply, ply % 2, "y" * 64, 0.1, 0.1) for ply in range(30)]
            store.save(record, slot // 2)


@pytest.fixture
def corrupt_db(tmp_path):
    path = tmp_path / "corrupt.sqlite"
    make_arena_db(path)
    data = bytearray(path.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    assert len(data) > 4 * page
    rng = random.Random(1)
    data[page:] = bytes(rng.randrange(256) for _ in range(len(data) - page))
    path.write_bytes(bytes(data))
    return path


def assert_one_line(result, *words: str) -> None:
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert lines[0].startswith("aviary arena: ")
    for word in words:
        assert word in lines[0], lines[0]


def test_a_new_arena_database_carries_the_application_id(tmp_path):
    path = tmp_path / "new.sqlite"
    make_arena_db(path)
    with sqlite3.connect(path) as connection:
        assert connection.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID


@pytest.mark.parametrize("command", [["resume"], ["report"], ["game"]])
def test_a_page_corrupted_database_is_one_line_and_left_unchanged(corrupt_db, command, arena):
    before = digest(corrupt_db)
    extra = ["1"] if command == ["game"] else []
    assert_one_line(arena(*command, str(corrupt_db), *extra), str(corrupt_db), "damaged")
    assert digest(corrupt_db) == before
    assert sorted(os.listdir(corrupt_db.parent)) == ["corrupt.sqlite"]


def test_another_programs_database_is_refused_by_every_command_and_untouched(tmp_path, arena):
    other = tmp_path / "some-other-app.sqlite"
    with sqlite3.connect(other) as connection:
        connection.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)")
        connection.execute("INSERT INTO notes (text) VALUES ('mine, not the arena''s')")
    connection.close()
    before = digest(other)
    for args in (["run", "--db", str(other), "aviary:random", "aviary:random"],
                 ["resume", str(other)], ["report", str(other)], ["game", str(other), "1"]):
        assert_one_line(arena(*args), "not an arena database", "notes")
        assert digest(other) == before
    assert sorted(os.listdir(tmp_path)) == ["some-other-app.sqlite"]


def test_a_directory_a_fifo_an_empty_file_and_random_bytes_are_one_line(tmp_path, arena):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    empty = tmp_path / "empty.sqlite"
    empty.touch()
    noise = tmp_path / "noise.sqlite"
    noise.write_bytes(random.Random(2).randbytes(50_000))
    cases = [(tmp_path, "is a directory"), (fifo, "not a regular file"),
             (empty, "is empty"), (noise, "not an SQLite database")]
    for path, words in cases:
        assert_one_line(arena("resume", str(path)), words)
    assert digest(noise) == hashlib.sha256(random.Random(2).randbytes(50_000)).hexdigest()
    assert empty.stat().st_size == 0


def test_report_exports_to_bad_paths_are_one_line_before_the_table(tmp_path, arena):
    db = tmp_path / "results.sqlite"
    make_arena_db(db)
    before = digest(db)
    fifo = tmp_path / "fifo.csv"
    os.mkfifo(fifo)
    (tmp_path / "link.json").symlink_to(db)
    for option, path, words in (("--csv", tmp_path / "missing-dir" / "x.csv", "does not exist"),
                                ("--json", tmp_path, "is a directory"),
                                ("--csv", fifo, "not a regular file"),
                                ("--json", tmp_path / "link.json", "symbolic link")):
        result = arena("report", str(db), option, str(path), "--force")
        assert_one_line(result, words)
        assert result.stdout == ""  # before: the table, then a traceback
    assert digest(db) == before


def test_report_exports_replace_a_regular_file_with_force(tmp_path, arena):
    db = tmp_path / "results.sqlite"
    make_arena_db(db)
    out = tmp_path / "standings.csv"
    out.write_text("old\n")
    assert arena("report", str(db), "--csv", str(out)).returncode == 2
    result = arena("report", str(db), "--csv", str(out), "--force")
    assert result.returncode == 0, result.stderr
    assert out.read_text().startswith("player,games,")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.sqlite", "standings.csv"]
