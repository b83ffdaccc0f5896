"""Pikachu's engine on its search compiled ahead of time: it answers without numba.

`make_engine(game)` is the same engine as `engine.make_engine` (same kernels, same
evaluation, the same search, the same endgame tables) on the C extension that
`aviary warmup` builds (`aviary.search.aot`), or None when that extension is not built
for the current sources: the course command's engine child then loads numba's.
"""

from __future__ import annotations

from aviary.games.engine import Engine
from aviary.games.pikachu import endgame, quick, rules
from aviary.games.pikachu.searcher import PikachuSearcher
from aviary.search import compiled

GAME = "pikachu"


def make_engine(game: rules.Pikachu) -> Engine[rules.Position, rules.Move] | None:
    """The engine for `game` on the compiled extension, or None where it is not built."""
    search = compiled.load(GAME)
    if search is None:
        return None
    return Engine(game, PikachuSearcher(search), quick.best_move, tables=endgame.probe)


def warmup() -> None:
    """Build the extension where a C compiler is present (once per source change)."""
    from aviary.games.pikachu import engine
    from aviary.search import aot

    aot.warmup(GAME, engine.KERNELS)
