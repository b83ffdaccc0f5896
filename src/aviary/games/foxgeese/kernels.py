"""Fox, Geese and Elephants as numba kernels over one int64 array: the speed behind `rules.py`.

The state array (one int64 bitboard per kind of piece and one of the points still
open, the side to move, the ply counter, the shrink option, an incrementally updated
Zobrist key and an undo stack) and the move codes are laid out in `layout.py`, which
is plain Python; this module re-exports it and compiles the layout function its
kernels call. `make` plays a move *with* its consequences (trapped foxes and pinched
elephants removed, an arm closed at a round's end), so it saves the four bitboards and
the key on the undo stack inside the array and returns the stack slot; `unmake`
restores them. Kernels follow the contract of `aviary.search.alphabeta`;
`tests/games/foxgeese` checks them move-for-move and perft-for-perft against `rules.py`.

Move: `start | end << 10`; a jump is a move of two points, the goose between.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from aviary.games.foxgeese import layout, rules
from aviary.games.foxgeese.layout import (  # noqa: F401 - re-exported: the layout
    ARM_MASKS,
    BEYOND,
    CROSS,
    ELEPHANTS,
    FOXES,
    FRAME,
    GEESE,
    KEY_SLOT,
    MAX_MOVES,
    NEXT,
    OPEN,
    PLY_SLOT,
    POINTS,
    ROOT_PLY,
    ROOT_SIDE,
    SHRINK,
    SIDE_SLOT,
    SIZE,
    SP,
    STACK,
    STACK_DEPTH,
    STATE_SIZE,
    ZOBRIST,
    ZOBRIST_ARM,
    ZOBRIST_SIDE,
    board_from_state,
    decode,
    encode,
    position_from_state,
    search_state,
    state_from_position,
)
from aviary.search.alphabeta import MATE, NOT_OVER
from aviary.search.kernels import push

MOVE_LIMIT = rules.MOVE_LIMIT

# the layout's function the kernels call, compiled
_key_of = njit(cache=True, nogil=True)(layout.key_of)


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
