"""The move clock: one `Deadline` a front end hands a player, and the rules kept on it."""

import time

import pytest

from aviary.search.clock import (
    DEEPEN_TO_DEADLINE,
    DEPTH_SHARE,
    MAX_SECONDS,
    Deadline,
    Limit,
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


def test_a_deadline_from_another_process_is_capped_at_max_seconds():
    assert Deadline.until(1e300).remaining() <= MAX_SECONDS
    assert Deadline.until(float("inf")).remaining() <= MAX_SECONDS
    soon = time.monotonic() + 2
    assert Deadline.until(soon).at == soon
    for bad in (float("nan"), "1", None, True):
        with pytest.raises(ValueError):
            Deadline.until(bad)
