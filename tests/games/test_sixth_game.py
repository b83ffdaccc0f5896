"""A sixth game through the registry alone: a folder and one registry line, and it plays
through the course command, `aviary play`, the arena, the web app and OpenSpiel, and the
conformance suite passes it.

The installed package is copied to a temporary folder; `tests/games/toy/` (Connect Four
6 x 7: the template of a new game, with only what docs/architecture.md says a game must
provide) goes into the copy's `games/` and `ENTRY` into the copy's registry, and nothing
else changes (the first test checks exactly that). Every front end then runs as a real
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
GAMES_CLOSE = "\n    )\n}\n\nTOOLS"  # the end of the registry's GAMES: the entry goes before it
ENTRY = '        board_game("toy", "ConnectFour", "Connect Four: four in a row on 6 x 7"),\n'
ROWS, COLS = 6, 7
START = "." * ROWS * COLS

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


def board(*discs: str) -> str:
    """The board text with discs on the named squares: `Xa6` is X's disc on a6."""
    cells = list(START)
    for disc in discs:
        mark, col, row = disc[0], ord(disc[1]) - ord("a"), int(disc[2:]) - 1
        cells[row * COLS + col] = mark
    return "".join(cells)


def test_the_conformance_suite_checks_it_once_registered(env):
    """tests/games/test_conformance.py, run against the copy, finds the game and passes it;
    the checks it skips (kernels against rules: the toy has none) say why."""
    suite = Path(__file__).with_name("test_conformance.py")
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p",
                             "no:cacheprovider", "-n", "0", "-k", "toy", str(suite)],
                            capture_output=True, text=True, env=env, timeout=300,
                            cwd=Path(__file__).resolve().parents[2])
    assert result.returncode == 0, result.stdout[-3000:]
    summary = result.stdout.strip().splitlines()[-1]
    assert " passed" in summary and int(summary.split()[0]) >= 14, summary
    skipped = [line for line in result.stdout.splitlines() if line.startswith("SKIPPED")]
    assert len(skipped) == 3 and all(
        "toy" in line and ("no kernels" in line or "no searcher" in line)
        for line in skipped), skipped


def test_aviary_warmup_warms_it_without_a_warmup_function(env):
    """The game's engine module has no `warmup()`: `aviary warmup` warms its engines."""
    run = subprocess.run(
        [sys.executable, "-c", "import sys; from aviary import warmup; "
         "warmup.WARMUP_MODULES[:] = ['aviary.games.toy.engine']; sys.exit(warmup.main([]))"],
        capture_output=True, text=True, env=env, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "aviary.games.toy.engine: ready in" in run.stdout


def test_the_arena_plays_it_to_results_in_its_database(env, tmp_path):
    db = tmp_path / "results.sqlite"
    result = aviary_run(env, "arena", "run", "--game", "toy", "--time", "0.3", "--games", "2",
                        "--opening-plies", "0", "--jobs", "1", "--db", str(db),
                        "aviary:engine", "aviary:random", cwd=tmp_path, timeout=300)
    assert result.returncode == 0, result.stderr
    with sqlite3.connect(db) as connection:
        games = connection.execute(
            "SELECT first, second, winner, reason, plies FROM games").fetchall()
        moves = connection.execute("SELECT COUNT(*) FROM moves").fetchone()[0]
    assert len(games) == 2, games
    assert {reason for *_, reason, _ in games} <= {"four-in-a-row", "full-board"}, games
    assert moves == sum(plies for *_, plies in games) and moves >= 14
    for first, second, winner, _, _ in games:  # a searching player beats a random one
        assert winner is not None and (first, second)[winner] == "engine", games


def test_the_course_command_answers_with_its_engine_and_refuses_bad_input(env):
    """Without a quick.py the first answer is the first legal move's (column a), and the
    engine's answer replaces it: a win at once, or the one block."""
    result = aviary_run(env, "toy", "x", board("Xa6", "Xb6", "Xc6", "oa5", "ob5", "oc5"), "20")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == board("Xa6", "Xb6", "Xc6", "oa5", "ob5", "oc5", "Xa4")
    assert lines[-1] == board("Xa6", "Xb6", "Xc6", "oa5", "ob5", "oc5", "Xd6")
    assert result.stderr.strip().splitlines()[-1].startswith("engine (depth 1, score win in 1")
    blocked = aviary_run(env, "toy", "o", board("Xa6", "Xb6", "Xc6", "oa5", "ob5"), "8")
    assert blocked.returncode == 0, blocked.stderr
    assert blocked.stdout.splitlines()[-1] == board("Xa6", "Xb6", "Xc6", "oa5", "ob5", "od6")
    assert blocked.stderr.strip().splitlines()[-1].startswith("engine (depth ")
    for bad, message in ((("x", "XXXX", "1"), "BOARD must be 42 characters"),
                         (("x", board("Xa1"), "1"), "disc above an empty cell")):
        refused = aviary_run(env, "toy", *bad)
        assert refused.returncode == 2, refused.stderr
        assert refused.stderr.count("\n") == 1 and message in refused.stderr
        assert "Traceback" not in refused.stderr
    usage = aviary_run(env, "--help")
    assert "toy" in usage.stdout and "PLAYER BOARD SECONDS" in usage.stdout


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_play_in_a_terminal_draws_the_board_and_plays_to_the_end(package):
    from test_play import Terminal

    term = Terminal(["env", f"PYTHONPATH={package}", "AVIARY_NO_WARM=1", sys.executable,
                     "-m", "aviary", "play", "toy", "--time", "0.2"])
    try:
        screen = term.wait_for("move>")
        header = [line.split() for line in screen.splitlines() if line.split()[:1] == ["a"]]
        assert header and header[0] == list("abcdefg"), screen  # 7 columns, not 6
        for turn in range(1, ROWS * COLS // 2 + 1):
            deadline = time.monotonic() + 60
            screen = term.screen()
            while screen.count("move>") < turn and "game over" not in screen:
                assert time.monotonic() < deadline, f"no prompt {turn}; screen:\n{screen}"
                time.sleep(0.1)
                screen = term.screen()
            if "game over" in screen:
                break
            text = [line for line in screen.splitlines()
                    if line.startswith("board: ")][-1][7:].strip()
            assert len(text) == ROWS * COLS, text
            col = next(col for col in range(COLS) if text[col] == ".")  # leftmost open
            term.type("abcdefg"[col])
            term.wait_for("you (x) played", count=turn)
        screen = term.wait_for("game over")
        assert "engine (o) played" in screen
        assert "game over: o wins (four-in-a-row)" in screen or "draw (full-board)" in screen
    finally:
        term.close()


@pytest.mark.skipif(importlib.util.find_spec("pyspiel") is None,
                    reason="OpenSpiel is not installed (pip install 'aviary[openspiel]')")
def test_openspiel_knows_it_as_aviary_toy_and_plays_it_to_the_end(env):
    shape = subprocess.run(
        [sys.executable, "-c", "import aviary.openspiel, pyspiel; "
         "game = pyspiel.load_game('aviary_toy'); print(game.observation_tensor_shape(), "
         "game.num_distinct_actions(), game.max_game_length())"],
        capture_output=True, text=True, env=env, timeout=120)
    assert shape.returncode == 0, shape.stderr
    assert shape.stdout.split() == ["[6,", f"{ROWS},", f"{COLS}]", f"{COLS}", f"{ROWS * COLS}"]
    run = subprocess.run([sys.executable, "-m", "aviary.openspiel",
                          "open_spiel.python.examples.mcts", "--game=aviary_toy",
                          "--max_simulations=5", "--seed=1", "--quiet"],
                         capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "Number of games played: 1" in run.stdout
    moves = run.stdout.split("Game actions:")[1].split("\n")[0].split()
    assert moves and set(moves) <= set("abcdefg")  # the columns' letters, not `action N`


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
        assert "Four discs in a row" in json.dumps(described)
        status, view = call(port, "POST", "/api/games/toy/sessions", {})
        assert status == 201, view
        assert (view["rows"], view["cols"], view["board"]) == (ROWS, COLS, START)
        moves = {move["text"]: move for move in view["moves"]}
        assert sorted(moves) == list("abcdefg")
        assert moves["d"]["end"] == 5 * COLS + 3  # the square the disc lands on: d6
        for move in "dadad":
            status, played = call(port, "POST", f"/api/sessions/{view['id']}/move",
                                  {"move": move})
            assert status == 200, played
        assert played["board"] == board("Xd6", "oa6", "Xd5", "oa5", "Xd4")
        assert len(played["moves"]) == COLS
        status, hint = call(port, "POST", f"/api/sessions/{view['id']}/hint", {"seconds": 0.5})
        assert status == 200, hint
        assert hint["move"] == "d"  # only the block holds off four in column d
    finally:
        server.terminate()
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
