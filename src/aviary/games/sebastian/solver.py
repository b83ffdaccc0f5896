"""The exact solver: retrograde dynamic programming over Sebastian's scorecards.

Between turns the game's whole state is (which categories are filled, the
number-category total capped at 63): 2^13 x 64 states, of which only those
with a reachable total are met. A turn is roll / keep / reroll / keep /
reroll / choose, solved exactly over dice multisets (see `tables`), so the
value of a state is a max-and-mean over 252 rolls and 462 keeps that only
needs the values of states with one more category filled. Solving masks from
full to empty therefore finishes in one pass.

Besides the expected score, the same pass carries, under the policy that
maximises it (ties go to the first category / the largest keep), the second
moment of the score to come, the probability of the upper bonus, and the
probability of scoring 50 in quintuplicatam. These are linear in the
successor's quantities once the choice is fixed, so they ride along at the
cost of a few more additions.

Column layout of `values[state, q]`: 0 mean, 1 E[score^2], 2 P(bonus),
3 P(quintuplicatam 50). `state = mask * 64 + upper_total`.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass

import numpy as np
from numba import njit

from aviary.games.sebastian.rules import (
    BONUS_POINTS,
    BONUS_THRESHOLD,
    QUINTUPLICATAM,
    TURNS,
    UPPER_CATEGORIES,
)
from aviary.games.sebastian.tables import DiceTables, dice_tables, reachable_upper_totals

FULL_MASK = (1 << TURNS) - 1
STATES = (FULL_MASK + 1) * 64
MEAN, SECOND_MOMENT, BONUS, QUINTUPLICATAM_50 = range(4)


@njit(cache=True)
def _average_tree(level, partial_keeps, keep_child, nq):
    """Fill each keep of < 5 dice with the mean over the six faces of the next die."""
    for i in range(partial_keeps.shape[0]):
        k = partial_keeps[i]
        for q in range(nq):
            total = 0.0
            for f in range(6):
                total += level[keep_child[k, f], q]
            level[k, q] = total / 6.0


@njit(cache=True)
def _best_subkeeps(level, best, keeps_small_first, keep_parents):
    """best[k] = the sub-multiset of keep k with the highest mean (k itself on ties).

    Built from smaller keeps up: the best part of k is k or the best part of k
    minus one die, which is ~3 comparisons per keep instead of up to 32 per roll.
    """
    for i in range(keeps_small_first.shape[0]):
        k = keeps_small_first[i]
        b = k
        for j in range(5):
            p = keep_parents[k, j]
            if p < 0:
                break
            if level[best[p], 0] > level[b, 0]:
                b = best[p]
        best[k] = b


@njit(cache=True)
def evaluate_turn(mask, up, values, nq, scores, roll_probability, keep_of_roll, keep_child,
                  partial_keeps, keep_parents, keeps_small_first,
                  choice, after_final, after_second, best, result):
    """Solve one turn from state (mask, up); the successors' `values` must be known.

    Leaves the best category of each final roll in `choice`, each keep's
    quantities before the last roll in `after_final` and before the second
    roll in `after_second`, and the state's quantities in `result`.
    """
    opens = np.empty(13, dtype=np.int64)
    nopen = 0
    for c in range(scores.shape[1]):
        if not mask >> c & 1:
            opens[nopen] = c
            nopen += 1
    for r in range(scores.shape[0]):
        best_value = -1.0
        best_c = -1
        best_next = -1
        for i in range(nopen):
            c = opens[i]
            nup = up
            if c < UPPER_CATEGORIES:
                nup = min(63, up + scores[r, c])
            nxt = (mask | (1 << c)) * 64 + nup
            v = scores[r, c] + values[nxt, 0]
            if v > best_value:
                best_value = v
                best_c = c
                best_next = nxt
        choice[r] = best_c
        k = keep_of_roll[r]
        after_final[k, 0] = best_value
        if nq > 1:
            s = float(scores[r, best_c])
            after_final[k, 1] = s * s + 2.0 * s * values[best_next, 0] + values[best_next, 1]
            after_final[k, 2] = values[best_next, 2]
            hit = 1.0 if (best_c == QUINTUPLICATAM and s > 0.0) else 0.0
            after_final[k, 3] = values[best_next, 3] + hit
    _average_tree(after_final, partial_keeps, keep_child, nq)
    _best_subkeeps(after_final, best, keeps_small_first, keep_parents)
    for r in range(scores.shape[0]):
        k = keep_of_roll[r]
        for q in range(nq):
            after_second[k, q] = after_final[best[k], q]
    _average_tree(after_second, partial_keeps, keep_child, nq)
    _best_subkeeps(after_second, best, keeps_small_first, keep_parents)
    for q in range(nq):
        result[q] = 0.0
    for r in range(scores.shape[0]):
        b = best[keep_of_roll[r]]
        for q in range(nq):
            result[q] += roll_probability[r] * after_second[b, q]


@njit(cache=True)
def _solve_mask(mask, ups, values, nq, scores, roll_probability, keep_of_roll, keep_child,
                partial_keeps, keep_parents, keeps_small_first, level_a, level_b, best):
    """`evaluate_turn` for all reachable upper totals `ups` of one mask at once.

    The same recursion, with the upper total as the innermost (contiguous)
    axis of every work array, so the tree averages and the category choice
    run as simple vector loops and each table index is read once per mask
    instead of once per state. Work arrays: level_a/level_b (462, nq, >= len(ups)),
    best (462, >= len(ups)).
    """
    nups = ups.shape[0]
    nrolls, ncat = scores.shape
    # the successor of (category, number of dice counted) for each upper total
    succ_state = np.empty((ncat, 6, nups), dtype=np.int64)
    succ_value = np.empty((ncat, 6, nups))
    opens = np.empty(ncat, dtype=np.int64)
    nopen = 0
    for c in range(ncat):
        if mask >> c & 1:
            continue
        opens[nopen] = c
        nopen += 1
        base = (mask | (1 << c)) * 64
        for count in range(6):
            gain = count * (c + 1) if c < UPPER_CATEGORIES else 0
            for u in range(nups):
                nxt = base + min(63, ups[u] + gain)
                succ_state[c, count, u] = nxt
                succ_value[c, count, u] = values[nxt, 0]
    best_value = np.empty(nups)
    best_c = np.empty(nups, dtype=np.int64)
    best_slot = np.empty(nups, dtype=np.int64)
    for r in range(nrolls):
        for u in range(nups):
            best_value[u] = -1.0
        for i in range(nopen):
            c = opens[i]
            points = scores[r, c]
            count = points // (c + 1) if c < UPPER_CATEGORIES else 0
            for u in range(nups):
                v = points + succ_value[c, count, u]
                if v > best_value[u]:
                    best_value[u] = v
                    best_c[u] = c
                    best_slot[u] = count
        k = keep_of_roll[r]
        for u in range(nups):
            level_a[k, 0, u] = best_value[u]
        if nq > 1:
            for u in range(nups):
                c = best_c[u]
                nxt = succ_state[c, best_slot[u], u]
                s = float(scores[r, c])
                level_a[k, 1, u] = s * s + 2.0 * s * values[nxt, 0] + values[nxt, 1]
                level_a[k, 2, u] = values[nxt, 2]
                hit = 1.0 if (c == QUINTUPLICATAM and s > 0.0) else 0.0
                level_a[k, 3, u] = values[nxt, 3] + hit
    _average_tree_batch(level_a, partial_keeps, keep_child, nq, nups)
    _best_subkeeps_batch(level_a, best, keeps_small_first, keep_parents, nups)
    for r in range(nrolls):
        k = keep_of_roll[r]
        for q in range(nq):
            for u in range(nups):
                level_b[k, q, u] = level_a[best[k, u], q, u]
    _average_tree_batch(level_b, partial_keeps, keep_child, nq, nups)
    _best_subkeeps_batch(level_b, best, keeps_small_first, keep_parents, nups)
    for q in range(nq):
        for u in range(nups):
            values[mask * 64 + ups[u], q] = 0.0
    for r in range(nrolls):
        k = keep_of_roll[r]
        p = roll_probability[r]
        for q in range(nq):
            for u in range(nups):
                values[mask * 64 + ups[u], q] += p * level_b[best[k, u], q, u]


@njit(cache=True)
def _average_tree_batch(level, partial_keeps, keep_child, nq, nups):
    for i in range(partial_keeps.shape[0]):
        k = partial_keeps[i]
        for q in range(nq):
            for u in range(nups):
                level[k, q, u] = (level[keep_child[k, 0], q, u] + level[keep_child[k, 1], q, u]
                                  + level[keep_child[k, 2], q, u] + level[keep_child[k, 3], q, u]
                                  + level[keep_child[k, 4], q, u] + level[keep_child[k, 5], q, u]
                                  ) / 6.0


@njit(cache=True)
def _best_subkeeps_batch(level, best, keeps_small_first, keep_parents, nups):
    for i in range(keeps_small_first.shape[0]):
        k = keeps_small_first[i]
        for u in range(nups):
            best[k, u] = k
        for j in range(5):
            p = keep_parents[k, j]
            if p < 0:
                break
            for u in range(nups):
                if level[best[p, u], 0, u] > level[best[k, u], 0, u]:
                    best[k, u] = best[p, u]


@njit(cache=True, nogil=True)
def _solve_masks(masks, values, nq, reachable, scores, roll_probability, keep_of_roll,
                 keep_child, partial_keeps, keep_parents, keeps_small_first):
    """Solve every reachable state of the given masks (their successors must be solved).

    Releases the GIL: `solve` runs chunks of independent masks on several
    Python threads (numba's own `parallel=True` took longer to compile here
    than the whole solve takes to run).
    """
    nkeeps = keep_child.shape[0]
    batch = 64 // nq  # keeps the two work arrays within a core's L2 cache (~240 KB each)
    for i in range(masks.shape[0]):
        mask = masks[i]
        ups = np.flatnonzero(reachable[mask & 63])
        level_a = np.empty((nkeeps, nq, batch))
        level_b = np.empty((nkeeps, nq, batch))
        best = np.empty((nkeeps, batch), dtype=np.int64)
        for start in range(0, ups.shape[0], batch):
            _solve_mask(mask, ups[start: start + batch], values, nq, scores, roll_probability,
                        keep_of_roll, keep_child, partial_keeps, keep_parents, keeps_small_first,
                        level_a, level_b, best)


def kernel_tables(t: DiceTables) -> tuple[np.ndarray, ...]:
    """The dice tables in the order `evaluate_turn` and `_solve_masks` take them."""
    return (t.scores, t.roll_probability, t.keep_of_roll, t.keep_child, t.partial_keeps,
            t.keep_parents, t.keeps_small_first)


def terminal_values(nq: int) -> np.ndarray:
    """A fresh table with only the full scorecards filled in (the bonus is all that is left)."""
    values = np.zeros((STATES, nq))
    bonus = np.arange(64) >= BONUS_THRESHOLD
    base = FULL_MASK * 64
    values[base: base + 64, MEAN] = np.where(bonus, BONUS_POINTS, 0)
    if nq > 1:
        values[base: base + 64, SECOND_MOMENT] = np.where(bonus, BONUS_POINTS**2, 0)
        values[base: base + 64, BONUS] = bonus
    return values


def masks_by_filled_count() -> list[np.ndarray]:
    """Masks grouped by how many categories they fill, fullest first (the solve order)."""
    counts = np.array([bin(m).count("1") for m in range(FULL_MASK + 1)])
    return [np.flatnonzero(counts == n).astype(np.int64) for n in range(TURNS - 1, -1, -1)]


@dataclass(frozen=True)
class Solution:
    """The solved table and the figures of optimal play from the empty scorecard."""

    values: np.ndarray  # float64[STATES, nq]
    mean: float
    sd: float
    bonus_rate: float
    quintuplicatam_rate: float

    @property
    def expected(self) -> np.ndarray:
        """float64[STATES]: expected points still to come (bonus included) from each state."""
        return np.ascontiguousarray(self.values[:, MEAN])


def solve(statistics: bool = True,
          progress: Callable[[int], None] | None = None,
          tables: DiceTables | None = None,
          threads: int | None = None) -> Solution:
    """Solve the whole game; `progress(n)` is told each time n more masks are done.

    Masks with the same number of filled categories never depend on each
    other: each such level is cut into chunks solved on `threads` threads
    (default: one per CPU), and the next level starts when all are done.
    """
    t = tables or dice_tables()
    nq = 4 if statistics else 1
    values = terminal_values(nq)
    reachable = reachable_upper_totals()
    workers = threads or os.cpu_count() or 1
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for masks in masks_by_filled_count():
            pieces = max(min(len(masks), workers), len(masks) // 64)
            chunks = np.array_split(masks, pieces)
            running = {pool.submit(_solve_masks, chunk, values, nq, reachable,
                                   *kernel_tables(t)): len(chunk) for chunk in chunks}
            for done in as_completed(running):
                done.result()
                if progress is not None:
                    progress(running[done])
    start = values[0]
    mean = float(start[MEAN])
    sd = float(np.sqrt(max(0.0, start[SECOND_MOMENT] - mean**2))) if statistics else float("nan")
    return Solution(
        values=values,
        mean=mean,
        sd=sd,
        bonus_rate=float(start[BONUS]) if statistics else float("nan"),
        quintuplicatam_rate=float(start[QUINTUPLICATAM_50]) if statistics else float("nan"),
    )


def warmup() -> None:
    """Compile the kernels (numba caches them on disk): one last turn solved each way, and
    the direct `evaluate_turn` call the player makes."""
    t = dice_tables()
    tables = kernel_tables(t)
    last_turn = np.array([FULL_MASK & ~(1 << QUINTUPLICATAM)], dtype=np.int64)
    for nq in (1, 4):
        _solve_masks(last_turn, terminal_values(nq), nq, reachable_upper_totals(), *tables)
    n = len(t.keeps)
    evaluate_turn(int(last_turn[0]), 0, terminal_values(1), 1, *tables,  # type: ignore[call-arg]
                  np.empty(len(t.rolls), dtype=np.int64), np.zeros((n, 1)), np.zeros((n, 1)),
                  np.zeros(n, dtype=np.int64), np.zeros(1))
