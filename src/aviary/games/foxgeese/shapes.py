"""The board shapes the solved endings are built on: the cross with some arms closed.

The shrinking board closes an arm only while eight or four animals are left, so
once a fox faces five geese or fewer (and no elephant) the board keeps its shape
to the end of the game. Any of the 16 sets of closed arms can have come about (an
arm a round while eight animals stay), but the rules do not change under a turn or
a mirror of the board, and those fold the 16 onto six shapes (`SHAPES`), each solved
once. `orient(closed_arms(board))` says which shape a board is and where each of its
points lies on that shape. Plain Python: the course command reads the tables before
numba loads.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from aviary.games.foxgeese import rules

# a set of closed arms as bits, in the order of rules.ARMS: top 1, bottom 2, left 4, right 8
SHAPES = (0, 1, 3, 5, 7, 15)  # open; top; top+bottom; top+left; all but right; all four
_LAST = rules.SIZE - 1
_TURNS: tuple[Callable[[int, int], tuple[int, int]], ...] = (  # the board's 8 symmetries
    lambda r, c: (r, c), lambda r, c: (c, _LAST - r), lambda r, c: (_LAST - r, _LAST - c),
    lambda r, c: (_LAST - c, r), lambda r, c: (r, _LAST - c), lambda r, c: (_LAST - r, c),
    lambda r, c: (c, r), lambda r, c: (_LAST - c, _LAST - r),
)


def closed_arms(board: str) -> int:
    """The closed arms of `board` as bits (rules.Position allows whole arms only)."""
    return sum(1 << i for i, (_, arm) in enumerate(rules.ARMS)
               if all(board[p] == rules.HOLE for p in arm))


@functools.cache
def shape_points(shape: int) -> tuple[int, ...]:
    """The board cells open in `shape`, in board order: a table's point numbers."""
    closed: set[int] = set()
    for i, (_, arm) in enumerate(rules.ARMS):
        if shape >> i & 1:
            closed |= arm
    return tuple(p for p in rules.POINTS if p not in closed)


def _turned(turn: Callable[[int, int], tuple[int, int]], cell: int) -> int:
    r, c = turn(*divmod(cell, rules.SIZE))
    return r * rules.SIZE + c


@functools.cache
def orient(arms: int) -> tuple[int, dict[int, int]]:
    """(the shape of a board with closed `arms`, its open cells -> the shape's point numbers)."""
    best: tuple[int, Callable[[int, int], tuple[int, int]]] | None = None
    for turn in _TURNS:
        image = 0
        for i, (_, arm) in enumerate(rules.ARMS):
            if arms >> i & 1:
                cells = frozenset(_turned(turn, p) for p in arm)
                image |= next(1 << j for j, (_, other) in enumerate(rules.ARMS) if other == cells)
        if best is None or image < best[0]:
            best = (image, turn)
    assert best is not None and best[0] in SHAPES
    shape, turn = best
    number = {point: i for i, point in enumerate(shape_points(shape))}
    return shape, {p: number[_turned(turn, p)] for p in rules.POINTS
                   if _turned(turn, p) in number}
