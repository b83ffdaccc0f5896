"""Solved Pikachu-only endings: exact win / draw / loss and distance, built once, cached.

With only Pikachus left (no Pichus), n = 8 and at most `MAX_PIECES` pieces on the
board, every position is solved by retrograde analysis (`aviary.search.retrograde`
over the kernels in `endgame_kernels.py`): the value for the side to move and the
number of plies to the end (a side with no piece or no legal move loses, as in
`rules.winner`). Winning moves take the shortest way, losing ones resist longest.

The tables are cached with `aviary.cache` (user cache directory, `AVIARY_CACHE_DIR`
overrides it), one file per group of materials, named by a digest of the rules and
of the code that builds them, so a change there is never answered from a stale
table (the stale file is deleted when its successor is saved).
A missing, corrupt or truncated file is rebuilt (with a one-line notice on stderr)
on first use, or ahead of time by `aviary warmup`.

`probe(position)` is the whole interface for players: a `Verdict` (result, distance,
the table's move) or None when the position is not in the tables. This module
imports only the standard library at load time, so the course command line can ask
`covers(position)` before numpy or numba is loaded.
"""

from __future__ import annotations

import hashlib
from math import comb
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aviary.cache import cache_dir, read_or_build
from aviary.games.base import DRAW, LOSS, WIN, TableUse, Verdict
from aviary.games.pikachu import rules

if TYPE_CHECKING:
    import numpy as np

SIZES = (8,)  # board sizes with tables
MAX_PIECES = 4  # both sides together
Use = TableUse
_HERE = Path(__file__).resolve().parent
_SOURCES = (
    _HERE / "rules.py",
    _HERE / "endgame_kernels.py",
    _HERE.parent.parent / "search" / "retrograde.py",
)


# ---- which positions, and their numbers (the plain-Python twin of endgame_kernels) ----


def material(position: rules.Position) -> tuple[int, int] | None:
    """(Pikachus of the side to move, Pikachus of the other side) if in the tables, else None."""
    if position.n not in SIZES or set(position.board) - set("WB."):
        return None
    white, black = position.board.count("W"), position.board.count("B")
    if not white or not black or white + black > MAX_PIECES:
        return None
    return (white, black) if position.player == "w" else (black, white)


def covers(position: rules.Position) -> bool:
    """Whether `position` is in the tables (cheap: no table is read)."""
    return material(position) is not None


def group_of(mover: int, other: int) -> tuple[int, int]:
    """The group holding a material: (larger side, smaller side)."""
    return (max(mover, other), min(mover, other))


def groups(max_pieces: int | None = None) -> list[tuple[int, int]]:
    """Every group up to `max_pieces` (default MAX_PIECES) pieces, smallest first (the order
    they are built in)."""
    max_pieces = MAX_PIECES if max_pieces is None else max_pieces
    return [(total - small, small) for total in range(2, max_pieces + 1)
            for small in range(1, total // 2 + 1)]


def part_size(mover: int, other: int, squares: int = 64) -> int:
    return comb(squares, mover) * comb(squares - mover, other)


def part_offset(mover: int, other: int, squares: int = 64) -> int:
    """Where material (mover, other) starts in its group's table."""
    return 0 if mover >= other else part_size(other, mover, squares)


def group_size(group: tuple[int, int], squares: int = 64) -> int:
    a, b = group
    return part_size(a, b, squares) * (1 if a == b else 2)


def rank(mover: list[int], other: list[int], squares: int = 64) -> int:
    """Index in its material's part: colex rank of both square sets (see endgame_kernels)."""
    mover, other = sorted(mover), sorted(other)
    first = sum(comb(square, k + 1) for k, square in enumerate(mover))
    compressed = [square - sum(1 for m in mover if m < square) for square in other]
    second = sum(comb(square, k + 1) for k, square in enumerate(compressed))
    return first * comb(squares - len(mover), len(other)) + second


def _unrank_combination(rank: int, count: int, squares: int) -> list[int]:
    values = []
    top = squares - 1
    for k in range(count, 0, -1):
        while comb(top, k) > rank:
            top -= 1
        values.append(top)
        rank -= comb(top, k)
        top -= 1
    return values[::-1]


def unrank(index: int, mover: int, other: int, squares: int = 64) -> tuple[list[int], list[int]]:
    """Sorted squares of both sides of position `index` of material (mover, other)."""
    first, second = divmod(index, comb(squares - mover, other))
    movers = _unrank_combination(first, mover, squares)
    others = []
    for square in _unrank_combination(second, other, squares - mover):
        for m in movers:
            if m <= square:
                square += 1
        others.append(square)
    return movers, others


def position_at(group: tuple[int, int], index: int, player: rules.Player = "w",
                n: int = 8) -> rules.Position:
    """The position at `index` of a group's table, `player` (either colour) to move."""
    squares = n * n
    a, b = group
    first = part_size(a, b, squares)
    mover, other = (a, b) if index < first or a == b else (b, a)
    movers, others = unrank(index - part_offset(mover, other, squares), mover, other, squares)
    cells = ["."] * squares
    for square in movers:
        cells[square] = player.upper()
    for square in others:
        cells[square] = rules.opponent(player).upper()
    return rules.Position(n, "".join(cells), player)


def index_of(position: rules.Position) -> tuple[tuple[int, int], int]:
    """(group, index in the group's table) of a position the tables cover."""
    found = material(position)
    assert found is not None, "position not in the tables"
    mover_piece = "W" if position.player == "w" else "B"
    other_piece = "B" if mover_piece == "W" else "W"
    mover = [s for s, piece in enumerate(position.board) if piece == mover_piece]
    other = [s for s, piece in enumerate(position.board) if piece == other_piece]
    squares = position.n * position.n
    return group_of(*found), part_offset(*found, squares) + rank(mover, other, squares)


# ---- the cache ----


def table_key() -> str:
    digest = hashlib.sha256()
    for source in _SOURCES:
        digest.update(source.read_bytes())
    return digest.hexdigest()[:12]


def table_path(group: tuple[int, int], n: int = 8) -> Path:
    return cache_dir() / f"pikachu-endgame-n{n}-{group[0]}v{group[1]}-{table_key()}.npz"


# ---- building and loading ----

# packed tables (`retrograde.pack`) as flat int16 memoryviews: numpy.asarray views one
# without a copy, and a lookup needs no numpy (the course command never imports it)
_loaded: dict[tuple[int, int, int], memoryview] = {}


def build(group: tuple[int, int], n: int = 8) -> np.ndarray:
    """Solve one group (smaller groups loaded or built first), packed (`retrograde.pack`)."""
    import numpy as np

    from aviary.games.pikachu import endgame_kernels as kernels
    from aviary.search import retrograde

    a, b = group
    squares = n * n

    def exits(mover: int, other: int) -> np.ndarray:
        """The packed table of material (mover, other) that a capture leads to."""
        if mover == 0:
            return np.zeros(0, dtype=np.int16)
        table = load(group_of(mover, other), n)
        assert table is not None
        start = part_offset(mover, other, squares)
        return np.asarray(table)[start : start + part_size(mover, other, squares)]

    data = (n, a, b, squares, kernels.binomials(squares), exits(b - 1, a), exits(a - 1, b))
    result, distance = retrograde.solve(
        group_size(group, squares), kernels.children, kernels.predecessors, data,
        max_moves=max(a, b) * 2 * (n - 1))
    return retrograde.pack(result, distance)


def load(group: tuple[int, int], n: int = 8, *, build_missing: bool = True) -> memoryview | None:
    """A group's packed table: from memory, from the cache, or built (and saved) now.

    With `build_missing` False a table not in the cache is None, never built."""
    key = (n, *group)
    if key in _loaded:
        return _loaded[key]
    table = read_or_build(table_path(group, n), group_size(group, n * n), "<i2",
                          lambda: build(group, n), name="Pikachu endgame table",
                          solved=f"Pikachu endings {group[0]} v {group[1]} on n = {n}",
                          build_missing=build_missing)
    if table is None:
        return None
    _loaded[key] = table
    return table


def _value(table: memoryview, index: int) -> tuple[int, int]:
    code = int(table[index])
    return (code & 3) - 1, code >> 2


def value(position: rules.Position, *, use: Use = "build") -> tuple[int, int] | None:
    """(WIN/DRAW/LOSS, distance in plies) for the side to move, or None if not in the tables.

    A position whose side to move has no piece left is a loss in 0 (the game is over).
    """
    if use == "off" or position.n not in SIZES or set(position.board) - set("WB."):
        return None
    mine = position.board.count("W" if position.player == "w" else "B")
    if not mine and 0 < len(position.board.replace(".", "")) <= MAX_PIECES:
        return LOSS, 0  # the last piece was taken
    if material(position) is None:
        return None
    group, index = index_of(position)
    table = load(group, position.n, build_missing=use == "build")
    return None if table is None else _value(table, index)


def _blunder_share(position: rules.Position, use: Use) -> float:
    """The share of the side to move's moves that lose (a trap for a fallible opponent)."""
    moves = rules.legal_moves(position)
    losing = 0
    for move in moves:
        found = value(rules.play(position, move), use=use)
        losing += found is not None and found[0] == WIN
    return losing / max(len(moves), 1)


def probe(position: rules.Position, use: Use = "build") -> Verdict[rules.Move] | None:
    """The table's verdict on `position`, or None if not covered (or not cached, with "cached").

    The move: the shortest win; else a drawing move, the one leaving the opponent the
    largest share of losing replies; else the longest resistance.
    """
    if material(position) is None:
        return None
    found = value(position, use=use)
    if found is None:
        return None
    result, distance = found
    best: tuple[float, rules.Move] | None = None
    for move in rules.legal_moves(position):
        after = rules.play(position, move)
        child = value(after, use=use)
        if child is None:
            return None
        there, plies = child
        # our result is the opposite of theirs; prefer short wins, then draws, then long losses
        preference: float = {LOSS: 10**6 - plies, DRAW: 0, WIN: -(10**6) + plies}[there]
        if there == DRAW and result == DRAW:
            preference = _blunder_share(after, use)
        if best is None or preference > best[0]:
            best = (preference, move)
    return Verdict(result, distance, None if best is None else best[1])


def warmup() -> None:
    """Build (or check) every table, so that no game waits for a solve."""
    for n in SIZES:
        for group in groups():
            load(group, n)


def tally(n: int = 8, max_pieces: int | None = None) -> dict[tuple[int, int], dict[str, Any]]:
    """Per material (mover, other): positions won, drawn, lost for the side to move, the
    longest win and loss, and wins by distance, from the tables (built if missing)."""
    import numpy as np

    squares = n * n
    counts: dict[tuple[int, int], dict[str, Any]] = {}
    for group in groups(max_pieces):
        table = load(group, n)
        assert table is not None
        a, b = group
        for mover, other in {(a, b), (b, a)}:
            start = part_offset(mover, other, squares)
            part = np.asarray(table)[start : start + part_size(mover, other, squares)]
            result, distance = (part & 3) - 1, part >> 2
            counts[(mover, other)] = {
                "win": int(np.count_nonzero(result == WIN)),
                "draw": int(np.count_nonzero(result == DRAW)),
                "loss": int(np.count_nonzero(result == LOSS)),
                "longest_win": int(distance[result == WIN].max(initial=0)),
                "longest_loss": int(distance[result == LOSS].max(initial=0)),
                "wins_by_distance": {int(d): int(k) for d, k in
                                     zip(*np.unique(distance[result == WIN], return_counts=True),
                                         strict=True)},
            }
    return dict(sorted(counts.items()))
