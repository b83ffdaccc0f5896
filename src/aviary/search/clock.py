"""A move's clock: every time-policy number of aviary lives in this file.

`Deadline` is what every front end (the course runner, the arena, `aviary play`,
the web, the OpenSpiel players) hands a player: when the move must be returned,
on the monotonic clock, and when its time started. The rules on top of it:

- returning takes time: a search asked to return by `at` stops by
  `Deadline.search_until` (8% + 30 ms earlier, `RETURN_SHARE` / `RETURN_LATENCY`);
- a new depth costs more than all before it: a player starts none once a share of
  its time has gone (`Deadline.may_start_depth`): `DEPTH_SHARE` for the engines,
  `DEEPEN_TO_DEADLINE` for those that measured better searching to the end;
- a course command exits `exit_margin(SECONDS)` before its SECONDS have passed;
- a web page's searches plan for the lateness seen lately (`Lateness`).

A deadline is made once, at an edge (a course command, the arena, a web session, an
OpenSpiel player: one module each, `tests/search/test_one_clock.py`), and passed whole:
to another process as the seconds remaining and the time they were measured
(`Deadline.to_wire` / `Deadline.from_wire`), never as a time of the sender's clock.
Seconds given from outside are read by one validator, `check_seconds`. Timers that are
not a move's time (lock waits, reaping, watchdogs) are elapsed-time checks.

A search is stopped by a python-chess-like `Limit` (seconds, a deadline, depth,
nodes). A compiled search cannot be interrupted from outside, so it polls a one-element
numpy array; `StopTimer` sets that flag at the deadline from the process's one
deadline thread (the search runs `nogil`, so that thread gets to run). Importing this module costs
next to nothing, so a course command line can read its clock before loading numba.
"""

from __future__ import annotations

import heapq
import math
import os
import threading
import time
from dataclasses import dataclass, replace
from types import TracebackType
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # numpy is not imported at run time: command lines must start fast
    import numpy as np

_IMPORTED_AT = time.monotonic()
MAX_SECONDS = 86_400.0  # the longest time a move may be given: a day (timers overflow near 1e9 s)


_NUMBER_CHARACTERS = frozenset("0123456789.eE+-")


def check_seconds(seconds: float | str, name: str = "seconds", most: float = MAX_SECONDS,
                  zero: bool = False) -> float:
    """A time as a number: `seconds` (a number, or a command line's text) if it is a usable
    time, above 0 (at least 0 with `zero`: the arena's grace) and at most `most` (by
    default MAX_SECONDS, a day), else ValueError naming `name`. The one validator of
    seconds: the course command's SECONDS, `play --time`, a game command's `--seconds`,
    OpenSpiel's `time=`, the arena's `--time`, `--grace` and `time=`, the web's seconds
    a move (`WEB_MAX_SECONDS`) and a hint's (`HINT_MAX_SECONDS`).

    Text is a plain decimal number: Python's `float` also takes `1_0` (10), `inf`,
    `nan` and `infinity`, none of which a time per move is written as.
    """
    value: float | None = None
    if isinstance(seconds, str):
        text = seconds.strip()
        if text and set(text) <= _NUMBER_CHARACTERS:
            try:
                value = float(text)
            except ValueError:
                value = None
    elif isinstance(seconds, int | float) and not isinstance(seconds, bool):
        value = float(seconds)
    low_ok = value is not None and (value >= 0 if zero else value > 0)
    if value is None or not low_ok or not value <= most:  # False for nan too
        number = isinstance(seconds, int | float) and not isinstance(seconds, bool)
        shown = f"{seconds:g}" if number else repr(seconds)
        day = " (a day)" if most == MAX_SECONDS else ""
        raise ValueError(f"{name} must be a number of seconds {'at least 0' if zero else 'above 0'}"
                         f" and at most {most:g}{day}, got {shown}")
    return value


RETURN_SHARE = 0.92  # a search asked to return within T seconds stops after 92% of T ...
RETURN_LATENCY = 0.03  # ... less 30 ms: polling, converting the result, waking the caller
DEPTH_SHARE = 0.45  # the engines start no new depth once this share of the move's time is gone
DEEPEN_TO_DEADLINE = 1.0  # start depths until the deadline (the textbook opponent, some games)
START_SEARCH_SECONDS = 0.05  # a course command with less time left starts no engine
SEARCH_SECONDS = 0.01  # an engine with less time left than this searches nothing
DEFAULT_SECONDS = 1.0  # a move's time when a caller gives no deadline, depth or node limit
MOST_SHORTENED = 0.5  # a caller's shortening (the web's lateness) leaves at least this share
LATENESS_DECAY = 0.8  # per search: how fast a late search is forgotten (`Lateness`)
MAX_LATENESS = 0.3  # the most a search plans to end early for lateness
OUTLIER = 1.0  # later than this is not the machine's load (a first compile): not learnt
WEB_MAX_SECONDS = 600.0  # the longest search a web page may ask for (it holds an engine process)
HINT_MAX_SECONDS = 10.0  # the longest a web hint or draw offer searches


def budget(seconds: float) -> float:
    """The search time to ask for so that a move is returned within `seconds` of the call.

    Stopping is polled, and returning (converting the result, waking the caller)
    takes a few milliseconds more; on a busy machine (load 4 on 2 cores) the search
    thread may wait tens of milliseconds for a core, so the margin is 8% + 30 ms.
    """
    return max(RETURN_SHARE * seconds - RETURN_LATENCY, 0.005)


def exit_margin(seconds: float) -> float:
    """How long before a course command's SECONDS it exits: room for a late wake-up on a
    busy machine and for exiting (the grader's clock started with the process)."""
    return min(0.25 + 0.03 * seconds, 2.0)


@dataclass(frozen=True)
class Deadline:
    """When a move must be returned (`at`) and when its time began (`started`), both on
    the monotonic clock: the one thing a front end hands a player about time."""

    started: float
    at: float

    @classmethod
    def after(cls, seconds: float) -> Deadline:
        """The deadline `seconds` from now."""
        now = time.monotonic()
        return cls(now, now + seconds)

    def to_wire(self) -> dict[str, float]:
        """This deadline for another process: the seconds remaining and already spent, and
        when they were measured (`sent`, on this process's monotonic clock). The receiver
        keeps the seconds, not a time of our clock; `sent` only tells it how long the
        message took (`from_wire`), so the deadline stays whole."""
        now = time.monotonic()
        return {"remaining": self.at - now, "spent": now - self.started, "sent": now}

    @classmethod
    def from_wire(cls, wire: object) -> Deadline:
        """The deadline another process sent (`to_wire`): its remaining seconds less the
        time the message took on this machine's monotonic clock (a `sent` in our future,
        another clock, counts none), capped at `MAX_SECONDS`: a request asking 1e300 s gets
        the longest move. ValueError if `wire` is not such a message."""
        if not isinstance(wire, dict):
            raise ValueError(f"a deadline must be an object with remaining, spent and sent "
                             f"seconds, got {wire!r}")
        numbers = {}
        for key in ("remaining", "spent", "sent"):
            value = wire.get(key)
            if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
                raise ValueError(f"a deadline's {key} must be a number of seconds, got {value!r}")
            numbers[key] = float(value)
        if not math.isfinite(numbers["sent"]):
            raise ValueError(f"a deadline's sent must be a finite time, got {numbers['sent']}")
        now = time.monotonic()
        transit = max(now - numbers["sent"], 0.0)
        remaining = min(numbers["remaining"], MAX_SECONDS) - transit
        spent = min(max(numbers["spent"], 0.0), MAX_SECONDS) + transit
        return cls(now - spent, now + remaining)

    def __reduce__(self) -> tuple[object, tuple[dict[str, float]]]:
        """Pickled (for a worker process) as its wire form: passed whole, by `to_wire`."""
        return Deadline.from_wire, (self.to_wire(),)

    @classmethod
    def for_course(cls, seconds: float) -> Deadline:
        """A course command's deadline: SECONDS from the process's start (the grader's
        clock), less `exit_margin`."""
        started = time.monotonic() - process_age()
        return cls(started, started + seconds - exit_margin(seconds))

    @property
    def seconds(self) -> float:
        """The whole time the move was given."""
        return self.at - self.started

    def remaining(self) -> float:
        """Seconds left until `at` (negative once it has passed)."""
        return self.at - time.monotonic()

    def search_until(self) -> Deadline:
        """The deadline a search must stop by for the move to be returned by `at`
        (`budget` of the time left)."""
        now = time.monotonic()
        return replace(self, at=now + budget(max(self.at - now, 0.0)))

    def may_start_depth(self, share: float) -> bool:
        """Whether a new depth may start: less than `share` of the move's time has gone."""
        return time.monotonic() - self.started < share * self.seconds

    def sooner(self, seconds: float) -> Deadline:
        """`seconds` earlier (a caller's own lateness), keeping `MOST_SHORTENED` of the time."""
        kept = self.started + MOST_SHORTENED * self.seconds
        return replace(self, at=max(self.at - seconds, kept))


@dataclass
class Lateness:
    """How late a caller's searches have lately come back past their deadline (a decaying
    maximum, at most `MAX_LATENESS`): the web server's next searches plan to end that
    much sooner (`Deadline.sooner`). A search later than `OUTLIER` (a first compile, not
    the machine's load) is not learnt."""

    seconds: float = 0.0

    def learn(self, late: float) -> None:
        """Remember one search that came back `late` seconds past its deadline (negative:
        early; the remembered lateness then decays)."""
        if late <= OUTLIER:
            self.seconds = min(MAX_LATENESS, max(0.0, late, LATENESS_DECAY * self.seconds))


@dataclass(frozen=True)
class Limit:
    """When to stop thinking: any of seconds (from the call), a deadline (the search stops
    at its `at`), depth (plies) or nodes; None means no bound."""

    time: float | None = None
    depth: int | None = None
    nodes: int | None = None
    deadline: Deadline | None = None

    @classmethod
    def for_move(cls, deadline: Deadline | None = None, time: float | None = None,
                 depth: int | None = None, nodes: int | None = None) -> Limit:
        """The limit a player's `best_move` keeps: `deadline`, else `time` seconds from
        now, else none when depth or nodes bound the search, else `DEFAULT_SECONDS` from
        now; with `depth` and `nodes`. Front ends that have a deadline pass it; the others
        pass their seconds (`time=`) and the player's clock starts here, at the call.
        Its deadline is the move's (to return by): the search's is `searching()`'s."""
        if deadline is not None and time is not None:
            raise ValueError("give a player deadline= or time=, not both")
        if deadline is None and time is not None:
            deadline = Deadline.after(time)
        elif deadline is None and depth is None and nodes is None:
            deadline = Deadline.after(DEFAULT_SECONDS)
        return cls(depth=depth, nodes=nodes, deadline=deadline)

    def clock(self) -> Deadline:
        """The deadline this limit stops by: its own (`from_now`), else `DEFAULT_SECONDS`
        from now (a search that can only stop by the clock: an MCTS without a count)."""
        deadline = self.from_now().deadline
        return Deadline.after(DEFAULT_SECONDS) if deadline is None else deadline

    def searching(self) -> Limit:
        """The limit a search keeps for this move: its deadline stops the search by
        `Deadline.search_until`, so that the move is returned by the deadline."""
        if self.deadline is None:
            return self
        return replace(self, deadline=self.deadline.search_until())

    def may_start_depth(self, share: float) -> bool:
        """Whether a new depth may start (`Deadline.may_start_depth`; always without one)."""
        return self.deadline is None or self.deadline.may_start_depth(share)

    def from_now(self) -> Limit:
        """This limit with its seconds turned into a deadline: they count from the call,
        set-up included (the sooner of the two deadlines if both are given)."""
        if self.time is None:
            return self
        deadline = Deadline.after(self.time)
        if self.deadline is not None and self.deadline.at < deadline.at:
            deadline = self.deadline
        return replace(self, time=None, deadline=deadline)

    def seconds(self) -> float | None:
        """The search's time from now: the sooner of `time` and the deadline (at least 1 ms)."""
        times = [t for t in (self.time, None if self.deadline is None
                             else self.deadline.remaining()) if t is not None]
        return max(min(times), 0.001) if times else None

    def __post_init__(self) -> None:
        if self.time is not None and not self.time > 0:
            raise ValueError(f"time limit must be positive, got {self.time}")
        if self.depth is not None and self.depth < 1:
            raise ValueError(f"depth limit must be at least 1, got {self.depth}")
        if self.nodes is not None and self.nodes < 1:
            raise ValueError(f"node limit must be at least 1, got {self.nodes}")


def process_age() -> float:
    """Seconds since this process started (from /proc on Linux; else since aviary's import).

    The course grader's clock starts when it launches the program, so deadlines of
    course command lines are measured from process start, interpreter start-up included.
    """
    try:
        with open("/proc/self/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        start_ticks = int(fields[19])  # field 22 overall: starttime in clock ticks since boot
        with open("/proc/uptime") as uptime:
            since_boot = float(uptime.read().split()[0])
        age = since_boot - start_ticks / os.sysconf("SC_CLK_TCK")
        if age >= 0:
            return age
    except (OSError, ValueError, IndexError):
        pass
    return time.monotonic() - _IMPORTED_AT


class StopTimer:
    """Sets `flag[0] = 1` after `seconds` (None: never) from the process's deadline
    thread (`_Deadlines`)."""

    def __init__(self, flag: np.ndarray, seconds: float | None) -> None:
        self.flag = flag
        # beyond MAX_SECONDS a wait would overflow the clock
        self.seconds = None if seconds is None else min(max(seconds, 0.0), MAX_SECONDS)
        self._entry: _Entry | None = None

    def stop(self) -> None:
        self.flag[0] = 1

    def __enter__(self) -> StopTimer:
        if self.seconds is not None:
            self._entry = _DEADLINES.add(time.monotonic() + self.seconds, self)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self._entry is not None:
            _DEADLINES.cancel(self._entry)
            self._entry = None


@dataclass
class _Entry:
    deadline: float
    timer: StopTimer
    done: bool = False

    def __lt__(self, other: _Entry) -> bool:
        return self.deadline < other.deadline


class _Deadlines:
    """One daemon thread per process that stops each timed search at its deadline.

    A thread per move (`threading.Timer`) cost its start and its cancel on the move's
    own path: a quarter of a node-bound Fox-Geese move on a loaded machine. Here a move
    adds its deadline to a heap under a lock, and wakes the thread only when that
    deadline is the earliest; a finished move only marks its entry done (the thread drops
    it when it comes up). Under the lock, a done entry's flag is never set: the array
    may already be the next search's."""

    def __init__(self) -> None:
        self._lock = threading.Condition(threading.Lock())
        self._heap: list[_Entry] = []
        self._thread: threading.Thread | None = None
        self._wake = math.inf  # when the thread will look next

    def add(self, deadline: float, timer: StopTimer) -> _Entry:
        entry = _Entry(deadline, timer)
        with self._lock:
            heapq.heappush(self._heap, entry)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="aviary-deadlines",
                                                daemon=True)
                self._thread.start()
            elif deadline < self._wake:
                self._lock.notify()
        return entry

    def cancel(self, entry: _Entry) -> None:
        with self._lock:
            entry.done = True

    def _run(self) -> None:
        with self._lock:
            while True:
                now = time.monotonic()
                while self._heap and (self._heap[0].done or self._heap[0].deadline <= now):
                    entry = heapq.heappop(self._heap)
                    if not entry.done:
                        entry.done = True
                        entry.timer.stop()
                self._wake = self._heap[0].deadline if self._heap else math.inf
                self._lock.wait(None if self._wake == math.inf else self._wake - now)


_DEADLINES = _Deadlines()


def _deadlines_after_fork() -> None:
    """A forked child has no deadline thread (only the forking thread survives)."""
    global _DEADLINES
    _DEADLINES = _Deadlines()


os.register_at_fork(after_in_child=_deadlines_after_fork)
