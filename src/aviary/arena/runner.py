"""Running a tournament: the planned games not yet stored, in parallel, each saved as it ends.

Games run in worker processes, never in the arena's own process: a local
process pool (default one game per core; more is allowed but warned about,
since games that share a core lose on time unfairly), or Ray tasks on a
cluster (`backend="ray"`, optional extra `aviary[cluster]`). Either way the
worker returns a finished `GameRecord` and only this process writes to the
database, so there is one writer and one transaction per game.
"""

from __future__ import annotations

import ctypes
import os
import random
import signal
import sys
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from functools import cache
from multiprocessing import get_context
from typing import Any

from aviary.arena import ratings
from aviary.arena.games import Game
from aviary.arena.players import Player, make_player
from aviary.arena.referee import GameRecord, play_game
from aviary.arena.report import pair_counts
from aviary.arena.sandbox import become_subreaper
from aviary.arena.schedule import Config, Slot, opening, plan
from aviary.arena.store import Store
from aviary.errors import UsageError

BACKENDS = ("local", "ray")


class GamesFailed(Exception):
    """A worker could not finish a game (it died or raised); stored games are safe."""


def _failed(error: BaseException) -> GamesFailed:
    return GamesFailed(f"a game worker failed ({type(error).__name__}: {error})")


# ---- the worker side: everything here runs in a pool process or a Ray task -------------------
@cache
def _prepared(config_json: str) -> tuple[Config, Game, dict[str, Player], list[Slot]]:
    """Game, players and plan, built once per worker process and configuration."""
    become_subreaper()
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
    record = GameRecord(slot=index, first=slot.first, second=slot.second, opening=start_text)
    start = time.monotonic()
    chance = random.Random(f"{config.seed}:{slot.round}:chance")  # the same for both colours
    play_game(game, (players[slot.first], players[slot.second]), game.decode(start_text),
              config.seconds, config.max_plies, record, chance)
    record.wall = time.monotonic() - start
    return record


def _init_local_worker() -> None:
    """Die with the arena (so a kill -9 of the arena leaves no worker behind)."""
    ctypes.CDLL(None).prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    become_subreaper()


# ---- backends: iterate over finished games as they complete -----------------------------------
def local_games(config_json: str, indices: list[int], jobs: int) -> Iterator[GameRecord]:
    with ProcessPoolExecutor(max_workers=jobs, mp_context=get_context("spawn"),
                             initializer=_init_local_worker) as pool:
        pending: set[Future[GameRecord]] = {
            pool.submit(play_slot, config_json, index) for index in indices}
        try:
            while pending:
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                for future in done:
                    try:
                        record = future.result()
                    except Exception as error:
                        raise _failed(error) from error
                    yield record
        finally:
            for future in pending:
                future.cancel()


def ray_games(config_json: str, indices: list[int], jobs: int,
              address: str | None) -> Iterator[GameRecord]:
    """The same games as Ray tasks (one CPU each), at most `jobs` in flight."""
    try:
        import ray
    except ImportError:
        raise UsageError("--backend ray needs Ray: pip install 'aviary[cluster]'") from None
    started_here = not ray.is_initialized()
    if started_here:
        if address:
            ray.init(address=address, log_to_driver=False)
        else:
            ray.init(num_cpus=jobs, include_dashboard=False, log_to_driver=False)
    task = ray.remote(num_cpus=1, max_retries=0)(play_slot)
    queue: list[int] = list(indices)
    in_flight: list[Any] = []
    try:
        while queue or in_flight:
            while queue and len(in_flight) < jobs:
                in_flight.append(task.remote(config_json, queue.pop(0)))
            done, in_flight = ray.wait(in_flight, num_returns=1)
            try:
                record = ray.get(done[0])
            except Exception as error:
                raise _failed(error) from error
            yield record
    finally:
        for ref in in_flight:
            ray.cancel(ref, force=True)
        if started_here:
            ray.shutdown()


def default_jobs() -> int:
    return os.cpu_count() or 1


def oversubscription_warning(jobs: int, backend: str) -> str | None:
    cores = default_jobs()
    if backend == "local" and jobs > cores:
        return (f"warning: {jobs} games at once on {cores} cores; programs will lose time "
                "to each other and may forfeit unfairly")
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
        on_game: Callable[[GameRecord], None] | None = None) -> int:
    """Play every planned game the database lacks; returns how many were played now."""
    config = store.config()
    if sprt_decision(store, config) is not None:
        return 0
    todo = remaining(store, config)
    if not todo:
        return 0
    rounds = {slot.index: slot.round for slot in todo}
    indices = [slot.index for slot in todo]
    jobs = max(1, min(jobs, len(indices)))
    text = config.to_json()
    if backend == "ray":
        games = ray_games(text, indices, jobs, address)
    else:
        games = local_games(text, indices, jobs)
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
