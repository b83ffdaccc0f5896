"""A course command run as a shell's last command (`bash -c 'a && b && aviary ...'`).

bash runs the last command of a `-c` string in its own process (no fork), so Linux dates
the command from the shell's start, before `a` and `b`. The README's first command,
run that way, once found its whole 5 s gone and answered with the quick move alone, and
did again when `aviary warmup` before it took 4.4 to 5 s.
"""

import re
import shlex
import shutil
import subprocess
import sys
import time

import pytest

from aviary.search.clock import exit_margin

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")

PYTHON = shlex.quote(sys.executable)
START8 = "........wwwwwwwwwwwwwwww................bbbbbbbbbbbbbbbb........"


def in_bash(script: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60)


def printed_after(sleep: float, *expressions: str) -> list[float]:
    """The values of `expressions`, printed by a Python that bash runs last after `sleep`."""
    code = ("from aviary.search.clock import Deadline, process_age;"
            " from aviary.course.engine_host import deadline_from_start;"
            f" print({', '.join(expressions)})")
    result = in_bash(f"sleep {sleep} && {PYTHON} -c '{code}'")
    assert result.returncode == 0, result.stderr
    return [float(word) for word in result.stdout.split()]


def test_bash_runs_the_last_command_in_its_own_process():
    # the premise: the command's process is the shell's, started before the sleep
    [age] = printed_after(1.5, "process_age()")
    assert age >= 1.4


def test_the_deadline_counts_from_the_exec_when_the_fork_is_the_whole_time_back():
    by_fork, by_exec = printed_after(2.5, "Deadline.for_course(2).remaining()",
                                     "deadline_from_start(2).remaining()")
    assert by_fork < -0.4  # dated from the shell's start: long gone
    # from the exec: the 2 s less the margin and this interpreter's start-up (slow on a
    # busy machine, but not a whole second)
    assert 0 < by_exec <= 2 - exit_margin(2), (by_fork, by_exec)


def test_a_process_that_ran_no_program_before_keeps_its_start():
    """A grader's program, or a shell that ran builtins only: the grader's clock may run
    since the fork (the two are read 10 ms apart at most: /proc/uptime counts hundredths)."""
    code = ("from aviary.search.clock import Deadline;"
            " from aviary.course.engine_host import deadline_from_start;"
            " print(Deadline.for_course(5).at, deadline_from_start(5).at)")
    for script in (f"{PYTHON} -c '{code}'", f"cd . && true && {PYTHON} -c '{code}'"):
        result = in_bash(script)
        by_fork, chosen = (float(word) for word in result.stdout.split())
        assert abs(chosen - by_fork) < 0.02, script


def test_a_shell_that_ran_programs_first_gives_the_command_its_whole_time():
    """`sleep 1.5 && aviary ... 5` run as `bash -c`: 1.5 s of the 5 are not the command's
    (the README's first command after `aviary warmup` took 3-5 s had 0-2 s left)."""
    by_fork, chosen = printed_after(1.5, "Deadline.for_course(5).at", "deadline_from_start(5).at")
    assert chosen - by_fork >= 1.4  # counted from the exec, not the shell's start


def test_the_course_command_searches_when_run_last_in_a_chain():
    """Counted from the shell's start, 3 s after a 3 s sleep leave nothing: the quick move.
    Counted from its exec, it has some 2.6 s: a search answers, even on a busy machine (at
    1 s a loaded CI machine sometimes got no depth done, whichever clock it used)."""
    started = time.monotonic()
    result = in_bash(f"sleep 3 && AVIARY_NO_WARM=1 {PYTHON} -m aviary pikachu 8 w {START8} 3")
    took = time.monotonic() - started
    assert result.returncode == 0, result.stderr
    # a search answered (the engine, or the fallback search while numba loads), not the
    # quick move given when no time is left
    assert re.fullmatch(r"(engine \(depth|fallback \(depth) .+\n", result.stderr), result.stderr
    assert result.stdout.endswith("\n") and len(result.stdout.splitlines()) >= 1
    assert took >= 3 + 2  # it used its 3 s, less the exit margin
