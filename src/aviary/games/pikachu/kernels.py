"""Pikachu as numba kernels over one int64 array: the speed behind `rules.py`'s truth.

The state array (n, the side to move, an incrementally updated Zobrist key and both
sides' piece counts, then the board) and the move codes are laid out in `layout.py`,
which is plain Python; this module re-exports it and compiles the layout functions
its kernels call. The search core copies nothing per node. Kernels follow the
contract of `aviary.search.alphabeta` (generate, make, unmake, evaluate, key, order,
terminal); `tests/games/pikachu` checks them move-for-move and perft-for-perft against
`rules.py`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from aviary.games.pikachu import layout, rules
from aviary.games.pikachu.layout import (  # noqa: F401 - re-exported: the layout
    BLACK_COUNT,
    BOARD,
    COUNT_SLOT,
    KEY_SLOT,
    MAX_N,
    N_SLOT,
    SIDE_SLOT,
    SQUARE_BITS,
    SQUARE_MASK,
    ZOBRIST,
    ZOBRIST_SIDE,
    board_from_state,
    decode,
    encode,
    move_buffer_size,
    state_from_position,
)
from aviary.search.alphabeta import CAPTURE_BONUS, MATE, NOT_OVER
from aviary.search.kernels import push

# the layout's functions the kernels call, compiled
full_key = njit(cache=True, nogil=True)(layout.full_key)
piece_counts = njit(cache=True, nogil=True)(layout.piece_counts)
pack = njit(cache=True, nogil=True, inline="always")(layout.pack)
unpack = njit(cache=True, nogil=True, inline="always")(layout.unpack)


@njit(cache=True, nogil=True)
def _moves(state, side, out, captures_only):
    """Every legal move of `side` (captures only if `captures_only`) counted, and written
    into `out` while it has room: `generate` lists them, `count_moves` only counts."""
    n = state[N_SLOT]
    count = 0
    for square in range(n * n):
        piece = state[BOARD + square] * side  # > 0: mine
        if piece <= 0:
            continue
        row = square // n
        col = square - row * n
        for direction in range(4):
            # 0 forward, 1 left, 2 right, 3 backward (Pikachu only)
            if direction == 0:
                drow, dcol = side, 0
            elif direction == 1:
                drow, dcol = 0, -1
            elif direction == 2:
                drow, dcol = 0, 1
            else:
                if piece == 1:
                    break
                drow, dcol = -side, 0
            r = row + drow
            c = col + dcol
            if piece == 1:
                if r < 0 or r >= n or c < 0 or c >= n:
                    continue
                target = r * n + c
                there = state[BOARD + target] * side
                if there == 0:
                    if not captures_only:
                        count = push(out, count, pack(square, target, -1))
                elif there < 0:
                    r2 = r + drow
                    c2 = c + dcol
                    if 0 <= r2 < n and 0 <= c2 < n and state[BOARD + r2 * n + c2] == 0:
                        count = push(out, count, pack(square, r2 * n + c2, target))
            else:
                captured = -1
                while 0 <= r < n and 0 <= c < n:
                    here = r * n + c
                    there = state[BOARD + here] * side
                    if there == 0:
                        if captured >= 0 or not captures_only:
                            count = push(out, count, pack(square, here, captured))
                    elif there < 0 and captured < 0:
                        captured = here
                    else:
                        break
                    r += drow
                    c += dcol
    return count


@njit(cache=True, nogil=True)
def generate(state, out, captures_only):
    """Legal moves of the side to move into `out`; returns how many (capped at len(out))."""
    return min(_moves(state, state[SIDE_SLOT], out, captures_only), out.shape[0])


@njit(cache=True, nogil=True)
def count_moves(state, side):
    """How many legal moves `side` would have (the mobility term), without listing them."""
    return _moves(state, side, np.empty(0, dtype=np.int64), False)


@njit(cache=True, nogil=True)
def make(state, move):
    """Play `move` in place; returns the undo token (captured cell + 2, promotion bit)."""
    n = state[N_SLOT]
    me = state[SIDE_SLOT]
    start, end, captured = unpack(move)
    piece = state[BOARD + start]
    key = state[KEY_SLOT] ^ ZOBRIST[piece + 2, start] ^ ZOBRIST_SIDE
    undo = 2
    if captured >= 0:
        victim = state[BOARD + captured]
        undo = victim + 2
        key ^= ZOBRIST[victim + 2, captured]
        state[BOARD + captured] = 0
        state[COUNT_SLOT] -= BLACK_COUNT if victim < 0 else 1
    state[BOARD + start] = 0
    row = end // n
    if piece == me and ((me > 0 and row == n - 1) or (me < 0 and row == 0)):
        piece = 2 * me
        undo |= 8
    state[BOARD + end] = piece
    state[KEY_SLOT] = key ^ ZOBRIST[piece + 2, end]
    state[SIDE_SLOT] = -me
    return undo


@njit(cache=True, nogil=True)
def unmake(state, move, undo):
    """Take back `move` given the token `make` returned."""
    me = -state[SIDE_SLOT]
    start, end, captured = unpack(move)
    piece = state[BOARD + end]
    key = state[KEY_SLOT] ^ ZOBRIST[piece + 2, end] ^ ZOBRIST_SIDE
    if undo & 8:
        piece = me
    state[BOARD + end] = 0
    state[BOARD + start] = piece
    key ^= ZOBRIST[piece + 2, start]
    if captured >= 0:
        victim = (undo & 7) - 2
        state[BOARD + captured] = victim
        key ^= ZOBRIST[victim + 2, captured]
        state[COUNT_SLOT] += BLACK_COUNT if victim < 0 else 1
    state[KEY_SLOT] = key
    state[SIDE_SLOT] = me


@njit(cache=True, nogil=True)
def key(state):
    return state[KEY_SLOT]


@njit(cache=True, nogil=True)
def terminal(state):
    """-MATE when the side to move has no piece left, MATE when the other side has none,
    else NOT_OVER (`rules.winner` by pieces).

    A side with pieces but no move loses too; the search finds that by generating moves.
    """
    counts = state[COUNT_SLOT]
    white = counts % BLACK_COUNT
    black = counts // BLACK_COUNT
    mine, theirs = (white, black) if state[SIDE_SLOT] > 0 else (black, white)
    if mine == 0:
        return -MATE
    return MATE if theirs == 0 else NOT_OVER


@njit(cache=True, nogil=True)
def order(state, move):
    """Static ordering bonus: captures by victim value, then promotions, then advances."""
    start, end, captured = unpack(move)
    n = state[N_SLOT]
    me = state[SIDE_SLOT]
    bonus = 0
    if captured >= 0:
        victim = abs(state[BOARD + captured])
        attacker = abs(state[BOARD + start])
        bonus = CAPTURE_BONUS + 1000 * victim - attacker
    if state[BOARD + start] == me:
        row = end // n
        if (me > 0 and row == n - 1) or (me < 0 and row == 0):
            bonus += 900_000
    return bonus


def legal_moves(position: rules.Position) -> list[rules.Move]:
    """The kernels' move list for `position`, decoded (for differential tests)."""
    state = state_from_position(position)
    out = np.zeros(move_buffer_size(position.n), dtype=np.int64)
    count = generate(state, out, False)
    return [decode(int(move)) for move in out[:count]]


@njit(cache=True, nogil=True)
def plain_evaluate(state):
    """The course write-ups' evaluation, doubled to stay in integers, for the side to move.

    5 per Pichu, 10 more for each in the opponent's half, 25 per Pikachu, 0.5 per
    legal move, each counted for the side to move minus the opponent (the textbook
    opponent's evaluation, `aviary.search.textbook`).
    """
    n = state[N_SLOT]
    me = state[SIDE_SLOT]
    score = 0
    for square in range(n * n):
        piece = state[BOARD + square]
        if piece == 0:
            continue
        sign = 1 if piece * me > 0 else -1
        if piece == 2 or piece == -2:
            score += 50 * sign
        else:
            row = square // n
            in_opponent_half = 2 * row > n - 1 if piece > 0 else 2 * row < n - 1
            score += (30 if in_opponent_half else 10) * sign
    return score + count_moves(state, me) - count_moves(state, -me)
