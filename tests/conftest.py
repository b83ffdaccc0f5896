"""Shared by the whole suite: pytest puts this folder on sys.path, so test files in the
game folders can import its helper modules (`course_clock`)."""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Iterator

# Course commands run by tests start no warm engine server of their own (it would outlive
# the test); tests of the warm server turn this off in a private AVIARY_WARM_DIR.
os.environ["AVIARY_NO_WARM"] = "1"
# Nor do they (nor the arena's, which keeps the variable) read or add to the user's course
# memory (the game so far, `aviary.course.memory`): a test's move would become another
# test's history. Its own tests turn it on.
os.environ["AVIARY_NO_MEMORY"] = "1"


@contextlib.contextmanager
def _default_warm_folder() -> Iterator[None]:
    """Where a course command run with a clean environment (the arena's sandbox drops
    AVIARY_NO_WARM and AVIARY_WARM_DIR) starts its warm server."""
    saved = os.environ.pop("AVIARY_WARM_DIR", None)
    try:
        yield
    finally:
        if saved is not None:
            os.environ["AVIARY_WARM_DIR"] = saved


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


def pytest_sessionstart(session):
    with _default_warm_folder():
        session.config.warm_server_before = (_status() or {}).get("pid")


def pytest_sessionfinish(session, exitstatus):
    """Stop the warm server a course command of this session started in the default
    folder: running this code, started by a course command, not there before."""
    from aviary.course import warm_server as warm

    with _default_warm_folder():
        deadline = time.monotonic() + 120
        while _starting() and time.monotonic() < deadline:
            time.sleep(0.5)
        running = _status()
        if (running is not None and running.get("pid") != session.config.warm_server_before
                and running.get("code") == warm.code_digest()
                and running.get("started_by") == "a course command"):
            warm.request({"command": "stop"})
