"""Shared by the whole suite: pytest puts this folder on sys.path, so test files in the
game folders can import its helper modules (`course_clock`)."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time

import pytest

# Course commands run by tests start no warm engine server of their own (it would outlive
# the test); tests of the warm server turn this off in a private AVIARY_WARM_DIR.
os.environ["AVIARY_NO_WARM"] = "1"
# Nor do they (nor the arena's, which keeps the variable) read or add to the user's course
# memory (the game so far, `aviary.course.memory`): a test's move would become another
# test's history. Its own tests turn it on.
os.environ["AVIARY_NO_MEMORY"] = "1"
# Nor do they talk to a warm server the user has running (README command 1 leaves one for
# ten minutes): its engines would answer at once, and a test of the command's own timing
# would measure the server. The session gets a folder of its own (mode 0700, as the
# server requires), which the arena's sandbox passes on to the programs it starts.
SESSION_WARM_FOLDER = tempfile.mkdtemp(prefix="aviary-tests-")
os.environ["AVIARY_WARM_DIR"] = SESSION_WARM_FOLDER


def pytest_xdist_auto_num_workers(config) -> int:
    """`-n auto` (pyproject's addopts): a worker a core this process may use, at most 4.
    Many tests run two or three busy processes of their own (an arena with two games at
    once, a course command and its engine), and every deadline test is written to hold
    with other work beside it; more workers than cores would only queue them."""
    cores = (len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
             else os.cpu_count() or 1)  # macOS has no affinity call
    return max(1, min(cores, 4))


@pytest.fixture(scope="session")
def session_cache(tmp_path_factory):
    """AVIARY_CACHE_DIR for the session's tests that build cached tables, never the user's:
    Sebastian's solve, done once here for its own tests and the web's, and Pikachu's
    endgame tables. The only session-wide cache folder: see tests/games/pikachu/conftest.py."""
    path = tmp_path_factory.mktemp("aviary-cache")
    previous = os.environ.get("AVIARY_CACHE_DIR")
    os.environ["AVIARY_CACHE_DIR"] = str(path)
    yield path
    if previous is None:
        os.environ.pop("AVIARY_CACHE_DIR", None)
    else:
        os.environ["AVIARY_CACHE_DIR"] = previous


def _status() -> dict | None:
    from aviary.course import warm_server as warm

    reply = warm.request({"command": "status"})
    try:
        return json.loads(reply[0]) if reply else None
    except ValueError:
        return None


def _starting() -> bool:
    """A server holds the folder's lock but does not answer yet (it loads its engines)."""
    from aviary.course import warm_server as warm

    folder = warm.socket_path().parent
    if not (folder / "warm.lock").exists():
        return False
    try:
        held = warm._lock(folder)
    except OSError:
        return False
    if held is None:
        return _status() is None
    os.close(held)
    return False


def pytest_sessionfinish(session, exitstatus):
    """Stop a warm server that a test left in the session's folder, then remove it."""
    from aviary.course import warm_server as warm

    os.environ["AVIARY_WARM_DIR"] = SESSION_WARM_FOLDER  # as at the start, whatever a test did
    deadline = time.monotonic() + 120
    while _starting() and time.monotonic() < deadline:
        time.sleep(0.5)
    if _status() is not None:
        warm.request({"command": "stop"})
    shutil.rmtree(SESSION_WARM_FOLDER, ignore_errors=True)
