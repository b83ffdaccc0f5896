"""The same recursion as `solver`, written the straightforward way in numpy.

It exists to check the compiled solver against an independent, readable
implementation (tests compare the two on endgames) and as the baseline in
`benchmarks/sebastian_solve.py`. It computes only the expected score.

Straightforward means: a dense keep -> roll transition matrix (462 x 252)
applied by matrix products, a padded (252 x 32) table of each roll's keeps
for the maxima, and all reachable upper totals of one scorecard mask solved
together as the rows of one array.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from aviary.games.sebastian.rules import UPPER_CATEGORIES
from aviary.games.sebastian.solver import MEAN, masks_by_filled_count, terminal_values
from aviary.games.sebastian.tables import DiceTables, dice_tables, reachable_upper_totals


def transition_matrix(t: DiceTables) -> np.ndarray:
    """float64[462, 252]: chance that keeping k and rerolling the rest gives roll r."""
    matrix = np.zeros((len(t.keeps), len(t.rolls)))
    for k, keep in enumerate(t.keeps):
        # one level of the tree at a time: a keep of 5 is its own roll
        if len(keep) == 5:
            matrix[k, t.roll_index[keep]] = 1.0
        else:
            matrix[k] = matrix[t.keep_child[k]].mean(axis=0)
    return matrix


def solve_reference(masks: Iterable[np.ndarray] | None = None,
                    values: np.ndarray | None = None) -> np.ndarray:
    """Expected points to come for every reachable state (float64[STATES]).

    By default solves the whole game; `masks` (groups, fullest first) and a
    partly solved `values` let a caller solve only some scorecards.
    """
    t = dice_tables()
    values = terminal_values(1)[:, MEAN].copy() if values is None else values
    matrix_t = np.ascontiguousarray(transition_matrix(t).T)  # (252, 462)
    keeps_of_roll = np.where(t.roll_keeps >= 0, t.roll_keeps, 0)
    padding = t.roll_keeps < 0
    reachable = reachable_upper_totals()

    def best_keep_values(after: np.ndarray) -> np.ndarray:
        options = after[:, keeps_of_roll]  # (R, 252, 32)
        options[:, padding] = -np.inf
        return options.max(axis=2)

    for group in masks_by_filled_count() if masks is None else masks:
        for mask in group:
            mask = int(mask)
            ups = np.flatnonzero(reachable[mask & 63])
            choices = []
            for c in range(t.scores.shape[1]):
                if mask >> c & 1:
                    continue
                base = (mask | 1 << c) * 64
                if c < UPPER_CATEGORIES:
                    nxt = base + np.minimum(63, ups[:, None] + t.scores[None, :, c])
                else:
                    nxt = np.broadcast_to(base + ups[:, None], (len(ups), len(t.rolls)))
                choices.append(t.scores[None, :, c] + values[nxt])
            final = np.max(choices, axis=0)  # (R, 252)
            second = best_keep_values(final @ matrix_t)
            first = best_keep_values(second @ matrix_t)
            values[mask * 64 + ups] = first @ t.roll_probability
    return values
