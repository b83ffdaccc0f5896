"""Fox, Geese and Elephants as numba kernels over one int64 array: the speed behind `rules.py`.

The 49 grid points fit one int64 bitboard per kind of piece (bit `r * 7 + c`),
plus one of the points still open (the cross, less any closed arm). The state
array (layout below) also holds the side to move, the ply counter, the shrink
option and an incrementally updated Zobrist key. `make` plays a move *with* its
consequences (trapped foxes and pinched elephants removed, an arm closed at a
round's end), so it saves the four bitboards and the key on a small undo stack
inside the array and returns the stack slot; `unmake` restores them. Kernels
follow the contract of `aviary.search.alphabeta`; `tests/games/foxgeese` checks them
move-for-move and perft-for-perft against `rules.py`.

Move: `start | end << 10`; a jump is a move of two points, the goose between.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from aviary.games.foxgeese import rules
from aviary.search.alphabeta import MATE, NOT_OVER
from aviary.search.kernels import push

SIZE = rules.SIZE
SIDE_SLOT, KEY_SLOT, PLY_SLOT, FOXES, GEESE, ELEPHANTS, OPEN, SHRINK, SP, ROOT_SIDE, ROOT_PLY = (
    range(11))
STACK = 16  # undo stack: STACK_DEPTH frames of FRAME values
FRAME = 5  # foxes, geese, elephants, open, key
STACK_DEPTH = 200  # deeper than the search's MAX_PLY (96) and any perft we run
STATE_SIZE = STACK + FRAME * STACK_DEPTH
MAX_MOVES = 64  # at most 13 pieces x 4 directions
MOVE_LIMIT = rules.MOVE_LIMIT

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


def state_from_position(position: rules.Position) -> np.ndarray:
    """The kernel state array of `position`."""
    state = np.zeros(STATE_SIZE, dtype=np.int64)
    state[SIDE_SLOT] = 1 if position.player == "f" else -1
    state[PLY_SLOT] = position.ply
    state[SHRINK] = int(position.shrink)
    for point, char in enumerate(position.board):
        bit = np.int64(1) << np.int64(point)
        if char == rules.FOX:
            state[FOXES] |= bit
        elif char == rules.GOOSE:
            state[GEESE] |= bit
        elif char == rules.ELEPHANT:
            state[ELEPHANTS] |= bit
        if char != rules.HOLE:
            state[OPEN] |= bit
    state[KEY_SLOT] = full_key(state)
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


@njit(cache=True, nogil=True, inline="always")
def bit(point):
    return np.int64(1) << point


@njit(cache=True, nogil=True)
def popcount(mask):
    count = 0
    while mask:
        mask &= mask - 1
        count += 1
    return count


@njit(cache=True, nogil=True)
def _key_of(foxes, geese, elephants, open_, side):
    key = np.int64(0)
    for i in range(POINTS.shape[0]):
        p = POINTS[i]
        b = bit(p)
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


@njit(cache=True, nogil=True)
def full_key(state):
    """Zobrist key computed from scratch (make/unmake keep it up to date incrementally)."""
    return _key_of(state[FOXES], state[GEESE], state[ELEPHANTS], state[OPEN], state[SIDE_SLOT])


@njit(cache=True, nogil=True)
def fox_moves(point, foxes, geese, empty):
    """How many steps and jumps the fox on `point` has."""
    count = 0
    for d in range(4):
        q = NEXT[point, d]
        if q < 0:
            continue
        if empty & bit(q):
            count += 1
        elif geese & bit(q):
            r = BEYOND[point, d]
            if r >= 0 and empty & bit(r):
                count += 1
    return count


@njit(cache=True, nogil=True)
def fox_jumps(point, geese, empty):
    """How many geese the fox on `point` can jump now."""
    count = 0
    for d in range(4):
        q = NEXT[point, d]
        if q >= 0 and geese & bit(q):
            r = BEYOND[point, d]
            if r >= 0 and empty & bit(r):
                count += 1
    return count


@njit(cache=True, nogil=True)
def caught(foxes, geese, elephants, open_):
    """The trapped foxes and pinched elephants of a board, as one mask (judged together)."""
    empty = open_ & ~(foxes | geese | elephants)
    gone = np.int64(0)
    for i in range(POINTS.shape[0]):
        p = POINTS[i]
        b = bit(p)
        if foxes & b:
            free = False
            for d in range(4):
                q = NEXT[p, d]
                if q >= 0 and foxes & bit(q):
                    free = True
                    break
            if not free and fox_moves(p, foxes, geese, empty) == 0:
                gone |= b
        elif elephants & b:
            near = 0
            for d in range(4):
                q = NEXT[p, d]
                if q >= 0 and foxes & bit(q):
                    near += 1
            if near >= 2:
                gone |= b
    return gone


@njit(cache=True, nogil=True)
def result(state):
    """The piece-count result for the foxes: 1 foxes won, -1 geese won, 0 draw, 2 not over."""
    foxes = popcount(state[FOXES])
    geese = popcount(state[GEESE])
    elephants = popcount(state[ELEPHANTS])
    if foxes == 0:
        return -1
    if geese == 0 and elephants == 0:
        return 1
    if elephants < 2 and geese == 0:
        return 1
    if geese < 4 and elephants == 0:
        return 1
    if foxes == 1 and elephants > 1:
        return -1
    if foxes == 1 and geese == 1 and elephants == 1:
        return 0
    return 2


@njit(cache=True, nogil=True)
def terminal(state):
    """NOT_OVER, or the result for the side to move (MATE won, -MATE lost, 0 drawn).

    A mover without a legal move is left to the search (it scores that as a loss).
    """
    decided = result(state)
    if decided != 2:
        return decided * state[SIDE_SLOT] * MATE
    if state[PLY_SLOT] >= MOVE_LIMIT:
        return 0
    return NOT_OVER


@njit(cache=True, nogil=True, inline="always")
def _steps(out, count, pieces, empty):
    """Every step of a piece on `pieces` to an adjacent `empty` point, pushed onto `out`."""
    for i in range(POINTS.shape[0]):
        p = POINTS[i]
        if not pieces & bit(p):
            continue
        for d in range(4):
            q = NEXT[p, d]
            if q >= 0 and empty & bit(q):
                count = push(out, count, p | q << 10)
    return count


@njit(cache=True, nogil=True)
def generate(state, out, captures_only):
    """Legal moves of the side to move into `out` (jumps first); none once the game is over."""
    if result(state) != 2 or state[PLY_SLOT] >= MOVE_LIMIT:
        return 0
    foxes, geese, elephants = state[FOXES], state[GEESE], state[ELEPHANTS]
    empty = state[OPEN] & ~(foxes | geese | elephants)
    count = 0
    if state[SIDE_SLOT] > 0:
        for i in range(POINTS.shape[0]):
            p = POINTS[i]
            if not foxes & bit(p):
                continue
            for d in range(4):
                q = NEXT[p, d]
                if q >= 0 and geese & bit(q):
                    r = BEYOND[p, d]
                    if r >= 0 and empty & bit(r):
                        count = push(out, count, p | r << 10)
        if not captures_only:
            count = _steps(out, count, foxes, empty)
    elif not captures_only:
        count = _steps(out, count, geese | elephants, empty)
    return min(count, out.shape[0])


@njit(cache=True, nogil=True)
def _toggle(key, kind, changed):
    """`key` with the Zobrist entries of `kind` on every point of `changed` flipped."""
    while changed:
        low = changed & -changed
        p = 0
        while (np.int64(1) << p) != low:
            p += 1
        key ^= ZOBRIST[kind, p]
        changed ^= low
    return key


@njit(cache=True, nogil=True)
def make(state, move):
    """Play `move` in place with its removals and the round's end; returns the undo slot."""
    sp = state[SP]
    base = STACK + FRAME * sp
    foxes, geese, elephants, open_ = state[FOXES], state[GEESE], state[ELEPHANTS], state[OPEN]
    key = state[KEY_SLOT]
    state[base] = foxes
    state[base + 1] = geese
    state[base + 2] = elephants
    state[base + 3] = open_
    state[base + 4] = key
    state[SP] = sp + 1
    side = state[SIDE_SLOT]
    start = move & 1023
    end = (move >> 10) & 1023
    moved = bit(start) | bit(end)
    if side > 0:
        new_foxes = foxes ^ moved
        new_geese = geese
        if end - start == 2 or start - end == 2 or end - start == 14 or start - end == 14:
            new_geese = geese & ~bit((start + end) >> 1)
        new_elephants = elephants
    else:
        new_foxes = foxes
        if geese & bit(start):
            new_geese = geese ^ moved
            new_elephants = elephants
        else:
            new_geese = geese
            new_elephants = elephants ^ moved
    gone = caught(new_foxes, new_geese, new_elephants, open_)
    new_foxes &= ~gone
    new_elephants &= ~gone
    new_open = open_
    if state[SHRINK] and side < 0:
        left = popcount(new_foxes | new_geese | new_elephants)
        if left == 8 or left == 4:
            occupied = new_foxes | new_geese | new_elephants
            for arm in range(4):
                mask = ARM_MASKS[arm]
                if (open_ & mask) == mask and (occupied & mask) == 0:
                    new_open = open_ & ~mask
                    key ^= ZOBRIST_ARM[arm]
                    break
    key = _toggle(key, 0, foxes ^ new_foxes)
    key = _toggle(key, 1, geese ^ new_geese)
    key = _toggle(key, 2, elephants ^ new_elephants)
    state[FOXES] = new_foxes
    state[GEESE] = new_geese
    state[ELEPHANTS] = new_elephants
    state[OPEN] = new_open
    state[KEY_SLOT] = key ^ ZOBRIST_SIDE
    state[SIDE_SLOT] = -side
    state[PLY_SLOT] += 1
    return sp


@njit(cache=True, nogil=True)
def unmake(state, move, undo):
    """Take back `move` given the slot `make` returned."""
    base = STACK + FRAME * undo
    state[FOXES] = state[base]
    state[GEESE] = state[base + 1]
    state[ELEPHANTS] = state[base + 2]
    state[OPEN] = state[base + 3]
    state[KEY_SLOT] = state[base + 4]
    state[SP] = undo
    state[SIDE_SLOT] = -state[SIDE_SLOT]
    state[PLY_SLOT] -= 1


@njit(cache=True, nogil=True)
def key(state):
    return state[KEY_SLOT]


def legal_moves(position: rules.Position) -> list[rules.Move]:
    """The kernels' move list for `position`, decoded (for differential tests)."""
    state = state_from_position(position)
    out = np.zeros(MAX_MOVES, dtype=np.int64)
    count = generate(state, out, False)
    return [decode(int(move)) for move in out[:count]]


def play(position: rules.Position, move: rules.Move) -> rules.Position:
    """`move` played by the kernels, back as a rules position (for differential tests)."""
    state = state_from_position(position)
    make(state, encode(move))
    return position_from_state(state)
