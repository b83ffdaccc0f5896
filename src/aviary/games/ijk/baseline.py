"""The textbook IJK player: the yardstick the engine's strength is measured against.

What the course write-ups did: minimax with alpha-beta pruning to depth 5 in the
deterministic mode, expectiminimax to depth 3 (player moves; every empty cell
equally likely at the chance nodes) in the non-deterministic one, no
transposition table, moves in the order U D L R (S), and the evaluation
"empty cells + letter-weighted difference of upper- and lower-case tiles"
(A = 1 ... K = 11) from the point of view of the player to move at the root.
It runs on the same compiled kernels as the engine, so a comparison at equal
time measures search and evaluation, not the speed of Python.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from aviary.errors import NoMoveError
from aviary.games.engine import MovePlayer
from aviary.games.ijk import kernels, rules
from aviary.games.ijk.kernels import CELLS, FRAME_SLOT, N_SLOT, NOT_OVER, SIDE
from aviary.search.deepening import textbook_deepening

WIN = 1_000_000
DET_DEPTH = 5
NONDET_DEPTH = 3


@njit(cache=True, nogil=True)
def evaluate(state, root):
    """Empty cells + sum of upper levels - sum of lower levels, for the root player `root`."""
    base = kernels.frame(state)
    n = state[N_SLOT]
    empty = 0
    letters = 0
    for cell in range(n * n):
        value = state[base + cell]
        if value == 0:
            empty += 1
        letters += value
    return empty + root * letters


@njit(cache=True, nogil=True)
def search(state, depth, ply, alpha, beta, root, buffers, stop, counter):
    """Expectiminimax from `root`'s point of view (alpha-beta at the player nodes).

    depth counts player moves, ply every edge (buffers has a row per ply and a
    last row for the chance weights); counter[1] gets the best root move,
    counter[2] is set when the search is stopped (its result is then worthless).
    """
    counter[0] += 1
    if (counter[0] & 1023) == 0 and stop[0] != 0:
        counter[2] = 1
    if counter[2]:
        return 0
    won = kernels.winner(state)
    if won != NOT_OVER:
        return won * root * WIN
    moves = buffers[ply]
    weights = buffers[buffers.shape[0] - 1]
    count = kernels.chance(state, moves, weights)
    if count > 0:  # the average over the empty cells
        total = 0
        for i in range(count):
            kernels.make(state, moves[i])
            total += search(state, depth, ply + 1, -3 * WIN, 3 * WIN, root, buffers, stop,
                            counter)
            kernels.unmake(state, moves[i], 0)
        return total // count
    if depth == 0:
        return evaluate(state, root)
    count = kernels.generate(state, moves, False)
    maximizing = state[kernels.frame(state) + SIDE] == root
    best = -3 * WIN if maximizing else 3 * WIN
    for i in range(count):
        move = moves[i]
        kernels.make(state, move)
        score = search(state, depth - 1, ply + 1, alpha, beta, root, buffers, stop, counter)
        kernels.unmake(state, move, 0)
        if counter[2]:
            return 0
        if maximizing:
            if score > best:
                best = score
                if ply == 0:
                    counter[1] = move
            alpha = max(alpha, score)
        else:
            best = min(best, score)
            beta = min(beta, score)
        if alpha >= beta:
            break
    return best


def _search(state: np.ndarray, depth: int, stop: np.ndarray) -> int | None:
    """Best root move (kernel code) at `depth`, or None if stopped first."""
    buffers = np.zeros((2 * depth + 2, CELLS), dtype=np.int64)
    counter = np.zeros(3, dtype=np.int64)
    root = int(state[kernels.frame(state) + SIDE])
    search(state, depth, 0, -3 * WIN, 3 * WIN, root, buffers, stop, counter)
    state[FRAME_SLOT] = 0
    return None if counter[2] else int(counter[1])


class Baseline:
    """The textbook player of one game's settings (variant and mode)."""

    def __init__(self, game: rules.IJK) -> None:
        self.game = game

    def best_move(self, position: rules.Position, *, depth: int | None = None,
                  time: float | None = None) -> rules.Move:
        """The textbook move: to the textbook depth, or within `time` seconds (the
        deepest depth finished, never deeper than the textbook depth or `depth`)."""
        moves = self.game.legal_moves(position)
        if not moves or position.chance:
            raise NoMoveError(f"player {position.player} has no move to make")
        game = self.game
        state = kernels.state_from_position(position, game.variant, game.deterministic)
        cap = depth or (DET_DEPTH if game.deterministic else NONDET_DEPTH)
        best = textbook_deepening(lambda plies, stop: _search(state, plies, stop), cap, time)
        return kernels.decode(best) if best is not None else moves[0]


def make_engine(game: rules.IJK) -> MovePlayer[rules.Position, rules.Move]:
    """The baseline as a registered player (`aviary:baseline` in the arena)."""
    return MovePlayer(game, Baseline(game).best_move, warmup)


def warmup() -> None:
    """Compile (or load from cache) the baseline's kernels."""
    for mode in ("det", "nondet"):
        game = rules.IJK(mode=mode)
        Baseline(game).best_move(game.play(game.start(), "R") if mode == "det"
                                 else game.start(), depth=2)
