"""A ladder calibration's weighted phases against its round robin: the time each still
needs to bring every level within +-target, predicted from a calibration database's games.

Both predictions use the same model (`aviary.arena.allocation`: the normal approximation
of the Elo fit, with each pairing's information per pair and seconds per game read off
its games); the round robin adds pairs to every pairing alike, the design adds them where
they narrow the widest interval most for their time. Like against like: the same games,
the same model, the same target. How far the model can be trusted shows in the same run:
its widest interval now is printed beside the bootstrap fit's (the calibration's own).
The ratio is a prediction; a calibration's log shows what it then did (its games a minute
and its widest interval at each fit).

    python benchmarks/ladder_allocation.py DATABASE [--target 30]
"""

from __future__ import annotations

import datetime
import math
import os
from pathlib import Path

from aviary.arena import allocation, ladder, provenance
from aviary.arena.schedule import pairings
from aviary.arena.store import Store
from aviary.errors import ArgumentParser, UsageError
from script import run_main


def round_robin(model: allocation.PairingModel, size: int, target: float) -> tuple[int, float]:
    """Games and seconds the round robin still needs for +-target (pairs per pairing found
    by bisection)."""
    def widest(more: float) -> float:
        covariance = model.covariance(size, more)
        assert covariance is not None
        return allocation.Z95 * math.sqrt(covariance.diagonal().max())

    low, high = 0.0, 1.0
    while widest(high) > target:
        high *= 2
    for _ in range(50):
        middle = (low + high) / 2
        low, high = (low, middle) if widest(middle) <= target else (middle, high)
    return 2 * math.ceil(high) * len(model.ends), high * float(model.cost.sum())


def main() -> int:
    parser = ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("database", type=Path, help="a ladder calibration's SQLite file")
    parser.add_argument("--target", type=float, default=30.0, help="+-Elo (30)")
    args = parser.parse_args()
    if not args.database.is_file():
        raise UsageError(f"no such database: {args.database}")
    with Store(args.database, read_only=True) as store:
        config = store.config()
        if config.mode != "ladder":
            raise UsageError(f"{args.database} is no ladder calibration")
        stored = store.games()
        fitted = ladder.fit(store, resamples=10_000, stored=stored)
    names = [player.name for player in config.players]
    pairs = pairings(config)
    found = allocation.design(names, pairs, stored, args.target)
    model = allocation.pairing_model(names, pairs, stored)
    if found is None or model is None:
        raise UsageError(f"{args.database}: a pairing has fewer than "
                         f"{allocation.FEWEST_PAIRS} timed pairs; nothing to weigh yet")
    even_games, even_seconds = round_robin(model, len(names), args.target)
    machine = provenance.machine()
    print(f"{datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC, commit "
          f"{provenance.git_commit()}, {machine.get('processor')} {machine.get('cores')} "
          f"cores, load {os.getloadavg()[0]:.1f}")
    print(f"{config.game} {config.game_options}: {len(stored):,} games, {len(names)} levels")
    wide = ladder.widest(fitted)
    print(f"widest interval now: +-{found.widest:.1f} by the model, +-{wide.margin:.1f} "
          f"({wide.name}) by the fit's 10,000 resamples")
    print(f"round robin: about {even_games:,} more games, {even_seconds / 3600:.2f} game-hours")
    print(f"design:      about {found.games:,} more games, {found.seconds / 3600:.2f} game-hours")
    print("(a game-hour: an hour of one game at a time, at each pairing's mean wall time so "
          "far, so at the load its games were played at)")
    print(f"round robin / design (time): {even_seconds / found.seconds:.2f}x")
    return 0


if __name__ == "__main__":
    run_main(main)
