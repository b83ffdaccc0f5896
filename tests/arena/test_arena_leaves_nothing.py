"""`kill -9` or Ctrl-C of a real `aviary arena run` leaves no process and no temporary folder;
a stop of benchmarks/strength.py reaches the arena it runs as the arena's own Ctrl-C.

The arena runs with its own TMPDIR, so the moves' working folders it makes are the only
entries there; its processes are found by that TMPDIR in their environment (workers and
the folders' cleaner inherit it) or by the test folder in their command line (the moves'
programs, which get a clean environment).
"""

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from arena_programs import processes_mentioning, write_programs

SETTLE = 5.0  # seconds "within a few seconds" allows for the processes to go


def programs_running(program: Path) -> int:
    """How many processes run `program` (as `python PROGRAM ...`)."""
    count = 0
    for entry in os.listdir("/proc"):
        with contextlib.suppress(OSError):
            words = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
            count += entry.isdigit() and words[1:2] == [str(program).encode()]
    return count


ARENA = (sys.executable, "-m", "aviary", "arena")


def start(tmp_path: Path, arena: tuple[str, ...] = ARENA) -> tuple[subprocess.Popen, Path]:
    """An arena whose two workers are each in the middle of a move of a slow program
    (`arena`: the command that runs `aviary arena`)."""
    commands = write_programs(tmp_path)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    process = subprocess.Popen(
        [*arena, "run", "--time", "20", "--games", "4", "--max-plies", "6", "--jobs", "2",
         "--db", str(tmp_path / "results.sqlite"),
         f"sleepy={commands['sleeper']}", f"sleepier={commands['sleeper']}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True,
        env={**os.environ, "TMPDIR": str(scratch)})
    deadline = time.monotonic() + 120
    while programs_running(tmp_path / "sleeper.py") < 2:  # both workers in a move
        assert process.poll() is None, process.stderr.read() if process.stderr else ""
        assert time.monotonic() < deadline, "no move started"
        time.sleep(0.05)
    return process, scratch


def settle(scratch: Path, tmp_path: Path) -> tuple[list[int], list[str]]:
    """The processes and folders still there after up to SETTLE seconds (then killed)."""
    deadline = time.monotonic() + SETTLE
    while True:
        left = sorted(set(processes_mentioning(str(scratch), environment=True)
                           + processes_mentioning(str(tmp_path), environment=True)))
        folders = sorted(path.name for path in scratch.iterdir())
        if (not left and not folders) or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    for pid in left:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return left, folders


@pytest.mark.slow
def test_kill_9_of_the_arena_leaves_no_process_and_no_folder(tmp_path):
    arena, scratch = start(tmp_path)
    os.kill(arena.pid, signal.SIGKILL)  # the arena alone, as `kill -9 PID` does
    arena.communicate(timeout=30)
    assert settle(scratch, tmp_path) == ([], [])


@pytest.mark.slow
def test_ctrl_c_of_the_arena_leaves_no_process_and_no_folder(tmp_path):
    arena, scratch = start(tmp_path)
    os.killpg(arena.pid, signal.SIGINT)  # the whole group, as a terminal's Ctrl-C does
    _, err = arena.communicate(timeout=30)
    assert arena.returncode == 130 and "Traceback" not in err, err
    assert settle(scratch, tmp_path) == ([], [])


# benchmarks/strength.py's `arena`, called as its `run` calls it (benchmarks/ is no package);
# SIGINT handled as strength.py's main sets it up, even if this test started with it ignored
STRENGTH_ARENA = (
    "import importlib.util, signal, sys\n"
    "signal.signal(signal.SIGINT, signal.default_int_handler)  # as strength.py's main\n"
    "spec = importlib.util.spec_from_file_location('strength', sys.argv[1])\n"
    "strength = importlib.util.module_from_spec(spec)\n"
    "sys.modules['strength'] = strength\n"
    "spec.loader.exec_module(strength)\n"
    "try:\n"
    "    strength.arena(*sys.argv[2:])\n"
    "except KeyboardInterrupt:\n"
    "    sys.exit(130)\n"
)


@pytest.mark.slow
def test_a_stop_of_the_strength_script_reaches_its_arena_as_its_own_ctrl_c(tmp_path):
    """`kill -INT` of benchmarks/strength.py alone (how a long figure is stopped from
    another shell) is passed on to its arena, which stops as on a Ctrl-C of its own
    (storing every finished game first) and leaves nothing behind. It used to be killed
    0.25 s later instead, whatever it was doing, with a resource-tracker warning after it."""
    strength = Path(__file__).resolve().parents[2] / "benchmarks" / "strength.py"
    script, scratch = start(tmp_path, (sys.executable, "-c", STRENGTH_ARENA, str(strength)))
    os.kill(script.pid, signal.SIGINT)  # the script alone, not its arena
    _, err = script.communicate(timeout=60)
    assert script.returncode == 130, err
    assert "aviary arena: SIGINT: stopping" in err and "stopped by SIGINT" in err, err
    assert "SIGINT again" not in err and "leaked" not in err and "Traceback" not in err, err
    assert settle(scratch, tmp_path) == ([], [])


def test_a_moves_child_whose_forking_process_is_already_gone_ends_before_its_program(
        tmp_path):
    """A worker killed between a move's fork and the child's parent-death request would
    never signal that child: the child sees its parent changed and ends itself (a real
    fork; only the 'parent' it was forked by is told otherwise)."""
    from aviary.arena import sandbox

    limits = sandbox.Limits(seconds=1.0)
    outcomes = {}
    for label in ("gone", "present"):
        pid = os.fork()
        if pid == 0:  # the child: this process is its parent; "gone" tells it another was
            try:
                forked_by = os.getppid() if label == "present" else os.getppid() + 1
                sandbox._limit_child(limits, None, None, forked_by)
            finally:
                os._exit(0)  # reached only if the child goes on towards exec
        _, status = os.waitpid(pid, 0)
        outcomes[label] = os.waitstatus_to_exitcode(status)
    assert outcomes == {"gone": sandbox.CHILD_ORPHANED, "present": 0}
