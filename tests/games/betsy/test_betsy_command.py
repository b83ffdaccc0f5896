"""The course command line through real subprocesses: `aviary betsy PLAYER BOARD SECONDS`."""

import os
import re
import subprocess
import sys
import time

import pytest

from aviary.games.betsy import rules
from course_clock import run_course

START = rules.START


def square(name: str) -> int:
    return 8 * (int(name[1]) - 1) + "abcdefgh".index(name[0])


def board_with(**placed: str) -> str:
    cells = ["."] * 64
    for name, piece in placed.items():
        cells[square(name)] = piece
    return "".join(cells)


def run(*args: str, env: dict[str, str] | None = None) -> tuple[subprocess.CompletedProcess, float]:
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-m", "aviary", "betsy", *args],
        capture_output=True, text=True, timeout=60, env=env,
    )
    return result, time.monotonic() - started


def answers(player: str, board: str, seconds: float, *options: str, **kwargs) -> list[str]:
    result, timing = run_course(
        [sys.executable, "-m", "aviary", "betsy", player, board, str(seconds), *options],
        seconds, **kwargs)
    assert result.returncode == 0, result.stderr
    assert re.fullmatch(r"(engine|table|fallback) \(.+\)\n", result.stderr), result.stderr
    lines = result.stdout.splitlines()
    assert lines and result.stdout.endswith("\n")  # no partial last line
    position = rules.parse(board, player, "diagonal" in options)
    assert all(rules.is_legal_successor(position, line) for line in lines)
    assert timing.on_time(seconds), timing.describe(seconds)  # see course_clock
    return lines


def test_last_line_is_a_legal_move_and_it_exits_before_one_second():
    answers("w", START, 1)


def test_black_and_the_diagonal_variant():
    after = rules.play(rules.start_position(True), rules.Move(square("e2"), square("e4")))
    answers("b", after.board, 1, "--kingfisher", "diagonal")


def test_answers_in_time_before_the_kernels_are_compiled(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}  # an empty cache: nothing compiled
    answers("w", START, 1, env=env)


def test_a_longer_limit_prints_better_boards_and_still_exits_in_time():
    # The first answer is the quick player's greed (Qxg5: it looks one capture ahead);
    # it loses the Kingfisher (...Nb3, nothing of White's reaches b3, Nxa1), which any
    # search of four plies sees, so a better board must follow. Not a random position:
    # there the first answer can be the best one, and whether a passing different one
    # is printed depends on which search answers first.
    trap = board_with(a1="K", a2="R", b1="B", b5="Q", g5="p", d4="n",
                      h8="k", g8="r", g7="p", h7="p", e7="r", f7="p")
    greedy = rules.play(rules.parse(trap, "w"), rules.Move(square("b5"), square("g5")))
    lines = answers("w", trap, 3)
    assert lines[0] == greedy.board
    assert len(lines) >= 2 and lines[-1] != greedy.board  # a first answer, then a better one
    # each printed board differs from the one before (the engine may come back to a board
    # the fallback search printed earlier and then left)
    assert all(before != after for before, after in zip(lines, lines[1:], strict=False))


def test_the_command_takes_a_hanging_kingfisher_and_saves_its_own():
    hanging = board_with(a1="K", e2="R", e8="k", h7="p", a7="p", b8="q")
    last = answers("w", hanging, 1)[-1]
    assert "k" not in last
    attacked = board_with(d1="K", d8="r", h8="k", a2="P", h2="P", g7="p")
    after = rules.parse(answers("w", attacked, 1)[-1], "b")
    assert all("K" in rules.play(after, reply).board for reply in rules.legal_moves(after))


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["w", START],
        ["w", START, "1", "extra"],
        ["x", START, "1"],
        ["w", START[:-1], "1"],
        ["w", START + ".", "1"],
        ["w", START[:-1] + "z", "1"],
        ["w", "KK" + START[2:], "1"],
        ["w", START, "0"],
        ["w", START, "-2"],
        ["w", START, "soon"],
        ["w", START, "nan"],
        ["w", START, "1", "--kingfisher"],
        ["w", START, "1", "--kingfisher", "knight"],
        ["w", START, "1", "--queen", "diagonal"],
    ],
)
def test_bad_input_gets_one_line_and_exit_2(args):
    result, _ = run(*args)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


@pytest.mark.parametrize(
    "board, player",
    [
        (board_with(a1="K", a2="P", b1="P", a3="p", b2="p", h8="k"), "w"),
        (board_with(a1="Q", h8="k"), "b"),
        (board_with(a1="K", h8="q"), "w"),
    ],
    ids=["no-legal-move", "own-kingfisher-captured", "no-opposing-kingfisher"],
)
def test_a_finished_game_or_a_player_who_cannot_move_is_told_so_with_exit_1(board, player):
    result, _ = run(player, board, "1")
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
