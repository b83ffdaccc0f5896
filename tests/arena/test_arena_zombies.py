"""Moves whose program leaves a killed child behind leave no zombie in the arena's worker.

A real worker is a child subreaper: orphans of a move are re-parented to it. A program
that kills its child without waiting for it (as `aviary pikachu` did with its engine)
hands the worker a zombie per move unless the sandbox reaps it. The check runs in a
fresh subprocess that becomes a subreaper like a worker, so pytest itself is untouched.
"""

import subprocess
import sys
import textwrap

MOVES = 40

WORKER = textwrap.dedent(f"""
    import os
    from aviary.arena.sandbox import Limits, become_subreaper, children_of, run_program
    become_subreaper()
    # a child that is killed but never waited for: `sleep` started, killed, the shell exits
    program = ["/bin/sh", "-c", "sleep 30 & kill -9 $!; echo move"]
    for _ in range({MOVES}):
        run = run_program(program, [], Limits(seconds=5))
        assert run.last_line == "move", run
    me = os.getpid()
    print(len(children_of(me, zombies=True) - children_of(me)))
""")


def test_many_moves_of_a_program_that_leaves_a_killed_child_leave_no_zombie():
    result = subprocess.run([sys.executable, "-c", WORKER], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["0"]  # before the fix: one zombie per move
