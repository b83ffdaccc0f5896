"""Retrograde analysis: the exact value of every position of a finite set, game-agnostic.

Endgame tables are built backwards from the ends: a position where the side to
move has lost is a loss in 0; one with a move into a loss in d is a win in d + 1;
one whose every move leads into a win is a loss, in one more ply than its longest
resistance. What is never settled this way is a draw (neither side can force an
end). Distances are in plies, always from the side to move's point of view; a win
takes the shortest way, a loss the longest.

Interface. A game numbers the positions of the set 0..size-1 (its own rank and
unrank) and supplies two numba-compiled (`@njit`) functions plus any `data` they
need (a tuple of arrays and numbers, passed through untouched):

    children(index, out: int64[:], data) -> int
        One entry of `out` per legal move of position `index`, returning how many:
          j >= 0               the move leads to position j of the set;
          exit_code(r, d) < 0  the move leaves the set for a position whose value is
                               already known: result r (WIN/DRAW/LOSS) in d plies for
                               the side to move *there* (e.g. a capture into a smaller
                               table, or a move that ends the game).
        No entry at all: the side to move has no legal move and loses (distance 0).
        A position that is itself over (decided before anyone moves) returns
        TERMINAL with its own exit_code(r, d) in out[0].
    predecessors(index, out: int64[:], data) -> int
        Every position p of the set with a move into `index`, once per such move
        (p listed k times if k of its moves lead here), returning how many.

`solve(size, children, predecessors, data, max_moves)` then returns `(result,
distance)`: int8 WIN/DRAW/LOSS and int16 plies per position; `pack` stores both in
one int16 (`distance * 4 + result + 1`) and `packed_exit` turns a stored entry into
the exit code of a move reaching it. `max_moves` bounds
both lists' lengths. Positions are processed level by level (distance 0, 1, ...),
so every distance is exact; memory is 5 bytes per position during the solve.
The two drivers are compiled once per process for each game's functions (numba
does not cache code that takes functions as arguments on disk): a few seconds,
paid once per table build.

The set must be closed under the moves it lists as `j >= 0`; anything else is an
exit. Solve a game's smaller tables first and read them in `children` (a game's
`endgame_kernels.py`, where a capture leaves the set, and its `endgame.py` for
ranking, building in order and caching with `aviary.cache`, show the pattern);
`tests/search/test_retrograde.py` has the smallest complete game. A set of pieces
on a board is numbered by the combinatorial number system: `binomials` and
`unrank_combination` are here for that.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

WIN, DRAW, LOSS = 1, 0, -1
UNKNOWN = 2  # only while solving
TERMINAL = -1  # children(): the position is over, its value is in out[0]
MAX_DISTANCE = 32767  # int16 distances


def binomials(size: int, most: int) -> np.ndarray:
    """C(s, k) for s <= size and k <= most, as int64 ([s, k], 0 where k > s)."""
    table = np.zeros((size + 1, most + 1), dtype=np.int64)
    for s in range(size + 1):
        table[s, 0] = 1
        for k in range(1, min(s, most) + 1):
            table[s, k] = table[s - 1, k - 1] + table[s - 1, k]
    return table


@njit(cache=True, nogil=True)
def unrank_combination(rank, count, size, binom, out):
    """The `count` sorted values in 0..size-1 with colex rank `rank` (the sum of
    `binom[value_k, k + 1]`) into `out`; `binom` from `binomials`."""
    top = size - 1
    for k in range(count, 0, -1):
        while binom[top, k] > rank:
            top -= 1
        out[k - 1] = top
        rank -= binom[top, k]
        top -= 1


@njit(cache=True, nogil=True)
def exit_code(result, distance):
    """A known value (result for the side to move there, distance in plies) as one int < 0."""
    return -1 - ((result + 1) + 3 * distance)


@njit(cache=True, nogil=True)
def exit_result(code):
    return (-1 - code) % 3 - 1


@njit(cache=True, nogil=True)
def exit_distance(code):
    return (-1 - code) // 3


def pack(result: np.ndarray, distance: np.ndarray) -> np.ndarray:
    """A solved table in one int16 per position, `distance * 4 + result + 1` (how tables
    are stored, and read back by `packed_exit` when a larger table's moves reach them)."""
    return (distance.astype(np.int16) << 2) | (result + 1).astype(np.int16)


@njit(cache=True, nogil=True)
def packed_exit(code):
    """The exit code of a position whose packed table entry is `code`."""
    return exit_code((code & 3) - 1, code >> 2)


@njit(nogil=True)
def _initialise(size, children, data, max_moves, result, distance, remaining):
    """Settle what the moves out of the set decide; count each position's moves inside it.

    Undecided positions keep in `distance` the longest resistance their exits offer
    (the least their loss distance can be), and `remaining` = -1 when an exit draws
    (such a position can never lose).
    """
    out = np.empty(max_moves, dtype=np.int64)
    top = 0
    for i in range(size):
        count = children(i, out, data)
        if count == TERMINAL:
            result[i] = exit_result(out[0])
            distance[i] = exit_distance(out[0])
            top = max(top, distance[i])
            continue
        inside = 0
        best_win = MAX_DISTANCE + 1
        longest_loss = 0
        can_draw = False
        for k in range(count):
            child = out[k]
            if child >= 0:
                inside += 1
                continue
            there = exit_result(child)
            plies = exit_distance(child) + 1
            if there == LOSS:
                best_win = min(best_win, plies)
            elif there == DRAW:
                can_draw = True
            else:
                longest_loss = max(longest_loss, plies)
        if best_win <= MAX_DISTANCE:
            result[i] = WIN
            distance[i] = best_win  # may still shorten through a move inside the set
            top = max(top, best_win)
        elif inside == 0:
            result[i] = DRAW if can_draw else LOSS
            distance[i] = 0 if can_draw else longest_loss
            top = max(top, distance[i])
        else:
            result[i] = UNKNOWN
            distance[i] = longest_loss
            remaining[i] = -1 if can_draw else inside
    return top


@njit(nogil=True)
def _propagate(size, predecessors, data, max_moves, result, distance, remaining, top):
    """Settle positions level by level from the ends; what is left unsettled is drawn."""
    out = np.empty(max_moves, dtype=np.int64)
    level = 0
    while level <= top:
        for i in range(size):
            if distance[i] != level or (result[i] != WIN and result[i] != LOSS):
                continue
            count = predecessors(i, out, data)
            for k in range(count):
                p = out[k]
                if result[i] == LOSS:
                    # p moves into a loss in `level`: p wins in level + 1 at most
                    if result[p] == UNKNOWN or (result[p] == WIN and distance[p] > level + 1):
                        result[p] = WIN
                        distance[p] = level + 1
                        top = max(top, level + 1)
                elif result[p] == UNKNOWN and remaining[p] > 0:
                    remaining[p] -= 1
                    if remaining[p] == 0:  # every move of p leads into a win
                        result[p] = LOSS
                        distance[p] = max(distance[p], level + 1)
                        top = max(top, distance[p])
        level += 1
    for i in range(size):
        if result[i] == UNKNOWN:
            result[i] = DRAW
            distance[i] = 0


def solve(
    size: int, children: Any, predecessors: Any, data: Any, max_moves: int
) -> tuple[np.ndarray, np.ndarray]:
    """Win/draw/loss (int8) and distance in plies (int16) of every position 0..size-1.

    See the module docstring for the `children` / `predecessors` contract.
    """
    result = np.full(size, UNKNOWN, dtype=np.int8)
    distance = np.zeros(size, dtype=np.int16)
    remaining = np.zeros(size, dtype=np.int16)
    top = _initialise(size, children, data, max_moves, result, distance, remaining)
    _propagate(size, predecessors, data, max_moves, result, distance, remaining, top)
    return result, distance
