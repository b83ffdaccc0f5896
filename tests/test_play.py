"""`aviary play` in a real terminal: tmux runs it, the test types moves and reads the screen."""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from aviary.games import registry

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

PYTHON = Path(sys.executable)
CONFIG = Path(__file__).with_name("tmux.conf")
# n = 7: two white Pikachus against one black Pichu in reach, white to move
ENDGAME = ("W......"
           "......."
           "b......"
           "......."
           "......."
           "......."
           "......W")


class Terminal:
    """A tmux session running one command; `screen()` is what a person would see."""

    def __init__(self, command: list[str]) -> None:
        self.name = f"aviary-play-{uuid.uuid4().hex[:8]}"
        # a server of its own whose scrollback keeps the whole game (prompts are counted)
        self.tmux = ["tmux", "-L", self.name, "-f", str(CONFIG)]
        subprocess.run([*self.tmux, "new-session", "-d", "-s", self.name, "-x", "110",
                        "-y", "50", subprocess.list2cmdline(command)], check=True)

    def type(self, line: str) -> None:
        subprocess.run([*self.tmux, "send-keys", "-t", self.name, "-l", line], check=True)
        subprocess.run([*self.tmux, "send-keys", "-t", self.name, "Enter"], check=True)

    def screen(self) -> str:
        return subprocess.run([*self.tmux, "capture-pane", "-p", "-t", self.name, "-S", "-"],
                              capture_output=True, text=True).stdout

    def wait_for(self, text: str, count: int = 1, timeout: float = 60) -> str:
        """The screen once `text` appears on it `count` times (the scrollback included)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            screen = self.screen()
            if screen.count(text) >= count:
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{text!r} never appeared {count} times; screen:\n"
                             f"{self.screen()[-3000:]}")

    def close(self) -> None:
        subprocess.run([*self.tmux, "kill-server"], capture_output=True)


def last_board(screen: str) -> str:
    return [line for line in screen.splitlines() if line.startswith("board: ")][-1][7:].strip()


@pytest.fixture
def terminal():
    opened: list[Terminal] = []

    def open_terminal(*args: str) -> Terminal:
        opened.append(Terminal([str(PYTHON), "-m", "aviary", "play", *args]))
        return opened[-1]

    yield open_terminal
    for term in opened:
        term.close()


def test_a_game_is_played_to_its_end_by_typed_moves(terminal):
    game = registry.make("pikachu", n=7)
    term = terminal("pikachu", "--option", "n=7", "--time", "0.1", "--board", ENDGAME,
                    "--player", "w")
    for turn in range(1, 120):
        screen = term.wait_for("move>", count=turn)
        if "game over" in screen:
            break
        state = game.parse(last_board(screen), "w")
        # the person at the keyboard thinks too
        move = registry.spec("pikachu").engine("engine", game).best_move(state, depth=5)
        term.type(game.move_text(state, move))
        screen = term.wait_for("(w) played", count=turn)
        if game.outcome(game.play(state, move)) is not None:
            break
    screen = term.wait_for("game over")
    assert "game over: w wins" in screen
    final = game.parse(last_board(screen), "b")
    assert game.outcome(final) is not None and game.outcome(final).winner == 0


def test_a_wrong_move_lists_the_legal_ones_and_undo_takes_back_both_sides(terminal):
    term = terminal("pikachu", "--option", "n=7", "--time", "0.1")
    start = last_board(term.wait_for("move>"))
    term.type("a1-a7")
    screen = term.wait_for("is not a legal move here; legal: a3-a4")
    term.type("c3-c4")
    term.wait_for("engine (b) played")
    screen = term.wait_for("move>", count=3)
    assert last_board(screen) != start
    term.type("undo")
    screen = term.wait_for("move>", count=4)
    assert last_board(screen) == start


def test_watching_the_engine_play_itself_reaches_a_result_or_the_ply_cap(terminal):
    term = terminal("pikachu", "--option", "n=7", "--time", "0.05", "--human", "none",
                    "--board", ENDGAME, "--player", "w", "--max-plies", "30")
    screen = term.wait_for("engine (w) played")
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        screen = term.screen()
        if "game over" in screen or "stopped after 30 plies" in screen:
            break
        time.sleep(0.2)
    assert "game over" in screen or "stopped after 30 plies" in screen


def test_bad_options_are_one_line_and_exit_2():
    for args in (["chess"], ["pikachu", "--option", "n=3"], ["pikachu", "--time", "0"],
                 ["pikachu", "--board", "xyz", "--player", "w"], ["pikachu", "--engine", "zz"]):
        result = subprocess.run([str(PYTHON), "-m", "aviary", "play", *args],
                                capture_output=True, text=True, timeout=60,
                                stdin=subprocess.DEVNULL)
        assert result.returncode == 2, (args, result.stderr)
        assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


def test_an_unknown_game_is_answered_with_the_board_games_only():
    """`play` takes board games; a game without a board is named as not one, not offered."""
    from aviary.games import registry

    board = [spec.name for spec in registry.board_games()]
    others = list(registry.TOOLS)
    unknown = subprocess.run([str(PYTHON), "-m", "aviary", "play", "chess"], capture_output=True,
                             text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert f"board games: {', '.join(board)}" in unknown.stderr
    assert others and not any(name in unknown.stderr for name in others)
    other = subprocess.run([str(PYTHON), "-m", "aviary", "play", others[0]], capture_output=True,
                           text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert other.returncode == 2 and f"{others[0]} is not a board game" in other.stderr
