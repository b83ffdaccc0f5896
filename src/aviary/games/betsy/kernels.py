"""Betsy as numba kernels over one int64 array: the speed behind `rules.py`'s truth.

A mailbox board with precomputed target tables (knight and Kingfisher steps, the
eight rays of every square): on an 8x8 board without check, castling or en passant
this is short, and measured fast enough (`benchmarks/betsy_speed.py`). The state
array (the board, the side to move, the Kingfisher variant, both Kingfishers' squares
and an incrementally updated Zobrist key) and the move codes are laid out in
`layout.py`, which is plain Python; this module re-exports it. The search copies
nothing per node. Kernels follow `aviary.search.alphabeta`'s contract; `tests/games/betsy` checks
them move-for-move and perft-for-perft against `rules.py`.

Cells: 0 empty, 1..6 Parakeet, Nighthawk, Blue jay, Robin, Quetzal, Kingfisher
(white positive, black negative). Side: +1 white (moves toward row 8), -1 black.
Move: `start | end << 10` (a Parakeet reaching the far row always becomes a Quetzal,
so nothing else needs saying). `make`/`unmake` also take the search's null move
`PASS` (the side to move turns, nothing else): refused, as the search's contract
allows, for a side left with only its Kingfisher and Parakeets, where having to move
can be what loses (zugzwang), so a pass says nothing about the position.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from aviary.games.betsy import layout, rules
from aviary.games.betsy.layout import (  # noqa: F401 - re-exported: the layout
    BLACK_KING_SLOT,
    BLUE_JAY,
    BOARD,
    DIAGONAL_SLOT,
    FEATURES_SLOT,
    KEY_SLOT,
    KING_STEPS_ALL,
    KING_STEPS_ORTHOGONAL,
    KINGFISHER,
    KNIGHT_STEPS,
    MAX_MOVES,
    NIGHTHAWK,
    PARAKEET,
    QUETZAL,
    RAYS,
    ROBIN,
    SIDE_SLOT,
    STATE_SIZE,
    WHITE_KING_SLOT,
    ZOBRIST,
    ZOBRIST_SIDE,
    board_from_state,
    decode,
    encode,
    position_from_state,
    state_from_position,
)
from aviary.games.betsy.tables import PST
from aviary.search.alphabeta import CAPTURE_BONUS, MATE, NOT_OVER, PASS
from aviary.search.kernels import push

# the layout's function the kernels call, compiled
full_key = njit(cache=True, nogil=True)(layout.full_key)


@njit(cache=True, nogil=True)
def generate(state, out, captures_only):
    """Legal moves of the side to move into `out`; returns how many (capped at len(out)).

    None once either Kingfisher is gone (the game is over). `captures_only` gives the
    moves quiescence tries: captures, and Parakeet steps onto the far row (promotions).
    """
    if state[WHITE_KING_SLOT] < 0 or state[BLACK_KING_SLOT] < 0:
        return 0
    me = state[SIDE_SLOT]
    count = 0
    for square in range(64):
        piece = state[BOARD + square] * me  # > 0: mine
        if piece <= 0:
            continue
        if piece == PARAKEET:
            row = square >> 3
            col = square & 7
            ahead = row + me
            if ahead < 0 or ahead > 7:
                continue
            promotes = ahead == 0 or ahead == 7
            one = square + 8 * me
            if state[BOARD + one] == 0 and (promotes or not captures_only):
                count = push(out, count, square | one << 10)
                two = one + 8 * me
                from_start = (me > 0 and row == 1) or (me < 0 and row == 6)
                if not captures_only and from_start and state[BOARD + two] == 0:
                    count = push(out, count, square | two << 10)
            if col > 0 and state[BOARD + one - 1] * me < 0:
                count = push(out, count, square | (one - 1) << 10)
            if col < 7 and state[BOARD + one + 1] * me < 0:
                count = push(out, count, square | (one + 1) << 10)
        elif piece in (NIGHTHAWK, KINGFISHER):
            if piece == NIGHTHAWK:
                table = KNIGHT_STEPS
            elif state[DIAGONAL_SLOT]:
                table = KING_STEPS_ALL
            else:
                table = KING_STEPS_ORTHOGONAL
            for k in range(1, table[square, 0] + 1):
                target = table[square, k]
                there = state[BOARD + target] * me
                if there < 0 or (there == 0 and not captures_only):
                    count = push(out, count, square | target << 10)
        else:
            first = 4 if piece == BLUE_JAY else 0
            last = 4 if piece == ROBIN else 8
            for d in range(first, last):
                for k in range(1, RAYS[d, square, 0] + 1):
                    target = RAYS[d, square, k]
                    there = state[BOARD + target] * me
                    if there > 0:
                        break
                    if there < 0:
                        count = push(out, count, square | target << 10)
                        break
                    if not captures_only:
                        count = push(out, count, square | target << 10)
    return min(count, out.shape[0])


@njit(cache=True, nogil=True)
def pass_turn(state):
    """The null move: 0 once the side to move has turned, -1 (nothing done) for a side
    with no Nighthawk, Blue jay, Robin or Quetzal."""
    me = state[SIDE_SLOT]
    for square in range(64):
        if NIGHTHAWK <= state[BOARD + square] * me <= QUETZAL:
            state[SIDE_SLOT] = -me
            state[KEY_SLOT] ^= ZOBRIST_SIDE
            return 0
    return -1


@njit(cache=True, nogil=True)
def make(state, move):
    """Play `move` in place; returns the undo token (captured cell + 6, promotion bit 16).

    `PASS`: see `pass_turn`."""
    if move == PASS:
        return pass_turn(state)
    me = state[SIDE_SLOT]
    start = move & 1023
    end = (move >> 10) & 1023
    piece = state[BOARD + start]
    victim = state[BOARD + end]
    key = state[KEY_SLOT] ^ ZOBRIST[piece + 6, start] ^ ZOBRIST[victim + 6, end] ^ ZOBRIST_SIDE
    undo = victim + 6
    if victim == KINGFISHER:
        state[WHITE_KING_SLOT] = -1
    elif victim == -KINGFISHER:
        state[BLACK_KING_SLOT] = -1
    if piece == me * PARAKEET and (end >> 3 == 7 or end >> 3 == 0):
        piece = me * QUETZAL
        undo |= 16
    elif piece == KINGFISHER:
        state[WHITE_KING_SLOT] = end
    elif piece == -KINGFISHER:
        state[BLACK_KING_SLOT] = end
    state[BOARD + start] = 0
    state[BOARD + end] = piece
    state[KEY_SLOT] = key ^ ZOBRIST[piece + 6, end]
    state[SIDE_SLOT] = -me
    return undo


@njit(cache=True, nogil=True)
def unmake(state, move, undo):
    """Take back `move` given the token `make` returned."""
    if move == PASS:
        state[SIDE_SLOT] = -state[SIDE_SLOT]
        state[KEY_SLOT] ^= ZOBRIST_SIDE
        return
    me = -state[SIDE_SLOT]
    start = move & 1023
    end = (move >> 10) & 1023
    piece = state[BOARD + end]
    victim = (undo & 15) - 6
    key = state[KEY_SLOT] ^ ZOBRIST[piece + 6, end] ^ ZOBRIST[victim + 6, end] ^ ZOBRIST_SIDE
    if undo & 16:
        piece = me * PARAKEET
    elif piece == KINGFISHER:
        state[WHITE_KING_SLOT] = start
    elif piece == -KINGFISHER:
        state[BLACK_KING_SLOT] = start
    if victim == KINGFISHER:
        state[WHITE_KING_SLOT] = end
    elif victim == -KINGFISHER:
        state[BLACK_KING_SLOT] = end
    state[BOARD + end] = victim
    state[BOARD + start] = piece
    state[KEY_SLOT] = key ^ ZOBRIST[piece + 6, start]
    state[SIDE_SLOT] = me


@njit(cache=True, nogil=True)
def key(state):
    return state[KEY_SLOT]


ORDER_VALUE = np.array([0, 1, 3, 3, 5, 9, 100], dtype=np.int64)


@njit(cache=True, nogil=True)
def order(state, move):
    """Static ordering bonus: captures by victim (the Kingfisher first), then promotions."""
    start = move & 1023
    end = (move >> 10) & 1023
    piece = abs(state[BOARD + start])
    victim = abs(state[BOARD + end])
    bonus = 0
    if victim:
        bonus = CAPTURE_BONUS + 1000 * ORDER_VALUE[victim] - ORDER_VALUE[piece]
    if piece == PARAKEET and (end >> 3 == 7 or end >> 3 == 0):
        bonus += 900_000
    return bonus


@njit(cache=True, nogil=True)
def terminal(state):
    """NOT_OVER while both Kingfishers live; else -MATE (the mover's was taken) or MATE.

    A mover without a legal move is left to the search, which scores it as lost.
    """
    mine = state[WHITE_KING_SLOT] if state[SIDE_SLOT] > 0 else state[BLACK_KING_SLOT]
    theirs = state[BLACK_KING_SLOT] if state[SIDE_SLOT] > 0 else state[WHITE_KING_SLOT]
    if mine < 0:
        return -MATE
    if theirs < 0:
        return MATE
    return NOT_OVER


def legal_moves(position: rules.Position, captures_only: bool = False) -> list[rules.Move]:
    """The kernels' move list for `position`, decoded (for differential tests)."""
    state = state_from_position(position)
    out = np.zeros(MAX_MOVES, dtype=np.int64)
    count = generate(state, out, captures_only)
    return [decode(int(move)) for move in out[:count]]


PLAIN_VALUE = np.array([0, 100, 320, 330, 500, 900, 0], dtype=np.int64)


@njit(cache=True, nogil=True)
def plain_evaluate(state):
    """The course write-ups' evaluation for the side to move: material (100, 320, 330, 500,
    900 for Parakeet, Nighthawk, Blue jay, Robin, Quetzal) plus the piece-square tables of
    `tables.py` (the Kingfisher's middle-game one throughout), the side to move's minus the
    opponent's (the textbook opponent's evaluation, `aviary.search.textbook`)."""
    score = 0
    for square in range(64):
        piece = state[BOARD + square]
        if piece > 0:
            score += PLAIN_VALUE[piece] + PST[piece, square]
        elif piece < 0:
            score -= PLAIN_VALUE[-piece] + PST[-piece, square ^ 56]
    return score * state[SIDE_SLOT]
