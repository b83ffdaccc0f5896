"""How Betsy positions reach a search, without numba: the searcher both engines share.

The engine on numba's JIT (`engine.py`) gives it the compiled kernels; the one on the
search compiled ahead of time (`compiled.py`) gives it a `CompiledSearch`, and then
nothing here loads numba (`layout.py` is plain Python).
"""

from __future__ import annotations

import numpy as np

from aviary.games.betsy import layout, rules
from aviary.games.engine import Searcher
from aviary.search.compiled import CompiledSearch
from aviary.search.report import Kernels

# evaluation switches (kernel state slot FEATURES_SLOT), for measuring what each buys
SAFETY, TAPER, MOBILITY = 1, 2, 4
DEFAULT_FEATURES = SAFETY | TAPER
NULL_MOVE = True  # null-move pruning by default: it won games (the README says how many)


class BetsySearcher(Searcher[rules.Position, rules.Move]):
    """Betsy positions as kernel arrays (the variant and the evaluation switches travel in
    it); `null_move` switches the search's null-move pruning (the kernels know the pass)."""

    def __init__(self, features: int = DEFAULT_FEATURES, null_move: bool = NULL_MOVE,
                 kernels: Kernels | CompiledSearch | None = None) -> None:
        self.features = features
        self.null_move = null_move
        if kernels is not None:
            self.kernels = kernels

    def state_array(self, state: rules.Position) -> np.ndarray | None:
        return layout.state_from_position(state, self.features)

    def move(self, state: rules.Position, code: int) -> rules.Move:
        return layout.decode(code)

    def shape(self, state: rules.Position) -> tuple[bool, int]:
        return state.diagonal, layout.MAX_MOVES

    def key(self, state: rules.Position) -> int | None:
        return int(layout.state_from_position(state)[layout.KEY_SLOT])

    def kernel_moves(self, state: rules.Position) -> list[rules.Move] | None:
        from aviary.games.betsy import kernels  # numba's

        return kernels.legal_moves(state)
