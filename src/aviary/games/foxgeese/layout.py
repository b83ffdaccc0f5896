"""Fox-Geese's kernel state array and move codes in plain Python: no numba needed.

The compiled kernels (`kernels.py`) and the engine compiled ahead of time
(`aviary.search.compiled`) share this layout; the functions here run as plain Python
where a command must not wait for numba (a position made into a state array, a move
code read back), and `kernels.py` compiles the one its kernels call (`key_of`).

The 49 grid points fit one int64 bitboard per kind of piece (bit `r * 7 + c`), plus
one of the points still open (the cross, less any closed arm). The state array holds
the side to move, an incrementally updated Zobrist key, the ply counter, the four
bitboards, the shrink option, the undo stack's pointer and the searching side and ply
(the engine's contempt and tie-break), then from slot STACK the undo stack: `make`
saves the four bitboards and the key there (a move's consequences, trapped foxes,
pinched elephants and a closed arm, are not undone by a move the other way).
Side: +1 the foxes, -1 the geese. Move: `start | end << 10`; a jump is a move of two
points, the goose between. The neighbour tables (`NEXT`, `BEYOND`) are made here too:
plain numpy, read by the kernels.
"""

from __future__ import annotations

import numpy as np

from aviary.games.foxgeese import rules

SIZE = rules.SIZE
SIDE_SLOT, KEY_SLOT, PLY_SLOT, FOXES, GEESE, ELEPHANTS, OPEN, SHRINK, SP, ROOT_SIDE, ROOT_PLY = (
    range(11))
STACK = 16  # undo stack: STACK_DEPTH frames of FRAME values
FRAME = 5  # foxes, geese, elephants, open, key
STACK_DEPTH = 200  # deeper than the search's MAX_PLY (96) and any perft we run
STATE_SIZE = STACK + FRAME * STACK_DEPTH
MAX_MOVES = 64  # at most 13 pieces x 4 directions

POINTS = np.array(rules.POINTS, dtype=np.int64)
# NEXT[p, d]: the point next to p in direction d (up, down, left, right) on the cross, or -1;
# BEYOND[p, d]: the point after that, or -1
NEXT = np.full((rules.CELLS, 4), -1, dtype=np.int64)
BEYOND = np.full((rules.CELLS, 4), -1, dtype=np.int64)
for _p in rules.POINTS:
    _r, _c = divmod(_p, SIZE)
    for _d, (_dr, _dc) in enumerate(((-1, 0), (1, 0), (0, -1), (0, 1))):
        for _k, _table in ((1, NEXT), (2, BEYOND)):
            _q = (_r + _k * _dr) * SIZE + _c + _k * _dc
            if 0 <= _r + _k * _dr < SIZE and 0 <= _c + _k * _dc < SIZE and _q not in rules.CORNERS:
                _table[_p, _d] = _q
        if NEXT[_p, _d] < 0:
            BEYOND[_p, _d] = -1
ARM_MASKS = np.array([sum(1 << p for p in arm) for _, arm in rules.ARMS], dtype=np.int64)
CROSS = np.int64(sum(1 << p for p in rules.POINTS))

_rng = np.random.default_rng(20261123)
ZOBRIST = _rng.integers(1, 2**62, size=(3, rules.CELLS), dtype=np.int64)  # fox, goose, elephant
ZOBRIST_ARM = _rng.integers(1, 2**62, size=4, dtype=np.int64)  # arm closed
ZOBRIST_SIDE = np.int64(_rng.integers(1, 2**62))


def key_of(foxes, geese, elephants, open_, side):  # compiled by kernels.py too
    """The Zobrist key of a board (its bitboards) with `side` to move."""
    key = np.int64(0)
    for i in range(POINTS.shape[0]):
        p = POINTS[i]
        b = np.int64(1) << p
        if foxes & b:
            key ^= ZOBRIST[0, p]
        elif geese & b:
            key ^= ZOBRIST[1, p]
        elif elephants & b:
            key ^= ZOBRIST[2, p]
    for arm in range(4):
        if (open_ & ARM_MASKS[arm]) == 0:
            key ^= ZOBRIST_ARM[arm]
    if side < 0:
        key ^= ZOBRIST_SIDE
    return key


def state_from_position(position: rules.Position) -> np.ndarray:
    """The kernel state array of `position`."""
    state = np.zeros(STATE_SIZE, dtype=np.int64)
    state[SIDE_SLOT] = 1 if position.player == "f" else -1
    state[PLY_SLOT] = position.ply
    state[SHRINK] = int(position.shrink)
    masks = {rules.FOX: 0, rules.GOOSE: 0, rules.ELEPHANT: 0}
    open_ = 0
    for point, char in enumerate(position.board):
        if char in masks:
            masks[char] |= 1 << point
        if char != rules.HOLE:
            open_ |= 1 << point
    state[FOXES] = masks[rules.FOX]
    state[GEESE] = masks[rules.GOOSE]
    state[ELEPHANTS] = masks[rules.ELEPHANT]
    state[OPEN] = open_
    state[KEY_SLOT] = key_of(state[FOXES], state[GEESE], state[ELEPHANTS], state[OPEN],
                             state[SIDE_SLOT])
    return state


def search_state(position: rules.Position) -> np.ndarray:
    """The state array for a search by the player to move (whose contempt, which move)."""
    state = state_from_position(position)
    state[ROOT_SIDE] = state[SIDE_SLOT]
    state[ROOT_PLY] = position.ply
    return state


def board_from_state(state: np.ndarray) -> str:
    cells = []
    for point in range(rules.CELLS):
        bit = 1 << point
        if int(state[FOXES]) & bit:
            cells.append(rules.FOX)
        elif int(state[GEESE]) & bit:
            cells.append(rules.GOOSE)
        elif int(state[ELEPHANTS]) & bit:
            cells.append(rules.ELEPHANT)
        elif int(state[OPEN]) & bit:
            cells.append(rules.EMPTY)
        else:
            cells.append(rules.HOLE)
    return "".join(cells)


def position_from_state(state: np.ndarray) -> rules.Position:
    return rules.Position(board_from_state(state), "f" if state[SIDE_SLOT] > 0 else "g",
                          int(state[PLY_SLOT]), bool(state[SHRINK]))


def encode(move: rules.Move) -> int:
    return move.start | move.end << 10


def decode(move: int) -> rules.Move:
    start, end = move & 1023, (move >> 10) & 1023
    if abs(end - start) in (2, 2 * SIZE):
        return rules.Move(start, end, (start + end) // 2)
    return rules.Move(start, end)
