"""The course's AI interface: `from aviary.games.ijk.dropin import next_move`.

The course driver calls `next_move(game)` and keeps the last move the generator
yielded before its timeout. `game` is the driver's own Game object, used only
through `getGame()` (rows of one-character strings, `' '` empty),
`getCurrentPlayer()` (`'+'` or `'-'`) and `getDeterministic()`; nothing of the
course's code is imported. The board's size tells the variant (6x6 course,
4x4 handout). The first move comes from rules.py in milliseconds; then one move
per completed search depth, each at least as well founded as the one before.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from aviary.games import registry
from aviary.games.ijk import quick, rules
from aviary.search.clock import Limit

THINKING_SECONDS = 10.0  # a cap: the generator ends by then even if nobody stops reading


def position_of(game: Any) -> tuple[rules.IJK, rules.Position]:
    """Our game settings and position from the course driver's Game object."""
    rows = game.getGame()
    board = "".join("." if cell in (" ", "", None) else str(cell) for row in rows for cell in row)
    variant = "course" if len(rows) == 6 else "handout"
    ijk = rules.IJK(variant=variant, mode="det" if game.getDeterministic() else "nondet")
    return ijk, ijk.parse(board, game.getCurrentPlayer())


def next_move(game: Any, seconds: float = THINKING_SECONDS) -> Iterator[str]:
    """Yield better and better moves ('U', 'D', 'L', 'R') for the player to move."""
    ijk, position = position_of(game)
    if ijk.outcome(position) is not None:
        return
    yield str(quick.best_move(position))
    spec = registry.spec(ijk.name)
    engine = spec.engine(spec.main_engine, ijk)  # numba: loaded after the first answer is out
    for report in engine.think(position, Limit(time=seconds)):
        if isinstance(report.move, str) and report.move in rules.DIRECTIONS:
            yield report.move
