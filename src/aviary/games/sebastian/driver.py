"""Playing games the way the course's `sebastian.py` driver does, with shareable dice.

`SlotDice` has the course's `Dice` interface, but every die of every roll of
every turn is drawn in advance from the game's seed: the value a die takes
depends only on (turn, roll, position). Two players given the same seed
therefore see the same dice wherever they make the same choices, which makes
comparisons between players far less noisy (common random numbers).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TextIO

import numpy as np

from aviary.games.sebastian.rules import TURNS, Scorecard


class SlotDice:
    """Five dice with the course's `roll()` / `reroll(indices)`, drawn from fixed slots."""

    def __init__(self, seed: int, game: int) -> None:
        self._slots = np.random.default_rng([seed, game]).integers(1, 7, size=(TURNS, 3, 5))
        self._turn = -1
        self._roll = 0
        self.dice: list[int] = []

    def roll(self) -> list[int]:
        self._turn += 1
        self._roll = 0
        self.dice = [int(v) for v in self._slots[self._turn, 0]]
        return self.dice

    def reroll(self, dice_list: Sequence[int]) -> list[int]:
        self._roll += 1
        fresh = self._slots[self._turn, self._roll]
        self.dice = [int(fresh[i]) if i in dice_list else self.dice[i] for i in range(5)]
        return self.dice

    def __str__(self) -> str:
        return " ".join(str(d) for d in self.dice)


def play_game(player: Any, dice: Any, out: TextIO | None = None) -> Scorecard:
    """One game of 13 turns, exactly the course driver's loop; `out` gets its transcript."""
    scorecard = Scorecard()
    if out is not None:
        print("\n\n***** Starting a new game of Sebastian!!", file=out)
    for turn in range(1, TURNS + 1):
        dice.roll()
        if out is not None:
            print(f"\n * Turn {turn}\n   Roll #1: {dice}", file=out)
        dice.reroll(player.first_roll(dice, scorecard))
        if out is not None:
            print(f"   Roll #2: {dice}", file=out)
        dice.reroll(player.second_roll(dice, scorecard))
        if out is not None:
            print(f"   Roll #3: {dice}", file=out)
        scorecard.record(player.third_roll(dice, scorecard), dice)
        if out is not None:
            print(scorecard, file=out)
    if out is not None:
        print(f"Final score: {scorecard.totalscore}", file=out)
    return scorecard


def mean_with_ci(scores: Sequence[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% confidence interval (normal approximation)."""
    values = np.asarray(scores, dtype=float)
    if len(values) < 2:
        return float(values.mean()), float("nan")
    return float(values.mean()), float(1.96 * values.std(ddof=1) / np.sqrt(len(values)))
