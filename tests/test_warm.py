"""The warm engine server: course commands find it, its engine answers, stop ends it."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from aviary.games import registry

START = "........wwwwwwwwwwwwwwww................bbbbbbbbbbbbbbbb........"


def aviary(*args: str, env: dict[str, str], timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "aviary", *args], capture_output=True,
                          text=True, env=env, timeout=timeout, stdin=subprocess.DEVNULL)


@pytest.fixture
def env(tmp_path):
    directory = tmp_path / "warm"
    environment = dict(os.environ, AVIARY_WARM_DIR=str(directory), AVIARY_COURSE_TRACE="1")
    yield environment
    aviary("warm", "stop", env=environment)


def test_course_commands_use_the_warm_server_and_stop_ends_it(env):
    assert aviary("warm", "status", env=env).returncode == 1  # none yet
    started = aviary("warm", "start", "--idle", "5", env=env)
    assert started.returncode == 0, started.stderr
    assert os.stat(env["AVIARY_WARM_DIR"]).st_mode & 0o077 == 0  # private to the user
    for _ in range(2):
        result = aviary("pikachu", "8", "w", START, "3", env=env)
        assert result.returncode == 0, result.stderr
        game = registry.make("pikachu")
        assert result.stdout.splitlines()[-1] in game.answers(game.parse(START, "w"))
        assert "engine answer at" in result.stderr
    status = aviary("warm", "status", env=env)
    assert status.returncode == 0 and '"served": 2' in status.stdout
    assert aviary("warm", "stop", env=env).stdout.strip() == "stopping"
    deadline = time.monotonic() + 30
    while aviary("warm", "status", env=env).returncode != 1:
        assert time.monotonic() < deadline, "the server did not stop"
        time.sleep(0.2)


def test_without_a_server_the_engine_child_answers_and_nothing_is_left(env):
    result = aviary("pikachu", "8", "w", START, "4", env=env)
    assert result.returncode == 0 and "engine answer at" in result.stderr
    leftovers = subprocess.run(["pgrep", "-f", f"aviary.course --think pikachu .*{START}"],
                               capture_output=True, text=True).stdout.split()
    assert leftovers == []


def test_a_broken_request_does_not_bring_the_server_down(env):
    assert aviary("warm", "start", "--idle", "5", env=env).returncode == 0
    import socket

    path = os.path.join(env["AVIARY_WARM_DIR"], "warm.sock")
    for junk in (b"not json\n", b'{"game": "no-such-game"}\n', b"\n"):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.connect(path)
            client.sendall(junk)
            client.settimeout(10)
            assert client.recv(100) == b""  # closed without an answer
    assert aviary("warm", "status", env=env).returncode == 0


def test_bad_arguments_are_one_line_and_exit_2(env):
    for args in (["warm"], ["warm", "start", "--idle", "0"], ["warm", "restart"]):
        result = aviary(*args, env=env)
        assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
