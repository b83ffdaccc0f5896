"""A tournament killed with kill -9 part-way and resumed has exactly the planned games.

A real `aviary arena run` subprocess is killed with SIGKILL once a few games
are stored; `aviary arena resume` then finishes it. Nothing is duplicated
(ids are unique and cover the plan exactly), nothing stored before the kill
changes, and no player process outlives the killed arena.
"""

import contextlib
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from arena_programs import assert_no_process_mentions, processes_mentioning, write_programs

PLANNED = 10


def stored_games(db) -> list[tuple]:
    if not db.exists():
        return []
    try:
        with sqlite3.connect(db, timeout=5) as connection:
            return connection.execute("SELECT * FROM games ORDER BY id").fetchall()
    except sqlite3.OperationalError:  # the tables do not exist yet
        return []


def test_kill_9_then_resume_plays_exactly_the_planned_games_once(tmp_path):
    commands = write_programs(tmp_path)
    db = tmp_path / "results.sqlite"
    arena = [sys.executable, "-m", "aviary", "arena"]
    tournament = subprocess.Popen(
        [*arena, "run", "--time", "1", "--games", str(PLANNED), "--max-plies", "12",
         "--jobs", "2", "--db", str(db), "aviary:random?seed=3",
         f"mover={commands['random_mover']}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.monotonic() + 60
    while len(stored_games(db)) < 3 and time.monotonic() < deadline:
        assert tournament.poll() is None, "the tournament ended before it could be killed"
        time.sleep(0.05)
    os.kill(tournament.pid, signal.SIGKILL)
    tournament.wait()
    before = stored_games(db)
    assert 3 <= len(before) < PLANNED
    assert_no_process_mentions(str(tmp_path))  # workers and their moves died with the arena

    resumed = subprocess.run([*arena, "resume", str(db), "--jobs", "2"],
                             capture_output=True, text=True, timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    after = stored_games(db)
    assert [row[0] for row in after] == list(range(1, PLANNED + 1))
    assert set(before) <= set(after)  # nothing stored before the kill changed
    with sqlite3.connect(db) as connection:
        per_game = dict(connection.execute("SELECT game, COUNT(*) FROM moves GROUP BY game"))
        plies = dict(connection.execute("SELECT id, plies FROM games"))
    assert all(per_game.get(game, 0) == count for game, count in plies.items())

    again = subprocess.run([*arena, "resume", str(db)], capture_output=True, text=True,
                           timeout=60)
    assert again.returncode == 0 and len(stored_games(db)) == PLANNED


def test_a_worker_killed_mid_game_is_replaced_and_the_game_lost_by_the_player_to_move(
        tmp_path):
    """A worker killed from outside during a program's move: that game is the program's
    forfeit (`crash`), a new worker plays the rest, and `resume` finds nothing left."""
    commands = write_programs(tmp_path)
    db = tmp_path / "results.sqlite"
    arena = [sys.executable, "-m", "aviary", "arena"]
    tournament = subprocess.Popen(
        [*arena, "run", "--n", "7", "--time", "0.5", "--games", "4", "--jobs", "1",
         "--db", str(db), "aviary:random?seed=3", f"sleepy={commands['sleeper']}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not (workers := [int(pid) for pid in os.listdir("/proc")
                           if pid.isdigit() and _is_worker_of(int(pid), tournament.pid)]
               ) or not _moving(str(tmp_path / "sleeper.py")):  # sleepy's move runs
        assert time.monotonic() < deadline and tournament.poll() is None
        time.sleep(0.02)
    os.kill(workers[0], signal.SIGKILL)
    _, stderr = tournament.communicate(timeout=120)
    assert tournament.returncode == 0, stderr
    games = stored_games(db)
    assert [row[0] for row in games] == [1, 2, 3, 4]
    with sqlite3.connect(db) as connection:
        details = [detail for (detail,) in connection.execute(
            "SELECT detail FROM games WHERE reason = 'crash'")]
    assert any("worker died" in detail and "sleepy's move" in detail for detail in details)
    assert_no_process_mentions(str(tmp_path))
    resumed = subprocess.run([*arena, "resume", str(db)], capture_output=True, text=True,
                             timeout=120)
    assert resumed.returncode == 0 and [row[0] for row in stored_games(db)] == [1, 2, 3, 4]


def _moving(program: str) -> bool:
    """Whether a process runs `program` (the arena's own command line only names it)."""
    for pid in processes_mentioning(program):
        with contextlib.suppress(OSError):  # it may end while we look
            if b"arena" not in Path(f"/proc/{pid}/cmdline").read_bytes():
                return True
    return False


def _is_worker_of(pid: int, parent: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            ppid = int(stat.read().rsplit(")", 1)[1].split()[1])
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            return ppid == parent and b"spawn_main" in cmdline.read()
    except (OSError, ValueError):
        return False
