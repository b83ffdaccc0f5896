"""The textbook Betsy player: the yardstick the engine's strength is measured against.

What the course write-ups did: minimax with alpha-beta pruning, deepened one ply
at a time while the clock allows (a depth left unfinished is thrown away), moves
in generation order, no transposition table, no quiescence search; the
evaluation is material (100, 320, 330, 500, 900 for Parakeet, Nighthawk, Blue jay,
Robin, Quetzal) plus the piece-square tables of `tables.py` (the Kingfisher's
middle-game one throughout). A side whose Kingfisher is gone, or with no legal
move, has lost. It runs on the same compiled move generator as the engine, so a
comparison at equal time measures search and evaluation, not the speed of Python.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from aviary.errors import NoMoveError
from aviary.games.betsy import kernels, rules
from aviary.games.betsy.kernels import BOARD, MAX_MOVES, SIDE_SLOT
from aviary.games.betsy.tables import PST
from aviary.games.engine import MovePlayer
from aviary.search.deepening import textbook_deepening

WIN = 1_000_000
DEFAULT_DEPTH = 3
VALUE = np.array([0, 100, 320, 330, 500, 900, 0], dtype=np.int64)


@njit(cache=True, nogil=True)
def evaluate(state):
    """Material plus piece-square tables, from the side to move's point of view."""
    score = 0
    for square in range(64):
        piece = state[BOARD + square]
        if piece > 0:
            score += VALUE[piece] + PST[piece, square]
        elif piece < 0:
            score -= VALUE[-piece] + PST[-piece, square ^ 56]
    return score * state[SIDE_SLOT]


@njit(cache=True, nogil=True)
def alphabeta(state, depth, alpha, beta, buffers, stop, counter):
    """Negamax form of minimax with alpha-beta; returns the score, best root move in counter[1]."""
    counter[0] += 1
    if (counter[0] & 1023) == 0 and stop[0] != 0:
        counter[2] = 1
    if counter[2]:
        return 0
    moves = buffers[depth]
    count = kernels.generate(state, moves, False)
    if count == 0:  # Kingfisher taken, or no legal move: lost
        return -WIN - depth  # losing sooner is worse
    if depth == 0:
        return evaluate(state)
    best = -2 * WIN - 1000
    for i in range(count):
        move = moves[i]
        undo = kernels.make(state, move)
        score = -alphabeta(state, depth - 1, -beta, -alpha, buffers, stop, counter)
        kernels.unmake(state, move, undo)
        if counter[2]:
            return 0
        if score > best:
            best = score
            if score > alpha:
                alpha = score
            if buffers.shape[0] - 1 == depth:
                counter[1] = move
            if alpha >= beta:
                break
    return best


def _search(position: rules.Position, depth: int, stop: np.ndarray) -> int | None:
    """Best root move (kernel encoding) at `depth`, or None if stopped first."""
    state = kernels.state_from_position(position)
    buffers = np.zeros((depth + 1, MAX_MOVES), dtype=np.int64)
    counter = np.zeros(3, dtype=np.int64)
    alphabeta(state, depth, -3 * WIN, 3 * WIN, buffers, stop, counter)
    return None if counter[2] else int(counter[1])


def best_move(
    position: rules.Position, *, depth: int | None = None, time: float | None = None
) -> rules.Move:
    """The textbook move: to `depth` plies (default 3), or the deepest depth finished in `time`.

    With `time`, depths 1, 2, 3, ... are searched until the clock runs out (a
    deeper search is abandoned, not used half-done); `depth` then caps the depth.
    Raises NoMoveError when the side to move has no legal move.
    """
    moves = rules.legal_moves(position)
    if not moves:
        raise NoMoveError(f"player {position.player} has no legal move")
    if len(moves) == 1:
        return moves[0]
    cap = depth or (DEFAULT_DEPTH if time is None else 64)
    best = textbook_deepening(lambda plies, stop: _search(position, plies, stop), cap, time)
    return kernels.decode(best) if best is not None else moves[0]


def make_engine(game: rules.Betsy) -> MovePlayer[rules.Position, rules.Move]:
    """The baseline as a registered player (`aviary:baseline` in the arena)."""
    return MovePlayer(game, best_move, warmup)


def warmup() -> None:
    """Compile (or load from cache) the baseline's kernels."""
    best_move(rules.start_position(), depth=2)
    best_move(rules.start_position(), time=0.05)
