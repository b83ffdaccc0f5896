"""Engine searches in worker processes, each search with a stop flag the server owns.

Why processes: numba's search releases the GIL, but a search still takes it
between depths, and on a loaded machine a thread that holds it can be put to
sleep by the system: with eight games in one process every timer in it then
wakes late (measured: a 0.05 s sleep overslept by up to 0.28 s beside eight
searches, 0.04 s in another process), so deadlines slip. A process per search
slot keeps each search's timer to itself; the pool's processes live as long as
the server, so engines stay compiled and their tables warm.

Positions cross as the game's one-line encoding (`Game.encode`), moves as their
notation; each depth's report comes back on one queue, tagged with its search.
The stop flags are one shared array, a slot per running search: the server sets
a slot for "move now", undo or a closed tab, and the search polls it. The array is
anonymous shared memory handed to each worker as it starts (nothing named in
/dev/shm to leak). The workers die with the server (a parent-death signal, so even
`kill -9` of the server leaves none), ignore Ctrl-C (a terminal sends it to the whole
group: the server stops them itself), and are ended by `shutdown`. A worker that dies
on its own is replaced, with the rest of its pool (`ProcessSearches.replace`).
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import queue
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, replace
from typing import Any

import numpy as np

from aviary.games.base import Game, Player, Report
from aviary.games.registry import GameSpec
from aviary.search.clock import Deadline

SLOTS = 1024  # searches that can run (or wait) at once


# One completed depth of a search in the page's terms: the one `Report`, its moves written
# in the game's notation (`move`, `pv`); `page_json` is what the page is sent of it.
Thought = Report[str]


def page_json(thought: Thought) -> dict[str, Any]:
    """What the page reads of a report: depth, score, mate_in (for the side to move), the
    move and principal variation in notation, nodes, nps, seconds."""
    return {"depth": thought.depth, "score": thought.score, "mate_in": thought.mate_in,
            "move": thought.move, "pv": list(thought.pv), "nodes": thought.nodes,
            "nps": thought.nps, "seconds": thought.seconds}

# --- in the worker processes ---------------------------------------------------------------

_flags: np.ndarray | None = None
_reports: Any = None
_PR_SET_PDEATHSIG = 1


def _start_worker(flags: Any, reports: Any) -> None:
    global _flags, _reports
    if sys.platform.startswith("linux"):  # die with the server, however it ends
        ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        server = multiprocessing.parent_process()
        if server is not None and os.getppid() != server.pid:  # it ended before the line above
            os._exit(0)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the server's (started ignoring it)
    _flags = np.frombuffer(flags, dtype=np.int64)
    _reports = reports


def _player(spec: GameSpec, engine_name: str,
            settings: tuple[tuple[str, Any], ...]) -> tuple[Game[Any, Any], Player[Any, Any]]:
    """The game and its player, built once per worker by the registry's spec (handed over
    whole: a worker process knows only the games registered at import)."""
    game = spec.make(**dict(settings))
    return game, spec.engine(engine_name, game)


def _nothing() -> None:
    """A task that only makes the pool start a process."""


def warm(spec: GameSpec, engine_name: str, settings: tuple[tuple[str, Any], ...]) -> None:
    """Load (or compile) an engine in this worker."""
    _player(spec, engine_name, settings)[1].warmup()


def run_search(search_id: int, slot: int, spec: GameSpec, engine_name: str,
               settings: tuple[tuple[str, Any], ...], position: str, history: list[str],
               deadline: Deadline) -> tuple[str | None, float]:
    """(the move's notation or None, seconds searched) for the encoded `position`."""
    began = time.monotonic()
    try:
        game, engine = _player(spec, engine_name, settings)
        state = game.decode(position)
        assert _flags is not None
        stop = _flags[slot:slot + 1]
        move = search(engine, game, state, [game.decode(h) for h in history], deadline, stop,
                      lambda thought: _reports.put((search_id, asdict(thought))))
        text = None if move is None else game.move_text(state, move)
        return text, time.monotonic() - began
    finally:
        _reports.put((search_id, None))  # after every report of this search: the last word


_levels: dict[tuple[str, str, tuple[tuple[str, Any], ...]], Any] = {}
_level_last: dict[tuple[str, str, tuple[tuple[str, Any], ...]], tuple[int, str]] = {}


def run_level(search_id: int, spec: GameSpec, level_spec: str,
              settings: tuple[tuple[str, Any], ...], position: str,
              history: list[str]) -> tuple[str | None, float]:
    """A ladder level's move for the encoded `position`: the level built from its player
    spec exactly as the arena plays it when it calibrates and grades (`build_engine`: a
    node budget, a share of random moves), so a game against it is a game against the
    strength its Elo says. Its own `time=` bounds it, never the page's seconds, and it
    reports no depths (a diluted move has no score). A move that does not go on from the
    level's last one (`history` does not pass through it) begins a new game for it, as
    the arena's games do (`Engine.new_game`)."""
    from aviary.arena.ladder import CEILING
    from aviary.arena.players import build_engine, own_seconds

    began = time.monotonic()
    try:
        key = (spec.name, level_spec, settings)
        game = spec.make(**dict(settings))
        if key not in _levels:
            _levels[key] = build_engine(level_spec, game)
        last = _level_last.get(key)
        if last is None or len(history) <= last[0] or history[last[0]] != last[1]:
            _levels[key].new_game()
        _level_last[key] = (len(history), position)
        state = game.decode(position)
        if not game.legal_moves(state):
            return None, time.monotonic() - began
        line = _levels[key](state, own_seconds(level_spec) or CEILING,
                            [game.decode(h) for h in history])
        return game.move_text(state, game.read_answer(state, line)), time.monotonic() - began
    finally:
        _reports.put((search_id, None))  # the last word: the server waits for it


def run_review(review_id: int, spec: GameSpec, engine_name: str,
               settings: tuple[tuple[str, Any], ...], positions: list[str],
               nodes: int) -> list[tuple[str, int, int | None] | None]:
    """Search each encoded position of a game to `nodes` nodes: per position (the best
    move's notation, its score and mate_in for the side to move), or None where nobody
    chooses (a chance event, the game over). Each position done is reported by count."""
    try:
        game, engine = _player(spec, engine_name, settings)
        states = [game.decode(position) for position in positions]
        found: list[tuple[str, int, int | None] | None] = []
        for index, state in enumerate(states):
            if game.is_chance(state) or game.outcome(state) is not None \
                    or not game.legal_moves(state):
                found.append(None)
            else:
                last: list[Report[Any]] = []
                move = engine.best_move(state, nodes=nodes, history=states[:index],
                                        on_report=last.append)
                score = last[-1].score if last else 0
                mate_in = last[-1].mate_in if last else None
                found.append((game.move_text(state, move), score, mate_in))
            _reports.put((review_id, {"done": index + 1, "total": len(states)}))
        return found
    finally:
        _reports.put((review_id, None))


# --- in the server ---------------------------------------------------------------------------


class ProcessSearches:
    """The pool of engine processes, their stop flags and the reader of their reports.

    A process that dies (`kill -9`, the out-of-memory killer, a crash in compiled code)
    breaks Python's whole pool: every later search would fail with BrokenProcessPool.
    So a broken pool is replaced by a new one (with a new report queue: the dead process
    may have held the old one's lock), the replacement is logged on stderr, and the
    search that found the pool broken is tried once more (`Sessions.think`).
    """

    def __init__(self, processes: int, log: Callable[[str], None] | None = None) -> None:
        self._context = multiprocessing.get_context("spawn")  # the server has threads: no fork
        self._shared = self._context.RawArray("q", SLOTS)
        self.flags = np.frombuffer(self._shared, dtype=np.int64)
        self.flags[:] = 0
        self.processes = processes
        self.log = log or _log
        self.replaced = 0  # pools replaced after a process died
        self._free = deque(range(SLOTS))  # first in, first out: a slot rests before reuse
        self._listeners: dict[int, Callable[[Any], None]] = {}
        self._next_id = 0
        self._closed = False
        self._replacing = threading.Lock()
        self._open()

    def _open(self) -> None:
        """A new pool of processes, its report queue and the queue's reader."""
        self._reports = self._context.Queue()
        self._reports.cancel_join_thread()  # the server only reads it
        self.pool = ProcessPoolExecutor(self.processes, mp_context=self._context,
                                        initializer=_start_worker,
                                        initargs=(self._shared, self._reports))
        self._reader = threading.Thread(target=self._read, args=(self._reports,),
                                        name="aviary-reports", daemon=True)
        self._reader.start()
        self._members: list[Any] = []  # the processes seen (the pool forgets a dead one)
        self._start_processes(self.processes)
        self._members = _processes(self.pool)

    def _start_processes(self, processes: int) -> None:
        """Start every engine process now, with Ctrl-C ignored from their first instruction.

        An ignored SIGINT is inherited through exec, and Python then leaves it ignored: a
        Ctrl-C to the group while a worker is still importing prints no traceback. (Only
        the main thread may change a signal's handler; elsewhere workers start on demand.)
        """
        if threading.current_thread() is not threading.main_thread():
            return
        before = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            for _ in range(processes):  # each submit starts a process while none is idle
                self.pool.submit(_nothing)
        finally:
            signal.signal(signal.SIGINT, before)

    def _read(self, reports: Any) -> None:
        while not self._closed and reports is self._reports:
            try:
                search_id, thought = reports.get(timeout=0.5)
            except queue.Empty:
                continue
            except (EOFError, OSError, ValueError):
                return
            # the search's last word (None) arrives after all its reports; its result may
            # have come back on the pool's own pipe before them
            listener = (self._listeners.get(search_id) if thought is not None
                        else self._listeners.pop(search_id, None))
            if listener is not None:
                listener(thought)

    @property
    def broken(self) -> bool:
        """Whether a process of the pool died (the pool then refuses every task)."""
        return bool(getattr(self.pool, "_broken", False))

    def replace(self, broken: ProcessPoolExecutor) -> bool:
        """Replace the pool `broken` (a process of it died) by a new one; False if it was
        replaced already (by another search that found it broken)."""
        with self._replacing:
            if self._closed or self.pool is not broken:
                return False
            ended = [p for p in self._members + _processes(broken) if p.exitcode is not None]
            # the pool itself terminates the others once one has died
            dead = [p for p in ended if p.exitcode != -signal.SIGTERM] or ended
            dead = list({p.pid: f"{p.pid} ({_exit_text(p.exitcode)})" for p in dead}.values())
            old_reports = self._reports
            self._end(broken)
            self._open()
            old_reports.close()
            self.replaced += 1
            self.log(f"aviary serve: engine process {', '.join(dead) or '(unknown)'} died; "
                     f"replaced the engine processes ({self.processes} new)")
            return True

    def start(self, spec: GameSpec, engine_name: str, settings: tuple[tuple[str, Any], ...],
              position: str, history: list[str], deadline: Deadline,
              listener: Callable[[dict[str, Any]], None]) -> tuple[Future[Any], np.ndarray]:
        """Start a search to return by `deadline` (it crosses to the worker in its wire
        form, `Deadline.to_wire`: whole); (its future, its stop flag). Raises RuntimeError when
        all slots are taken. A pool found broken is replaced first."""
        if not self._free:
            raise RuntimeError("too many searches at once")
        if self.broken:
            self.replace(self.pool)
        slot = self._free.popleft()
        self.flags[slot] = 0
        self._next_id += 1
        search_id = self._next_id
        self._listeners[search_id] = listener
        try:
            future = self.pool.submit(run_search, search_id, slot, spec, engine_name,
                                      settings, position, history, deadline)
        except BrokenProcessPool:  # it broke since the check above
            self.replace(self.pool)
            future = self.pool.submit(run_search, search_id, slot, spec, engine_name,
                                      settings, position, history, deadline)
        future.pool = self.pool  # type: ignore[attr-defined]  # the pool to replace if it broke
        self._members = list({id(p): p for p in self._members + _processes(self.pool)}.values())

        def release(finished: Future[Any]) -> None:
            self._free.append(slot)  # the worker polls it no more
            if finished.cancelled() or finished.exception() is not None:
                self._listeners.pop(search_id, None)  # a dead worker sends no last word

        future.add_done_callback(release)
        return future, self.flags[slot:slot + 1]

    def start_level(self, spec: GameSpec, level_spec: str,
                    settings: tuple[tuple[str, Any], ...], position: str, history: list[str],
                    listener: Callable[[dict[str, Any]], None]
                    ) -> tuple[Future[Any], np.ndarray]:
        """Start a ladder level's move (`run_level`), as `start` does a search. The level
        does not poll the stop flag: its node budget ends it within a second."""
        if self.broken:
            self.replace(self.pool)
        self._next_id += 1
        search_id = self._next_id
        self._listeners[search_id] = listener
        future = self.pool.submit(run_level, search_id, spec, level_spec, settings, position,
                                  history)
        future.pool = self.pool  # type: ignore[attr-defined]
        self._members = list({id(p): p for p in self._members + _processes(self.pool)}.values())

        def forget(finished: Future[Any]) -> None:
            if finished.cancelled() or finished.exception() is not None:
                self._listeners.pop(search_id, None)

        future.add_done_callback(forget)
        return future, np.zeros(1, dtype=np.int64)

    def review(self, spec: GameSpec, engine_name: str, settings: tuple[tuple[str, Any], ...],
               positions: list[str], nodes: int,
               listener: Callable[[dict[str, Any] | None], None]) -> Future[Any]:
        """Search every position of a game to `nodes` nodes in one engine process
        (`run_review`); `listener` hears the positions done as they are."""
        if self.broken:
            self.replace(self.pool)
        self._next_id += 1
        review_id = self._next_id
        self._listeners[review_id] = listener
        future = self.pool.submit(run_review, review_id, spec, engine_name, settings,
                                  positions, nodes)

        def forget(finished: Future[Any]) -> None:
            if finished.cancelled() or finished.exception() is not None:
                self._listeners.pop(review_id, None)

        future.add_done_callback(forget)
        return future

    def warm(self, spec: GameSpec, engine_name: str,
             settings: tuple[tuple[str, Any], ...]) -> Future[Any]:
        return self.pool.submit(warm, spec, engine_name, settings)

    def _end(self, pool: ProcessPoolExecutor, wait: float = 5.0) -> None:
        """End `pool`'s processes (within `wait` seconds, then kill).

        A worker may be busy for a minute (compiling an engine at start): it is not
        waited for but terminated; `_processes` is private, but the only way before
        Python 3.14's `terminate_workers()`.
        """
        processes = _processes(pool)
        pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            with contextlib.suppress(Exception):
                process.terminate()
        began = time.monotonic()  # `wait` for them all, not for each
        for process in processes:
            with contextlib.suppress(Exception):
                process.join(max(0.0, wait - (time.monotonic() - began)))
                if process.is_alive():
                    process.kill()
                    process.join(1.0)

    def shutdown(self, wait: float = 5.0) -> None:
        """Stop every search and end the engine processes."""
        self._closed = True
        self.flags[:] = 1
        self._end(self.pool, wait)
        self._reader.join(1.0)
        self._reports.close()


def _processes(pool: ProcessPoolExecutor) -> list[Any]:
    return list((getattr(pool, "_processes", None) or {}).values())


def _exit_text(code: int) -> str:
    if code < 0:
        with contextlib.suppress(ValueError):
            return f"killed by {signal.Signals(-code).name}"
    return f"exit status {code}"


def _log(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


# --- the search itself -------------------------------------------------------------------


def search(engine: Player[Any, Any], game: Game[Any, Any], state: Any, history: list[Any],
           deadline: Deadline, stop: np.ndarray, report: Callable[[Thought], object]) -> Any:
    """The engine's move for `state` by `deadline` or until `stop[0]` (runs in a worker);
    None when the mover has no move. Each finished depth goes to `report`."""
    if not game.legal_moves(state):
        return None

    def thought(found: Report[Any]) -> None:
        report(replace(found, move=game.move_text(state, found.move),
                       pv=tuple(_line(game, state, found.pv))))

    return engine.best_move(state, deadline=deadline, stop=stop, history=history,
                            on_report=thought)


def _line(game: Game[Any, Any], state: Any, pv: tuple[Any, ...]) -> list[str]:
    texts = []
    for move in pv:
        texts.append(game.move_text(state, move))
        state = game.play(state, move)
    return texts
