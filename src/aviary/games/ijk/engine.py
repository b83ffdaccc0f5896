"""The IJK player: an evaluation kernel plus the shared search core's settings.

Deterministic mode is a perfect-information game (the new tile's cell is a
function of the board): the alpha-beta core searches it with its transposition
table. Non-deterministic mode adds the chance kernel, and the same core runs
expectiminimax with Star1/Star2 pruning between `chance_bounds`.

Evaluation (from the side to move; `Weights`, one set per mode, chosen by games of
a match script now in git history, figures in docs/games/ijk.md; today's figures are
arena runs on docs/benchmarks.md):
- the course variant is won by the higher highest letter, so each side's highest
  letter counts steeply (highest * 2**level);
- material: every tile is worth 2**level (the A-tiles it took to build it);
- threats: two equal letters of opposite cases that meet when the board slides
  (adjacent in a row or column, only empty cells between) are a capture for the
  side to move, who merges them into its own case; the biggest one counts;
- fill (det): a full board ends the game, so every occupied cell counts for the
  side whose highest letter leads by `margin` letters (the leader closes the
  board, the side behind keeps it open);
- merge (off: not tried by games): each side's biggest merge of its own tiles.
In the non-deterministic mode game results are scored +-WIN, just above every
evaluation, so that the bounds Star1/Star2 prune with are tight.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any, NamedTuple

import numpy as np
from numba import cfunc, njit

from aviary.games.engine import Engine, Searcher
from aviary.games.ijk import kernels, quick, rules
from aviary.games.ijk.kernels import DET_SLOT, MATE, N_SLOT, NOT_OVER, SIDE
from aviary.games.textbook import Textbook
from aviary.search import alphabeta
from aviary.search.clock import DEEPEN_TO_DEADLINE, Limit
from aviary.search.kernels import search_kernels, textbook_kernels

EVAL_LIMIT = 200_000
WIN = EVAL_LIMIT + 1


class Weights(NamedTuple):
    """The evaluation's parts, each a whole-number weight (0 turns a part off)."""

    highest: int = 4  # times 2**level of each side's highest letter (on top of material)
    threat: int = 3  # times 2**level the biggest capture of the side to move makes
    fill: int = 0  # per occupied cell, for the side whose highest letter leads ...
    margin: int = 1  # ... by at least this many letters
    merge: int = 0  # times 2**level of each side's biggest merge of its own tiles


DET = Weights(fill=16, margin=3)  # what the strength benchmark kept (docs/games/ijk.md)
NONDET = Weights()  # filling the board lost games with random tiles: no fill part


def default_weights(deterministic: bool) -> Weights:
    """The engine's weights for a mode (each measured by games, docs/games/ijk.md)."""
    return DET if deterministic else NONDET


@njit(cache=True, nogil=True, inline="always")
def _capture(waiting, value):
    """The level a capture of `waiting` by `value` makes, 0 if they do not merge across cases."""
    if waiting == -value and waiting != 0:
        return (value if value > 0 else -value) + 1
    return 0


@njit(cache=True, nogil=True, inline="always")
def _merge(waiting, value):
    """The level merging two equal letters of one case makes (+ upper, - lower), else 0."""
    if waiting == value and waiting != 0:
        return value + 1 if value > 0 else value - 1
    return 0


@njit(cache=True, nogil=True)
def evaluate_with(state, weights):
    """The evaluation for the side to move with `weights` (a plain tuple in `Weights` order)."""
    highest_weight, threat_weight, fill_weight, margin, merge_weight = weights
    base = kernels.frame(state)
    n = state[N_SLOT]
    side = state[base + SIDE]
    material = 0
    upper = 0
    lower = 0
    empty = 0
    for cell in range(n * n):
        value = state[base + cell]
        if value > 0:
            material += 1 << value
            upper = max(upper, value)
        elif value < 0:
            material -= 1 << -value
            lower = max(lower, -value)
        else:
            empty += 1
    capture = 0
    merge_upper = 0
    merge_lower = 0
    for line in range(n):
        previous_row = 0
        previous_col = 0
        for k in range(n):
            value = state[base + line * n + k]
            if value != 0:
                capture = max(capture, _capture(previous_row, value))
                made = _merge(previous_row, value)
                merge_upper = max(merge_upper, made)
                merge_lower = max(merge_lower, -made)
                previous_row = value
            value = state[base + k * n + line]
            if value != 0:
                capture = max(capture, _capture(previous_col, value))
                made = _merge(previous_col, value)
                merge_upper = max(merge_upper, made)
                merge_lower = max(merge_lower, -made)
                previous_col = value
    lead = (upper >= lower + margin) - (lower >= upper + margin)
    score = material + highest_weight * ((1 << upper) - (1 << lower))
    score += fill_weight * lead * (n * n - empty)
    if merge_weight:
        score += merge_weight * ((1 << merge_upper if merge_upper else 0)
                                 - (1 << merge_lower if merge_lower else 0))
    score = score * side + (threat_weight << capture if capture else 0)
    return max(-EVAL_LIMIT, min(EVAL_LIMIT, score))


_DET = tuple(DET)  # plain tuples: numba freezes them into the cached evaluation
_NONDET = tuple(NONDET)


@njit(cache=True, nogil=True)
def evaluate(state):
    """The evaluation with the engine's weights for the state's mode, for the side to move."""
    return evaluate_with(state, _DET if state[DET_SLOT] else _NONDET)


@njit(cache=True, nogil=True)
def terminal_chance(state):
    """Game results as +-WIN (just outside the evaluations) for the expectimax bounds."""
    result = kernels.terminal(state)
    if result == NOT_OVER:
        return NOT_OVER
    return result // MATE * WIN


# The search core takes kernels as first-class functions (see aviary.search.kernels).
KERNELS = search_kernels(kernels, evaluate=evaluate)
CHANCE_KERNELS = search_kernels(kernels, chance=True, evaluate=evaluate,
                                terminal=terminal_chance)
# The textbook opponent (`aviary:textbook`): the same kernels with the plain evaluation.
TEXTBOOK_KERNELS = textbook_kernels(kernels, kernels.plain_evaluate, chance=True)


def make_textbook(game: rules.IJK) -> Textbook[rules.Position, rules.Move]:
    """The textbook opponent for `game` (`aviary.games.textbook`)."""
    return Textbook(game, IJKSearcher(game), TEXTBOOK_KERNELS)


def _weighted(weights: Weights) -> Any:
    """A compiled evaluation kernel for other weights (not cached on disk: for tuning runs)."""
    frozen = tuple(int(weight) for weight in weights)

    @cfunc(alphabeta.EVALUATE, nogil=True)
    def evaluate_weighted(state):  # pragma: no cover (compiled)
        return evaluate_with(state, frozen)

    return evaluate_weighted


class IJKSearcher(Searcher[rules.Position, rules.Move]):
    """IJK positions as kernel arrays for one game's variant and mode; it deepens to the
    deadline (see `make_engine`)."""

    depth_share = DEEPEN_TO_DEADLINE

    def __init__(self, game: rules.IJK, weights: Weights | None = None) -> None:
        self.game = game
        self.weights = weights = weights or default_weights(game.deterministic)
        chosen = KERNELS if game.deterministic else CHANCE_KERNELS
        if weights != default_weights(game.deterministic):
            chosen = chosen._replace(evaluate=_weighted(weights))
        self.kernels = chosen
        if not game.deterministic:
            self.chance_bounds = (-WIN, WIN)
        self.stop_when_decided = True

    def decided(self, score: int) -> bool:
        """A chance root worth WIN is won whatever tiles come (a chance node is the floor
        of its outcomes' mean, WIN only if every outcome is), so no deeper search finds a
        better move. (A root at -WIN may be a mean just above it, floored: search on.)"""
        return self.stop_when_decided and not self.game.deterministic and score >= WIN

    def state_array(self, state: rules.Position) -> np.ndarray:
        return kernels.state_from_position(state, self.game.variant, self.game.deterministic)

    def move(self, state: rules.Position, code: int) -> rules.Move:
        return kernels.decode(code)

    def key(self, state: rules.Position) -> int:
        return int(kernels.key(self.state_array(state)))

    def kernel_moves(self, state: rules.Position) -> list[rules.Move]:
        return kernels.legal_moves(self.state_array(state))

    def shape(self, state: rules.Position) -> tuple[Hashable, int]:
        return (self.game.variant, self.game.deterministic), kernels.CELLS


def make_engine(game: rules.IJK, weights: Weights | None = None
                ) -> Engine[rules.Position, rules.Move]:
    """The engine for `game` (its variant and mode); other `weights` for tuning runs.

    It searches until the deadline: stopping once 45% of the time had gone (the
    generic engine's guess that the next depth would not finish) scored 3/12
    against this engine at 0.05 s a move (docs/games/ijk.md): `IJKSearcher.depth_share`.
    It still stops when the result is decided (`IJKSearcher.decided`, proven `det` results).
    """
    return Engine(game, IJKSearcher(game, weights), quick.best_move)


def warmup() -> None:
    """Compile (or load from cache) every kernel the engine uses."""
    for mode in ("det", "nondet"):
        game = rules.IJK(mode=mode)
        for _ in make_engine(game).think(game.start(), Limit(depth=2)):
            pass
        for _ in make_textbook(game).think(game.start(), Limit(depth=2)):
            pass
