"""`aviary pikachu` waits for the engine process it kills, so it leaves no zombie behind.

Run under a parent that is a child subreaper (as an arena worker is) and never reaps
anything itself: an engine killed but not waited for would be re-parented to it as a
zombie when the command exits.
"""

import subprocess
import sys
import textwrap

from aviary.games.pikachu import rules

PARENT = textwrap.dedent("""
    import os, subprocess, sys
    from aviary.arena.sandbox import become_subreaper, children_of
    become_subreaper()
    command = [sys.executable, "-m", "aviary", "pikachu", "8", "w", sys.argv[1], "2"]
    answer = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert answer.returncode == 0 and answer.stdout.strip(), answer
    me = os.getpid()
    print(len(children_of(me, zombies=True) - children_of(me)))
""")


def test_the_course_command_leaves_no_zombie_engine():
    board = rules.start_position(8).board
    result = subprocess.run([sys.executable, "-c", PARENT, board], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["0"]
