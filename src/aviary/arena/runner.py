"""Running a tournament: the planned games not yet stored, in parallel, each saved as it ends.

Games run in worker processes, never in the arena's own process: local
workers (default one game per core; more is allowed but warned about, since
games that share a core lose on time unfairly), or Ray tasks on a cluster
(`backend="ray"`, optional extra `aviary[cluster]`). Either way the worker
returns a finished `GameRecord` and only this process writes to the database,
so there is one writer and one transaction per game.

A tournament survives its players (local workers): a worker tells this process
before each move whose move it is and sends the moves so far. A worker that
dies, or makes no progress within the move's time + grace + `WATCHDOG_MARGIN`
(a program that stopped it, an engine that hangs), is killed and replaced, and
its game is stored as lost by the player whose move was running (`crash`).

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
import json
import os
import random
import signal
import socket
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from functools import cache
from multiprocessing import connection, get_context
from multiprocessing.process import BaseProcess
from pathlib import Path
from typing import Any

from aviary.arena import isolation, provenance, ratings
from aviary.arena.isolation import Jail
from aviary.arena.players import Contestant, make_player, resolve_command
from aviary.arena.referee import GameRecord, TurnWatcher, forfeit, play_game
from aviary.arena.report import pair_counts
from aviary.arena.sandbox import become_subreaper
from aviary.arena.schedule import Config, Slot, opening, plan
from aviary.arena.store import Store, StoredGame
from aviary.errors import UsageError
from aviary.games.base import Game

BACKENDS = ("local", "ray")
WATCHDOG_MARGIN = 10.0  # seconds past a move's time + grace before its worker counts as hung
PREPARE_SECONDS = 600.0  # for a new worker to build its engines and start its first game


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
def jails_to_json(jails: dict[str, Jail]) -> str:
    return json.dumps({name: asdict(jail) for name, jail in jails.items()}, sort_keys=True)


def _jails_from_json(text: str) -> dict[str, Jail]:
    return {name: Jail.from_dict(fields) for name, fields in json.loads(text).items()}


@cache
def _prepared(config_json: str, jails_json: str = "{}"
              ) -> tuple[Config, Game, dict[str, Contestant]]:
    """Game and players, built once per worker process and configuration."""
    become_subreaper()
    if threading.current_thread() is threading.main_thread():  # a Ray worker: Ctrl-C is ours
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    config = Config.from_json(config_json)
    game = config.make_game()
    jails = _jails_from_json(jails_json)
    players = {spec.name: make_player(spec, game, config.grace, config.memory_mb,
                                      jails.get(spec.name))
               for spec in config.players}
    return config, game, players


def play_slot(config_json: str, slot: Slot, jails_json: str = "{}",
              on_turn: TurnWatcher | None = None) -> GameRecord:
    """Play game `slot` of the tournament described by `config_json`, each external
    player in its jail (`jails_json`; none: unisolated). The arena sends the slot whole:
    a worker never needs the plan, which a schedule may still be making (`aviary grade`)."""
    config, game, players = _prepared(config_json, jails_json)
    start_text = opening(game, config, slot.round)
    record = GameRecord(slot=slot.index, first=slot.first, second=slot.second, opening=start_text,
                        code=provenance.code_fingerprint(config.game, config.player_specs))
    start = time.monotonic()
    chance = random.Random(f"{config.seed}:{slot.round}:chance")  # the same for both colours
    play_game(game, (players[slot.first], players[slot.second]), game.decode(start_text),
              config.seconds, config.max_plies, record, chance, on_turn,
              seed=f"{config.seed}:{slot.index}")  # the levels' random moves: replayable
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


def _worker_main(conn: connection.Connection, arena: int) -> None:
    """A local worker: plays the games it is sent, telling the arena before each move.

    Messages to the arena: ("turn", mover, seconds, new moves) before each move, then
    ("done", record) or ("error", text)."""
    _init_local_worker(arena)
    while True:
        try:
            task = conn.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        config_json, jails_json, slot = task
        sent = 0

        def on_turn(record: GameRecord, mover: int, seconds: float) -> None:
            nonlocal sent
            conn.send(("turn", mover, seconds, record.moves[sent:]))
            sent = len(record.moves)

        try:
            record = play_slot(config_json, slot, jails_json, on_turn)
        except Exception:
            conn.send(("error", traceback.format_exc()))
            continue
        conn.send(("done", record))


@dataclass
class _Worker:
    """The arena's view of one local worker and the game it is playing."""

    process: BaseProcess
    conn: connection.Connection
    slot: Slot | None = None
    moves: list[Any] = field(default_factory=list)
    mover: int | None = None
    since: float = 0.0  # when the worker last sent news (monotonic clock) ...
    allowed: float = 0.0  # ... and how long after it the worker counts as hung without news

    def quiet(self) -> float:
        """Seconds past `allowed` without news (positive: hung)."""
        return time.monotonic() - self.since - self.allowed

    def kill(self) -> None:
        with contextlib.suppress(Exception):
            self.process.kill()
        with contextlib.suppress(Exception):
            self.process.join(timeout=5)
        with contextlib.suppress(Exception):
            self.conn.close()


class _LocalWorkers:
    """`jobs` worker processes, replaced when one dies or hangs."""

    def __init__(self, jobs: int, config_json: str, jails_json: str) -> None:
        self.context = get_context("spawn")
        self.config_json, self.jails_json = config_json, jails_json
        self.config = Config.from_json(config_json)
        self.workers = [self._start() for _ in range(jobs)]

    def _start(self) -> _Worker:
        ours, theirs = self.context.Pipe()
        process = self.context.Process(target=_worker_main, args=(theirs, os.getpid()),
                                       daemon=True)
        process.start()
        theirs.close()
        return _Worker(process, ours)

    def kill_all(self) -> None:
        for worker in self.workers:
            worker.kill()

    def idle(self) -> list[_Worker]:
        return [worker for worker in self.workers if worker.slot is None]

    def busy(self) -> list[_Worker]:
        return [worker for worker in self.workers if worker.slot is not None]

    def send(self, worker: _Worker, slot: Slot) -> None:
        worker.slot, worker.moves, worker.mover = slot, [], None
        worker.since, worker.allowed = time.monotonic(), PREPARE_SECONDS
        worker.conn.send((self.config_json, self.jails_json, slot))

    def replace(self, worker: _Worker) -> None:
        worker.kill()
        self.workers[self.workers.index(worker)] = self._start()

    def lost_game(self, worker: _Worker, why: str) -> GameRecord:
        """The game `worker` was playing, lost by the player whose move was running."""
        assert worker.slot is not None and worker.mover is not None
        slot = worker.slot
        names = (slot.first, slot.second)
        record = GameRecord(slot=slot.index, first=slot.first, second=slot.second,
                            opening=opening(self.config.make_game(), self.config, slot.round),
                            moves=list(worker.moves),
                            code=provenance.code_fingerprint(self.config.game,
                                                             self.config.player_specs))
        return forfeit(record, worker.mover, "crash",
                       f"{why} during {names[worker.mover]}'s move")

    def step(self, timeout: float) -> Iterator[GameRecord]:
        """Wait up to `timeout` for news; yield the games that ended (finished or lost)."""
        busy = self.busy()
        waiting: list[Any] = [worker.conn for worker in busy]
        waiting += [worker.process.sentinel for worker in self.workers]
        connection.wait(waiting, timeout=timeout)
        for worker in list(self.workers):
            news = self._read(worker)
            if news is not None:
                yield news
        for worker in self.busy():
            if worker.process.is_alive() and worker.quiet() <= 0:
                continue
            # What it sent before it died or while we were busy (storing a game) comes first.
            news = self._read(worker)
            if news is not None:
                yield news
                continue
            quiet = worker.quiet()
            if worker.process.is_alive() and quiet <= 0:
                continue
            hung = worker.process.is_alive()
            why = ("its game worker made no progress for "
                   f"{quiet + WATCHDOG_MARGIN:.0f} s (stopped or hung)" if hung
                   else f"its game worker died ({_exit_text(worker.process.exitcode)})")
            if worker.mover is None:
                raise GamesFailed(f"a game worker failed before its game began: {why}")
            lost = self.lost_game(worker, why)
            self.replace(worker)
            yield lost
        for worker in self.idle():  # a worker that died between games is simply replaced
            if not worker.process.is_alive():
                self.replace(worker)

    def _read(self, worker: _Worker) -> GameRecord | None:
        while worker.slot is not None:
            try:
                if not worker.conn.poll():
                    return None
                message = worker.conn.recv()
            except (EOFError, OSError):
                return None  # dead: `step` sees it
            kind = message[0]
            if kind == "turn":
                _, mover, seconds, moves = message
                worker.moves.extend(moves)
                worker.mover = mover
                worker.since = time.monotonic()
                worker.allowed = seconds + self.config.grace + WATCHDOG_MARGIN
            elif kind == "done":
                worker.slot = None
                record: GameRecord = message[1]
                return record
            else:
                worker.slot = None
                raise GamesFailed(f"a game worker failed ({message[1].strip().splitlines()[-1]})")
        return None


def _exit_text(code: int | None) -> str:
    if code is not None and code < 0:
        with contextlib.suppress(ValueError):
            return f"killed by {signal.Signals(-code).name}"
    return f"exit status {code}"


# ---- backends: iterate over finished games as they complete -----------------------------------
class Schedule:
    """What to play next: a fixed list of slots (`arena run`), or a subclass that decides
    as results come in (`aviary grade`'s staircase). `next` is asked whenever a worker is
    free (None: nothing to start now); `played` hears of every stored game first."""

    def __init__(self, slots: list[Slot]) -> None:
        self.slots = list(slots)

    def next(self) -> Slot | None:
        return self.slots.pop(0) if self.slots else None

    def played(self, record: GameRecord) -> None:
        pass

    def most_at_once(self) -> int:
        """How many games could ever be in flight at once (no idle workers are started)."""
        return len(self.slots)


class _Rounds(Schedule):
    """A schedule that remembers each handed-out slot's round until its game is stored."""

    def __init__(self, inner: Schedule) -> None:
        super().__init__([])
        self.inner, self.rounds = inner, dict[int, int]()

    def next(self) -> Slot | None:
        slot = self.inner.next()
        if slot is not None:
            self.rounds[slot.index] = slot.round
        return slot


def local_games(config_json: str, schedule: Schedule, jobs: int, stop: StopSignals,
                jails_json: str = "{}") -> Iterator[GameRecord]:
    workers = _LocalWorkers(jobs, config_json, jails_json)
    stop.abort = workers.kill_all
    try:
        while not stop.requested:
            for worker in workers.idle():
                slot = schedule.next()
                if slot is None:
                    break
                workers.send(worker, slot)
            if not workers.busy():
                break  # nothing in flight and nothing to start: the schedule is done
            yield from workers.step(stop.POLL)
        if stop.requested:
            # Abandon the games in progress; every game that had finished was stored.
            raise Interrupted(stop.signum or signal.SIGINT)
    finally:
        stop.abort = None
        workers.kill_all()


def ray_games(config_json: str, schedule: Schedule, jobs: int, address: str | None,
              stop: StopSignals, jails_json: str = "{}") -> Iterator[GameRecord]:
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
    task = ray.remote(num_cpus=1, max_retries=0)(_ray_slot)
    in_flight: list[Any] = []
    try:
        while not stop.requested:
            while len(in_flight) < jobs:
                slot = schedule.next()
                if slot is None:
                    break
                in_flight.append(task.remote(config_json, slot, jails_json))
            if not in_flight:
                break
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


def _ray_slot(config_json: str, slot: Slot, jails_json: str) -> GameRecord:
    return play_slot(config_json, slot, jails_json)


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
class SprtWatch:
    """A two-player run's SPRT decision (`Config.sprt`), kept up to date game by game: the
    stored games are read once, and each game stored after is added to them (reading
    every game after each one made a run quadratic: 0.1 s a game at 5,000 games)."""

    def __init__(self, store: Store, config: Config) -> None:
        self.bounds = config.sprt if len(config.players) == 2 else None
        self.player = config.players[0].name
        self.games = store.games() if self.bounds is not None else []

    def add(self, game: StoredGame) -> None:
        if self.bounds is not None:
            self.games.append(game)

    def decision(self) -> str | None:
        if self.bounds is None:
            return None
        elo0, elo1, alpha, beta = self.bounds
        counts = pair_counts(self.games, self.player)
        return ratings.sprt_pentanomial(counts, elo0, elo1, alpha, beta).decision


def remaining(store: Store, config: Config) -> list[Slot]:
    finished = store.finished_ids()
    return [slot for slot in plan(config) if slot.index + 1 not in finished]


def plan_sandbox(config: Config, db: Path) -> dict[str, Jail]:
    """Each external player's jail (none with `--sandbox none`; `isolation.arena_jails`)."""
    if config.sandbox == "none":
        return {}
    isolation.check_available()
    programs = [isolation.Program(spec.name, tuple(resolve_command(spec.spec)))
                for spec in config.players if not spec.in_process]
    return isolation.arena_jails(programs, db, config.processes, config.memory_mb)


def run(store: Store, *, jobs: int, backend: str = "local", address: str | None = None,
        on_game: Callable[[GameRecord], None] | None = None,
        stop: StopSignals | None = None, schedule: Schedule | None = None,
        until: Callable[[Store], str | None] | None = None) -> int:
    """Play every planned game the database lacks (or what `schedule` hands out); returns
    how many were played now. `until` may end the run early: it is asked after each
    stored game, and what it says is stored as why the run stopped (an SPRT's decision
    always is).

    With `stop` (entered), a signal ends the run by `Interrupted` after storing every
    finished game."""
    stop = stop or StopSignals()
    config = store.config()
    sprt = SprtWatch(store, config)

    def stopped() -> str | None:
        decision = sprt.decision()
        if decision is not None:
            return f"SPRT accepted {decision}"
        return until(store) if until is not None else None

    if stopped() is not None:
        return 0
    if schedule is None:
        schedule = Schedule(remaining(store, config))
    jobs = min(jobs, schedule.most_at_once())  # `jobs` >= 1 (the command checks it)
    if jobs == 0:
        return 0
    planned = _Rounds(schedule)
    text = config.to_json()
    jails = jails_to_json(plan_sandbox(config, store.path))
    if backend == "ray":
        games = ray_games(text, planned, jobs, address, stop, jails)
    else:
        games = local_games(text, planned, jobs, stop, jails)
    played = 0
    try:
        for record in games:
            sprt.add(store.save(record, planned.rounds.pop(record.slot)))
            played += 1
            schedule.played(record)
            if on_game is not None:
                on_game(record)
            why = stopped()
            if why is not None:
                store.put("stopped", why)
                break
    finally:
        close = getattr(games, "close", None)
        if close is not None:
            close()
    return played


def warn(message: str | None) -> None:
    if message:
        print(message, file=sys.stderr, flush=True)
