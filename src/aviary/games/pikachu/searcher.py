"""How Pikachu positions reach a search, without numba: the searcher both engines share.

The engine on numba's JIT (`engine.py`) gives it the compiled kernels; the one on the
search compiled ahead of time (`compiled.py`) gives it a `CompiledSearch`, and then
nothing here loads numba (`layout.py` is plain Python).
"""

from __future__ import annotations

import numpy as np

from aviary.games.engine import Searcher
from aviary.games.pikachu import layout, rules
from aviary.search.compiled import CompiledSearch
from aviary.search.report import Kernels


class PikachuSearcher(Searcher[rules.Position, rules.Move]):
    """Pikachu positions as kernel arrays; boards the kernels do not reach are not searched."""

    def __init__(self, kernels: Kernels | CompiledSearch | None = None) -> None:
        if kernels is not None:
            self.kernels = kernels

    def state_array(self, state: rules.Position) -> np.ndarray | None:
        return layout.state_from_position(state) if rules.kernels_reach(state) else None

    def move(self, state: rules.Position, code: int) -> rules.Move:
        return layout.decode(code)

    def shape(self, state: rules.Position) -> tuple[int, int]:
        searched = state.n if rules.kernels_reach(state) else 0  # no arrays for the others
        return state.n, layout.move_buffer_size(searched)

    def key(self, state: rules.Position) -> int | None:
        array = self.state_array(state)
        return None if array is None else int(array[layout.KEY_SLOT])

    def kernel_moves(self, state: rules.Position) -> list[rules.Move] | None:
        from aviary.games.pikachu import kernels  # numba's

        return kernels.legal_moves(state) if rules.kernels_reach(state) else None
