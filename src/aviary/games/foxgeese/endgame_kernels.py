"""The solved classic endings as numba kernels: numbering, moves and unmoves for retrograde.

A table holds every position of one fox against `count` geese on one board shape
(the open cross, or the cross with some arms closed by the shrinking board; no
elephants), either side to move. A shape's open points are numbered 0..n-1 in board
order (`shapes.py`), and a position's index is

    (side * n + fox) * C(n - 1, count) + colex rank of the geese among the other n - 1 points

(side 0 the foxes, 1 the geese; a goose point above the fox's is lowered by one).
The shrinking board closes arms only while eight or four animals are left, so in a
table's endings (a fox and four or five geese) the shape never changes; the shapes
that differ by a turn or a mirror of the board share one table (`endgame.py` turns a
position onto its table's shape). `children` and `predecessors` follow the contract
of `aviary.search.retrograde`: a jump leaves the table (for the table with one goose
fewer, or for the foxes' win when three geese are left), and so does a geese move
that traps the fox (the geese's win). The geese move in any direction, so every
unmove is a move.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from aviary.games.foxgeese import kernels, rules, shapes
from aviary.search import retrograde


def shape_graph(shape: int) -> tuple[np.ndarray, np.ndarray]:
    """(STEP, OVER) of `shape` (`shapes.py`): [i, d] the point next to / two away from
    point i in direction d (up, down, left, right), -1 off the open board; the cross's
    own neighbours (`kernels.NEXT`, `kernels.BEYOND`) renumbered onto the shape."""
    points = shapes.shape_points(shape)
    local = {point: i for i, point in enumerate(points)}
    step = np.full((len(points), 4), -1, dtype=np.int64)
    over = np.full((len(points), 4), -1, dtype=np.int64)
    for i, point in enumerate(points):
        for d in range(4):
            step[i, d] = local.get(int(kernels.NEXT[point, d]), -1)
            if step[i, d] >= 0:
                over[i, d] = local.get(int(kernels.BEYOND[point, d]), -1)
    return step, over


POINT_COUNT = len(rules.POINTS)  # 33, the open cross's
COMB = retrograde.binomials(POINT_COUNT, 7)

MAX_MOVES = 64
MIN_GEESE = 4  # with three geese left the foxes have won


@njit(cache=True, nogil=True)
def index_of(side, fox, geese, count, n):
    """The index of (side, fox point, sorted goose points) in the `count`-geese table of a
    shape with `n` points."""
    rank = 0
    for k in range(count):
        g = geese[k]
        if g > fox:
            g -= 1
        rank += COMB[g, k + 1]
    return (side * n + fox) * COMB[n - 1, count] + rank


@njit(cache=True, nogil=True)
def decode(index, count, geese, n):
    """(side, fox) of position `index` (`n` points), its sorted goose points into `geese`."""
    per = COMB[n - 1, count]
    head, rank = index // per, index % per
    side, fox = head // n, head % n
    retrograde.unrank_combination(rank, count, n - 1, COMB, geese)
    for k in range(count):
        if geese[k] >= fox:
            geese[k] += 1
    return side, fox


@njit(cache=True, nogil=True)
def _occupied(geese, count, point):
    for k in range(count):  # noqa: SIM110 (numba compiles no generator)
        if geese[k] == point:
            return True
    return False


@njit(cache=True, nogil=True)
def fox_is_trapped(fox, geese, count, step, over):
    """No step and no jump for the (only) fox."""
    for d in range(4):
        q = step[fox, d]
        if q < 0:
            continue
        if not _occupied(geese, count, q):
            return False
        r = over[fox, d]
        if r >= 0 and not _occupied(geese, count, r):
            return False
    return True


@njit(cache=True, nogil=True)
def _sorted_with(geese, count, out, skip, add):
    """`geese` without entry `skip` (-1: none) and with point `add` (-1: none), sorted."""
    n = 0
    for k in range(count):
        if k != skip:
            out[n] = geese[k]
            n += 1
    if add >= 0:
        j = n
        while j > 0 and out[j - 1] > add:
            out[j] = out[j - 1]
            j -= 1
        out[j] = add
        n += 1
    return n


@njit(cache=True, nogil=True)
def children(index, out, data):
    """The moves of position `index` (retrograde contract); `data` = (count, the smaller
    table of the shape, the shape's STEP, its OVER)."""
    count, smaller, step, over = data
    n_points = step.shape[0]
    geese = np.empty(8, dtype=np.int64)
    moved = np.empty(8, dtype=np.int64)
    side, fox = decode(index, count, geese, n_points)
    n = 0
    if side == 0:
        for d in range(4):
            q = step[fox, d]
            if q < 0:
                continue
            if not _occupied(geese, count, q):
                out[n] = index_of(1, q, geese, count, n_points)
                n += 1
                continue
            r = over[fox, d]
            if r < 0 or _occupied(geese, count, r):
                continue
            skip = 0
            while geese[skip] != q:
                skip += 1
            _sorted_with(geese, count, moved, skip, -1)
            if count - 1 < MIN_GEESE:
                out[n] = retrograde.exit_code(retrograde.LOSS, 0)  # the geese have lost
            else:
                out[n] = retrograde.packed_exit(smaller[index_of(1, r, moved, count - 1,
                                                                 n_points)])
            n += 1
        return n
    for k in range(count):
        for d in range(4):
            q = step[geese[k], d]
            if q < 0 or q == fox or _occupied(geese, count, q):
                continue
            _sorted_with(geese, count, moved, k, q)
            if fox_is_trapped(fox, moved, count, step, over):
                out[n] = retrograde.exit_code(retrograde.LOSS, 0)  # the fox is removed
            else:
                out[n] = index_of(0, fox, moved, count, n_points)
            n += 1
    return n


@njit(cache=True, nogil=True)
def predecessors(index, out, data):
    """Every position of the table with a move into `index`, once per such move."""
    count, _, step, over = data
    n_points = step.shape[0]
    geese = np.empty(8, dtype=np.int64)
    moved = np.empty(8, dtype=np.int64)
    side, fox = decode(index, count, geese, n_points)
    n = 0
    if side == 1:  # the fox stepped here from an empty neighbour
        for d in range(4):
            q = step[fox, d]
            if q >= 0 and not _occupied(geese, count, q):
                out[n] = index_of(0, q, geese, count, n_points)
                n += 1
        return n
    if fox_is_trapped(fox, geese, count, step, over):
        return 0  # it would have been removed: no geese move leads here
    for k in range(count):
        for d in range(4):
            q = step[geese[k], d]
            if q < 0 or q == fox or _occupied(geese, count, q):
                continue
            _sorted_with(geese, count, moved, k, q)
            out[n] = index_of(1, fox, moved, count, n_points)
            n += 1
    return n
