"""Dice as multisets, and the index tables the solver walks.

Order never matters in Sebastian, so five dice are one of 252 sorted
multisets ("rolls") and what a player keeps is one of 462 multisets of 0-5
dice ("keeps"). Rerolling is then a walk down a tree: the expected value of a
keep of n < 5 dice is the mean, over the six faces, of the keep with that face
added. That replaces a 462 x 252 transition matrix by 210 x 6 additions per
turn step, and it is exact.

Everything here is built once, in pure Python, as small numpy arrays.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import cache

import numpy as np

from aviary.games.sebastian.rules import CATEGORIES, score

Multiset = tuple[int, ...]  # sorted dice values, 0-5 of them


@dataclass(frozen=True)
class DiceTables:
    rolls: list[Multiset]  # the 252 sorted rolls of five dice
    keeps: list[Multiset]  # the 462 keeps, ordered by size (5 dice first, then 4, ... then 0)
    roll_index: dict[Multiset, int]
    keep_index: dict[Multiset, int]
    roll_probability: np.ndarray  # float64[252]: chance of each roll from scratch
    scores: np.ndarray  # int64[252, 13]: points of each roll in each category
    keep_of_roll: np.ndarray  # int64[252]: the keep that is the whole roll
    keep_child: np.ndarray  # int64[462, 6]: keep plus one die of each face (-1 when full)
    partial_keeps: np.ndarray  # int64[210]: keeps of fewer than 5 dice, largest first
    roll_keeps: np.ndarray  # int64[252, 32]: the distinct keeps of each roll (padded with -1)
    roll_keep_count: np.ndarray  # int64[252]
    keep_parents: np.ndarray  # int64[462, 5]: keep minus one die of each distinct face (-1 pad)
    keeps_small_first: np.ndarray  # int64[462]: keep indices by size, empty keep first


@cache
def dice_tables() -> DiceTables:
    rolls: list[Multiset] = list(itertools.combinations_with_replacement(range(1, 7), 5))
    keeps = [k for n in range(5, -1, -1) for k in itertools.combinations_with_replacement(
        range(1, 7), n)]
    roll_index: dict[Multiset, int] = {r: i for i, r in enumerate(rolls)}
    keep_index = {k: i for i, k in enumerate(keeps)}

    def probability(roll: Multiset) -> float:
        ways = math.factorial(len(roll))
        for face in set(roll):
            ways //= math.factorial(roll.count(face))
        return ways / 6.0 ** len(roll)

    keep_child = np.full((len(keeps), 6), -1, dtype=np.int64)
    for k, keep in enumerate(keeps):
        if len(keep) < 5:
            for face in range(1, 7):
                keep_child[k, face - 1] = keep_index[tuple(sorted(keep + (face,)))]
    roll_keeps = np.full((len(rolls), 32), -1, dtype=np.int64)
    roll_keep_count = np.zeros(len(rolls), dtype=np.int64)
    for r, roll in enumerate(rolls):
        subs = sorted({tuple(sorted(s)) for n in range(6) for s in itertools.combinations(roll, n)},
                      key=lambda s: (-len(s), s))
        roll_keep_count[r] = len(subs)
        roll_keeps[r, : len(subs)] = [keep_index[s] for s in subs]
    keep_parents = np.full((len(keeps), 5), -1, dtype=np.int64)
    for k, keep in enumerate(keeps):
        for j, face in enumerate(sorted(set(keep))):
            smaller = list(keep)
            smaller.remove(face)
            keep_parents[k, j] = keep_index[tuple(smaller)]
    return DiceTables(
        rolls=rolls,
        keeps=keeps,
        roll_index=roll_index,
        keep_index=keep_index,
        roll_probability=np.array([probability(r) for r in rolls]),
        scores=np.array([[score(r, c) for c in CATEGORIES] for r in rolls], dtype=np.int64),
        keep_of_roll=np.array([keep_index[r] for r in rolls], dtype=np.int64),
        keep_child=keep_child,
        partial_keeps=np.array([i for i, k in enumerate(keeps) if len(k) < 5], dtype=np.int64),
        roll_keeps=roll_keeps,
        roll_keep_count=roll_keep_count,
        keep_parents=keep_parents,
        keeps_small_first=np.arange(len(keeps) - 1, -1, -1, dtype=np.int64),
    )


def reachable_upper_totals() -> np.ndarray:
    """bool[64, 64]: can the filled number categories (a 6-bit mask) total this (capped at 63)?

    Only these (mask, total) pairs are ever met, which lets the solver skip
    about half the table.
    """
    reachable = np.zeros((64, 64), dtype=bool)
    reachable[0, 0] = True
    for mask in range(1, 64):
        face: int = max(f for f in range(6) if mask >> f & 1)
        below = reachable[mask & ~(1 << face)]
        for total in np.flatnonzero(below):
            for count in range(6):
                reachable[mask, min(63, int(total) + count * (face + 1))] = True
    return reachable
