"""Pikachu-only endings as numba kernels: indexing and moves for `aviary.search.retrograde`.

A Pikachu-only position (no Pichus) looks the same to both colours: a Pikachu moves
the same way forward and back, so a table is kept per material *from the side to
move*: `mover` Pikachus to move against `other` Pikachus. Its positions are numbered
by the combinatorial number system (colex rank): the mover's squares rank among all
n*n squares, the other side's squares among the squares left over, and

    index = rank(mover squares) * C(n*n - mover, other) + rank(other squares, compressed)

A group solves two materials at once, (a, b) and (b, a) with a >= b, because a quiet
move turns one into the other (the side to move changes); a capture leaves the group
for a smaller one solved before, and capturing the last piece wins at once.
`endgame.py` holds the same ranking in plain Python for probing, tested equal.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from aviary.search import retrograde
from aviary.search.retrograde import LOSS, exit_code, packed_exit, unrank_combination

MAX_PIECES_PER_SIDE = 8


def binomials(squares: int) -> np.ndarray:
    """C(s, k) for s <= squares, k <= MAX_PIECES_PER_SIDE, as int64."""
    return retrograde.binomials(squares, MAX_PIECES_PER_SIDE)


@njit(cache=True, nogil=True)
def _sort(squares, count):
    for i in range(1, count):
        value = squares[i]
        j = i - 1
        while j >= 0 and squares[j] > value:
            squares[j + 1] = squares[j]
            j -= 1
        squares[j + 1] = value


@njit(cache=True, nogil=True)
def rank(mover, a, other, b, squares, binom):
    """Index of a position from sorted mover squares and sorted other squares."""
    first = 0
    for k in range(a):
        first += binom[mover[k], k + 1]
    second = 0
    for k in range(b):
        compressed = other[k]
        for m in range(a):
            if mover[m] < other[k]:
                compressed -= 1
        second += binom[compressed, k + 1]
    return first * binom[squares - a, b] + second


@njit(cache=True, nogil=True)
def unrank(index, a, b, squares, binom, mover, other):
    """Sorted mover and other squares of position `index` (inverse of `rank`)."""
    per_first = binom[squares - a, b]
    unrank_combination(index // per_first, a, squares, binom, mover)
    unrank_combination(index % per_first, b, squares - a, binom, other)
    for k in range(b):
        square = other[k]
        for m in range(a):
            if mover[m] <= square:
                square += 1
        other[k] = square


@njit(cache=True, nogil=True)
def part_size(a, b, squares, binom):
    return binom[squares, a] * binom[squares - a, b]


@njit(cache=True, nogil=True)
def _part(index, data):
    """(mover, other, local index, offset of the part a quiet move leads to) of `index`."""
    a, b, squares, binom = data[1], data[2], data[3], data[4]
    first = part_size(a, b, squares, binom)
    if index < first:
        return a, b, index, first if a != b else 0
    return b, a, index - first, 0


# the four directions a Pikachu slides in: down, up, right, left (row step, column step)
ROW_STEP = np.array([1, -1, 0, 0], dtype=np.int64)
COLUMN_STEP = np.array([0, 0, 1, -1], dtype=np.int64)


@njit(cache=True, nogil=True)
def _setup(index, data, mover, other):
    """Unrank `index` into mover/other squares; (mover count, other count, quiet offset, cells)."""
    squares, binom = data[3], data[4]
    mover_count, other_count, local, quiet_offset = _part(index, data)
    unrank(local, mover_count, other_count, squares, binom, mover, other)
    cells = np.zeros(squares, dtype=np.int8)  # +1 mover, -1 other, 0 empty
    for k in range(mover_count):
        cells[mover[k]] = 1
    for k in range(other_count):
        cells[other[k]] = -1
    return mover_count, other_count, quiet_offset, cells


@njit(cache=True, nogil=True)
def _with_move(squares, count, piece, to, out):
    """`squares` with squares[piece] moved to `to`, sorted, into out."""
    for k in range(count):
        out[k] = squares[k]
    out[piece] = to
    _sort(out, count)


@njit(cache=True, nogil=True)
def children(index, out, data):
    """Retrograde `children`: quiet moves stay in the group, captures exit (see module doc).

    data = (n, a, b, n*n, binomials, exits from part (a, b), exits from part (b, a)),
    exits being the smaller table's packed codes (`retrograde.pack`), or an empty
    array when a capture takes the last piece.
    """
    n, squares, binom = data[0], data[3], data[4]
    mover = np.empty(MAX_PIECES_PER_SIDE, dtype=np.int64)
    other = np.empty(MAX_PIECES_PER_SIDE, dtype=np.int64)
    mover_count, other_count, quiet_offset, cells = _setup(index, data, mover, other)
    exits = data[5] if mover_count == data[1] else data[6]
    moved = np.empty(MAX_PIECES_PER_SIDE, dtype=np.int64)
    left = np.empty(MAX_PIECES_PER_SIDE, dtype=np.int64)
    count = 0
    for piece in range(mover_count):
        for direction in range(4):
            r = mover[piece] // n + ROW_STEP[direction]
            c = mover[piece] % n + COLUMN_STEP[direction]
            captured = -1
            while 0 <= r < n and 0 <= c < n:
                here = r * n + c
                if cells[here] == 0:
                    _with_move(mover, mover_count, piece, here, moved)
                    if captured < 0:  # quiet: the other side moves next, same material
                        out[count] = quiet_offset + rank(
                            other, other_count, moved, mover_count, squares, binom)
                    elif other_count == 1:  # the last piece taken: the other side has lost
                        out[count] = exit_code(LOSS, 0)
                    else:
                        kept = 0
                        for k in range(other_count):
                            if other[k] != captured:
                                left[kept] = other[k]
                                kept += 1
                        out[count] = packed_exit(
                            exits[rank(left, kept, moved, mover_count, squares, binom)])
                    count += 1
                elif cells[here] == -1 and captured < 0:
                    captured = here
                else:
                    break
                r += ROW_STEP[direction]
                c += COLUMN_STEP[direction]
    return count


@njit(cache=True, nogil=True)
def predecessors(index, out, data):
    """Retrograde `predecessors`: the other side's piece slides back over empty squares."""
    n, squares, binom = data[0], data[3], data[4]
    mover = np.empty(MAX_PIECES_PER_SIDE, dtype=np.int64)
    other = np.empty(MAX_PIECES_PER_SIDE, dtype=np.int64)
    mover_count, other_count, quiet_offset, cells = _setup(index, data, mover, other)
    before = np.empty(MAX_PIECES_PER_SIDE, dtype=np.int64)
    count = 0
    for piece in range(other_count):
        for direction in range(4):
            r = other[piece] // n + ROW_STEP[direction]
            c = other[piece] % n + COLUMN_STEP[direction]
            while 0 <= r < n and 0 <= c < n and cells[r * n + c] == 0:
                _with_move(other, other_count, piece, r * n + c, before)
                out[count] = quiet_offset + rank(
                    before, other_count, mover, mover_count, squares, binom)
                count += 1
                r += ROW_STEP[direction]
                c += COLUMN_STEP[direction]
    return count
