"""Does the textbook opponent use its clock? Mean move time and depth at 1 s a move.

For each game (and mode or variant), from a seeded middle-game position (30 random
plies in), the textbook opponent (`aviary:textbook`) plays `--moves` moves against
itself at `--time` seconds a move, as `best_move(state, time=...)` does: the
engine's budget (`search.clock.budget`), deepening until it runs out. Printed per
configuration: the mean and slowest wall seconds a move, the mean CPU seconds of
the searching thread, and the depths reached. Issue 24's bar: at 1 s a move the
mean move time in the middle game is at least 0.5 s. The load (`os.getloadavg`)
is printed before and after: figures taken under overload are not figures.

    python benchmarks/textbook_clock.py [--moves 10] [--time 1.0]
"""

from __future__ import annotations

import os
import random
import time
from typing import Any

from aviary.errors import ArgumentParser
from aviary.games import registry
from aviary.games.match import Match
from aviary.search.clock import Limit, budget
from script import run_main

CONFIGURATIONS: list[tuple[str, dict[str, Any]]] = [
    ("pikachu", {}),
    ("betsy", {}),
    ("foxgeese", {"variant": "classic"}),
    ("foxgeese", {"variant": "elephants"}),
    ("ijk", {"mode": "det"}),
    ("ijk", {"mode": "nondet"}),
]


def middle_game(game: Any, rng: random.Random, plies: int) -> Any:
    """A random position `plies` moves in where a player is to move."""
    match = Match(game, game.opening(rng, plies))
    match.play_chances(rng)
    return match.state


def measure(name: str, settings: dict[str, Any], moves: int, seconds: float,
            seed: int) -> str:
    game = registry.make(name, **settings)
    player = registry.spec(name).engine("textbook", game)
    player.warmup()
    rng = random.Random(seed)
    match = Match(game, middle_game(game, rng, 30))
    walls, cpus, depths = [], [], []
    for _ in range(moves):
        if match.outcome is not None:
            break
        if match.is_chance:
            match.play_chance(rng)
            continue
        started, cpu = time.monotonic(), time.thread_time()
        # what best_move(state, time=seconds) does, keeping the last depth's report
        reports = list(player.think(match.state, Limit(time=budget(seconds))))
        walls.append(time.monotonic() - started)
        cpus.append(time.thread_time() - cpu)
        report = reports[-1]
        depths.append(report.depth)
        match.play(report.move)
    label = f"{name} {' '.join(f'{k}={v}' for k, v in settings.items())}".strip()
    mean = sum(walls) / len(walls)
    return (f"{label:<28} {len(walls):>2} moves  mean {mean:.3f} s  max {max(walls):.3f} s  "
            f"cpu {sum(cpus) / len(cpus):.3f} s  depth {min(depths)}-{max(depths)} "
            f"(mean {sum(depths) / len(depths):.1f})  {'ok' if mean >= 0.5 * seconds else 'LOW'}")


def main() -> int:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=10)
    parser.add_argument("--time", type=float, default=1.0, help="seconds a move")
    parser.add_argument("--seed", type=int, default=24)
    args = parser.parse_args()
    print(f"load before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} "
          f"cores; {args.time} s a move, bar: mean >= {0.5 * args.time:.2f} s", flush=True)
    for name, settings in CONFIGURATIONS:
        print(measure(name, settings, args.moves, args.time, args.seed), flush=True)
    print(f"load after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    run_main(main)
