"""The classic fox's odds against a depth-2 defender: how it plays a drawn ending to win.

Most of the solved endings (`endgame.py`) are draws with best play, and there the
tables leave the fox several moves that all keep the draw. Against a perfect
defender they are alike; against a fallible one they are not. The defender
modelled here is the depth-2 player (`depth2.py`, `aviary:depth2`, the course project's
player and the way most course programs play): its best-scored replies, ties
broken at random, include a losing one in 3,676 of the 6.6 M five-geese positions
and in 77,504 of the 1.1 M four-geese ones. A fox that knows where they are can
steer the game into them again and again until the defender slips.

For every geese-to-move position of every table of each board shape (the open
cross and the shrinking board's closed-arm shapes, `shapes.py`; the defender's
scoring runs on the shape's own points) the odds are the fox's chance to
win against that defender, each fox move discounting it by `DISCOUNT` (a sooner
win is worth more; without it a fox that picks by the chances put the win off for
ever), found by value iteration over the tables (`odds_kernels.py`): the fox takes
its best move, the defender each of its tied best replies with equal chance.
`probe` is the tables' probe with the fox playing, among the moves that keep the
draw, the one with the best odds: against a perfect defender it still draws, and
it never risks a loss.

The odds take about half an hour and 6.6 GB to build (most of it the open cross's
six-geese table), so `aviary warmup --deep` builds them (cached like the endgame
tables); without them the fox falls back to the share of losing replies. Reading
them needs no numpy, like the tables: the course command answers from here before
numba has loaded.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from aviary.cache import cache_dir, read_table, source_key, write_table
from aviary.games.base import TableUse, Verdict
from aviary.games.foxgeese import endgame, rules, shapes

if TYPE_CHECKING:
    import numpy as np

DISCOUNT = 0.98  # per fox move
ROUNDS = 300  # value-iteration steps: DISCOUNT ** 300 ~ 0.002, beyond what the play needs
SCALE = 32767  # odds are stored as int16, 0..SCALE
_SOURCES = ("aviary.games.foxgeese.odds_kernels", "aviary.games.foxgeese.depth2",
            "aviary.games.foxgeese.layout", "aviary.games.foxgeese.kernels",
            "aviary.games.foxgeese.endgame_kernels",
            "aviary.games.foxgeese.shapes", "aviary.games.foxgeese.rules",
            "aviary.search.retrograde")


def table_key() -> str:
    return source_key(_SOURCES, f"{DISCOUNT} {ROUNDS} {SCALE}")


def table_path(count: int, shape: int = 0) -> Path:
    name = f"foxgeese-fox-odds-v{count}-geese"
    if shape:
        name += f"-shape{shape}"
    return cache_dir() / f"{name}-{table_key()}.npz"


def _half(count: int, shape: int = 0) -> int:
    """How many positions of the `count`-geese table of `shape` have the geese to move."""
    return endgame.table_size(count, shape) // 2


_loaded: dict[tuple[int, int], memoryview] = {}
_disabled = False


def disable() -> None:
    """Play without the odds in this process (for comparisons: the benchmarks' --no-odds)."""
    global _disabled
    _disabled = True


def build(counts: Sequence[int] = endgame.COUNTS, shape: int = 0) -> dict[int, np.ndarray]:
    """Solve and save the odds of the geese-to-move positions of the `counts` tables of
    board `shape`."""
    import numpy as np

    from aviary.games.foxgeese.odds_kernels import Model

    started = time.monotonic()
    chances = Model(counts, shape).iterate(ROUNDS, DISCOUNT)
    built = {}
    for count, values in chances.items():
        built[count] = np.rint(values[_half(count, shape):] * SCALE).astype("<i2")
        path = table_path(count, shape)
        try:
            write_table(path, built[count])
        except OSError as error:
            print(f"aviary: could not save the fox's odds to {path}: {error}", file=sys.stderr)
        _loaded[count, shape] = memoryview(built[count]).cast("B").cast("h")
    where = f" on shape {shape}" if shape else ""
    print(f"aviary: the classic fox's odds against a depth-2 defender{where} in "
          f"{time.monotonic() - started:.1f} s", file=sys.stderr, flush=True)
    return built


def load(count: int, shape: int = 0) -> memoryview | None:
    """The odds of the geese-to-move positions of the `count`-geese table of `shape`,
    if built."""
    if _disabled:
        return None
    if (count, shape) not in _loaded:
        table = read_table(table_path(count, shape), _half(count, shape), "<i2")
        if table is None:
            return None
        _loaded[count, shape] = table
    return _loaded[count, shape]


def odds(position: rules.Position) -> float | None:
    """The fox's odds in `position` (geese to move, covered by the tables), or None if
    the odds are not built."""
    ending = endgame.locate(position) if position.player == "g" else None
    if ending is None:
        return None
    table = load(ending.count, ending.shape)
    if table is None:
        return None
    return int(table[ending.index - _half(ending.count, ending.shape)]) / SCALE


def probe(position: rules.Position, use: TableUse = "build") -> Verdict[rules.Move] | None:
    """`endgame.probe`, the fox playing its drawn endings by its odds (if built)."""
    return endgame.probe(position, use, odds=odds)


def warmup() -> None:
    """Compile the kernels that build the odds (the odds themselves: `deep_warmup`)."""
    from aviary.games.foxgeese import odds_kernels

    odds_kernels.warmup()


def built() -> bool:
    """Whether the odds of every table are built (cached or in memory)."""
    return all(load(count, shape) is not None
               for shape in shapes.SHAPES for count in endgame.COUNTS)


def deep_warmup() -> None:
    """Build the odds of every shape unless they are cached: about half an hour, 6.6 GB
    at the peak (docs/games/foxgeese.md)."""
    for shape in shapes.SHAPES:
        if any(load(count, shape) is None for count in endgame.COUNTS):
            build(endgame.COUNTS, shape)
