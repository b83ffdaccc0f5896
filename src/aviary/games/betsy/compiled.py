"""Betsy's engine on its search compiled ahead of time: it answers without numba.

`make_engine(game)` is the same engine as `engine.make_engine` (same kernels, same
evaluation and its default switches, null-move pruning, the same search) on the C
extension that `aviary warmup` builds (`aviary.search.aot`), or None when that extension
is not built for the current sources: the course command's engine child and the warm
server then load numba's.
"""

from __future__ import annotations

from aviary.games.betsy import quick, rules
from aviary.games.betsy.searcher import BetsySearcher
from aviary.games.engine import Engine
from aviary.search import compiled

GAME = "betsy"


def make_engine(game: rules.Betsy) -> Engine[rules.Position, rules.Move] | None:
    """The engine for `game` on the compiled extension, or None where it is not built."""
    search = compiled.load(GAME)
    if search is None:
        return None
    return Engine(game, BetsySearcher(kernels=search), quick.best_move)


def warmup() -> None:
    """Build the extension where a C compiler is present (once per source change)."""
    from aviary.games.betsy import engine
    from aviary.search import aot

    aot.warmup(GAME, engine.KERNELS)
