"""Perft over a game's compiled kernels, once for every game: the leaves of the move tree.

The kernels' check number: a game's tests count the move tree to a depth with the
kernels (`count`) and with the rules (`aviary.games.base.Game.perft`) and expect
the known totals from both. The kernels come as the search takes them (`cfunc`s of
`aviary.search.alphabeta`'s signatures), so one compiled perft, cached on disk,
serves every game.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from aviary.search.report import Kernels, TextbookKernels


@njit(cache=True, nogil=True)
def _perft(state, depth, buffers, generate, make, unmake):
    moves = buffers[depth]
    count = generate(state, moves, False)
    if depth == 1:
        return count
    total = 0
    for i in range(count):
        move = moves[i]
        undo = make(state, move)
        total += _perft(state, depth - 1, buffers, generate, make, unmake)
        unmake(state, move, undo)
    return total


def count(state: np.ndarray, depth: int, kernels: Kernels | TextbookKernels,
          max_moves: int) -> int:
    """Leaves of the move tree `depth` plies below kernel `state` (1 at depth 0), counted
    with the `generate`, `make` and `unmake` kernels; `max_moves` bounds a position's moves.

    The same convention as the rules' perft: a position with no legal move is a dead
    end (no leaf below it), whether or not the game is over there.
    """
    if depth == 0:
        return 1
    buffers = np.zeros((depth + 1, max_moves), dtype=np.int64)
    return int(_perft(state.copy(), depth, buffers, kernels.generate, kernels.make,
                      kernels.unmake))


@njit(cache=True, nogil=True)
def _generate(state, out, generate):
    return generate(state, out, False)


def moves(state: np.ndarray, kernels: Kernels | TextbookKernels, max_moves: int) -> list[int]:
    """The move codes the `generate` kernel gives kernel `state`, every move (not only
    captures); `max_moves` bounds a position's moves."""
    out = np.zeros(max_moves, dtype=np.int64)
    count = int(_generate(state.copy(), out, kernels.generate))
    return [int(code) for code in out[:min(count, max_moves)]]
