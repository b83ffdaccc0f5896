"""How Fox-Geese positions reach a search, without numba: the searcher both engines share.

The engine on numba's JIT (`engine.py`) gives it the compiled kernels; the one on the
search compiled ahead of time (`compiled.py`) gives it a `CompiledSearch`, and then
nothing here loads numba (`layout.py` is plain Python). Every variant (classic,
elephants, the shrinking board) is the same kernels on the same state array: the
variant is in the board and the shrink slot, so one search serves them all.
"""

from __future__ import annotations

import numpy as np

from aviary.games.engine import Searcher
from aviary.games.foxgeese import layout, rules
from aviary.search.compiled import CompiledSearch
from aviary.search.report import Kernels


class FoxGeeseSearcher(Searcher[rules.Position, rules.Move]):
    """Positions as kernel arrays; one workspace per side serves every variant."""

    def __init__(self, kernels: Kernels | CompiledSearch | None = None) -> None:
        if kernels is not None:
            self.kernels = kernels

    def state_array(self, state: rules.Position) -> np.ndarray | None:
        return layout.search_state(state)

    def move(self, state: rules.Position, code: int) -> rules.Move:
        return layout.decode(code)

    def shape(self, state: rules.Position) -> tuple[str, int]:
        # scores carry the searching side's contempt: one transposition table per side
        return state.player, layout.MAX_MOVES

    def key(self, state: rules.Position) -> int | None:
        return int(layout.search_state(state)[layout.KEY_SLOT])

    def kernel_moves(self, state: rules.Position) -> list[rules.Move] | None:
        from aviary.games.foxgeese import kernels  # numba's

        return kernels.legal_moves(state)
