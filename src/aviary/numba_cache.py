"""numba's compiled-kernel cache where the source tree cannot be written (the arena's sandbox).

numba keeps compiled kernels in `__pycache__` beside each source file, and uses
that folder only if it can write there. Inside the arena's sandbox the whole disk
is read-only, so numba would find no usable cache and compile every kernel again:
seconds a move, and the course command would answer with its fallback.
`SeededCacheLocator` comes right after numba's own in-tree locator: where the tree
is read-only it uses a private writable folder, first seeded with the tree's cache
files of that module, so what `aviary warmup` compiled is loaded as usual and
anything compiled anew is saved privately, never into the shared tree (a program
in the sandbox must not write code that other players then load).

`aviary/__init__.py` puts it in numba's locator list (`NUMBA_CACHE_LOCATOR_CLASSES`,
read by numba 0.62 and later; older versions ignore it and behave as before).
"""

from __future__ import annotations

import glob
import os
import shutil
import tempfile

from numba.core.caching import InTreeCacheLocator


def private_root() -> str:
    """Where seeded caches live: `AVIARY_NUMBA_CACHE`, else a folder of this user in the
    temporary folder (inside the sandbox, the game's own private /tmp)."""
    return os.environ.get("AVIARY_NUMBA_CACHE") or os.path.join(
        tempfile.gettempdir(), f"aviary-numba-{os.getuid()}")


class SeededCacheLocator(InTreeCacheLocator):
    """The in-tree cache, copied to a private writable folder on first use of a module."""

    def __init__(self, py_func: object, py_file: str) -> None:
        super().__init__(py_func, py_file)
        self._tree_path = self._cache_path
        self._cache_path = os.path.join(private_root(),
                                        self.get_suitable_cache_subpath(py_file))

    def ensure_cache_path(self) -> None:
        super().ensure_cache_path()  # makes the private folder and checks it is writable
        module = os.path.splitext(os.path.basename(self._py_file))[0]
        pattern = f"{module}.*.nb[ic]"
        if not glob.glob(os.path.join(glob.escape(self._cache_path), pattern)):
            self._seed(pattern)

    def _seed(self, pattern: str) -> None:
        """Copy the tree's index and data files of this source file (a few kB each)."""
        for path in glob.glob(os.path.join(glob.escape(self._tree_path), pattern)):
            target = os.path.join(self._cache_path, os.path.basename(path))
            try:
                shutil.copy2(path, target)  # keeps the stamps numba compares
            except OSError:
                continue
