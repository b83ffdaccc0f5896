"""Running a tournament: the planned games not yet stored, in parallel, each saved as it ends.

Games run in worker processes, never in the arena's own process: a local
process pool (default one game per core; more is allowed but warned about,
since games that share a core lose on time unfairly), or Ray tasks on a
cluster (`backend="ray"`, optional extra `aviary[cluster]`). Either way the
worker returns a finished `GameRecord` and only this process writes to the
database, so there is one writer and one transaction per game.

Stopping (`StopSignals`): the first SIGINT or SIGTERM starts no new game,
stores every game that has finished, abandons (kills) the games in progress
and raises `Interrupted` within a fraction of a second; `resume` replays the
abandoned slots. Workers ignore both signals (a terminal's Ctrl-C reaches the
whole process group): this process alone decides. A second signal kills the
workers and exits at once; a game being stored is rolled back by SQLite.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import random
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from functools import cache
from multiprocessing import get_context
from typing import Any

from aviary.arena import provenance, ratings
from aviary.arena.players import Player, make_player
from aviary.arena.referee import GameRecord, play_game
from aviary.arena.report import pair_counts
from aviary.arena.sandbox import become_subreaper
from aviary.arena.schedule import Config, Slot, opening, plan
from aviary.arena.store import Store
from aviary.errors import UsageError
from aviary.games.base import Game

BACKENDS = ("local", "ray")


class GamesFailed(Exception):
    """A worker could not finish a game (it died or raised); stored games are safe."""


class Interrupted(Exception):
    """SIGINT or SIGTERM stopped the tournament; every finished game is stored."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class StopSignals:
    """Context manager: the first SIGINT/SIGTERM asks to stop, a second one ends the process.

    The handler only records the request (and says so on stderr at once); the backends
    look at `requested` at least every `POLL` seconds, so stopping never happens in the
    middle of storing a game. `abort` (set by the running backend) kills the workers.
    """

    POLL = 0.1

    def __init__(self, db: object = "the database") -> None:
        self.signum: int | None = None
        self.db = db
        self.abort: Callable[[], None] | None = None
        self._previous: dict[int, Any] = {}

    @property
    def requested(self) -> bool:
        return self.signum is not None

    def __enter__(self) -> StopSignals:
        for number in _STOP_SIGNALS:
            self._previous[number] = signal.signal(number, self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.requested:  # still stopping: a further signal must quit at once, not raise
            return
        for number, handler in self._previous.items():
            signal.signal(number, handler)

    def _handle(self, signum: int, frame: object) -> None:
        if self.signum is None:
            self.signum = signum
            _say(f"aviary arena: {signal.Signals(signum).name}: stopping; no new game starts, "
                 "games in progress are abandoned, finished games are stored "
                 "(again to quit at once)")
            return
        if self.abort is not None:
            self.abort()
        _say(f"aviary arena: {signal.Signals(signum).name} again: quit at once; "
             f"`aviary arena resume {self.db}` continues")
        os._exit(128 + signum)


def _say(line: str) -> None:
    """Write one line to stderr with a single system call (safe inside a signal handler)."""
    os.write(2, (line + "\n").encode())


def _ignore_stop_signals() -> None:
    """Workers leave stopping to the arena (Ctrl-C in a terminal signals the whole group)."""
    for number in _STOP_SIGNALS:
        signal.signal(number, signal.SIG_IGN)


def _failed(error: BaseException) -> GamesFailed:
    return GamesFailed(f"a game worker failed ({type(error).__name__}: {error})")


# ---- the worker side: everything here runs in a pool process or a Ray task -------------------
@cache
def _prepared(config_json: str) -> tuple[Config, Game, dict[str, Player], list[Slot]]:
    """Game, players and plan, built once per worker process and configuration."""
    become_subreaper()
    if threading.current_thread() is threading.main_thread():  # a Ray worker: Ctrl-C is ours
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    config = Config.from_json(config_json)
    game = config.make_game()
    players = {spec.name: make_player(spec, game, config.grace, config.memory_mb)
               for spec in config.players}
    return config, game, players, plan(config)


def play_slot(config_json: str, index: int) -> GameRecord:
    """Play planned game `index` of the tournament described by `config_json`."""
    config, game, players, slots = _prepared(config_json)
    slot = slots[index]
    start_text = opening(game, config, slot.round)
    record = GameRecord(slot=index, first=slot.first, second=slot.second, opening=start_text,
                        code=provenance.code_fingerprint(config.game, config.player_specs))
    start = time.monotonic()
    chance = random.Random(f"{config.seed}:{slot.round}:chance")  # the same for both colours
    play_game(game, (players[slot.first], players[slot.second]), game.decode(start_text),
              config.seconds, config.max_plies, record, chance)
    record.wall = time.monotonic() - start
    return record


def _init_local_worker(arena: int) -> None:
    """Die with the arena (so a kill -9 of the arena leaves no worker behind); an arena
    killed while this worker was still starting is noticed here, after the fact."""
    ctypes.CDLL(None).prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    if os.getppid() != arena:  # the arena died before the death signal was set
        os._exit(0)
    _ignore_stop_signals()
    become_subreaper()


def _kill_workers(pool: ProcessPoolExecutor) -> None:
    """SIGKILL every worker of `pool`; their move processes die with them (parent-death signal).

    `_processes` is private, but the only way before Python 3.14's `kill_workers()`.
    """
    processes = getattr(pool, "_processes", None) or {}
    for process in list(processes.values()):
        with contextlib.suppress(Exception):
            process.kill()


# ---- backends: iterate over finished games as they complete -----------------------------------
def local_games(config_json: str, indices: list[int], jobs: int,
                stop: StopSignals) -> Iterator[GameRecord]:
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=get_context("spawn"),
                               initializer=_init_local_worker, initargs=(os.getpid(),))
    stop.abort = lambda: _kill_workers(pool)
    pending: set[Future[GameRecord]] = set()
    try:
        pending = {pool.submit(play_slot, config_json, index) for index in indices}
        while pending and not stop.requested:
            done, pending = wait(pending, timeout=stop.POLL, return_when=FIRST_COMPLETED)
            for future in done:
                yield _result(future, stop)
        if stop.requested:
            # Abandon the games in progress, then store every game that had finished.
            _kill_workers(pool)
            pool.shutdown(wait=True, cancel_futures=True)
            for future in pending:
                if future.done() and not future.cancelled() and future.exception() is None:
                    yield future.result()
            raise Interrupted(stop.signum or signal.SIGINT)
    finally:
        stop.abort = None
        if pending:  # stopped early (SPRT, a failed game, a signal): nothing left is wanted
            _kill_workers(pool)
        pool.shutdown(wait=True, cancel_futures=True)


def _result(future: Future[GameRecord], stop: StopSignals) -> GameRecord:
    try:
        return future.result()
    except Exception as error:
        if stop.requested:  # a worker that died of the stop is an abandoned game
            raise Interrupted(stop.signum or signal.SIGINT) from None
        raise _failed(error) from error


def ray_games(config_json: str, indices: list[int], jobs: int, address: str | None,
              stop: StopSignals) -> Iterator[GameRecord]:
    """The same games as Ray tasks (one CPU each), at most `jobs` in flight."""
    try:
        import ray
    except ImportError:
        raise UsageError("--backend ray needs Ray: pip install 'aviary[cluster]'") from None
    started_here = not ray.is_initialized()
    if started_here:
        if address:
            check_address(address)
            ray.init(address=address, log_to_driver=False)
        else:
            ray.init(num_cpus=jobs, include_dashboard=False, log_to_driver=False)
    task = ray.remote(num_cpus=1, max_retries=0)(play_slot)
    queue: list[int] = list(indices)
    in_flight: list[Any] = []
    try:
        while (queue or in_flight) and not stop.requested:
            while queue and len(in_flight) < jobs:
                in_flight.append(task.remote(config_json, queue.pop(0)))
            done, in_flight = ray.wait(in_flight, num_returns=1, timeout=stop.POLL)
            for ref in done:
                try:
                    record = ray.get(ref)
                except Exception as error:
                    if stop.requested:
                        raise Interrupted(stop.signum or signal.SIGINT) from None
                    raise _failed(error) from error
                yield record
        if stop.requested and in_flight:
            done, in_flight = ray.wait(in_flight, num_returns=len(in_flight), timeout=0)
            for ref in done:
                with contextlib.suppress(Exception):
                    yield ray.get(ref)
        if stop.requested:
            raise Interrupted(stop.signum or signal.SIGINT)
    finally:
        for ref in in_flight:
            ray.cancel(ref, force=True)
        if started_here:
            ray.shutdown()


def check_address(address: str, seconds: float = 5.0) -> None:
    """UsageError within `seconds` unless a Ray head answers at HOST:PORT (Ray itself retries
    an unreachable address for a long time). Other forms (`auto`, `ray://`) are left to Ray."""
    host, colon, port = address.removeprefix("ray://").rpartition(":")
    if address == "auto" or not colon:
        return
    if not port.isdigit() or not host:
        raise UsageError(f"--address {address!r}: expected HOST:PORT")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=seconds).close()
    except (OSError, ValueError) as error:
        raise UsageError(f"cannot reach a Ray cluster at {address}: "
                         f"{getattr(error, 'strerror', None) or error}") from None


def default_jobs() -> int:
    return os.cpu_count() or 1


def oversubscription_warning(jobs: int, backend: str, load: float | None = None
                             ) -> str | None:
    """A warning when games would share cores: their timings are then no figures."""
    cores = default_jobs()
    if backend == "local" and jobs > cores:
        return (f"warning: {jobs} games at once on {cores} cores; programs will lose time "
                "to each other and may forfeit unfairly")
    if backend == "local" and load is not None and load + jobs > cores + 0.5:
        return (f"warning: the machine's load is {load:.1f} before {jobs} game(s) start on "
                f"{cores} cores; moves will lose time to other work, so these timings and "
                "results are not clean figures (the load is stored with every game)")
    return None


# ---- the arena side ---------------------------------------------------------------------------
def sprt_decision(store: Store, config: Config) -> str | None:
    if config.sprt is None or len(config.players) != 2:
        return None
    elo0, elo1, alpha, beta = config.sprt
    counts = pair_counts(store.games(), config.players[0].name)
    return ratings.sprt_pentanomial(counts, elo0, elo1, alpha, beta).decision


def remaining(store: Store, config: Config) -> list[Slot]:
    finished = store.finished_ids()
    return [slot for slot in plan(config) if slot.index + 1 not in finished]


def run(store: Store, *, jobs: int, backend: str = "local", address: str | None = None,
        on_game: Callable[[GameRecord], None] | None = None,
        stop: StopSignals | None = None) -> int:
    """Play every planned game the database lacks; returns how many were played now.

    With `stop` (entered), a signal ends the run by `Interrupted` after storing every
    finished game."""
    stop = stop or StopSignals()
    config = store.config()
    if sprt_decision(store, config) is not None:
        return 0
    todo = remaining(store, config)
    if not todo:
        return 0
    rounds = {slot.index: slot.round for slot in todo}
    indices = [slot.index for slot in todo]
    jobs = min(jobs, len(indices))  # `jobs` >= 1 (the command checks it); no idle workers
    text = config.to_json()
    if backend == "ray":
        games = ray_games(text, indices, jobs, address, stop)
    else:
        games = local_games(text, indices, jobs, stop)
    played = 0
    try:
        for record in games:
            store.save(record, rounds[record.slot])
            played += 1
            if on_game is not None:
                on_game(record)
            decision = sprt_decision(store, config)
            if decision is not None:
                store.put("stopped", f"SPRT accepted {decision}")
                break
    finally:
        close = getattr(games, "close", None)
        if close is not None:
            close()
    return played


def warn(message: str | None) -> None:
    if message:
        print(message, file=sys.stderr, flush=True)
