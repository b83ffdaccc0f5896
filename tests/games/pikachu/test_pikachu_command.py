"""The course command line through real subprocesses: `aviary pikachu N PLAYER BOARD SECONDS`."""

import os
import random
import re
import subprocess
import sys
import time

import pytest

from aviary.games.pikachu import rules
from course_clock import run_course

START8 = rules.start_position(8).board


def run(*args: str, env: dict[str, str] | None = None) -> tuple[subprocess.CompletedProcess, float]:
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-m", "aviary", "pikachu", *args],
        capture_output=True, text=True, timeout=60, env=env,
    )
    return result, time.monotonic() - started


def assert_answers(n: int, player: str, board: str, seconds: float, **kwargs) -> list[str]:
    result, timing = run_course(
        [sys.executable, "-m", "aviary", "pikachu", str(n), player, board, str(seconds)],
        seconds, **kwargs)
    assert result.returncode == 0, result.stderr
    assert re.fullmatch(r"(engine|table|fallback) \(.+\)\n", result.stderr), result.stderr
    lines = result.stdout.splitlines()
    assert lines and result.stdout.endswith("\n")  # no partial last line
    position = rules.parse(n, board, player)
    assert all(rules.is_legal_successor(position, line) for line in lines)
    assert timing.on_time(seconds), timing.describe(seconds)  # see course_clock
    return lines


def test_last_line_is_a_legal_move_and_it_exits_before_one_second():
    assert_answers(8, "w", START8, 1)


def test_black_to_move_on_a_16x16_board_answers_in_time():
    after = rules.play(rules.start_position(16), rules.legal_moves(rules.start_position(16))[3])
    assert_answers(16, "b", after.board, 2)


def test_boards_larger_than_the_kernels_still_get_a_legal_move():
    assert_answers(33, "w", rules.start_position(33).board, 1)


def test_answers_in_time_before_the_kernels_are_compiled(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}  # an empty cache: nothing compiled
    assert_answers(8, "w", START8, 1, env=env)


def test_a_longer_limit_prints_better_boards_and_still_exits_in_time():
    chooser = random.Random(1)
    middle = rules.start_position(8)
    for _ in range(13):
        middle = rules.play(middle, chooser.choice(rules.legal_moves(middle)))
    lines = assert_answers(8, middle.player, middle.board, 3)
    # each printed board differs from the one before (the engine may come back to a board
    # the fallback search printed earlier and then left)
    assert all(before != after for before, after in zip(lines, lines[1:], strict=False))


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["8", "w", START8],
        ["8", "w", START8, "1", "extra"],
        ["eight", "w", START8, "1"],
        ["6", "w", "." * 36, "1"],
        ["8", "x", START8, "1"],
        ["8", "w", START8[:-1], "1"],
        ["8", "w", START8[:-1] + "k", "1"],
        ["8", "w", START8, "0"],
        ["8", "w", START8, "-2"],
        ["8", "w", START8, "soon"],
        ["8", "w", START8, "nan"],
    ],
)
def test_bad_input_gets_one_line_and_exit_2(args):
    result, _ = run(*args)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


@pytest.mark.parametrize(
    "board, player",
    [("bww" + "." * 46, "b"), ("w" + "." * 48, "b")],
    ids=["no-legal-move", "no-pieces"],
)
def test_a_player_who_cannot_move_is_told_so_with_exit_1(board, player):
    result, _ = run("7", player, board, "1")
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
