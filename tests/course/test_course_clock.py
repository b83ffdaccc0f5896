"""The deadline tests' clock (`course_clock`) still catches a program that is late by itself."""

import sys

from course_clock import run_course


def test_a_program_that_sleeps_past_the_limit_is_late_whatever_the_load():
    # sleeping is not waiting for a core: none of it is excused
    result, timing = run_course([sys.executable, "-c", "import time; time.sleep(1.3)"], 1.0)
    assert result.returncode == 0
    assert timing.lifetime >= 1.3 and not timing.on_time(1.0), timing.describe(1.0)


def test_a_program_that_ends_early_is_on_time_and_its_output_is_kept():
    result, timing = run_course(
        [sys.executable, "-c", "import sys; print(sys.stdin.read().upper())"], 5.0,
        stdin="move\n")
    assert result.stdout == "MOVE\n\n" and result.returncode == 0
    assert timing.on_time(5.0) and timing.lifetime < 5.0
