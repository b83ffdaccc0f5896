"""The solved table on disk: solved once per machine, reused by every command.

The file lives in the user's cache directory (`AVIARY_CACHE_DIR` overrides
it, which is how tests stay out of the real one) and its name carries the
rules version plus a digest of the scoring table, so a change to the rules
can never be answered from a stale table: the old file is simply not found
and the game is solved again. Writes go to a temporary file and are renamed
into place, so a killed solve never leaves half a table behind.
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
import zipfile
import zlib
from pathlib import Path

import numpy as np

from aviary.cache import cache_dir
from aviary.games.sebastian.rules import RULES_VERSION
from aviary.games.sebastian.solver import STATES, Solution, solve
from aviary.games.sebastian.tables import dice_tables


def table_key() -> str:
    digest = hashlib.sha256(dice_tables().scores.tobytes()).hexdigest()[:12]
    return f"{RULES_VERSION}-{digest}"


def table_path() -> Path:
    return cache_dir() / f"sebastian-{table_key()}.npz"


def _read(path: Path) -> Solution | None:
    try:
        with np.load(path) as data:
            values = data["values"]
            figures = data["figures"]
    except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile, zlib.error):
        return None  # truncated, random bytes, or another file: solved again
    if values.shape != (STATES, 4) or figures.shape != (4,):
        return None
    return Solution(values, *map(float, figures))


def _write(path: Path, solution: Solution) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    figures = np.array([solution.mean, solution.sd, solution.bonus_rate,
                        solution.quintuplicatam_rate])
    fd, tmp = tempfile.mkstemp(prefix=path.stem, suffix=".tmp.npz", dir=path.parent)
    os.close(fd)
    try:
        np.savez(tmp, values=solution.values, figures=figures)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def solve_with_progress(show: bool | None = None) -> Solution:
    """Solve the game, with a rich progress bar when stderr is a terminal."""
    show = sys.stderr.isatty() if show is None else show
    if not show:
        return solve()
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from aviary.games.sebastian.solver import FULL_MASK

    columns = (TextColumn("solving Sebastian"), BarColumn(), TextColumn("{task.percentage:>3.0f}%"),
               TimeElapsedColumn())
    with Progress(*columns, transient=True, console=Console(stderr=True)) as bar:
        task = bar.add_task("solve", total=FULL_MASK)
        return solve(progress=lambda n: bar.advance(task, n))


def load_solution(rebuild: bool = False) -> Solution:
    """The solved table from the cache, solving (and saving) it first if absent or stale."""
    path = table_path()
    if not rebuild:
        found = _read(path)
        if found is not None:
            return found
        if path.exists():
            print(f"aviary sebastian: the cached table {path} is damaged; solving it again",
                  file=sys.stderr, flush=True)
    solution = solve_with_progress()
    try:
        _write(path, solution)
    except OSError as error:  # a read-only cache costs time, never the answer
        print(f"aviary: could not save the Sebastian table to {path}: {error}", file=sys.stderr)
    return solution
