"""The Betsy player: an evaluation kernel plus the shared search core's settings.

Evaluation (centipawn-like, from the side to move): material that changes with
the phase (PeSTO's middle-game and endgame values), the piece-square tables in
`tables.py` with the Kingfisher's middle-game table fading into its endgame one,
and check-free Kingfisher safety: every opposing Nighthawk, Blue jay, Robin or
Quetzal within two squares of a Kingfisher costs its side, more while the board
is full. There is no check in Betsy, so a hanging Kingfisher is simply taken: the
search sees that through the game's end (a captured Kingfisher ends the game, and
the quiescence search tries Kingfisher captures first), not through a huge
material term. The search runs with null-move pruning (the kernels' `make` knows the
pass and refuses it to a side with only its Kingfisher and Parakeets, where having to
move can lose). What each part bought was measured by games, with a match script
that is now in git history (docs/games/betsy.md, "Design notes and earlier
measurements"); today's figures are arena runs on docs/benchmarks.md.

`make_engine(game)` wraps these kernels in the shared anytime engine
(`aviary.games.engine`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from aviary.games.betsy import kernels, quick, rules, searcher
from aviary.games.betsy.kernels import (
    BLACK_KING_SLOT,
    BOARD,
    FEATURES_SLOT,
    KNIGHT_STEPS,
    RAYS,
    SIDE_SLOT,
    WHITE_KING_SLOT,
)
from aviary.games.betsy.searcher import (  # noqa: F401 - re-exported: the switches
    DEFAULT_FEATURES,
    MOBILITY,
    NULL_MOVE,
    SAFETY,
    TAPER,
)
from aviary.games.betsy.tables import PST
from aviary.games.engine import Engine
from aviary.games.textbook import Textbook
from aviary.search import alphabeta
from aviary.search.clock import Limit
from aviary.search.kernels import search_kernels, textbook_kernels

# index: cell kind (1 Parakeet .. 6 Kingfisher); PeSTO's values
MIDDLE = np.array([0, 82, 337, 365, 477, 1025, 0], dtype=np.int64)
END = np.array([0, 94, 281, 297, 512, 936, 0], dtype=np.int64)
PHASE = np.array([0, 0, 1, 1, 2, 4, 0], dtype=np.int64)
FULL_PHASE = 24  # both sides' Nighthawks, Blue jays, Robins and Quetzals
# Kingfisher safety: cost of an opposing piece within two squares, at full phase
NEAR_KINGFISHER = np.array([0, 0, 25, 20, 30, 60, 0], dtype=np.int64)
MOBILITY_WEIGHT = np.array([0, 0, 4, 4, 2, 1, 0], dtype=np.int64)  # per reachable square
LOST = alphabeta.MATE // 2 - 1  # a side without its Kingfisher (the terminal kernel decides)


@njit(cache=True, nogil=True)
def mobility(state, square, kind):
    """Squares a Nighthawk, Blue jay, Robin or Quetzal on `square` could move to."""
    me = 1 if state[BOARD + square] > 0 else -1
    count = 0
    if kind == 2:
        for k in range(1, KNIGHT_STEPS[square, 0] + 1):
            if state[BOARD + KNIGHT_STEPS[square, k]] * me <= 0:
                count += 1
        return count
    first = 4 if kind == 3 else 0
    last = 4 if kind == 4 else 8
    for d in range(first, last):
        for k in range(1, RAYS[d, square, 0] + 1):
            there = state[BOARD + RAYS[d, square, k]] * me
            if there > 0:
                break
            count += 1
            if there < 0:
                break
    return count


@njit(cache=True, nogil=True)
def evaluate(state):
    """Tapered material, piece-square tables, Kingfisher safety and mobility, for the mover."""
    side = state[SIDE_SLOT]
    features = state[FEATURES_SLOT]
    white_king = state[WHITE_KING_SLOT]
    black_king = state[BLACK_KING_SLOT]
    if white_king < 0 or black_king < 0:  # the game is over: the terminal kernel's call
        mine = white_king if side > 0 else black_king
        return -LOST if mine < 0 else LOST
    middle = 0
    end = 0
    phase = 0
    danger = 0  # white's Kingfisher danger minus black's
    moves = 0  # white's weighted mobility minus black's
    safety = features & SAFETY
    count_moves = features & MOBILITY
    wk_row, wk_col = white_king >> 3, white_king & 7
    bk_row, bk_col = black_king >> 3, black_king & 7
    for square in range(64):
        piece = state[BOARD + square]
        if piece == 0:
            continue
        row = square >> 3
        col = square & 7
        if piece > 0:
            kind = piece
            if kind == 6:
                middle += PST[6, square]
                end += PST[7, square]
                continue
            middle += MIDDLE[kind] + PST[kind, square]
            end += END[kind] + PST[kind, square]
            if safety and max(abs(row - bk_row), abs(col - bk_col)) <= 2:
                danger -= NEAR_KINGFISHER[kind]
            if count_moves and kind > 1:
                moves += MOBILITY_WEIGHT[kind] * mobility(state, square, kind)
        else:
            kind = -piece
            mirrored = square ^ 56
            if kind == 6:
                middle -= PST[6, mirrored]
                end -= PST[7, mirrored]
                continue
            middle -= MIDDLE[kind] + PST[kind, mirrored]
            end -= END[kind] + PST[kind, mirrored]
            if safety and max(abs(row - wk_row), abs(col - wk_col)) <= 2:
                danger += NEAR_KINGFISHER[kind]
            if count_moves and kind > 1:
                moves -= MOBILITY_WEIGHT[kind] * mobility(state, square, kind)
        phase += PHASE[kind]
    if features & TAPER:
        phase = min(phase, FULL_PHASE)
        score = (middle * phase + end * (FULL_PHASE - phase)) // FULL_PHASE
    else:
        phase = FULL_PHASE
        score = middle
    score += moves - danger * phase // FULL_PHASE
    return score * side


# The search core takes kernels as first-class functions (see aviary.search.kernels).
KERNELS = search_kernels(kernels, evaluate=evaluate)
# The textbook opponent (`aviary:textbook`): the same kernels with the plain evaluation.
TEXTBOOK_KERNELS = textbook_kernels(kernels, kernels.plain_evaluate)


def make_textbook(game: rules.Betsy) -> Textbook[rules.Position, rules.Move]:
    """The textbook opponent for `game` (`aviary.games.textbook`)."""
    return Textbook(game, BetsySearcher(), TEXTBOOK_KERNELS)


class BetsySearcher(searcher.BetsySearcher):
    """The shared Betsy searcher (`searcher.py`) on numba's kernels."""

    kernels = KERNELS


def make_engine(
    game: rules.Betsy, features: int = DEFAULT_FEATURES, null_move: bool = NULL_MOVE
) -> Engine[rules.Position, rules.Move]:
    """The engine for `game` (either Kingfisher variant); `features` switch evaluation terms,
    `null_move` the search's null-move pruning."""
    return Engine(game, BetsySearcher(features, null_move), quick.best_move)


def warmup() -> None:
    """Compile (or load from cache) every kernel the engine uses."""
    position = rules.start_position()
    BetsySearcher().perft(position, 2)
    kernels.legal_moves(position)
    kernels.terminal(kernels.state_from_position(position))
    for _ in make_engine(rules.Betsy()).think(position, Limit(depth=3)):
        pass
    for _ in make_textbook(rules.Betsy()).think(position, Limit(depth=2)):
        pass
