"""Ctrl-C and SIGTERM on a real `aviary arena run`: nothing lost, no hang, no process left.

The signal goes to the arena's whole process group, as a terminal's Ctrl-C does. The
first one stops the tournament: finished games stored, games in progress abandoned,
exit 128 + signal. A second one quits at once. Either way the database passes SQLite's
integrity check, every stored game is complete, and `resume` finishes the plan.
"""

import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest
from arena_programs import assert_no_process_mentions, write_programs

PLANNED = 10
ARENA = [sys.executable, "-m", "aviary", "arena"]


def stored(db) -> int:
    try:
        with sqlite3.connect(db, timeout=5) as connection:
            return int(connection.execute("SELECT COUNT(*) FROM games").fetchone()[0])
    except sqlite3.OperationalError:  # not created yet
        return 0


def start(tmp_path, *options: str) -> tuple[subprocess.Popen, object]:
    commands = write_programs(tmp_path)
    (tmp_path / "slow").touch()
    db = tmp_path / "results.sqlite"
    arena = subprocess.Popen(
        [*ARENA, "run", "--time", "2", "--games", str(PLANNED), "--max-plies", "6",
         "--jobs", "2", *options, "--db", str(db), "aviary:random?seed=5",
         f"slow={commands['slow_mover']}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.monotonic() + 120
    while stored(db) < 2:  # games are stored and others are in progress
        assert arena.poll() is None, arena.stderr.read() if arena.stderr else ""
        assert time.monotonic() < deadline, "no game was stored"
        time.sleep(0.05)
    return arena, db


def without_load_warning(err: str) -> list[str]:
    """stderr's lines but the warning that the machine is busy (it depends on the load)."""
    return [line for line in err.strip().splitlines()
            if not line.startswith("warning: the machine's load")]


def interrupt(arena: subprocess.Popen, *signals: int) -> str:
    for number in signals:
        os.killpg(arena.pid, number)
    try:
        _, err = arena.communicate(timeout=30)  # a correctness bound: it exits, not hangs
    except subprocess.TimeoutExpired:
        os.killpg(arena.pid, signal.SIGKILL)
        arena.communicate()
        pytest.fail("the arena did not exit within 30 s of the signal")
    return err


def check_database(db) -> list[int]:
    """Integrity, and every stored game complete (all its moves); returns the ids."""
    with sqlite3.connect(db) as connection:
        assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        plies = dict(connection.execute("SELECT id, plies FROM games"))
        moves = dict(connection.execute("SELECT game, COUNT(*) FROM moves GROUP BY game"))
    assert all(moves.get(game, 0) == count for game, count in plies.items())
    return sorted(plies)


def resume_completes(db) -> None:
    (db.parent / "slow").unlink()  # the rest of the plan at full speed
    result = subprocess.run([*ARENA, "resume", str(db), "--jobs", "2"], capture_output=True,
                            text=True, timeout=180)
    assert result.returncode == 0, result.stderr
    assert check_database(db) == list(range(1, PLANNED + 1))


def test_one_ctrl_c_stores_finished_games_exits_130_and_resume_completes(tmp_path):
    arena, db = start(tmp_path)
    err = interrupt(arena, signal.SIGINT)
    assert arena.returncode == 130, err
    lines = without_load_warning(err)
    assert "stopping" in lines[0] and "Traceback" not in err
    assert "games stored" in lines[-1] and "resume" in lines[-1]
    ids = check_database(db)
    assert 2 <= len(ids) < PLANNED
    assert f"{len(ids)} of {PLANNED} games stored" in lines[-1]
    assert_no_process_mentions(str(tmp_path))
    resume_completes(db)


def test_a_second_ctrl_c_quits_at_once_and_the_database_stays_consistent(tmp_path):
    arena, db = start(tmp_path)
    os.killpg(arena.pid, signal.SIGINT)
    time.sleep(0.02)  # the second may land while stopping, or after: both must end it
    err = interrupt(arena, signal.SIGINT)
    assert arena.returncode in (130, -signal.SIGINT), err  # -2: killed while exiting
    assert "Traceback" not in err
    assert len(check_database(db)) >= 2
    assert_no_process_mentions(str(tmp_path))
    resume_completes(db)


def test_sigterm_stops_the_same_way_with_exit_143(tmp_path):
    arena, db = start(tmp_path)
    err = interrupt(arena, signal.SIGTERM)
    assert arena.returncode == 143, err
    assert "SIGTERM" in err and "Traceback" not in err
    assert len(check_database(db)) >= 2
    assert_no_process_mentions(str(tmp_path))


def test_ctrl_c_stops_the_ray_backend_too(tmp_path):
    pytest.importorskip("ray")
    arena, db = start(tmp_path, "--backend", "ray")
    err = interrupt(arena, signal.SIGINT)
    assert arena.returncode == 130, err[-2000:]
    assert "stopping" in err and "games stored" in err
    assert len(check_database(db)) >= 2
    assert_no_process_mentions(str(tmp_path))


def test_ctrl_c_typed_in_a_real_terminal_stops_the_live_view_cleanly(tmp_path):
    """Through a pty: the terminal turns ^C into SIGINT for the whole foreground group."""
    import pty
    import select

    commands = write_programs(tmp_path)
    (tmp_path / "slow").touch()
    db = tmp_path / "results.sqlite"
    pid, terminal = pty.fork()
    if pid == 0:  # the child: the arena, on the terminal
        os.execv(sys.executable, [*ARENA, "run", "--time", "2", "--games", str(PLANNED),
                                  "--max-plies", "6", "--jobs", "2", "--db", str(db),
                                  "aviary:random?seed=5", f"slow={commands['slow_mover']}"])
    screen = b""

    def read_for(seconds: float) -> bool:
        nonlocal screen
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if select.select([terminal], [], [], 0.05)[0]:
                try:
                    screen += os.read(terminal, 65536)
                except OSError:  # the arena closed the terminal: it has exited
                    return False
        return True

    deadline = time.monotonic() + 120
    while stored(db) < 2:
        assert time.monotonic() < deadline, "no game was stored"
        read_for(0.1)
    os.write(terminal, b"\x03")
    status = None
    deadline = time.monotonic() + 30  # a correctness bound: it exits, not hangs
    while status is None and time.monotonic() < deadline:
        if not read_for(0.1):
            time.sleep(0.05)
        done, code = os.waitpid(pid, os.WNOHANG)
        status = code if done else None
    if status is None:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        pytest.fail("the arena did not exit within 30 s of Ctrl-C")
    read_for(0.2)
    os.close(terminal)
    text = screen.decode(errors="replace")
    assert os.waitstatus_to_exitcode(status) == 130, text[-1500:]
    assert "stopping" in text and "games stored" in text and "Traceback" not in text
    assert "\x1b[?25h" in text  # the live view gave the cursor back
    check_database(db)
    assert_no_process_mentions(str(tmp_path))
