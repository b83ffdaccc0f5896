"""Sebastian's scorecard, exactly as the course's SebastianState (B551, Spring 2021).

Sebastian is solitaire Yahtzee under Latin names and without Yahtzee bonus or
joker rules. The scoring below mirrors the course's `Scorecard.record` line
for line, including its quirks: a squadron needs a pair *and* a triple (five
of a kind is not one), a company (1-5 or 2-6) also scores as a prattle, and
the 35-point bonus is paid once all six number categories are filled with a
total of at least 63.

`Dice` and `Scorecard` have the course's shape (`dice.dice` is a list of five
ints, `scorecard.scorecard` a dict of filled categories), so a course player
and aviary's player can be driven by the same loop.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

NUMBERS: dict[str, int] = {
    "primis": 1, "secundus": 2, "tertium": 3, "quartus": 4, "quintus": 5, "sextus": 6,
}
CATEGORIES: tuple[str, ...] = (
    "primis", "secundus", "tertium", "quartus", "quintus", "sextus",
    "company", "prattle", "squadron", "triplex", "quadrupla", "quintuplicatam", "pandemonium",
)
CATEGORY_INDEX: dict[str, int] = {name: i for i, name in enumerate(CATEGORIES)}
QUINTUPLICATAM = CATEGORY_INDEX["quintuplicatam"]
UPPER_CATEGORIES = 6
BONUS_THRESHOLD = 63
BONUS_POINTS = 35
TURNS = len(CATEGORIES)

#: Changes whenever a rule above changes; it keys the solved table on disk.
RULES_VERSION = "sebastian-spring2021-1"


def score(dice: Sequence[int], category: str) -> int:
    """Points `dice` earn in `category` (the course's `Scorecard.record`, without recording)."""
    counts = [list(dice).count(face) for face in range(1, 7)]
    faces = set(dice)
    if category in NUMBERS:
        return counts[NUMBERS[category] - 1] * NUMBERS[category]
    if category == "company":
        return 40 if sorted(dice) in ([1, 2, 3, 4, 5], [2, 3, 4, 5, 6]) else 0
    if category == "prattle":
        runs = ({1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6})
        return 30 if any(run <= faces for run in runs) else 0
    if category == "squadron":
        return 25 if 2 in counts and 3 in counts else 0
    if category == "triplex":
        return sum(dice) if max(counts) >= 3 else 0
    if category == "quadrupla":
        return sum(dice) if max(counts) >= 4 else 0
    if category == "quintuplicatam":
        return 50 if max(counts) == 5 else 0
    if category == "pandemonium":
        return sum(dice)
    raise ValueError(f"unknown category {category!r}")


def upper_total(filled: dict[str, int]) -> int:
    """Points in the six number categories so far (what the bonus is judged on)."""
    return sum(points for name, points in filled.items() if name in NUMBERS)


def possible_upper_totals(filled_numbers: set[str]) -> set[int]:
    """Every total the given number categories can add up to (0-5 dice of each face)."""
    totals = {0}
    for name in filled_numbers:
        face = NUMBERS[name]
        totals = {t + face * count for t in totals for count in range(6)}
    return totals


class Dice:
    """Five dice with the course's interface; `rng` is any `random.Random`-like source."""

    def __init__(self, rng: random.Random | None = None) -> None:
        self.dice: list[int] = []
        self._randrange: Callable[[int, int], int] = (rng or random.Random()).randrange

    def roll(self) -> list[int]:
        return self.reroll(range(5))

    def reroll(self, dice_list: Sequence[int]) -> list[int]:
        self.dice = [
            self._randrange(1, 7) if i in dice_list else self.dice[i] for i in range(5)
        ]
        return self.dice

    def __str__(self) -> str:
        return " ".join(str(d) for d in self.dice)


class Scorecard:
    """The course's scorecard: filled categories, running total, and the bonus once decided."""

    Numbers = NUMBERS
    Categories = list(CATEGORIES)

    def __init__(self) -> None:
        self.scorecard: dict[str, int] = {}
        self.totalscore = 0
        self.bonusscore = 0
        self.bonusflag = False

    def record(self, category: str, roll: Dice) -> None:
        if category in self.scorecard:
            raise ValueError(f"category {category!r} is already filled")
        points = score(roll.dice, category)  # raises for an unknown category
        self.scorecard[category] = points
        self.totalscore += points
        if not self.bonusflag and all(name in self.scorecard for name in NUMBERS):
            self.bonusscore = BONUS_POINTS if upper_total(self.scorecard) >= BONUS_THRESHOLD else 0
            self.bonusflag = True
            self.totalscore += self.bonusscore

    def __str__(self) -> str:
        lines = [f"      {self.scorecard.get(k, 0):4d}  {k:<30s} " for k in CATEGORIES]
        lines.append(f"      {self.bonusscore if self.bonusflag else '':>4}  {'Bonus':<30s} ")
        lines.append(f"      {self.totalscore:4d}  {'TOTAL':<30s} ")
        return "\n".join(lines) + "\n"
