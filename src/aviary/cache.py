"""Solved tables kept on disk: computed once per machine, reused by every command.

Files live in the user's cache directory (`AVIARY_CACHE_DIR` overrides it, which
is how tests stay out of the real one). A table is written to a temporary file and
renamed into place, so a killed build never leaves half a table, and stored with
the SHA-256 of its contents, so a truncated or damaged file reads as absent (and is
rebuilt by its owner). Names end in `-KEY.npz`, KEY a digest of whatever the table
depends on; saving a table deletes the same table under older keys.

numpy is imported only when a table is read or written: command lines that never
touch a table do not pay for it.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np


def cache_dir() -> Path:
    override = os.environ.get("AVIARY_CACHE_DIR")
    if override:
        return Path(override)
    import platformdirs

    return Path(platformdirs.user_cache_dir("aviary"))


def _digest(table: np.ndarray) -> str:
    return hashlib.sha256(table.tobytes()).hexdigest()


def read_table(path: Path, shape: tuple[int, ...], dtype: str) -> np.ndarray | None:
    """The table saved in `path`, or None if absent, truncated, corrupt or of another shape."""
    import numpy as np

    try:
        with np.load(path) as data:
            table, digest = data["table"], data["sha256"]
    except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile):
        return None
    if table.shape != shape or table.dtype != np.dtype(dtype):
        return None
    if bytes(digest).decode(errors="replace") != _digest(table):
        return None
    return table


def write_table(path: Path, table: np.ndarray) -> None:
    """Save `table` atomically with its digest; delete this table's files under older keys."""
    import numpy as np

    path.parent.mkdir(parents=True, exist_ok=True)
    digest = np.frombuffer(_digest(table).encode(), dtype=np.uint8)
    fd, tmp = tempfile.mkstemp(prefix=path.stem, suffix=".tmp.npz", dir=path.parent)
    os.close(fd)
    try:
        np.savez(tmp, table=table, sha256=digest)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    stem = path.name.rsplit("-", 1)[0]
    for stale in path.parent.glob(f"{stem}-*.npz"):
        if stale != path and len(stale.name) == len(path.name):
            stale.unlink(missing_ok=True)
