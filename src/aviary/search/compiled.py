"""A game's alpha-beta search compiled ahead of time: found and loaded without numba.

A cold course command used to spend most of the way to its engine's first answer in
numba (its import, its compiler, the cached kernels bound: about 0.6 s of CPU).
`aviary warmup` therefore also builds, where a C compiler is at hand, one C extension
per game that takes part (`aviary.search.aot`, with numba's `pycc`): the alpha-beta
root iteration (`aviary.search.alphabeta.negamax`) with the game's kernels bound in.
The extension needs numpy but not numba at run time, so an engine that drives it from
Python (`aviary.search.deepening.iterate` given a `CompiledSearch`) answers without
importing numba at all.

Extensions live in the user's cache directory (`aviary.cache.cache_dir()/compiled`,
never the source tree), one folder per game named by `source_key`: a digest of every
source file the search is compiled from (`aviary/search/*.py` and the game's folder),
numba's and numpy's versions, and the interpreter's extension suffix. An extension
built from other sources is never found: `load` returns None and the engine compiles
by numba's JIT as before (its disk cache is the fallback). `AVIARY_NO_COMPILED=1`
ignores the extensions (to measure or test the JIT path).
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import os
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from aviary.cache import cache_dir

if TYPE_CHECKING:
    import numpy as np

_SEARCH = Path(__file__).resolve().parent
_GAMES = _SEARCH.parent / "games"
SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]


def module_name(game: str) -> str:
    """The extension's module name (its `PyInit_` symbol): one per game."""
    return f"aviary_compiled_{game}"


def root_directory() -> Path:
    """Where every game's extensions live (each in a folder `GAME-KEY`)."""
    return cache_dir() / "compiled"


def _numba_version_file() -> bytes:
    """numba's version file, read without importing numba (b"" when it is missing)."""
    spec = importlib.util.find_spec("numba")
    if spec is None or not spec.submodule_search_locations:
        return b""
    try:
        return (Path(next(iter(spec.submodule_search_locations))) / "_version.py").read_bytes()
    except OSError:
        return b""


def source_key(game: str) -> str:
    """A digest of what `game`'s extension is built from: the search core's and the game's
    source files, numba's and numpy's versions, the interpreter and the machine."""
    import numpy

    digest = hashlib.sha256()
    for folder in (_SEARCH, _GAMES / game):
        for path in sorted(folder.glob("*.py")):
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
    digest.update(_numba_version_file())
    digest.update(f"{numpy.__version__} {SUFFIX} {os.uname().machine}".encode())
    return digest.hexdigest()[:16]


def extension_path(game: str, key: str | None = None) -> Path:
    """The file `game`'s extension for the current sources is (or would be) in."""
    key = key or source_key(game)
    return root_directory() / f"{game}-{key}" / f"{module_name(game)}{SUFFIX}"


class CompiledSearch:
    """A game's compiled root iteration: `negamax(state, depth, alpha, beta, arrays)` of
    `aviary.search.alphabeta` with the game's kernels, from its extension (it releases
    the GIL, so the deadline's timer thread runs while it searches)."""

    def __init__(self, module: ModuleType) -> None:
        self.module = module

    def root(self, state: np.ndarray, depth: int, alpha: int, beta: int,
             arrays: tuple[np.ndarray, ...]) -> int:
        return int(self.module.negamax(state, depth, 0, alpha, beta, *arrays))


_loaded: dict[str, CompiledSearch | None] = {}


def load(game: str) -> CompiledSearch | None:
    """`game`'s compiled search, or None when its extension for the current sources is
    not built (or cannot be loaded, or `AVIARY_NO_COMPILED=1`). Loaded once a process."""
    if os.environ.get("AVIARY_NO_COMPILED") == "1":
        return None
    if game not in _loaded:
        _loaded[game] = None
        path = extension_path(game)
        if path.is_file():
            try:
                _loaded[game] = CompiledSearch(load_module(game, path))
            except (ImportError, OSError):
                return None  # a damaged file: the JIT search answers
    return _loaded[game]


def load_module(game: str, path: Path) -> ModuleType:
    """The extension module of `game` in file `path`, loaded (ImportError if it cannot be)."""
    spec = importlib.util.spec_from_file_location(module_name(game), path)
    if spec is None or spec.loader is None:
        raise ImportError(f"not an extension module: {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
