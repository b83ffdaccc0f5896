"""The move clock: one `Deadline` a front end hands a player, and the rules kept on it."""

import os
import threading
import time

import numpy as np
import pytest

from aviary.search.clock import (
    DEEPEN_TO_DEADLINE,
    DEFAULT_SECONDS,
    DEPTH_SHARE,
    MAX_LATENESS,
    MAX_SECONDS,
    Deadline,
    Lateness,
    Limit,
    StopTimer,
    budget,
    check_seconds,
    exit_margin,
    process_age,
)


def test_a_deadline_after_seconds_starts_now_and_ends_seconds_later():
    before = time.monotonic()
    deadline = Deadline.after(2.0)
    assert before <= deadline.started <= time.monotonic()
    assert deadline.seconds == pytest.approx(2.0)
    assert 1.9 < deadline.remaining() <= 2.0


def test_the_search_stops_by_the_budget_of_the_time_left():
    deadline = Deadline.after(1.0)
    stop = deadline.search_until()
    assert stop.started == deadline.started
    assert stop.at < deadline.at
    assert stop.at - time.monotonic() == pytest.approx(budget(1.0), abs=0.02)
    assert budget(1.0) == pytest.approx(0.89)  # 8% + 30 ms


def test_a_new_depth_may_start_only_before_its_share_of_the_time():
    now = time.monotonic()
    early = Deadline(now - 0.1, now + 0.9)  # 10% gone
    late = Deadline(now - 0.6, now + 0.4)  # 60% gone
    assert early.may_start_depth(DEPTH_SHARE) and early.may_start_depth(DEEPEN_TO_DEADLINE)
    assert not late.may_start_depth(DEPTH_SHARE) and late.may_start_depth(DEEPEN_TO_DEADLINE)
    assert not Deadline(now - 1.1, now - 0.1).may_start_depth(DEEPEN_TO_DEADLINE)


def test_a_shortened_deadline_keeps_half_the_time():
    deadline = Deadline(100.0, 102.0)
    assert deadline.sooner(0.5) == Deadline(100.0, 101.5)
    assert deadline.sooner(5.0) == Deadline(100.0, 101.0)


def test_a_course_deadline_counts_from_process_start_less_the_exit_margin():
    deadline = Deadline.for_course(1.0)
    started = time.monotonic() - process_age()
    assert deadline.started == pytest.approx(started, abs=0.05)
    assert deadline.seconds == pytest.approx(1.0 - exit_margin(1.0))
    assert exit_margin(1.0) == pytest.approx(0.28) and exit_margin(1000.0) == 2.0


def test_a_limit_counts_its_seconds_from_now_and_keeps_the_sooner_deadline():
    soon = Deadline.after(0.2)
    assert Limit(time=5.0, deadline=soon).from_now().deadline == soon
    anchored = Limit(time=0.5, depth=3).from_now()
    assert anchored.time is None and anchored.depth == 3 and anchored.deadline is not None
    assert anchored.deadline.seconds == pytest.approx(0.5)
    seconds = Limit(deadline=Deadline.after(0.3)).seconds()
    assert seconds is not None and 0.25 < seconds <= 0.3
    assert Limit(depth=2).seconds() is None
    assert Limit(deadline=Deadline(0.0, 1.0)).seconds() == 0.001  # long past: at once


@pytest.mark.parametrize("given, expected", [("1", 1.0), ("0.5", 0.5), ("5e-1", 0.5),
                                             (" 2 ", 2.0), (3, 3.0), (0.25, 0.25),
                                             ("86400", 86_400.0)])
def test_check_seconds_reads_plain_numbers(given, expected):
    assert check_seconds(given, "SECONDS") == expected


@pytest.mark.parametrize("given", ["1_0", "inf", "nan", "infinity", "", "0", "-1", "0x10",
                                   "86401", 0, -1.0, float("nan"), float("inf"), True, None])
def test_check_seconds_refuses_anything_else_naming_what(given):
    with pytest.raises(ValueError, match=r"^--time must be a number of seconds above 0 and "
                                         r"at most 86400 \(a day\), got"):
        check_seconds(given, "--time")


def test_check_seconds_takes_its_caller_s_cap_and_zero_where_allowed():
    assert check_seconds(600, "seconds per move", 600) == 600.0
    with pytest.raises(ValueError, match=r"^seconds per move must be a number of seconds above 0 "
                                         r"and at most 600, got 601$"):
        check_seconds(601, "seconds per move", 600)
    assert check_seconds(0.0, "--grace", zero=True) == 0.0
    for bad in (-0.1, float("nan"), float("inf")):
        with pytest.raises(ValueError, match=r"^--grace must be a number of seconds at least 0"):
            check_seconds(bad, "--grace", zero=True)


def test_a_deadline_crosses_to_another_process_whole():
    """Sent as its remaining and spent seconds and when they were measured: read back on
    the same clock it is the same deadline, less nothing; pickled (a worker pool) too."""
    import pickle

    now = time.monotonic()
    deadline = Deadline(now - 0.25, now + 0.75)
    wire = deadline.to_wire()
    assert set(wire) == {"remaining", "spent", "sent"}
    back = Deadline.from_wire(wire)
    assert back.at == pytest.approx(deadline.at, abs=1e-6)
    assert back.started == pytest.approx(deadline.started, abs=1e-6)
    assert pickle.loads(pickle.dumps(deadline)).at == pytest.approx(deadline.at, abs=1e-6)


def test_a_deadline_read_later_has_lost_the_time_its_message_took():
    wire = Deadline.after(1.0).to_wire()
    time.sleep(0.2)
    assert Deadline.from_wire(wire).remaining() < 0.81
    late = Deadline.after(0.1).to_wire()
    time.sleep(0.2)
    assert Deadline.from_wire(late).remaining() < 0  # gone on the way: passed


def test_a_deadline_from_another_process_is_capped_at_max_seconds_and_checked():
    now = time.monotonic()
    for asked in (1e300, float("inf")):
        wire = {"remaining": asked, "spent": 0.0, "sent": now}
        assert Deadline.from_wire(wire).remaining() <= MAX_SECONDS
    # a send time in our future (another clock) counts no transit
    ahead = Deadline.from_wire({"remaining": 2.0, "spent": 0.0, "sent": now + 1e6})
    assert 1.9 < ahead.remaining() <= 2.0
    good = {"remaining": 1.0, "spent": 0.0, "sent": now}
    for bad in (None, 1.5, [1.0], {**good, "remaining": float("nan")}, {**good, "spent": "1"},
                {**good, "sent": True}, {**good, "sent": float("inf")},
                {"remaining": 1.0, "sent": now}):
        with pytest.raises(ValueError):
            Deadline.from_wire(bad)


def test_a_move_s_limit_keeps_its_deadline_else_starts_the_clock_else_the_default():
    given = Deadline.after(3.0)
    assert Limit.for_move(given).deadline == given
    timed = Limit.for_move(time=0.5).deadline
    assert timed is not None and timed.seconds == pytest.approx(0.5)
    assert Limit.for_move(depth=3).deadline is None and Limit.for_move(nodes=9).deadline is None
    default = Limit.for_move().deadline
    assert default is not None and default.seconds == pytest.approx(DEFAULT_SECONDS)
    with pytest.raises(ValueError, match="not both"):
        Limit.for_move(given, 1.0)
    # the search stops by the budget of the time left; no new depth past the share
    searching = Limit.for_move(given, depth=4).searching()
    assert searching.depth == 4 and searching.deadline is not None
    assert searching.deadline.at < given.at
    now = time.monotonic()
    late = Limit.for_move(Deadline(now - 0.6, now + 0.4))
    assert not late.may_start_depth(DEPTH_SHARE) and Limit(depth=2).may_start_depth(DEPTH_SHARE)
    assert Limit(depth=2).clock().seconds == pytest.approx(DEFAULT_SECONDS)
    assert Limit(time=0.3).clock().seconds == pytest.approx(0.3)


def test_lateness_is_a_decaying_maximum_within_bounds():
    lateness = Lateness()
    lateness.learn(0.1)
    assert lateness.seconds == pytest.approx(0.1)
    lateness.learn(-0.2)  # early: the remembered lateness decays
    assert 0 < lateness.seconds < 0.1
    lateness.learn(0.9)
    assert lateness.seconds == MAX_LATENESS
    lateness.learn(5.0)  # a first compile, not the machine's load
    assert lateness.seconds == MAX_LATENESS


# the deadline thread -------------------------------------------------------------------------

def _deadline_threads() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name == "aviary-deadlines"]


def test_a_stop_timer_sets_its_flag_at_its_deadline_even_behind_a_later_one():
    """A short deadline entered while a long one waits wakes the thread (it slept until
    the long one), and only the short one's flag is set."""
    long_flag, short_flag = np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64)
    with StopTimer(long_flag, 60.0):
        started = time.monotonic()
        with StopTimer(short_flag, 0.05):
            while not short_flag[0] and time.monotonic() - started < 10:
                time.sleep(0.005)
            waited = time.monotonic() - started
    assert short_flag[0] == 1 and waited >= 0.05
    assert long_flag[0] == 0


def test_a_finished_move_s_flag_is_never_set_and_one_thread_serves_every_move():
    flags = [np.zeros(1, dtype=np.int64) for _ in range(2000)]
    for flag in flags:
        with StopTimer(flag, 0.02):
            pass
    time.sleep(0.3)  # every deadline has passed
    assert not any(flag[0] for flag in flags)
    assert len(_deadline_threads()) == 1
    never = np.zeros(1, dtype=np.int64)
    with StopTimer(never, None):
        time.sleep(0.05)
    assert never[0] == 0


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_forked_child_gets_a_deadline_thread_of_its_own():
    flag = np.zeros(1, dtype=np.int64)
    with StopTimer(np.zeros(1, dtype=np.int64), 60.0):  # the parent's thread is running
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            with StopTimer(flag, 0.05):
                started = time.monotonic()
                while not flag[0] and time.monotonic() - started < 10:
                    time.sleep(0.005)
            os._exit(0 if flag[0] else 1)
        _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
