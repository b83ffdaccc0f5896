"""The warm engine server: course commands find it, its engine answers, stop ends it; it
starts itself, refuses other code, and a bad AVIARY_WARM_DIR is one line.

Every server here lives in a private AVIARY_WARM_DIR and is stopped (or killed by its pid)
before its test ends.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import aviary
from aviary.games import registry
from aviary.games.fallback import Fallback

START = "........wwwwwwwwwwwwwwww................bbbbbbbbbbbbbbbb........"
SLOW_NUMBA = """
import importlib.abc, sys, time
class _Never(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "numba":
            time.sleep(600)
sys.meta_path.insert(0, _Never())
"""


def aviary_run(*args: str, env: dict[str, str],
               timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "aviary", *args], capture_output=True,
                          text=True, env=env, timeout=timeout, stdin=subprocess.DEVNULL)


def status(env: dict[str, str]) -> dict | None:
    result = aviary_run("warm", "status", env=env)
    return json.loads(result.stdout) if result.returncode == 0 else None


def wait_until(condition, seconds: float = 300, what: str = "") -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"waited {seconds} s for {what}"
        time.sleep(0.3)


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    with open(f"/proc/{pid}/stat") as stat:  # a zombie waiting for its reaper is gone too
        return stat.read().rsplit(")", 1)[1].split()[0] == "Z"


@pytest.fixture
def env(tmp_path):
    """A private warm folder; whatever server runs there is stopped at the end."""
    directory = tmp_path / "warm"
    environment = dict(os.environ, AVIARY_WARM_DIR=str(directory))
    environment.pop("AVIARY_NO_WARM", None)
    yield environment
    running = status(environment)
    aviary_run("warm", "stop", env=environment)
    if running is not None:
        wait_until(lambda: gone(running["pid"]), 60, "the server to stop")


def last_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    return lines[-1] if lines else ""


def test_course_commands_use_the_warm_server_and_stop_ends_it(env):
    env = dict(env, AVIARY_NO_WARM="1")
    assert aviary_run("warm", "status", env=env).returncode == 1  # none yet
    started = aviary_run("warm", "start", "--idle", "5", env=env)
    assert started.returncode == 0, started.stderr
    assert os.stat(env["AVIARY_WARM_DIR"]).st_mode & 0o077 == 0  # private to the user
    game = registry.make("pikachu")
    for _ in range(2):
        result = aviary_run("pikachu", "8", "w", START, "3", env=env)
        assert result.returncode == 0, result.stderr
        assert result.stdout.splitlines()[-1] in game.answers(game.parse(START, "w"))
        assert last_line(result.stderr).startswith("engine (depth ")
    running = status(env)
    assert running is not None and running["served"] == 2 and running["refused"] == 0
    assert aviary_run("warm", "stop", env=env).stdout.strip() == "stopping"
    assert aviary_run("warm", "stop", env=env).stdout.strip() == \
        "no warm engine server is running"  # a second stop at once finds none
    wait_until(lambda: gone(running["pid"]), 60, "the server to stop")


def test_without_a_server_the_engine_child_answers_and_nothing_is_left(env):
    env = dict(env, AVIARY_NO_WARM="1")
    result = aviary_run("pikachu", "8", "w", START, "8", env=env)
    assert result.returncode == 0 and last_line(result.stderr).startswith("engine ("), \
        result.stderr
    def leftovers() -> list[str]:
        return [pid for pid in subprocess.run(  # the forked engine child and fallback
            ["pgrep", "-f", f"aviary pikachu 8 w {START} 8"], capture_output=True,
            text=True).stdout.split()]

    wait_until(lambda: leftovers() == [], 10, "the killed searches to end")
    assert status(env) is None  # AVIARY_NO_WARM=1: none was started


def test_a_course_command_that_finds_no_server_starts_one_for_its_game(env):
    """The server it starts is its own engine already (the command's request is its first),
    loads that game's engine alone, and the others' when asked."""
    result = aviary_run("pikachu", "8", "w", START, "8", env=env)
    assert result.returncode == 0, result.stderr
    assert last_line(result.stderr).startswith("engine ("), result.stderr
    running = status(env)
    assert running is not None, "the server stopped with the command"
    assert running["started_by"] == "a course command" and running["idle_minutes"] == 10
    assert running["served"] == 1
    assert [name.split()[0] for name in running["engines"]] == ["pikachu"]  # no other game's
    again = aviary_run("pikachu", "8", "w", START, "3", env=env)
    assert last_line(again.stderr).startswith("engine ("), again.stderr
    game = registry.make("betsy")
    betsy = aviary_run("betsy", "w", game.format(game.start()), "8", env=env)
    assert last_line(betsy.stderr).startswith("engine ("), betsy.stderr
    after = status(env)
    assert after["pid"] == running["pid"] and after["served"] == 3
    assert sorted(name.split()[0] for name in after["engines"]) == ["betsy", "pikachu"]


def test_the_fallback_answers_while_the_engine_cannot_load(env, tmp_path):
    """numba never loads here: the fallback search gives a forced win 3 plies deep, and
    the command says so and stops at once (a forced win leaves nothing to wait for)."""
    (tmp_path / "sitecustomize.py").write_text(SLOW_NUMBA)
    env = dict(env, AVIARY_NO_WARM="1", PYTHONPATH=str(tmp_path))
    board = "....KB.RNP.R..........p.b.P.P..Pp.b....p..ppPNpq........rn...knr"
    started = time.monotonic()
    result = aviary_run("betsy", "b", board, "30", env=env)
    took = time.monotonic() - started
    assert result.returncode == 0, result.stderr
    # depth 1 already: past it, quiescence answers the threat and takes the Kingfisher
    assert last_line(result.stderr).startswith("fallback (depth 1, win in 3"), result.stderr
    game = registry.make("betsy")
    state = game.parse(board, "b")
    reports = list(Fallback(game, registry.load(registry.spec("betsy").evaluation)).think(
        state, time.monotonic() + 600))  # the same search in this process
    assert result.stdout.splitlines()[-1] == game.answer(state, reports[-1].move)
    assert took < 29  # it did not wait for the deadline


def test_a_server_running_other_code_is_never_used(env, tmp_path):
    """A server from another install (here: a copy of the package with one edit) refuses
    the command, which answers with its own engine; when its own code changes on disk,
    the server stops at the next request."""
    env = dict(env, AVIARY_NO_WARM="1")
    copy = tmp_path / "other"
    shutil.copytree(Path(aviary.__file__).parent, copy / "aviary",
                    ignore=shutil.ignore_patterns("__pycache__"))
    edited = copy / "aviary" / "games" / "base.py"
    edited.write_text(edited.read_text() + "\n# another version\n")
    other = dict(env, PYTHONPATH=str(copy))
    assert aviary_run("warm", "start", "--lazy", "--idle", "5", env=other).returncode == 0
    running = status(env)
    assert running is not None
    result = aviary_run("pikachu", "8", "w", START, "8", env=env)
    assert result.returncode == 0
    assert last_line(result.stderr).startswith("engine ("), result.stderr  # its own engine
    after = status(env)
    assert after["served"] == 0 and after["refused"] == 1 and after["engines"] == []
    edited.write_text(edited.read_text() + "# an upgrade\n")  # the server's code changes
    aviary_run("pikachu", "8", "w", START, "5", env=other)
    wait_until(lambda: gone(running["pid"]), 60, "the stale server to stop")


def test_a_server_of_other_code_is_replaced_by_the_command_that_finds_it(env, tmp_path):
    copy = tmp_path / "other"
    shutil.copytree(Path(aviary.__file__).parent, copy / "aviary",
                    ignore=shutil.ignore_patterns("__pycache__"))
    edited = copy / "aviary" / "games" / "base.py"
    edited.write_text(edited.read_text() + "\n# another version\n")
    other = dict(env, PYTHONPATH=str(copy))
    assert aviary_run("warm", "start", "--lazy", "--idle", "5", env=other).returncode == 0
    stale = status(env)
    result = aviary_run("pikachu", "8", "w", START, "8", env=env)  # one call (its engine
    # child loads numba: on a loaded machine, most of 3 s)
    assert result.returncode == 0 and last_line(result.stderr).startswith("engine ("), \
        result.stderr
    wait_until(lambda: gone(stale["pid"]), 60, "the stale server to stop")
    from aviary.course import warm_server as warm

    wait_until(lambda: (status(env) or {}).get("code") == warm.code_digest(), 120,
               "a server of this code in its place")
    assert status(env)["started_by"] == "a course command"


def test_refused_requests_do_not_keep_a_server_alive(env):
    """Idle for 12 s (`--idle 0.2`) while a command of other code knocks every 0.3 s
    (each knock used to restart the idle time): the refusals are not requests served,
    and it stops."""
    env = dict(env, AVIARY_NO_WARM="1")
    assert aviary_run("warm", "start", "--lazy", "--idle", "0.2", env=env).returncode == 0
    pid = status(env)["pid"]
    import socket

    path = os.path.join(env["AVIARY_WARM_DIR"], "warm.sock")
    request = json.dumps({"game": "pikachu", "settings": {}, "state": "x",
                          "time": {"remaining": 1, "spent": 0, "sent": 0},
                          "code": "another version"}).encode() + b"\n"
    refusals, knocks = 0, [time.monotonic()]
    given_up = time.monotonic() + 180
    while not gone(pid):
        assert time.monotonic() < given_up, "the server kept running"
        knocks.append(time.monotonic())
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            try:
                client.connect(path)
                client.sendall(request)
                client.settimeout(10)
                refusals += b"refused" in client.recv(1000)
            except OSError:
                pass  # it is going away
        time.sleep(0.3)
    # it refused for 12 s, never idle for 6 s between knocks, and stopped all the same
    assert refusals >= 5 and max(b - a for a, b in itertools.pairwise(knocks)) < 6


def test_stop_works_while_a_server_starts(env, tmp_path):
    """Its engines never load here (numba's import hangs): `stop` ends it all the same, and
    `warm start`, which waited for it, says so."""
    (tmp_path / "sitecustomize.py").write_text(SLOW_NUMBA)
    env = dict(env, AVIARY_NO_WARM="1", PYTHONPATH=str(tmp_path))
    starting = subprocess.Popen([sys.executable, "-m", "aviary", "warm", "start", "--idle", "5"],
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)
    try:
        lock = Path(env["AVIARY_WARM_DIR"]) / "warm.lock"
        wait_until(lambda: lock.exists() and lock.read_text().endswith(" starting"), 120,
                   "the server to take its lock")
        pid = int(lock.read_text().split()[0])
        said = aviary_run("warm", "status", env=env)
        assert said.returncode == 1 and f"starting (pid {pid})" in said.stdout, said.stdout
        stopped = aviary_run("warm", "stop", env=env)
        assert stopped.returncode == 0 and "stopping" in stopped.stdout, stopped.stdout
        wait_until(lambda: gone(pid), 60, "the starting server to stop")
        out, err = starting.communicate(timeout=60)
    finally:
        starting.kill()
        starting.wait()
    assert starting.returncode == 2 and "stopped while it started" in err, err
    assert status(env) is None


def test_a_request_deadline_is_capped_and_a_gone_client_stops_its_search(env):
    """A request asking 1e300 s searches (for at most MAX_SECONDS); the command going
    away stops it without waiting for the search's next depth."""
    from aviary.course import warm_server as warm

    env = dict(env, AVIARY_NO_WARM="1")
    assert aviary_run("warm", "start", "--lazy", "--idle", "5", env=env).returncode == 0
    import socket

    game = registry.make("pikachu")
    path = os.path.join(env["AVIARY_WARM_DIR"], "warm.sock")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.connect(path)
        client.sendall(json.dumps({
            "game": "pikachu", "settings": {}, "state": game.encode(game.parse(START, "w")),
            "time": {"remaining": 1e300, "spent": 0, "sent": time.monotonic()},
            "code": warm.code_digest()}).encode() + b"\n")
        client.settimeout(120)
        assert b"answer" in client.recv(1000)
        assert status(env)["searching"] == 1
    wait_until(lambda: status(env)["searching"] == 0, 60, "the search to stop")


def test_a_search_notices_its_command_going_away():
    import socket
    import threading

    import numpy as np

    from aviary.course import warm_server as warm

    ours, theirs = socket.socketpair()
    stop = np.zeros(1, dtype=np.int64)
    searched = threading.Event()
    watcher = threading.Thread(target=warm._watch, args=(ours, stop, searched))
    watcher.start()
    time.sleep(0.5)
    assert stop[0] == 0  # the command is still there
    theirs.close()
    watcher.join(30)
    assert stop[0] == 1 and not watcher.is_alive()
    ours.close()


def test_killing_the_server_mid_move_leaves_the_command_its_own_engine(env):
    env = dict(env, AVIARY_NO_WARM="1")
    assert aviary_run("warm", "start", "--idle", "5", env=env).returncode == 0
    pid = status(env)["pid"]
    started = time.monotonic()
    command = subprocess.Popen([sys.executable, "-m", "aviary", "pikachu", "8", "w", START, "10"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        wait_until(lambda: (status(env) or {}).get("served") == 1, 60, "the request")
        os.kill(pid, signal.SIGKILL)
        out, err = command.communicate(timeout=60)
    finally:
        command.kill()
        command.wait()
    took = time.monotonic() - started
    assert command.returncode == 0
    assert last_line(err).startswith("engine ("), err
    assert took > 8  # it played on to its deadline (about 9.4 s), not out at the kill
    assert status(env) is None  # nothing answers on the dead server's socket


@pytest.mark.parametrize("where", ["missing", "file", "long"])
def test_a_bad_warm_folder_is_one_line_and_exit_2(env, tmp_path, where):
    folder = {"missing": tmp_path / "no" / "such" / "folder", "file": tmp_path / "a-file",
              "long": tmp_path / ("x" * 110)}[where]
    (tmp_path / "a-file").write_text("")
    env = dict(env, AVIARY_WARM_DIR=str(folder))
    for args in (["warm", "start"], ["warm", "status"], ["warm", "stop"]):
        result = aviary_run(*args, env=env, timeout=60)
        assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
        assert "AVIARY_WARM_DIR" in result.stderr and "Traceback" not in result.stderr
    course = aviary_run("pikachu", "8", "w", START, "1", env=env)  # the move is still made
    assert course.returncode == 0 and course.stdout.strip(), course.stderr
    assert not (tmp_path / "no").exists()


def test_a_directory_where_the_socket_goes_is_one_line_and_exit_2(env):
    folder = Path(env["AVIARY_WARM_DIR"])
    folder.mkdir(mode=0o700)
    (folder / "warm.sock").mkdir()
    for args in (["warm", "start", "--lazy", "--foreground"], ["warm", "start"]):
        result = aviary_run(*args, env=env, timeout=120)
        assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
        assert "warm.sock is not a socket" in result.stderr and "Traceback" not in result.stderr
    course = aviary_run("pikachu", "8", "w", START, "1", env=env)  # the move is still made
    assert course.returncode == 0 and course.stdout.strip(), course.stderr
    assert (folder / "warm.sock").is_dir()


def test_the_fallback_search_says_why_it_failed(capfd):
    """The forked fallback writes its exception to stderr (it used to exit silently, and a
    command whose engine was late then answered with its quick move alone)."""

    from aviary.course.runner import FallbackChild
    from aviary.search.clock import Deadline

    game = registry.make("pikachu")

    def broken(*_):
        raise RuntimeError("no evaluation here")

    child = FallbackChild(game, game.parse(START, "w"), broken, Deadline.after(60))
    output = b""
    while chunk := child.read():  # until the child has exited
        output += chunk
    child.close()
    assert output == b""  # no answer
    assert "the fallback search failed: RuntimeError: no evaluation here" in capfd.readouterr().err


def test_a_broken_request_does_not_bring_the_server_down(env):
    env = dict(env, AVIARY_NO_WARM="1")
    assert aviary_run("warm", "start", "--lazy", "--idle", "5", env=env).returncode == 0
    import socket

    path = os.path.join(env["AVIARY_WARM_DIR"], "warm.sock")
    for junk in (b"not json\n", b'{"game": "no-such-game"}\n', b"\n", b"[1]\n"):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.connect(path)
            client.sendall(junk)
            client.settimeout(10)
            assert b"answer" not in client.recv(1000)  # no answer, maybe a refusal
    assert aviary_run("warm", "status", env=env).returncode == 0


def test_bad_arguments_are_one_line_and_exit_2(env):
    for args in (["warm"], ["warm", "start", "--idle", "0"], ["warm", "restart"],
                 ["warm", "start", "--idle", "1e308"]):
        result = aviary_run(*args, env=env)
        assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr


def test_kill_stops_the_server_cleanly(env):
    env = dict(env, AVIARY_NO_WARM="1")
    assert aviary_run("warm", "start", "--lazy", "--idle", "5", env=env).returncode == 0
    pid = status(env)["pid"]
    os.kill(pid, signal.SIGTERM)
    wait_until(lambda: gone(pid), 60, "the server to stop")
    assert not (Path(env["AVIARY_WARM_DIR"]) / "warm.sock").exists()
    assert "stopped after serving 0 requests" in \
        (Path(env["AVIARY_WARM_DIR"]) / "warm.log").read_text()


def test_the_suite_keeps_its_course_commands_away_from_the_users_warm_server():
    """README command 1 leaves a warm server in the default folder for ten minutes; the
    suite's course commands must not reach it (their timing tests would measure the
    server). conftest gives the session a private folder instead."""
    from aviary.course import warm_server as warm

    folder = warm.socket_path().parent
    assert folder != Path(f"/tmp/aviary-{os.getuid()}")
    assert folder == Path(os.environ["AVIARY_WARM_DIR"])
    assert folder.is_dir() and folder.stat().st_mode & 0o077 == 0
