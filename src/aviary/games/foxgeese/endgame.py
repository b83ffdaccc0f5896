"""Solved classic endings: one fox against four, five or six geese, exact, built once, cached.

With one fox, `count` geese (4, 5 or 6) and no elephant, on the open cross or on a
cross the shrinking board has closed arms of (`shapes.py`: six shapes, the others
are their turns and mirrors), every position is solved by retrograde analysis
(`aviary.search.retrograde` over the kernels in `endgame_kernels.py`): win, draw or
loss for the side to move and the plies to the end with best play. A jump leaves
the table (into the smaller one, or, from four geese, to the foxes' win); a geese
move that traps the fox ends it. These are the endings where the foxes' search
stalls: the geese huddle, and only exact play (waiting moves, zugzwang) takes the
last geese.

The tables ignore the move limit; `probe` applies it: a win or loss farther away
than the plies left is a draw. They are cached with `aviary.cache` (one file per
table, named by a digest of the code that builds them) and built on first use or
by `aviary warmup`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from math import comb
from pathlib import Path
from typing import TYPE_CHECKING

from aviary.cache import cache_dir, read_or_build, source_key
from aviary.games.base import DRAW, LOSS, WIN, TableUse, Verdict
from aviary.games.foxgeese import rules, shapes

if TYPE_CHECKING:
    import numpy as np

COUNTS = (4, 5, 6)  # geese against the one fox
Use = TableUse
_SOURCES = ("aviary.games.foxgeese.rules", "aviary.games.foxgeese.shapes",
            "aviary.games.foxgeese.layout", "aviary.games.foxgeese.kernels",
            "aviary.games.foxgeese.endgame_kernels",
            "aviary.search.retrograde")  # a table's key digests the code that builds it


@dataclass(frozen=True)
class Ending:
    """Where a position lies in the tables."""

    count: int  # geese against the fox
    shape: int  # the board shape of its table (shapes.SHAPES)
    index: int  # its number in that table (`endgame_kernels.index_of`)


def locate(position: rules.Position) -> Ending | None:
    """The position's table and number (the plain-Python twin of `endgame_kernels.index_of`,
    after turning the board onto its table's shape), or None if no table covers it."""
    board = position.board
    count = board.count(rules.GOOSE)
    if board.count(rules.FOX) != 1 or board.count(rules.ELEPHANT) or count not in COUNTS:
        return None
    arms = shapes.closed_arms(board)
    if board.count(rules.HOLE) != len(rules.CORNERS) + 6 * bin(arms).count("1"):
        return None
    shape, number = shapes.orient(arms)
    fox = number[board.index(rules.FOX)]
    geese = sorted(number[p] for p, piece in enumerate(board) if piece == rules.GOOSE)
    rank = sum(comb(g - (g > fox), k + 1) for k, g in enumerate(geese))
    side = 0 if position.player == "f" else 1
    n = len(number)
    return Ending(count, shape, (side * n + fox) * comb(n - 1, count) + rank)


def covers(position: rules.Position) -> bool:
    return locate(position) is not None


def table_size(count: int, shape: int = 0) -> int:
    """Positions in the table of `count` geese on `shape` (both sides to move)."""
    n = len(shapes.shape_points(shape))
    return 2 * n * comb(n - 1, count)


def table_key() -> str:
    return source_key(_SOURCES)


def table_path(count: int, shape: int = 0) -> Path:
    name = f"foxgeese-endgame-fox-v{count}-geese"
    if shape:
        name += f"-shape{shape}"
    return cache_dir() / f"{name}-{table_key()}.npz"


_loaded: dict[tuple[int, int], memoryview] = {}


def build(count: int, shape: int = 0) -> np.ndarray:
    """Solve the `count`-geese table of `shape` (the smaller one loaded or built first), packed."""
    import numpy as np

    from aviary.games.foxgeese import endgame_kernels as kernels
    from aviary.search import retrograde

    if count - 1 >= kernels.MIN_GEESE:
        smaller = load(count - 1, shape)
        assert smaller is not None
        exits = np.asarray(smaller)
    else:
        exits = np.zeros(0, dtype=np.int16)
    step, over = kernels.shape_graph(shape)
    result, distance = retrograde.solve(table_size(count, shape), kernels.children,
                                        kernels.predecessors, (count, exits, step, over),
                                        kernels.MAX_MOVES)
    return retrograde.pack(result, distance)


def load(count: int, shape: int = 0, *, build_missing: bool = True) -> memoryview | None:
    """A packed table: from memory, from the cache, or built (and saved) now."""
    if (count, shape) in _loaded:
        return _loaded[count, shape]
    where = f" on shape {shape}" if shape else ""
    table = read_or_build(table_path(count, shape), table_size(count, shape), "<i2",
                          lambda: build(count, shape), name="fox endgame table",
                          solved=f"fox against {count} geese{where}",
                          build_missing=build_missing)
    if table is None:
        return None
    _loaded[count, shape] = table
    return table


def value(position: rules.Position, *, use: Use = "build") -> tuple[int, int] | None:
    """(WIN/DRAW/LOSS, plies) for the side to move by the tables alone (no move limit)."""
    ending = locate(position) if use != "off" else None
    if ending is None:
        return None
    table = load(ending.count, ending.shape, build_missing=use == "build")
    if table is None:
        return None
    code = int(table[ending.index])
    return (code & 3) - 1, code >> 2


def _after(position: rules.Position, move: rules.Move, use: Use) -> tuple[int, int] | None:
    """The value of the position after `move` for the side to move there."""
    after = rules.play(position, move)
    ended = rules.outcome(after)
    if ended is not None:
        winner = ended[0]
        return (DRAW, 0) if winner is None else ((WIN if winner == after.player else LOSS), 0)
    return value(after, use=use)


def probe(position: rules.Position, use: Use = "build",
          odds: Callable[[rules.Position], float | None] | None = None
          ) -> Verdict[rules.Move] | None:
    """The tables' verdict (move limit applied) and move, or None if not covered.

    The move: the shortest win, else the drawing move with the best chance against a
    fallible opponent, else the longest resistance. That chance is `odds(position
    after the move)` where it is not None (the fox's odds against a depth-2 defender,
    `odds.probe`), else the share of losing replies it leaves the opponent.
    """
    found = value(position, use=use)
    if found is None:
        return None
    result, distance = found
    if result != DRAW and distance > rules.MOVE_LIMIT - position.ply:
        result, distance = DRAW, 0  # the move limit comes first
    best: tuple[float, rules.Move] | None = None
    for move in rules.legal_moves(position):
        child = _after(position, move, use)
        if child is None:
            return None
        there, plies = child
        preference: float = {LOSS: 10**6 - plies, DRAW: 0, WIN: -(10**6) + plies}[there]
        if there == DRAW:
            preference = _draw_preference(rules.play(position, move), use, odds)
        if best is None or preference > best[0]:
            best = (preference, move)
    return Verdict(result, distance, None if best is None else best[1])


def _draw_preference(position: rules.Position, use: Use,
                     odds: Callable[[rules.Position], float | None] | None) -> float:
    """How much a drawn `position` (the opponent to move) is worth to the mover, 0..1."""
    chance = odds(position) if odds is not None and use != "off" else None
    return chance if chance is not None else _losing_share(position, use)


def _losing_share(position: rules.Position, use: Use) -> float:
    """The share of the side to move's moves that lose by the tables."""
    moves = rules.legal_moves(position)
    losing = 0
    for move in moves:
        child = _after(position, move, use)
        losing += child is not None and child[0] == WIN
    return losing / max(len(moves), 1)


def warmup() -> None:
    """Build (or check) every table, so that no game waits for a solve."""
    for shape in shapes.SHAPES:
        for count in COUNTS:
            load(count, shape)
