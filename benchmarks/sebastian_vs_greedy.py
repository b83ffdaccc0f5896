"""The optimal Sebastian player against a greedy one, on common dice.

    .venv/bin/python benchmarks/sebastian_vs_greedy.py [--games 20000] [--seed 2026]

Both players play the same games: every die of every roll of every turn is
drawn in advance from (seed, game), so wherever they make the same choice they
see the same dice (`aviary.games.sebastian.driver.SlotDice`). Prints each player's
mean with its 95% confidence interval, the optimal mean's distance from the
exact 245.8708, and the paired difference with its 95% confidence interval.

The greedy player is what many course submissions do: keep the dice that
already make a company, a squadron or five alike when that category is open,
otherwise keep the most common face (the higher on ties) and reroll the rest;
after the last roll take the open category with the most points now.
"""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

import numpy as np

from aviary.errors import ArgumentParser
from aviary.games.sebastian.driver import SlotDice, mean_with_ci, play_game
from aviary.games.sebastian.rules import CATEGORIES, score
from script import run_main

EXACT_OPTIMUM = 245.8708


class GreedyPlayer:
    """Course-interface player that chases the biggest group and takes the best points now."""

    def first_roll(self, dice: Any, scorecard: Any) -> list[int]:
        return self._reroll(dice.dice, scorecard.scorecard)

    def second_roll(self, dice: Any, scorecard: Any) -> list[int]:
        return self._reroll(dice.dice, scorecard.scorecard)

    def third_roll(self, dice: Any, scorecard: Any) -> str:
        open_categories = [c for c in CATEGORIES if c not in scorecard.scorecard]
        return max(open_categories, key=lambda c: score(dice.dice, c))

    @staticmethod
    def _reroll(dice: list[int], filled: dict[str, int]) -> list[int]:
        for made in ("company", "squadron", "quintuplicatam"):
            if made not in filled and score(dice, made) > 0:
                return []
        counts = Counter(dice)
        face = max(counts, key=lambda f: (counts[f], f))
        return [i for i, d in enumerate(dice) if d != face]


def main() -> int:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()

    from aviary.games.sebastian.cache import load_solution
    from aviary.games.sebastian.player import SebastianAutoPlayer

    players = {"optimal": SebastianAutoPlayer(load_solution()), "greedy": GreedyPlayer()}
    scores: dict[str, np.ndarray] = {}
    for name, player in players.items():
        started = time.perf_counter()
        scores[name] = np.array([play_game(player, SlotDice(args.seed, g)).totalscore
                                 for g in range(args.games)], dtype=float)
        mean, half = mean_with_ci(scores[name])
        print(f"{name:>8}: mean {mean:7.2f} +/- {half:.2f} (95% CI), SD {scores[name].std():5.1f}"
              f", {args.games} games in {time.perf_counter() - started:.1f} s")
    mean, half = mean_with_ci(scores["optimal"])
    print(f"optimal mean minus the exact optimum {EXACT_OPTIMUM}: {mean - EXACT_OPTIMUM:+.2f} "
          f"(95% CI +/- {half:.2f})")
    diff, diff_half = mean_with_ci(scores["optimal"] - scores["greedy"])
    print(f"optimal - greedy, paired on common dice: {diff:+.2f} +/- {diff_half:.2f} (95% CI)")
    return 0


if __name__ == "__main__":
    run_main(main)
