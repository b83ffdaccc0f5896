"""The course command line through real subprocesses: `aviary foxgeese PLAYER BOARD SECONDS`."""

import re
import subprocess
import sys
import time

import pytest

from aviary.games.foxgeese import rules
from course_clock import run_course

CLASSIC = rules.start_board("classic")
ELEPHANTS = rules.start_board("elephants")


def run(*args: str) -> tuple[subprocess.CompletedProcess, float]:
    started = time.monotonic()
    result = subprocess.run([sys.executable, "-m", "aviary", "foxgeese", *args],
                            capture_output=True, text=True, timeout=60)
    return result, time.monotonic() - started


def assert_answers(player: str, board: str, seconds: float, *flags: str,
                   variant: str = "classic") -> list[str]:
    result, timing = run_course(
        [sys.executable, "-m", "aviary", "foxgeese", player, board, str(seconds), *flags],
        seconds)
    assert result.returncode == 0, result.stderr
    assert re.fullmatch(r"(engine|table|fallback) \(.+\)\n", result.stderr), result.stderr
    lines = result.stdout.splitlines()
    assert lines and result.stdout.endswith("\n")
    position = rules.parse(board, player, variant, "--shrink" in flags)
    legal = rules.successors(position)
    assert all(line in legal for line in lines)
    assert timing.on_time(seconds), timing.describe(seconds)  # see course_clock
    return lines


def test_fox_to_move_answers_a_legal_board_in_time():
    assert_answers("f", CLASSIC, 1)


def test_geese_in_the_elephant_game_with_the_shrinking_board():
    start = rules.start_position("elephants", shrink=True)
    after = rules.play(start, rules.legal_moves(start)[0])
    assert_answers("g", after.board, 1.5, "--variant", "elephants", "--shrink",
                   variant="elephants")


def test_the_geese_answer_closes_an_arm_mid_round_position_ends_the_round():
    # 8 animals with the geese to move: the course form is mid-round, so their move ends
    # the round and the empty top arm is closed in every answer
    board = list("##...####...##" + "." * 21 + "##...####...##")
    for point, piece in ((24, "F"), (28, "G"), (29, "G"), (30, "G"), (31, "G"), (32, "G"),
                         (37, "G"), (44, "G")):
        board[point] = piece
    lines = assert_answers("g", "".join(board), 1, "--shrink")
    assert all(line[2:5] == "###" and line[9:12] == "###" for line in lines)


@pytest.mark.parametrize("args", [
    [],
    ["f", CLASSIC],
    ["f", CLASSIC, "1", "extra"],
    ["x", CLASSIC, "1"],
    ["f", CLASSIC[:-1], "1"],
    ["f", "." * 49, "1"],
    ["f", CLASSIC.replace("F", "Q"), "1"],
    ["f", ELEPHANTS, "1"],  # elephants on a classic board
    ["f", CLASSIC, "1", "--variant", "mammoths"],
    ["f", CLASSIC, "1", "--colour", "red"],
    ["f", CLASSIC, "0"],
    ["f", CLASSIC, "soon"],
])
def test_bad_input_gets_one_line_and_exit_2(args):
    result, _ = run(*args)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


WALLED = "##FGG##" "##GGG##" "..G...." "......." "......." "##...##" "##...##"
NO_FOXES = "##...##" "##G..##" "......." "......." "......." "##...##" "##...##"


@pytest.mark.parametrize("board, player", [(WALLED, "f"), (NO_FOXES, "g")],
                         ids=["fox-walled-in", "no-foxes"])
def test_a_player_who_cannot_move_or_a_finished_game_exits_1(board, player):
    result, _ = run(player, board, "1")
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
