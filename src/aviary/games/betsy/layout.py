"""Betsy's kernel state array and move codes in plain Python: no numba needed.

The compiled kernels (`kernels.py`) and the engine compiled ahead of time
(`aviary.search.compiled`) share this layout; the functions here run as plain Python
where a command must not wait for numba (a position made into a state array, a move
code read back), and `kernels.py` compiles the one its kernels call (`full_key`).

The state array holds the side to move, an incrementally updated Zobrist key, the
Kingfisher variant, both Kingfishers' squares and the evaluation's switches (slots
0-5), then the board from slot BOARD.
Cells: 0 empty, 1..6 Parakeet, Nighthawk, Blue jay, Robin, Quetzal, Kingfisher
(white positive, black negative). Side: +1 white (moves toward row 8), -1 black.
Move: `start | end << 10` (a Parakeet reaching the far row always becomes a Quetzal,
so nothing else needs saying). The move tables (knight and Kingfisher steps, the eight
rays of every square) are made here too: plain numpy, read by the kernels.
"""

from __future__ import annotations

import numpy as np

from aviary.games.betsy import rules

SIDE_SLOT, KEY_SLOT, DIAGONAL_SLOT, WHITE_KING_SLOT, BLACK_KING_SLOT = 0, 1, 2, 3, 4
FEATURES_SLOT = 5  # the evaluation's switches (the engine's business; moves ignore it)
BOARD = 8  # board cells start here
STATE_SIZE = BOARD + 64
MAX_MOVES = 256  # more than any Betsy position has (chess's record is 218)

PARAKEET, NIGHTHAWK, BLUE_JAY, ROBIN, QUETZAL, KINGFISHER = 1, 2, 3, 4, 5, 6
_CELL = {".": 0, "P": 1, "N": 2, "B": 3, "R": 4, "Q": 5, "K": 6}
_CELL.update({char.lower(): -value for char, value in _CELL.items() if value})
_CHAR = {value: char for char, value in _CELL.items()}

# Zobrist keys: one per (cell value + 6, square), one for black to move.
_rng = np.random.default_rng(20261123)
ZOBRIST = _rng.integers(1, 2**62, size=(13, 64), dtype=np.int64)
ZOBRIST[6, :] = 0  # empty squares contribute nothing
ZOBRIST_SIDE = np.int64(_rng.integers(1, 2**62))


def _step_table(steps: tuple[tuple[int, int], ...]) -> np.ndarray:
    """targets[square, 0] = how many; targets[square, 1:] = the squares one step away."""
    table = np.full((64, len(steps) + 1), -1, dtype=np.int64)
    for square in range(64):
        row, col = divmod(square, 8)
        ends = [8 * (row + dr) + col + dc for dr, dc in steps
                if 0 <= row + dr < 8 and 0 <= col + dc < 8]
        table[square, 0] = len(ends)
        table[square, 1 : 1 + len(ends)] = ends
    return table


def _ray_table() -> np.ndarray:
    """rays[direction, square, 0] = length; then the squares in order (directions as rules)."""
    table = np.full((8, 64, 8), -1, dtype=np.int64)
    for d, (dr, dc) in enumerate(rules.ORTHOGONAL + rules.DIAGONAL):
        for square in range(64):
            ends = rules.ray_squares(square, dr, dc)
            table[d, square, 0] = len(ends)
            table[d, square, 1 : 1 + len(ends)] = ends
    return table


KNIGHT_STEPS = _step_table(rules.KNIGHT)
KING_STEPS_ORTHOGONAL = _step_table(rules.ORTHOGONAL)
KING_STEPS_ALL = _step_table(rules.ORTHOGONAL + rules.DIAGONAL)
RAYS = _ray_table()


def full_key(state):  # compiled by kernels.py too
    """Zobrist key computed from scratch (make/unmake keep it up to date incrementally)."""
    key = np.int64(0)
    for square in range(64):
        key ^= ZOBRIST[state[BOARD + square] + 6, square]
    if state[SIDE_SLOT] < 0:
        key ^= ZOBRIST_SIDE
    return key


def state_from_position(position: rules.Position, features: int = 0) -> np.ndarray:
    """The kernel state array of `position` (`features`: the evaluation's switches)."""
    state = np.zeros(STATE_SIZE, dtype=np.int64)
    state[FEATURES_SLOT] = features
    state[SIDE_SLOT] = 1 if position.player == "w" else -1
    state[DIAGONAL_SLOT] = int(position.diagonal)
    state[WHITE_KING_SLOT] = position.board.find("K")
    state[BLACK_KING_SLOT] = position.board.find("k")
    state[BOARD:] = [_CELL[char] for char in position.board]
    state[KEY_SLOT] = full_key(state)
    return state


def board_from_state(state: np.ndarray) -> str:
    return "".join(_CHAR[int(value)] for value in state[BOARD : BOARD + 64])


def position_from_state(state: np.ndarray) -> rules.Position:
    player: rules.Player = "w" if state[SIDE_SLOT] > 0 else "b"
    return rules.Position(board_from_state(state), player, bool(state[DIAGONAL_SLOT]))


def encode(move: rules.Move) -> int:
    return move.start | move.end << 10


def decode(move: int) -> rules.Move:
    return rules.Move(move & 1023, (move >> 10) & 1023)
