"""The IJK player: an evaluation kernel plus the shared search core's settings.

Deterministic mode is a perfect-information game (the new tile's cell is a
function of the board): the alpha-beta core searches it with its transposition
table. Non-deterministic mode adds the chance kernel, and the same core runs
expectiminimax with Star1/Star2 pruning between `chance_bounds`.

Evaluation (from the side to move; weights set by hand and checked, not tuned, by
`benchmarks/ijk_strength.py`: there was no time for tuning runs of games this long):
- the course variant is won by the higher highest letter, so each side's highest
  letter counts steeply (HIGHEST * 2**level);
- material: every tile is worth 2**level (the A-tiles it took to build it);
- threats: two equal letters of opposite cases that meet when the board slides
  (adjacent in a row or column, only empty cells between) are a capture for the
  side to move, who merges them into its own case; the biggest one counts.
In the non-deterministic mode game results are scored +-WIN, just above every
evaluation, so that the bounds Star1/Star2 prune with are tight.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator

import numpy as np
from numba import cfunc, njit

from aviary.games.engine import Engine, Report, Searcher
from aviary.games.ijk import kernels, quick, rules
from aviary.games.ijk.kernels import MATE, N_SLOT, NOT_OVER, SIDE
from aviary.search import alphabeta, expectimax
from aviary.search.clock import Limit

HIGHEST = 4
THREAT = 3  # times 2**level of the biggest capture the side to move has
EVAL_LIMIT = 200_000
WIN = EVAL_LIMIT + 1


@njit(cache=True, nogil=True, inline="always")
def _threat(waiting, value):
    """The level a capture of `waiting` by `value` makes, 0 if they do not merge across cases."""
    if waiting == -value and waiting != 0:
        return (value if value > 0 else -value) + 1
    return 0


@njit(cache=True, nogil=True)
def evaluate(state):
    """Highest letters, material and the biggest capture at hand, for the side to move."""
    base = kernels.frame(state)
    n = state[N_SLOT]
    side = state[base + SIDE]
    material = 0
    upper = 0
    lower = 0
    for cell in range(n * n):
        value = state[base + cell]
        if value > 0:
            material += 1 << value
            upper = max(upper, value)
        elif value < 0:
            material -= 1 << -value
            lower = max(lower, -value)
    capture = 0
    for line in range(n):  # rows, then columns: neighbours across empty cells
        previous_row = 0
        previous_col = 0
        for k in range(n):
            value = state[base + line * n + k]
            if value != 0:
                capture = max(capture, _threat(previous_row, value))
                previous_row = value
            value = state[base + k * n + line]
            if value != 0:
                capture = max(capture, _threat(previous_col, value))
                previous_col = value
    score = material + HIGHEST * ((1 << upper) - (1 << lower))
    score = score * side + (THREAT << capture if capture else 0)
    return max(-EVAL_LIMIT, min(EVAL_LIMIT, score))


@njit(cache=True, nogil=True)
def terminal_chance(state):
    """Game results as +-WIN (just outside the evaluations) for the expectimax bounds."""
    result = kernels.terminal(state)
    if result == NOT_OVER:
        return NOT_OVER
    return result // MATE * WIN


@cfunc(alphabeta.GENERATE, cache=True, nogil=True)
def _generate(state, out, captures_only):
    return kernels.generate(state, out, captures_only)


@cfunc(alphabeta.MAKE, cache=True, nogil=True)
def _make(state, move):
    return kernels.make(state, move)


@cfunc(alphabeta.UNMAKE, cache=True, nogil=True)
def _unmake(state, move, undo):
    kernels.unmake(state, move, undo)


@cfunc(alphabeta.EVALUATE, cache=True, nogil=True)
def _evaluate(state):
    return evaluate(state)


@cfunc(alphabeta.KEY, cache=True, nogil=True)
def _key(state):
    return kernels.key(state)


@cfunc(alphabeta.ORDER, cache=True, nogil=True)
def _order(state, move):
    return kernels.order(state, move)


@cfunc(alphabeta.TERMINAL, cache=True, nogil=True)
def _terminal(state):
    return kernels.terminal(state)


@cfunc(alphabeta.TERMINAL, cache=True, nogil=True)
def _terminal_chance(state):
    return terminal_chance(state)


@cfunc(expectimax.CHANCE, cache=True, nogil=True)
def _chance(state, outcomes, weights):
    return kernels.chance(state, outcomes, weights)


KERNELS = (_generate, _make, _unmake, _evaluate, _key, _order, _terminal)
CHANCE_KERNELS = (_generate, _make, _unmake, _evaluate, _key, _order, _terminal_chance,
                  _chance)


class IJKSearcher(Searcher[rules.Position, rules.Move]):
    """IJK positions as kernel arrays for one game's variant and mode."""

    def __init__(self, game: rules.IJK) -> None:
        self.game = game
        if game.deterministic:
            self.kernels = KERNELS
        else:
            self.kernels = CHANCE_KERNELS
            self.chance_bounds = (-WIN, WIN)

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


def make_engine(game: rules.IJK) -> Engine[rules.Position, rules.Move]:
    """The engine for `game` (its variant and mode)."""
    return Engine(game, IJKSearcher(game), quick.best_move)


_engines: dict[tuple[str, str], Engine[rules.Position, rules.Move]] = {}


def engine_for(variant: str = "course", mode: str = "det") -> Engine[rules.Position, rules.Move]:
    """One shared engine per variant and mode (its tables survive across moves)."""
    if (variant, mode) not in _engines:
        _engines[variant, mode] = make_engine(rules.IJK(variant=variant, mode=mode))
    return _engines[variant, mode]


def think(game: rules.IJK, position: rules.Position, limit: Limit
          ) -> Iterator[Report[rules.Move]]:
    """A `Report` after each completed depth until `limit`; nothing if the game is over."""
    return engine_for(game.variant, str(game.settings["mode"])).think(position, limit)


def warmup() -> None:
    """Compile (or load from cache) every kernel the engine uses."""
    for mode in ("det", "nondet"):
        game = rules.IJK(mode=mode)
        for _ in think(game, game.start(), Limit(depth=2)):
            pass
