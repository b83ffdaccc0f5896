"""OpenSpiel's MCTS simulations per second beside aviary's engine nodes per second.

On each game's start position (every board game at its defaults, and once with
each text option's other values): `aviary:mcts` (OpenSpiel's MCTSBot with random
rollouts, through the OpenSpiel adapter and the games' `rules.py`) searches for
SECONDS, and the game's main engine (`Engine.think`) does the same. A simulation
and a node are not the same work (a simulation plays a random game to its end);
the figures say how much each searcher sees in the same time. Rates are per
second of wall time and, for MCTS, per second of this thread's CPU time too (the
CPU rate holds on a busy machine). The engine's rate is its own report's `nps`.

    python benchmarks/openspiel_speed.py [--seconds 2]
"""

from __future__ import annotations

import time
from typing import Any

from aviary.errors import ArgumentParser
from aviary.games import registry
from aviary.search.clock import Limit
from script import run_main


def configurations() -> list[tuple[str, dict[str, Any]]]:
    found: list[tuple[str, dict[str, Any]]] = []
    for spec in registry.board_games():
        found.append((spec.name, {}))
        for option in spec.game_class().options:
            found += [(spec.name, {option.name: value})
                      for value in option.choices if value != option.default]
    return found


def measure(name: str, settings: dict[str, Any], seconds: float) -> dict[str, float]:
    spec = registry.spec(name)
    game = spec.make(**settings)
    state = game.start()
    player = registry.player("mcts", game, {"time": str(seconds), "seed": "1"})
    wall, cpu = time.monotonic(), time.thread_time()
    player.best_move(state)
    wall, cpu = time.monotonic() - wall, time.thread_time() - cpu
    simulations = player.bot.simulations
    engine = spec.engine(spec.main_engine, game)
    engine.warmup()
    reports = list(engine.think(state, Limit(time=seconds)))
    return {"sims": simulations, "sims_wall": simulations / wall, "sims_cpu": simulations / cpu,
            "depth": reports[-1].depth if reports else 0,
            "nps": reports[-1].nps if reports else 0.0}


def main() -> None:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0)
    args = parser.parse_args()
    print(f"{'game':<32} {'MCTS sims':>9} {'sims/s':>8} {'sims/CPU s':>10} "
          f"{'engine nodes/s':>15} {'depth':>5} {'ratio':>10}")
    for name, settings in configurations():
        row = measure(name, settings, args.seconds)
        shown = name + "".join(f" {key}={value}" for key, value in settings.items())
        ratio = row["nps"] / row["sims_wall"] if row["sims_wall"] else float("inf")
        print(f"{shown:<32} {row['sims']:>9,.0f} {row['sims_wall']:>8,.1f} "
              f"{row['sims_cpu']:>10,.1f} {row['nps']:>15,.0f} {row['depth']:>5.0f} "
              f"{ratio:>10,.0f}")


if __name__ == "__main__":
    run_main(main)
