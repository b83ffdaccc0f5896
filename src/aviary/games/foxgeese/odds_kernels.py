"""The classic fox's odds as numba kernels: the defender's tied replies, the fox's moves,
one step of value iteration (`odds.py` says what they are for).

Over the solved endings' numbering (`endgame_kernels.py`): for every geese-to-move
position of a table, the depth-2 defender's best-scored replies, ties included,
computed by the depth-2 player's own compiled scoring (`depth2.root_values`); for every
fox-to-move position, where each fox move leads. `Model` holds both; its `iterate`
runs the value iteration.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from numba import njit

from aviary.games.foxgeese import depth2, endgame, endgame_kernels, kernels, shapes

# replies[i, j]: TRAPPED the reply traps the fox; UNUSED past the ties; STUCK no geese move
TRAPPED, UNUSED, STUCK = -1, -2, -3


@njit(cache=True, nogil=True)
def defender_replies(table, count, indices, replies, tally, cells, step, over):
    """The depth-2 defender's best replies (ties included) in the geese-to-move positions
    `indices` of the `count`-geese table of a shape (`cells`: its points' board cells;
    `step`, `over`: `endgame_kernels.shape_graph`), checked against the table.

    replies[i, :] gets the fox-to-move indices they lead to (TRAPPED, UNUSED, STUCK as
    above). tally: [positions not already lost, with a losing reply, where a best reply
    loses, best replies, of them losing]. A position whose fox is trapped is skipped:
    the game removes such a fox before the geese move.
    """
    geese = np.empty(8, dtype=np.int64)
    after = np.empty(8, dtype=np.int64)
    moves = np.empty(kernels.MAX_MOVES, dtype=np.int64)
    values = np.empty(kernels.MAX_MOVES, dtype=np.int64)
    buffers = np.zeros((2, kernels.MAX_MOVES), dtype=np.int64)
    state = np.zeros(kernels.STATE_SIZE, dtype=np.int64)
    n_points = cells.shape[0]
    board = 0
    for p in range(n_points):
        board |= kernels.bit(cells[p])
    for i in range(indices.shape[0]):
        index = indices[i]
        _, fox = endgame_kernels.decode(index, count, geese, n_points)
        if endgame_kernels.fox_is_trapped(fox, geese, count, step, over):
            continue
        state[:] = 0
        state[kernels.SIDE_SLOT] = -1
        state[kernels.FOXES] = kernels.bit(cells[fox])
        for k in range(count):
            state[kernels.GEESE] |= kernels.bit(cells[geese[k]])
        state[kernels.OPEN] = board
        state[kernels.KEY_SLOT] = kernels.full_key(state)
        n = kernels.generate(state, moves, False)
        if n == 0:
            replies[i, 0] = STUCK
            continue
        depth2.root_values(state, moves, n, values, buffers)
        top = values[:n].max()
        not_lost = (table[index] & 3) - 1 != -1
        losing_reply = False
        may_err = False
        used = 0
        for j in range(n):
            undo = kernels.make(state, moves[j])
            child = TRAPPED
            if state[kernels.FOXES] != 0:
                where = 0
                m = 0
                for p in range(n_points):
                    b = kernels.bit(cells[p])
                    if state[kernels.FOXES] & b:
                        where = p
                    if state[kernels.GEESE] & b:
                        after[m] = p
                        m += 1
                child = endgame_kernels.index_of(0, where, after, count, n_points)
            kernels.unmake(state, moves[j], undo)
            loses = child >= 0 and (table[child] & 3) - 1 == 1  # a forced win for the fox
            losing_reply |= loses
            if values[j] == top:
                replies[i, used] = child
                used += 1
                if not_lost:
                    tally[3] += 1
                    tally[4] += loses
                    may_err |= loses
        if not_lost:
            tally[0] += 1
            tally[1] += losing_reply
            tally[2] += may_err
    return tally


@njit(cache=True, nogil=True)
def fox_moves(count, moves, counts, step, over):
    """moves[i, :counts[i]]: where each fox move from fox-to-move position i leads: a
    geese-to-move index of the same table (>= 0), of the table with one goose fewer
    (encoded -2 - index), or -1 for a jump that wins (three geese left)."""
    geese = np.empty(8, dtype=np.int64)
    moved = np.empty(8, dtype=np.int64)
    n_points = step.shape[0]
    for i in range(counts.shape[0]):
        _, fox = endgame_kernels.decode(i, count, geese, n_points)
        n = 0
        for d in range(4):
            q = step[fox, d]
            if q < 0:
                continue
            taken = -1
            for k in range(count):
                if geese[k] == q:
                    taken = k
            if taken < 0:
                moves[i, n] = endgame_kernels.index_of(1, q, geese, count, n_points)
                n += 1
                continue
            r = over[fox, d]
            if r < 0 or endgame_kernels._occupied(geese, count, r):
                continue
            endgame_kernels._sorted_with(geese, count, moved, taken, -1)
            moves[i, n] = -1 if count - 1 < endgame_kernels.MIN_GEESE else (
                -2 - endgame_kernels.index_of(1, r, moved, count - 1, n_points))
            n += 1
        counts[i] = n


@njit(cache=True, nogil=True)
def step(chances, smaller, replies, moves, counts, out, discount):
    """One value-iteration step: `out` from `chances` (a table's positions, both sides to
    move) and `smaller` (the table with one goose fewer, after this step's update)."""
    half = chances.shape[0] // 2
    for i in range(half):  # the fox to move: its best move
        best = 0.0
        for j in range(counts[i]):
            child = moves[i, j]
            if child == -1:
                best = 1.0
            elif child >= 0:
                best = max(best, chances[child])
            else:
                best = max(best, smaller[-2 - child])
        out[i] = discount * best
    for i in range(half):  # the geese to move: the defender's ties, equally likely
        if replies[i, 0] == STUCK:
            out[half + i] = 1.0  # no geese move: the geese lose
            continue
        total = 0.0
        n = 0
        for j in range(replies.shape[1]):
            child = replies[i, j]
            if child == UNUSED:
                break
            total += 0.0 if child == TRAPPED else chances[child]
            n += 1
        out[half + i] = total / n if n else 0.0  # n == 0: the fox is trapped, removed


class Model:
    """The defender's tied best replies and the fox's moves, for each table of one board
    shape: what the value iteration runs on (both are fixed; only the chances change)."""

    def __init__(self, counts: Sequence[int] = endgame.COUNTS, shape: int = 0) -> None:
        self.counts = tuple(sorted(counts))
        self.shape = shape
        cells = np.array(shapes.shape_points(shape), dtype=np.int64)
        step, over = endgame_kernels.shape_graph(shape)
        smallest = endgame_kernels.MIN_GEESE
        if self.counts != tuple(range(smallest, smallest + len(self.counts))):
            raise ValueError(f"the tables from {smallest} geese up, each once: {counts}")
        self.replies: dict[int, np.ndarray] = {}
        self.fox: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self.tallies: dict[int, np.ndarray] = {}
        for count in self.counts:
            table = np.asarray(endgame.load(count, shape))
            half = endgame.table_size(count, shape) // 2
            replies = np.full((half, 4 * count), UNUSED, dtype=np.int32)
            indices = np.arange(half, 2 * half, dtype=np.int64)  # the geese to move
            self.tallies[count] = defender_replies(table, count, indices, replies,
                                                   np.zeros(5, np.int64), cells, step, over)
            self.replies[count] = replies
            moves = np.full((half, 4), -1, dtype=np.int64)
            moved = np.zeros(half, dtype=np.int64)
            fox_moves(count, moves, moved, step, over)
            self.fox[count] = moves, moved

    def iterate(self, rounds: int, discount: float,
                each: Callable[[int, dict[int, np.ndarray]], None] | None = None
                ) -> dict[int, np.ndarray]:
        """The chances (both sides to move) after `rounds` steps; `each(step, chances)`
        is called after every step if given. A jump out of the four-geese table wins;
        one out of a larger table lands in the next smaller, updated first."""
        chances = {count: np.zeros(endgame.table_size(count, self.shape))
                   for count in self.counts}
        unused = np.zeros(1)  # the four-geese table's jumps win: it reads no smaller table
        for done in range(1, rounds + 1):
            stepped: dict[int, np.ndarray] = {}
            for count in self.counts:
                stepped[count] = np.empty_like(chances[count])
                step(chances[count], stepped.get(count - 1, unused), self.replies[count],
                     *self.fox[count], stepped[count], discount)
            chances = stepped
            if each is not None:
                each(done, chances)
        return chances


def warmup() -> None:
    """Compile the kernels on a few positions of the four-geese table."""
    table = np.asarray(endgame.load(4))
    half = endgame.table_size(4) // 2
    cells = np.array(shapes.shape_points(0), dtype=np.int64)
    step, over = endgame_kernels.shape_graph(0)
    replies = np.full((4, 16), UNUSED, dtype=np.int32)
    defender_replies(table, 4, np.arange(half, half + 4, dtype=np.int64), replies,
                     np.zeros(5, np.int64), cells, step, over)
    moves = np.full((4, 4), -1, dtype=np.int64)
    fox_moves(4, moves, np.zeros(4, dtype=np.int64), step, over)
