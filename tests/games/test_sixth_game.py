"""A sixth game through the registry alone: a folder and one registry entry, and it plays
in the arena, the course command, `aviary play` and the web app.

The installed package is copied to a temporary folder; `tests/games/toy/` (tic-tac-toe)
goes into the copy's `games/` and `ENTRY` into the copy's registry, and nothing else
changes (the first test checks exactly that). Every front end then runs as a real
process with the copy first on PYTHONPATH. The copy keeps the compiled numba caches
(`__pycache__`, modification times kept), so the other games' engines load rather
than compile when the web app warms them.
"""

from __future__ import annotations

import difflib
import http.client
import importlib.util
import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

import aviary

TOY = Path(__file__).with_name("toy")
GAMES_CLOSE = "\n    )\n}\n"  # the end of the registry's GAMES: the entry goes before it
ENTRY = '''        GameSpec(
            name="toy",
            summary="Tic-tac-toe: three in a row wins",
            game="aviary.games.toy.rules:TicTacToe",
            engines={
                "engine": "aviary.games.toy.engine:make_engine",
                "textbook": "aviary.games.toy.engine:make_engine",
            },
            quick="aviary.games.toy.engine:quick",
            command_summary="course command line: PLAYER BOARD SECONDS",
        ),
'''
START = "........."

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def package(tmp_path_factory) -> Path:
    """The folder to put on PYTHONPATH: a copy of aviary with the toy game added."""
    root = tmp_path_factory.mktemp("sixth")
    copy = root / "aviary"
    shutil.copytree(Path(aviary.__file__).parent, copy)  # __pycache__ too: numba's caches
    shutil.copytree(TOY, copy / "games" / "toy", ignore=shutil.ignore_patterns("__pycache__"))
    registry = copy / "games" / "registry.py"
    text = registry.read_text()
    assert text.count(GAMES_CLOSE) == 1, "the registry's GAMES no longer ends as expected"
    registry.write_text(text.replace(GAMES_CLOSE, "\n" + ENTRY.rstrip("\n") + GAMES_CLOSE))
    return root


@pytest.fixture(scope="module")
def env(package: Path, tmp_path_factory) -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(package), AVIARY_NO_WARM="1",
                AVIARY_WARM_DIR=str(tmp_path_factory.mktemp("warm")))


def aviary_run(env: dict[str, str], *args: str, timeout: float = 120,
               cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "aviary", *args], capture_output=True,
                          text=True, env=env, timeout=timeout, cwd=cwd,
                          stdin=subprocess.DEVNULL)


def sources(folder: Path) -> dict[Path, bytes]:
    return {path.relative_to(folder): path.read_bytes() for path in folder.rglob("*")
            if path.is_file() and "__pycache__" not in path.parts}


def test_the_copy_differs_only_by_the_game_folder_and_its_registry_entry(package):
    original = sources(Path(aviary.__file__).parent)
    copy = sources(package / "aviary")
    added = sorted(str(path) for path in set(copy) - set(original))
    toy = sorted(str(Path("games/toy") / path) for path in sources(TOY))
    assert added == toy and set(original) <= set(copy)
    changed = [path for path in original if copy[path] != original[path]]
    assert changed == [Path("games/registry.py")]
    diff = difflib.ndiff(original[changed[0]].decode().splitlines(keepends=True),
                         copy[changed[0]].decode().splitlines(keepends=True))
    edits = [line for line in diff if line[:1] in "+-"]
    assert all(line.startswith("+ ") for line in edits)
    assert "".join(line[2:] for line in edits) == ENTRY


def test_the_conformance_suite_checks_it_once_registered(env):
    """tests/games/test_conformance.py, run against the copy, finds the game and passes it."""
    suite = Path(__file__).with_name("test_conformance.py")
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                             "-k", "toy", str(suite)], capture_output=True, text=True,
                            env=env, timeout=120, cwd=Path(__file__).resolve().parents[2])
    assert result.returncode == 0, result.stdout[-3000:]
    summary = result.stdout.strip().splitlines()[-1]
    assert " passed" in summary and int(summary.split()[0]) >= 10, summary


def test_the_arena_plays_it_to_results_in_its_database(env, tmp_path):
    db = tmp_path / "results.sqlite"
    result = aviary_run(env, "arena", "run", "--game", "toy", "--time", "1", "--games", "2",
                        "--opening-plies", "0", "--jobs", "1", "--db", str(db),
                        "aviary:engine", "aviary:random", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    with sqlite3.connect(db) as connection:
        games = connection.execute(
            "SELECT first, second, winner, reason, plies FROM games").fetchall()
        moves = connection.execute("SELECT COUNT(*) FROM moves").fetchone()[0]
    assert len(games) == 2, games
    assert {reason for *_, reason, _ in games} <= {"three-in-a-row", "full-board"}, games
    assert moves == sum(plies for *_, plies in games) and moves >= 10
    for first, second, winner, _, _ in games:  # a perfect player never loses
        assert winner is None or (first, second)[winner] == "engine", games


def test_the_course_command_answers_with_its_engine_and_refuses_bad_input(env):
    # x to move completes the first row (a1 b1 c1: the board's first three cells)
    result = aviary_run(env, "toy", "x", "XX.oo....", "20")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines and lines[-1] == "XXXoo...."
    assert result.stderr.strip().splitlines()[-1].startswith("engine (depth 1, score win in 1")
    # o must answer X's opposite corners on an edge (a corner loses to a fork): the
    # quick player's first answer, a corner, is replaced by the engine's
    forked = aviary_run(env, "toy", "o", "X...o...X", "20")
    assert forked.returncode == 0, forked.stderr
    assert forked.stdout.splitlines()[-1][1::2].count("o") == 1  # an edge, not a corner
    bad = aviary_run(env, "toy", "x", "XXXX", "1")
    assert bad.returncode == 2
    assert bad.stderr.count("\n") == 1 and "BOARD must be 9 characters" in bad.stderr
    assert "Traceback" not in bad.stderr


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_play_in_a_terminal_draws_the_board_and_plays_to_the_end(package):
    from test_play import Terminal

    term = Terminal(["env", f"PYTHONPATH={package}", "AVIARY_NO_WARM=1", sys.executable,
                     "-m", "aviary", "play", "toy", "--time", "0.2"])
    try:
        for turn in range(1, 6):
            deadline = time.monotonic() + 60
            screen = term.screen()
            while screen.count("move>") < turn and "game over" not in screen:
                assert time.monotonic() < deadline, f"no prompt {turn}; screen:\n{screen}"
                time.sleep(0.1)
                screen = term.screen()
            if "game over" in screen:
                break
            board = [line for line in screen.splitlines()
                     if line.startswith("board: ")][-1][7:].strip()
            cell = board.index(".")
            term.type(f"{'abc'[cell % 3]}{cell // 3 + 1}")
            term.wait_for("you (x) played", count=turn)
        screen = term.wait_for("game over")
        assert "engine (o) played" in screen
        assert "game over: o wins (three-in-a-row)" in screen or "draw (full-board)" in screen
    finally:
        term.close()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def call(port: int, method: str, path: str, body: dict | None = None,
         timeout: float = 120) -> tuple[int, dict]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        data = None if body is None else json.dumps(body).encode()
        connection.request(method, path, body=data,
                           headers={"Content-Type": "application/json"} if data else {})
        response = connection.getresponse()
        text = response.read()
        return response.status, (json.loads(text) if text[:1] in (b"{", b"[") else {})
    finally:
        connection.close()


@pytest.mark.skipif(importlib.util.find_spec("fastapi") is None,
                    reason="the web extra (fastapi) is not installed")
def test_the_web_app_lists_it_and_plays_a_move_and_a_hint(env):
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "aviary", "serve", "--port", str(port),
                               "--workers", "2"], env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while True:
            assert server.poll() is None, server.communicate()[1]
            try:
                status, games = call(port, "GET", "/api/games", timeout=5)
                if status == 200:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, "the server did not answer within 120 s"
            time.sleep(0.2)
        toy = next(game for game in games if game["name"] == "toy")
        assert toy["labels"] == ["x", "o"]
        assert call(port, "GET", "/play/toy")[0] == 200
        status, described = call(port, "GET", "/api/games/toy")  # what the page asks first
        assert status == 200 and described["labels"] == ["x", "o"], described
        assert "Three marks in a row" in json.dumps(described)
        status, view = call(port, "POST", "/api/games/toy/sessions", {})
        assert status == 201, view
        assert (view["rows"], view["cols"], view["board"]) == (3, 3, START)
        assert sorted(move["text"] for move in view["moves"]) == sorted(
            f"{col}{row}" for col in "abc" for row in "123")
        status, played = call(port, "POST", f"/api/sessions/{view['id']}/move",
                              {"move": "b2"})
        assert status == 200, played
        assert played["board"] == "....X...." and len(played["moves"]) == 8
        status, hint = call(port, "POST", f"/api/sessions/{view['id']}/hint", {"seconds": 0.5})
        assert status == 200, hint
        assert hint["move"] in ("a1", "c1", "a3", "c3")  # only a corner holds the draw
    finally:
        server.terminate()
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
