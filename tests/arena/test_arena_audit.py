"""`arena report` re-plays every stored game under the rules and flags what does not follow.

A real tournament is played, then its SQLite file is changed the way a program run
unisolated could change it; the report must name each changed game and nothing else.
"""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from aviary.arena.audit import audit
from aviary.arena.games import make_game
from aviary.arena.store import Store


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "aviary", "arena", *args],
                          capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("audit") / "results.sqlite"
    result = arena("run", "--game", "pikachu", "--option", "n=7", "--time", "0.2",
                   "--max-plies", "30", "--games", "4", "--jobs", "1", "--db", str(db),
                   "aviary:random?seed=1", "aviary:random?seed=2")
    assert result.returncode == 0, result.stderr
    return db


def tampered(played: Path, tmp_path: Path, *statements: str) -> Path:
    db = tmp_path / "results.sqlite"
    shutil.copy(played, db)
    with sqlite3.connect(db) as connection:
        for statement in statements:
            connection.execute(statement)
    return db


def test_an_untouched_tournament_follows_from_its_moves(played):
    with Store(played, read_only=True) as store:
        assert audit(store) == {}
    report = arena("report", str(played))
    assert "every stored result follows from its moves" in report.stdout
    assert "FLAGGED" not in report.stdout


def _turn_result_round(connection: sqlite3.Connection) -> None:
    winner = connection.execute("SELECT winner FROM games WHERE id = 2").fetchone()[0]
    new = 0 if winner is None else 1 - winner
    connection.execute("UPDATE games SET winner = ?, result = ?, reason = 'captured' "
                       "WHERE id = 2", (new, float(new == 0)))


def _illegal_position(connection: sqlite3.Connection) -> None:
    connection.execute("UPDATE moves SET state = replace(state, 'b', 'w') "
                       "WHERE game = 2 AND ply = 3")


def _forfeit_by_the_side_not_to_move(connection: sqlite3.Connection) -> None:
    (last,) = connection.execute("SELECT state FROM moves WHERE game = 2 ORDER BY ply DESC "
                                 "LIMIT 1").fetchone()
    game = make_game("pikachu", {"n": "7"})
    to_move = game.to_move(game.decode(last))
    connection.execute("UPDATE games SET reason = 'timeout', winner = ?, result = ? "
                       "WHERE id = 2", (to_move, float(to_move == 0)))


@pytest.mark.parametrize("change, says", [
    (_turn_result_round, ("won by", "not over")),
    (_illegal_position, ("not a legal move",)),
    (_forfeit_by_the_side_not_to_move, ("not to move",)),
])
def test_a_changed_game_is_flagged_and_only_that_one(played, tmp_path, change, says):
    db = tmp_path / "results.sqlite"
    shutil.copy(played, db)
    with sqlite3.connect(db) as connection:
        change(connection)
    with Store(db, read_only=True) as store:
        problems = audit(store)
    assert list(problems) == [2] and any(words in problems[2] for words in says)
    report = arena("report", str(db))
    assert report.returncode == 0, report.stderr
    assert "FLAGGED game 2" in report.stdout and "1 stored game(s)" in report.stdout


def test_a_forged_game_of_unknown_players_is_flagged_and_report_and_resume_still_work(
        played, tmp_path):
    db = tampered(played, tmp_path,
                  "INSERT INTO games (id, round, first, second, opening, result, winner, "
                  "reason, detail, plies, wall, finished) VALUES (99, 0, 'forger', 'x', "
                  "'w ......', 1.0, 0, 'resign', '', 0, 0, '')")
    report = arena("report", str(db))
    assert report.returncode == 0, report.stderr
    assert "FLAGGED game 99" in report.stdout
    resumed = arena("resume", str(db))
    assert resumed.returncode == 0, resumed.stderr
