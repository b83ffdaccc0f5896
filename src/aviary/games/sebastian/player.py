"""The optimal player: every decision maximises the expected final score.

The solved table gives the value of every scorecard between turns; inside a
turn, one call of the compiled `evaluate_turn` (tens of microseconds) gives
the value of every keep before each reroll and the best category for every
final roll. A turn's three decisions share that one evaluation.

`SebastianAutoPlayer` is the course's interface on top: `first_roll` and
`second_roll` return the 0-based indices of the dice to reroll,
`third_roll` returns a category name. It only reads `dice.dice` and
`scorecard.scorecard`, so it works with the course's own objects.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from aviary.games.sebastian.rules import (
    BONUS_THRESHOLD,
    CATEGORIES,
    CATEGORY_INDEX,
    NUMBERS,
    UPPER_CATEGORIES,
)
from aviary.games.sebastian.solver import Solution, evaluate_turn, kernel_tables
from aviary.games.sebastian.tables import Multiset, dice_tables


@dataclass(frozen=True)
class State:
    """A scorecard as the solver sees it: filled categories (bit mask) and capped upper total."""

    mask: int
    upper: int

    @classmethod
    def from_filled(cls, filled: Iterable[str], upper: int) -> State:
        mask = 0
        for name in filled:
            mask |= 1 << CATEGORY_INDEX[name]
        return cls(mask, min(BONUS_THRESHOLD, upper))

    @classmethod
    def from_scorecard(cls, scorecard: dict[str, int]) -> State:
        return cls.from_filled(scorecard, sum(v for k, v in scorecard.items() if k in NUMBERS))

    @property
    def open_categories(self) -> list[str]:
        return [c for i, c in enumerate(CATEGORIES) if not self.mask >> i & 1]


@dataclass(frozen=True)
class KeepOption:
    keep: Multiset  # the dice values kept (sorted)
    expected: float  # expected points to come, this turn included


@dataclass(frozen=True)
class CategoryOption:
    category: str
    points: int  # what these dice score there now
    expected: float  # expected points to come, this category included


class _Turn:
    """One evaluated turn: keep values before each reroll, best category per final roll."""

    def __init__(self, state: State, expected: np.ndarray) -> None:
        t = dice_tables()
        n = len(t.keeps)
        self.choice = np.empty(len(t.rolls), dtype=np.int64)
        self.after_final = np.zeros((n, 1))
        self.after_second = np.zeros((n, 1))
        evaluate_turn(state.mask, state.upper, expected, 1, *kernel_tables(t),  # type: ignore[call-arg]
                      self.choice, self.after_final, self.after_second,
                      np.zeros(n, dtype=np.int64), np.zeros(1))


@cache
def _shared_solution() -> Solution:
    """The cached table, loaded once per process: the course driver makes a new player per game."""
    from aviary.games.sebastian.cache import load_solution

    return load_solution()


_last_column: list[tuple[np.ndarray, np.ndarray]] = []  # (table, its mean column)


def _expected_column(solution: Solution) -> np.ndarray:
    """float64[STATES, 1], contiguous, as the compiled kernel takes it (one copy per table)."""
    if not _last_column or _last_column[0][0] is not solution.values:
        _last_column[:] = [(solution.values, np.ascontiguousarray(solution.values[:, :1]))]
    return _last_column[0][1]


class OptimalPlayer:
    """Decisions with the highest expected final score, and their values for advice."""

    def __init__(self, solution: Solution | None = None) -> None:
        self.solution = solution if solution is not None else _shared_solution()
        self._expected = _expected_column(self.solution)
        self._tables = dice_tables()
        self._turns: dict[State, _Turn] = {}

    def expected_from(self, state: State) -> float:
        """Expected points still to come (bonus included) from the start of a turn."""
        return float(self._expected[state.mask * 64 + state.upper, 0])

    def _turn(self, state: State) -> _Turn:
        turn = self._turns.get(state)
        if turn is None:
            if len(self._turns) > 256:
                self._turns.clear()
            turn = self._turns[state] = _Turn(state, self._expected)
        return turn

    def keep_options(self, dice: Sequence[int], roll: int, state: State) -> list[KeepOption]:
        """Every distinct keep of these dice after roll 1 or 2, best first."""
        if roll not in (1, 2):
            raise ValueError("keeps are chosen after roll 1 or 2")
        t = self._tables
        turn = self._turn(state)
        after = turn.after_second if roll == 1 else turn.after_final
        r = t.roll_index[tuple(sorted(dice))]
        keeps = t.roll_keeps[r, : t.roll_keep_count[r]]
        values = after[keeps, 0]
        order = np.argsort(-values, kind="stable")  # ties: the larger keep (listed first)
        return [KeepOption(t.keeps[keeps[i]], float(values[i])) for i in order]

    def category_options(self, dice: Sequence[int], state: State) -> list[CategoryOption]:
        """Every open category for these final dice, best first."""
        t = self._tables
        r = t.roll_index[tuple(sorted(dice))]
        options = []
        for name in state.open_categories:
            c = CATEGORY_INDEX[name]
            points = int(t.scores[r, c])
            upper = min(BONUS_THRESHOLD, state.upper + points) if c < UPPER_CATEGORIES else (
                state.upper)
            nxt = State(state.mask | 1 << c, upper)
            options.append(CategoryOption(name, points, points + self.expected_from(nxt)))
        options.sort(key=lambda o: -o.expected)  # stable: ties keep the course's order
        return options

    def best_keep(self, dice: Sequence[int], roll: int, state: State) -> Multiset:
        return self.keep_options(dice, roll, state)[0].keep

    def best_category(self, dice: Sequence[int], state: State) -> str:
        t = self._tables
        choice = self._turn(state).choice[t.roll_index[tuple(sorted(dice))]]
        return CATEGORIES[int(choice)]


def reroll_indices(dice: Sequence[int], keep: Multiset) -> list[int]:
    """0-based positions to reroll so that exactly the dice in `keep` stay."""
    wanted = Counter(keep)
    reroll = []
    for i, value in enumerate(dice):
        if wanted[value] > 0:
            wanted[value] -= 1
        else:
            reroll.append(i)
    return reroll


def _values(dice: Any) -> list[int]:
    return list(dice.dice if hasattr(dice, "dice") else dice)


def _filled(scorecard: Any) -> dict[str, int]:
    return dict(scorecard.scorecard if hasattr(scorecard, "scorecard") else scorecard)


class SebastianAutoPlayer:
    """Drop-in for the course's `SebastianAutoPlayer.py`, playing optimally.

    >>> from aviary.games.sebastian import SebastianAutoPlayer   # doctest: +SKIP
    """

    def __init__(self, solution: Solution | None = None) -> None:
        self.player = OptimalPlayer(solution)

    def first_roll(self, dice: Any, scorecard: Any) -> list[int]:
        return self._reroll(dice, scorecard, roll=1)

    def second_roll(self, dice: Any, scorecard: Any) -> list[int]:
        return self._reroll(dice, scorecard, roll=2)

    def third_roll(self, dice: Any, scorecard: Any) -> str:
        return self.player.best_category(_values(dice), State.from_scorecard(_filled(scorecard)))

    def _reroll(self, dice: Any, scorecard: Any, roll: int) -> list[int]:
        values = _values(dice)
        state = State.from_scorecard(_filled(scorecard))
        return reroll_indices(values, self.player.best_keep(values, roll, state))
