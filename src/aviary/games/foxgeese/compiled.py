"""Fox-Geese's engine on its search compiled ahead of time: it answers without numba.

`make_engine(game)` is the same engine as `engine.make_engine` (same kernels, same
evaluation with its contempt and tie-break, the same search, the same endgame tables
and the fox's odds) on the C extension that `aviary warmup` builds
(`aviary.search.aot`), or None when that extension is not built for the current
sources: the course command's engine child and the warm server then load numba's.
One extension serves every variant (classic, elephants, the shrinking board): they
differ only in the state array the kernels read (`searcher.py`).
"""

from __future__ import annotations

from aviary.games.engine import Engine
from aviary.games.foxgeese import odds, quick, rules
from aviary.games.foxgeese.searcher import FoxGeeseSearcher
from aviary.search import compiled

GAME = "foxgeese"


def make_engine(game: rules.FoxGeese) -> Engine[rules.Position, rules.Move] | None:
    """The engine for `game` on the compiled extension, or None where it is not built."""
    search = compiled.load(GAME)
    if search is None:
        return None
    return Engine(game, FoxGeeseSearcher(search), quick.best_move, tables=odds.probe)


def warmup() -> None:
    """Build the extension where a C compiler is present (once per source change)."""
    from aviary.games.foxgeese import engine
    from aviary.search import aot

    aot.warmup(GAME, engine.KERNELS)
