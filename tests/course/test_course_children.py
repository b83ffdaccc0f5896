"""The course command's forked children (the engine, the fallback search) end with it.

Each asks Linux to kill it when the command dies. The command can die before that
request takes effect; the child then has another parent already, which is not always
pid 1 (an arena's worker is a subreaper and adopts it), so the child compares its parent
with the command's pid, taken before the fork. Real forks; only the pid the child is
told it was forked by differs.
"""

from __future__ import annotations

import os
import sys

import pytest

from aviary.course import runner

WENT_ON = 5  # the child's status when it carries on past the check

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="the parent-death request is Linux's")


def test_a_child_whose_command_is_already_gone_ends_and_one_whose_is_there_goes_on():
    outcomes = {}
    for label in ("gone", "present"):
        pid = os.fork()
        if pid == 0:
            try:
                forked_by = os.getppid() if label == "present" else os.getppid() + 1
                runner._die_with_parent(forked_by)
                os._exit(WENT_ON)
            finally:
                os._exit(WENT_ON)
        _, status = os.waitpid(pid, 0)
        outcomes[label] = os.waitstatus_to_exitcode(status)
    assert outcomes == {"gone": 0, "present": WENT_ON}
