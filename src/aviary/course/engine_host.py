"""The course's clock and its engine host: where the course builds its deadlines, and the
one place a search request is served, for the engine child and the warm server alike.

The course command's deadline is SECONDS from its start (`deadline_from_start`, less
`exit_margin`: `aviary.search.clock`). It reaches the engine whole: the command sends
a request line, the same to an engine child of its own (down a pipe) and to a warm
engine server (over its socket):

    {"game", "settings", "state", "history", "time", "code"}

`history`: the game's earlier positions, oldest first, as `aviary.course.memory`
recalls them; `time`: the move's deadline as the seconds remaining and already spent
and the time they were measured (`Deadline.to_wire`), read back by `read_request`
(`Deadline.from_wire`: less the time the request took, capped at MAX_SECONDS);
`code`: the command's `code_digest()`, which a warm server checks (an engine child
runs the command's own code and is sent none). The host (`serve`) answers one JSON
line per completed depth ({"answer", "depth", "score", "nodes", "history"}) and
{"done": true} when the search ends by itself (or had no time to start).

Importing this module costs next to nothing (the registry, and numba where the game's
search is not compiled ahead of time, load in `load`).
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from aviary.search.clock import SEARCH_SECONDS, Deadline, Limit

DONE = b'{"done": true}\n'  # the engine's search ended by itself (a proven result, max depth)


# --- the command's deadline -------------------------------------------------------------


def _busy_seconds() -> float:
    """CPU time this process has used plus its waits for a core, in seconds: time it spent
    wanting to run, not asleep (`/proc/self/schedstat`; elsewhere its CPU time alone)."""
    try:
        with open("/proc/self/schedstat") as stat:
            ran, waited = stat.read().split()[:2]
        return (int(ran) + int(waited)) / 1e9
    except (OSError, ValueError):
        times = os.times()
        return times.user + times.system


def _ran_programs_before() -> bool:
    """Whether this process, before it became this command, waited for programs of its own:
    a shell running `a && b && aviary ...` (`bash -c`) waits for `a` and `b` in the process
    it then turns into the command. Linux keeps the page faults of waited-for children
    (`cminflt`, /proc/self/stat) across the exec; a program a grader starts has none
    (builtins such as `cd` or `true` start no program)."""
    try:
        with open("/proc/self/stat") as stat:
            return int(stat.read().rsplit(")", 1)[1].split()[8]) > 0
    except (OSError, ValueError, IndexError):
        return False


def deadline_from_start(seconds: float) -> Deadline:
    """A course command's deadline: SECONDS from its process's start (`Deadline.for_course`),
    or from the start of its program when its process ran other programs first.

    Linux dates a process from its fork, and bash running `a && b && aviary ...` as
    `bash -c` (ssh's remote command; `sh -c` where sh is bash) runs the last command in
    its own process: the command then dates from before `a` and `b`. The README's first
    command, run that way, found its 5 s gone and answered with the quick move alone when
    `a && b` took 5 s or more; and when they took 4.4 to 5 s (`aviary warmup` with its
    caches built, on a busy machine) it still did, with no time left to search. So the
    command counts from its exec when its start lies SECONDS or more back (a grader whose
    clock started at the fork would have taken the last line by then), or when the process
    waited for programs before the exec (`_ran_programs_before`: then it was a shell's,
    not a program a grader started). Linux does not record the exec's time: the command
    counts its CPU time and its waits for a core instead. The shell's share of those is a
    few milliseconds (it slept, waiting for its commands); what they miss is the
    command's own sleeps in start-up (files read from a cold disk).
    """
    deadline = Deadline.for_course(seconds)
    gone = time.monotonic() - deadline.started
    if gone < seconds and not _ran_programs_before():
        return deadline
    slept = gone - _busy_seconds()  # the shell's wait for the commands before this one
    return Deadline(deadline.started + slept, deadline.at + slept) if slept > 0 else deadline


# --- requests and answers ---------------------------------------------------------------


def request_line(name: str, settings: dict[str, Any], state: str, history: Iterable[str],
                 deadline: Deadline, code: str | None = None) -> bytes:
    """The request for a search of the encoded `state` by `deadline` (sent whole: its
    remaining time, measured now), one JSON line; `code`: for a warm server."""
    message: dict[str, Any] = {"game": name, "settings": settings, "state": state,
                               "history": list(history), "time": deadline.to_wire()}
    if code is not None:
        message["code"] = code
    return (json.dumps(message) + "\n").encode()


@dataclass(frozen=True)
class Request:
    """A search request as read (`read_request`): its deadline on this process's clock."""

    game: str
    settings: dict[str, Any]
    state: str
    history: list[str]
    deadline: Deadline


def read_request(message: dict[str, Any]) -> Request:
    """The request in a decoded request line; ValueError naming what is wrong."""
    game, settings, state = message.get("game"), message.get("settings", {}), message.get("state")
    history = message.get("history", [])
    if not isinstance(game, str) or not isinstance(state, str):
        raise ValueError("a request names its game and state as text")
    if not isinstance(settings, dict):
        raise ValueError("a request's settings are an object")
    if not isinstance(history, list) or not all(isinstance(text, str) for text in history):
        raise ValueError("a request's history is a list of encoded positions")
    return Request(game, settings, state, history, Deadline.from_wire(message.get("time")))


def json_objects(lines: Iterable[bytes | str]) -> list[dict[str, Any]]:
    """The lines that are JSON objects, decoded; anything else (a cut or foreign line) is
    skipped. The engine child's and the server's answers and the memory file's lines."""
    objects = []
    for line in lines:
        try:
            found = json.loads(line)
        except (ValueError, RecursionError):  # RecursionError: "[[[[..." nested too deep
            continue
        if isinstance(found, dict):
            objects.append(found)
    return objects


def engine_line(report: Any, history: int) -> bytes:
    """One engine answer as the host sends it: a JSON line (`history`: how many earlier
    positions of the game the search knew)."""
    mate = report.mate_in
    score = (f"win in {mate}" if mate is not None and mate > 0 else
             f"loss in {-mate}" if mate is not None else f"{report.score:+d}")
    return json.dumps({"answer": report.answer, "depth": report.depth, "score": score,
                       "nodes": report.nodes, "history": history}).encode() + b"\n"


# --- serving ----------------------------------------------------------------------------


def load(name: str, settings: dict[str, Any]) -> tuple[Any, Any]:
    """(the game, its main engine) for a request, built by the registry: on the game's
    search compiled ahead of time where `aviary warmup` built it for the current sources
    (`GameSpec.compiled_engine`: numba is never imported, so a warm server a course
    command just started serves its first request sooner), else numba's (slow the first
    time in a process: numba's import and compiler, the game's cached kernels)."""
    from aviary.games import registry

    spec = registry.spec(name)
    game = spec.make(**settings)
    compiled = spec.compiled_engine(game)
    return game, compiled if compiled is not None else spec.engine(spec.main_engine, game)


def serve(request: Request, engines: Callable[[str, dict[str, Any]], tuple[Any, Any]],
          write: Callable[[bytes], object], stop: Any = None,
          gone: Callable[[], bool] = lambda: False,
          on_report: Callable[[Any], object] | None = None) -> None:
    """Answer `request`: the engine's answer after each depth until the request's deadline
    (every depth is sent: it deepens to the deadline; tables: cached only), then DONE,
    each line handed to `write`. `engines(name, settings)` gives (the game, its engine);
    `stop[0]` set or `gone()` true ends the search (its command went away)."""
    game, engine = engines(request.game, request.settings)
    state = game.decode(request.state)
    history = [game.decode(text) for text in request.history]
    if request.deadline.remaining() > SEARCH_SECONDS:
        for report in engine.think(state, Limit(deadline=request.deadline), stop=stop,
                                   history=history):
            if gone():
                return
            if on_report is not None:
                on_report(report)
            write(engine_line(report, len(history)))
    write(DONE)


class _NoScipy:
    """An import hook refusing scipy in engine processes (the engine child, the warm
    server): no search kernel needs it.

    Still needed (checked with numba 0.68): `import numba` imports scipy, only to check
    its version (`numba._ensure_critical_deps`), and a refused import is skipped. Loading
    the 8x8 board game's engine took 0.50 s of CPU with this hook, 0.69 s without (median
    of 8 runs, 2026-11): a fifth of a 1-second move. Remove it once numba stops importing
    scipy.
    """

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        if name == "scipy" or name.startswith("scipy."):
            raise ImportError("scipy is not loaded by the course engine process")


# numpy's BLAS starts a thread per core when numpy is imported; no search uses BLAS
BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def as_engine_process() -> None:
    """Set up an engine process (the engine child, the warm server) before numpy loads.

    Two costs no search needs: scipy (`_NoScipy`), and the threads numpy's OpenBLAS
    starts at import, one per core, which used CPU the command's other processes were
    waiting for. On a 2-core machine, importing numpy in the engine child took 0.145 s
    of CPU with them and 0.06 s with one (`benchmarks/course_cold_start.py`, 2026-12-06),
    and the engine's first answer came 0.06 s sooner. A number the user set is kept.
    """
    sys.meta_path.insert(0, _NoScipy())
    for variable in BLAS_THREADS:
        os.environ.setdefault(variable, "1")
