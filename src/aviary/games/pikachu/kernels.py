"""Pikachu as numba kernels over one int64 array: the speed behind `rules.py`'s truth.

The state array holds n, the side to move, an incrementally updated Zobrist key
and both sides' piece counts (slots 0-3), then the board, so the search core
copies nothing per node. Kernels follow the contract of `aviary.search.alphabeta`
(generate, make, unmake, evaluate, key, order, terminal); `tests/games/pikachu` checks
them move-for-move and perft-for-perft against `rules.py`.

Cells: 0 empty, +1/-1 white/black Pichu, +2/-2 white/black Pikachu.
Side: +1 white (moves toward higher rows), -1 black.
Move: `start | end << 10 | (captured + 1) << 20` (captured + 1 = 0: no capture),
so the low 20 bits (start, end) identify a move for the history heuristic.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from aviary.games.pikachu import rules
from aviary.search.alphabeta import CAPTURE_BONUS, MATE, NOT_OVER
from aviary.search.kernels import push

MAX_N = rules.KERNEL_MAX_N  # 10 bits per square in the move encoding
N_SLOT, SIDE_SLOT, KEY_SLOT, COUNT_SLOT = 0, 1, 2, 3
BOARD = 4  # board cells start here
BLACK_COUNT = 1 << 16  # COUNT_SLOT = white pieces + black pieces * BLACK_COUNT
SQUARE_BITS = 10
SQUARE_MASK = (1 << SQUARE_BITS) - 1

_CELL = {".": 0, "w": 1, "W": 2, "b": -1, "B": -2}
_CHAR = {value: char for char, value in _CELL.items()}

# Zobrist keys: one per (cell value + 2, square), one for black to move.
_rng = np.random.default_rng(20261122)
ZOBRIST = _rng.integers(1, 2**62, size=(5, MAX_N * MAX_N), dtype=np.int64)
ZOBRIST[2, :] = 0  # empty squares contribute nothing
ZOBRIST_SIDE = np.int64(_rng.integers(1, 2**62))


def state_from_position(position: rules.Position) -> np.ndarray:
    """The kernel state array of `position` (n must be at most MAX_N)."""
    n = position.n
    if not rules.kernels_reach(position):
        raise ValueError(f"kernels support n <= {MAX_N}, got {n}")
    state = np.zeros(BOARD + n * n, dtype=np.int64)
    state[N_SLOT] = n
    state[SIDE_SLOT] = 1 if position.player == "w" else -1
    for square, char in enumerate(position.board):
        state[BOARD + square] = _CELL[char]
    state[KEY_SLOT] = full_key(state)
    state[COUNT_SLOT] = piece_counts(state)
    return state


def board_from_state(state: np.ndarray) -> str:
    n = int(state[N_SLOT])
    return "".join(_CHAR[int(value)] for value in state[BOARD : BOARD + n * n])


def encode(move: rules.Move) -> int:
    return int(pack(move.start, move.end, -1 if move.captured is None else move.captured))


def decode(move: int) -> rules.Move:
    start, end, captured = unpack(move)
    return rules.Move(int(start), int(end), None if captured < 0 else int(captured))


@njit(cache=True, nogil=True)
def full_key(state):
    """Zobrist key computed from scratch (make/unmake keep it up to date incrementally)."""
    n = state[N_SLOT]
    key = np.int64(0)
    for square in range(n * n):
        key ^= ZOBRIST[state[BOARD + square] + 2, square]
    if state[SIDE_SLOT] < 0:
        key ^= ZOBRIST_SIDE
    return key


@njit(cache=True, nogil=True)
def piece_counts(state):
    """COUNT_SLOT computed from scratch (make/unmake keep it up to date on captures)."""
    n = state[N_SLOT]
    counts = 0
    for square in range(n * n):
        piece = state[BOARD + square]
        if piece > 0:
            counts += 1
        elif piece < 0:
            counts += BLACK_COUNT
    return counts


@njit(cache=True, nogil=True, inline="always")
def pack(start, end, captured):
    """The move code of start -> end, jumping the piece on `captured` (-1: none)."""
    return start | end << SQUARE_BITS | (captured + 1) << (2 * SQUARE_BITS)


@njit(cache=True, nogil=True, inline="always")
def unpack(move):
    """(start, end, captured square or -1) of a move code."""
    return (move & SQUARE_MASK, (move >> SQUARE_BITS) & SQUARE_MASK,
            (move >> (2 * SQUARE_BITS)) - 1)


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


def move_buffer_size(n: int) -> int:
    """Room for every legal move: generous for real positions, and generate() never overflows."""
    return max(256, 4 * n * n)


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
