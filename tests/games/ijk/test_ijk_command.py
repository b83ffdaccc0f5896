"""`aviary ijk` through real subprocesses: a game like the course driver, and `move`."""

import subprocess
import sys
import time

from aviary.games.ijk import rules
from course_clock import run_course


def run(*args: str, stdin: str = "") -> tuple[subprocess.CompletedProcess, float]:
    started = time.monotonic()
    result = subprocess.run([sys.executable, "-m", "aviary", "ijk", *args], input=stdin,
                            capture_output=True, text=True, timeout=120)
    return result, time.monotonic() - started


MIDDLE = "AbB..." + "a.C..." + "......" * 4


def test_move_prints_legal_letters_and_exits_before_the_deadline():
    for mode in ("det", "nondet"):
        result, timing = run_course(
            [sys.executable, "-m", "aviary", "ijk", "move", "-", MIDDLE, mode, "2"], 2)
        assert result.returncode == 0, result.stderr
        lines = result.stdout.splitlines()
        assert lines and set(lines) <= set("UDLR")
        assert timing.on_time(2), timing.describe(2)  # see course_clock


def test_move_in_the_handout_variant_may_skip():
    result, _ = run("move", "+", "A.a." + "." * 12, "det", "1", "--variant", "handout")
    assert result.returncode == 0, result.stderr
    assert set(result.stdout.split()) <= set("UDLRS")


def test_move_bad_input_is_one_line_and_exit_2():
    for args in (["move", "+", "A" * 35, "det", "1"], ["move", "x", MIDDLE, "det", "1"],
                 ["move", "+", MIDDLE, "sometimes", "1"], ["move", "+", MIDDLE, "det", "-1"],
                 ["move", "+", MIDDLE, "det", "1", "--variant", "big"]):
        result, _ = run(*args)
        assert result.returncode == 2, args
        assert result.stdout == ""
        assert len(result.stderr.splitlines()) == 1 and result.stderr.startswith("aviary ijk: ")


def test_move_on_a_finished_game_exits_1():
    result, _ = run("move", "+", "K" + "." * 35, "det", "1")
    assert result.returncode == 1 and "over" in result.stderr


def test_a_game_between_humans_follows_the_course_driver_output():
    result, _ = run("human", "human", "det", "--max-moves", "2", stdin="U\nX\nL\n")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "+ played: U" in out and "- played: L" in out
    assert "'X' is not a legal move" in out
    assert out.rstrip().splitlines()[-1] == "Winner was: none (move limit)"
    # the board after both moves: + U changes nothing, a lands at cell 1; - L merges A a
    game = rules.IJK()
    expected = game.play(game.play(game.start(), "U"), "L")
    assert " ".join(expected.board[:6]) in out


def test_a_game_against_the_engine_in_nondet_mode_runs():
    result, _ = run("ai", "human", "nondet", "--seconds", "0.2", "--seed", "3", "--max-moves", "2",
                    stdin="D\n")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[6].startswith("+ played: ") and "- played: D" in result.stdout


def test_a_game_with_bad_players_is_exit_2():
    result, _ = run("robot", "human", "det")
    assert result.returncode == 2 and result.stderr.startswith("aviary ijk: ")


def test_move_help_names_the_subcommand():
    result, _ = run("move", "--help")
    assert result.returncode == 0
    assert result.stdout.startswith("usage: aviary ijk move PLAYER BOARD MODE SECONDS")
