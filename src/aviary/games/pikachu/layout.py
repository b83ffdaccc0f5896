"""Pikachu's kernel state array and move codes in plain Python: no numba needed.

The compiled kernels (`kernels.py`) and the engine compiled ahead of time
(`aviary.search.compiled`) share this layout; the functions here run as plain Python
where a command must not wait for numba (a position made into a state array, a move
code read back), and `kernels.py` compiles the ones its kernels call.

The state array holds n, the side to move, an incrementally updated Zobrist key
and both sides' piece counts (slots 0-3), then the board.
Cells: 0 empty, +1/-1 white/black Pichu, +2/-2 white/black Pikachu.
Side: +1 white (moves toward higher rows), -1 black.
Move: `start | end << 10 | (captured + 1) << 20` (captured + 1 = 0: no capture),
so the low 20 bits (start, end) identify a move for the history heuristic.
"""

from __future__ import annotations

import numpy as np

from aviary.games.pikachu import rules

MAX_N = rules.KERNEL_MAX_N  # 10 bits per square in the move encoding
N_SLOT, SIDE_SLOT, KEY_SLOT, COUNT_SLOT = 0, 1, 2, 3
BOARD = 4  # board cells start here
BLACK_COUNT = 1 << 16  # COUNT_SLOT = white pieces + black pieces * BLACK_COUNT
SQUARE_BITS = 10
SQUARE_MASK = (1 << SQUARE_BITS) - 1

CELL = {".": 0, "w": 1, "W": 2, "b": -1, "B": -2}
CHAR = {value: char for char, value in CELL.items()}

# Zobrist keys: one per (cell value + 2, square), one for black to move.
_rng = np.random.default_rng(20261122)
ZOBRIST = _rng.integers(1, 2**62, size=(5, MAX_N * MAX_N), dtype=np.int64)
ZOBRIST[2, :] = 0  # empty squares contribute nothing
ZOBRIST_SIDE = np.int64(_rng.integers(1, 2**62))


def full_key(state):  # compiled by kernels.py too
    """Zobrist key computed from scratch (make/unmake keep it up to date incrementally)."""
    n = state[N_SLOT]
    key = np.int64(0)
    for square in range(n * n):
        key ^= ZOBRIST[state[BOARD + square] + 2, square]
    if state[SIDE_SLOT] < 0:
        key ^= ZOBRIST_SIDE
    return key


def piece_counts(state):  # compiled by kernels.py too
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


def pack(start, end, captured):  # compiled by kernels.py too
    """The move code of start -> end, jumping the piece on `captured` (-1: none)."""
    return start | end << SQUARE_BITS | (captured + 1) << (2 * SQUARE_BITS)


def unpack(move):  # compiled by kernels.py too
    """(start, end, captured square or -1) of a move code."""
    return (move & SQUARE_MASK, (move >> SQUARE_BITS) & SQUARE_MASK,
            (move >> (2 * SQUARE_BITS)) - 1)


def state_from_position(position: rules.Position) -> np.ndarray:
    """The kernel state array of `position` (n must be at most MAX_N)."""
    n = position.n
    if not rules.kernels_reach(position):
        raise ValueError(f"kernels support n <= {MAX_N}, got {n}")
    state = np.zeros(BOARD + n * n, dtype=np.int64)
    state[N_SLOT] = n
    state[SIDE_SLOT] = 1 if position.player == "w" else -1
    state[BOARD:] = [CELL[char] for char in position.board]
    state[KEY_SLOT] = full_key(state)
    state[COUNT_SLOT] = piece_counts(state)
    return state


def board_from_state(state: np.ndarray) -> str:
    n = int(state[N_SLOT])
    return "".join(CHAR[int(value)] for value in state[BOARD : BOARD + n * n])


def encode(move: rules.Move) -> int:
    return int(pack(move.start, move.end, -1 if move.captured is None else move.captured))


def decode(move: int) -> rules.Move:
    start, end, captured = unpack(int(move))
    return rules.Move(int(start), int(end), None if captured < 0 else int(captured))


def move_buffer_size(n: int) -> int:
    """Room for every legal move: generous for real positions, and generate() never overflows."""
    return max(256, 4 * n * n)
