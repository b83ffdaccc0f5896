"""Programs that misbehave lose with the right reason, hang nothing and leave no process.

Everything runs for real: `aviary arena run` as a subprocess, real programs,
a real SQLite file, and a /proc scan for survivors.
"""

import sqlite3
import subprocess
import sys
import time

import pytest
from arena_programs import (
    EXPECTED_REASON,
    assert_no_process_mentions,
    write_programs,
)

from aviary.arena.games import make_game
from aviary.arena.players import ExternalPlayer, make_player, parse_specs
from aviary.arena.referee import GameRecord, play_game
from aviary.arena.sandbox import Limits, run_program


def arena(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "aviary", "arena", *args],
                          capture_output=True, text=True, timeout=timeout)


def test_each_misbehaving_program_loses_by_its_reason_and_leaves_no_process(tmp_path):
    commands = write_programs(tmp_path)
    bad = [f"{name}={commands[name]}" for name in EXPECTED_REASON]
    db = tmp_path / "results.sqlite"
    started = time.monotonic()
    result = arena("run", "--mode", "gauntlet", "--time", "1", "--grace", "0.3",
                   "--memory", "512", "--jobs", "2", "--games", str(2 * len(bad)),
                   "--db", str(db), "aviary:random?seed=1", *bad)
    took = time.monotonic() - started
    assert result.returncode == 0, result.stderr
    with sqlite3.connect(db) as connection:
        rows = connection.execute(
            "SELECT first, second, winner, reason, detail FROM games").fetchall()
    assert len(rows) == 2 * len(bad)  # each program plays both colours
    lost: dict[str, tuple[str, str]] = {}
    for first, second, winner, reason, detail in rows:
        loser = second if winner == 0 else first
        assert lost.setdefault(loser, (reason, detail))[0] == reason, (loser, reason, detail)
    assert {name: reason for name, (reason, _) in lost.items()} == EXPECTED_REASON
    assert "hello, grader" in lost["garbage"][1]
    assert "Cannot allocate memory" in lost["memory_hog"][1]
    assert "boom" in lost["crasher"][1]
    assert "still here" in lost["forker"][1]
    assert took < 60  # nothing hung: seven short games, two at a time
    assert_no_process_mentions(str(tmp_path))


def test_last_complete_line_counts_and_a_partial_line_does_not():
    script = "import sys, time\nprint('first')\nprint('second')\nsys.stdout.write('part')\n"
    run = run_program([sys.executable, "-c", script], [], Limits(seconds=2, grace=0.2))
    assert (run.last_line, run.status, run.timed_out) == ("second", 0, False)
    assert run.stdout_tail.endswith("part")


def test_a_program_killed_at_the_deadline_keeps_its_last_line():
    script = "import time\nprint('early answer', flush=True)\ntime.sleep(30)\n"
    started = time.monotonic()
    run = run_program([sys.executable, "-c", script], [], Limits(seconds=0.3, grace=0.1))
    assert time.monotonic() - started < 5
    assert run.timed_out and run.last_line == "early answer"
    assert run.line_time is not None and run.line_time < run.wall


def test_programs_get_a_clean_environment_no_stdin_and_a_temporary_directory(monkeypatch):
    monkeypatch.setenv("ARENA_SECRET", "do-not-leak")
    script = ("import os, sys\nprint(os.environ.get('ARENA_SECRET'), "
              "os.environ.get('PYTHONUNBUFFERED'), repr(sys.stdin.read()), os.getcwd())\n")
    run = run_program([sys.executable, "-c", script], [], Limits(seconds=2))
    assert run.last_line is not None
    secret, unbuffered, stdin, cwd = run.last_line.split(" ", 3)
    assert (secret, unbuffered, stdin) == ("None", "1", "''")
    assert "aviary-move-" in cwd


def test_programs_are_told_not_to_start_a_warm_server_unless_the_arena_says(monkeypatch):
    """A server a move starts is killed with the move, so the course command is told not to
    start one (AVIARY_NO_WARM=1); the arena's own setting passes through."""
    script = "import os\nprint(os.environ.get('AVIARY_NO_WARM'))\n"
    monkeypatch.delenv("AVIARY_NO_WARM", raising=False)
    assert run_program([sys.executable, "-c", script], [], Limits(seconds=2)).last_line == "1"
    monkeypatch.setenv("AVIARY_NO_WARM", "0")
    assert run_program([sys.executable, "-c", script], [], Limits(seconds=2)).last_line == "0"


def test_the_arenas_choice_about_course_memory_passes_through(monkeypatch):
    """AVIARY_NO_MEMORY=1 in the arena's environment reaches the course command (the
    suite sets it, so that no test's move becomes the user's game history)."""
    script = "import os\nprint(os.environ.get('AVIARY_NO_MEMORY'))\n"
    monkeypatch.setenv("AVIARY_NO_MEMORY", "1")
    assert run_program([sys.executable, "-c", script], [], Limits(seconds=2)).last_line == "1"
    monkeypatch.delenv("AVIARY_NO_MEMORY")
    assert run_program([sys.executable, "-c", script], [], Limits(seconds=2)).last_line == "None"


def test_a_well_behaved_program_plays_a_whole_game_under_the_referee(tmp_path):
    commands = write_programs(tmp_path)
    game = make_game("pikachu", {"n": "7"})
    random_spec, program_spec = parse_specs(["aviary:random?seed=5", commands["random_mover"]])
    program = make_player(program_spec, game, grace=0.5, memory_mb=None)
    assert isinstance(program, ExternalPlayer)
    record = GameRecord(slot=0, first="random", second="program", opening="")
    play_game(game, (make_player(random_spec, game, 0.5, None), program), game.start(),
              seconds=2, max_plies=6, record=record)
    assert len(record.moves) == 6 and record.reason == "ply-limit" and record.result == 0.5
    assert all(move.seconds < 2.5 for move in record.moves)


@pytest.mark.parametrize("max_plies", [1, 3])
def test_the_ply_limit_draws_the_game(max_plies):
    game = make_game("pikachu", {"n": "8"})
    a, b = parse_specs(["aviary:random?seed=1", "aviary:random?seed=2"])
    record = GameRecord(slot=0, first=a.name, second=b.name, opening="")
    play_game(game, (make_player(a, game, 0.2, None), make_player(b, game, 0.2, None)),
              game.start(), seconds=1, max_plies=max_plies, record=record)
    assert (record.reason, record.result, len(record.moves)) == ("ply-limit", 0.5, max_plies)


def test_a_program_killed_by_a_signal_crashes_with_the_signal_named():
    game = make_game("pikachu", {"n": "8"})
    script = "import os, signal\nprint('x', flush=True)\nos.kill(os.getpid(), signal.SIGSEGV)\n"
    player = ExternalPlayer([sys.executable, "-c", script], game, grace=0.2, memory_mb=None)
    answer = player.move(game.start(), 1)
    assert (answer.failure, answer.line) == ("crash", None)
    assert "SIGSEGV" in answer.detail


def test_an_answer_records_when_it_arrived_and_how_long_the_program_ran():
    game = make_game("pikachu", {"n": "8"})
    script = "import time\nprint('answer', flush=True)\ntime.sleep(30)\n"
    player = ExternalPlayer([sys.executable, "-c", script], game, grace=0.1, memory_mb=None)
    answer = player.move(game.start(), 0.3)
    assert answer.line == "answer" and answer.failure is None
    assert answer.wall is not None and answer.seconds < answer.wall
    assert answer.wall >= 0.4  # ran until killed at 0.3 + 0.1 s
