"""The Pikachu player: an evaluation kernel plus the shared search core's settings.

Evaluation (centipawn-like, from the side to move): a Pichu is 100, a Pikachu 450
(it slides and jumps along whole lines, and the course write-ups valued it at five
Pichus); Pichus earn more the closer they get to promotion, steeply on the last
two rows, because a promotion is nearly a free Pikachu. A lead is worth more as
material comes off (so the side ahead trades down), and once either side is down
to a few pieces mobility counts, so the hunter corners the last Pikachus instead
of chasing them around forever. Tactics (captures, recaptures, promotions) are
left to the quiescence search rather than guessed statically.

`make_engine(game)` wraps these kernels in the shared anytime engine
(`aviary.games.engine`; the registry builds and caches it per game settings). A
Pikachu-only ending small enough for the solved tables (`endgame.py`) is answered
from them instead: one Report with the table's move and its exact result.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from aviary.games.engine import Engine
from aviary.games.pikachu import endgame, kernels, quick, rules, searcher
from aviary.games.pikachu.kernels import BOARD, N_SLOT, SIDE_SLOT
from aviary.games.textbook import Textbook
from aviary.search.clock import Limit
from aviary.search.kernels import search_kernels, textbook_kernels

PICHU = 100
PIKACHU = 450


ENDGAME_PIECES = 4  # a side this small is hunted: mobility starts to count
MOBILITY = 6


@njit(cache=True, nogil=True)
def evaluate(state):
    """Material plus promotion pressure, white-positive, returned for the side to move."""
    n = state[N_SLOT]
    score = 0
    white = black = 0
    material = 0
    for square in range(n * n):
        piece = state[BOARD + square]
        if piece == 0:
            continue
        if piece > 0:
            white += 1
        else:
            black += 1
        if piece == 2:
            score += PIKACHU
            material += PIKACHU
        elif piece == -2:
            score -= PIKACHU
            material += PIKACHU
        else:
            material += PICHU
            row = square // n
            distance = n - 1 - row if piece > 0 else row  # rows left to promotion
            value = PICHU + 6 * (n - 1 - distance)
            if distance == 1:
                value += 90
            elif distance == 2:
                value += 35
            score += value if piece > 0 else -value
    # when ahead, trading down brings the win closer: the lead grows as material shrinks
    score += score * 300 // (material + 300)
    if white <= ENDGAME_PIECES or black <= ENDGAME_PIECES:
        # hunting down the last pieces: take away their squares, keep ours
        score += MOBILITY * (kernels.count_moves(state, 1) - kernels.count_moves(state, -1))
    return score * state[SIDE_SLOT]


# The search core takes kernels as first-class functions (see aviary.search.kernels).
KERNELS = search_kernels(kernels, evaluate=evaluate)


# The textbook opponent (`aviary:textbook`): the same kernels with the plain evaluation.
TEXTBOOK_KERNELS = textbook_kernels(kernels, kernels.plain_evaluate)


def make_textbook(game: rules.Pikachu) -> Textbook[rules.Position, rules.Move]:
    """The textbook opponent for `game` (`aviary.games.textbook`)."""
    return Textbook(game, PikachuSearcher(), TEXTBOOK_KERNELS, quick.best_move)


class PikachuSearcher(searcher.PikachuSearcher):
    """The shared Pikachu searcher (`searcher.py`) on numba's kernels."""

    kernels = KERNELS


def make_engine(game: rules.Pikachu) -> Engine[rules.Position, rules.Move]:
    """The engine for `game`; boards too large for the kernels get the quick player."""
    return Engine(game, PikachuSearcher(), quick.best_move, tables=endgame.probe)


def warmup() -> None:
    """Compile (or load from cache) every kernel the engine uses."""
    position = rules.start_position(8)
    PikachuSearcher().perft(position, 2)
    kernels.legal_moves(position)
    kernels.board_from_state(kernels.state_from_position(position))
    for _ in make_engine(rules.Pikachu(n=8)).think(position, Limit(depth=3)):
        pass
    for _ in make_textbook(rules.Pikachu(n=8)).think(position, Limit(depth=2)):
        pass
    state = kernels.state_from_position(position)
    np.testing.assert_equal(kernels.full_key(state), state[kernels.KEY_SLOT])
