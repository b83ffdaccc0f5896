"""Solved tables kept on disk: computed once per machine, reused by every command.

Files live in the user's cache directory (`AVIARY_CACHE_DIR` overrides it, which
is how tests stay out of the real one). A table is written to a temporary file and
renamed into place, so a killed build never leaves half a table, and stored with
the SHA-256 of its contents, so a truncated or damaged file reads as absent (and is
rebuilt by its owner). Names end in `-KEY.npz`, KEY a digest of whatever the table
depends on; saving a table deletes the same table under older keys.

Reading needs no numpy (a table comes back as a flat memoryview), so a command line
can look a position up in a few milliseconds; writing imports it. A table over
`MAP_OVER` bytes is mapped rather than read (a command line answering in 1 s cannot
read and digest 120 MB, and only touches a few entries; processes share the pages):
its header and length are checked, its digest is not.
"""

from __future__ import annotations

import hashlib
import os
import struct
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # zipfile and the rest are imported where used: a command that finds
    # its engine compiled ahead of time does not wait for them (issue 53)
    import zipfile

    import numpy as np


def cache_dir() -> Path:
    """`AVIARY_CACHE_DIR`, else the user's cache folder: on Linux the XDG rule platformdirs
    follows, read here without importing it (an engine child loading its tables or
    its compiled search waits for this; platformdirs took 7 ms of it)."""
    override = os.environ.get("AVIARY_CACHE_DIR")
    if override:
        return Path(override)
    if sys.platform.startswith("linux"):
        base = os.environ.get("XDG_CACHE_HOME", "").strip()
        return (Path(base) if os.path.isabs(base) else Path.home() / ".cache") / "aviary"
    import platformdirs

    return Path(platformdirs.user_cache_dir("aviary"))


def source_key(modules: tuple[str, ...], salt: str = "") -> str:
    """A table's KEY: a digest of `salt` and the source files of `modules` (found, not
    imported), so changing the code that builds a table retires the old files."""
    import importlib.util

    digest = hashlib.sha256(salt.encode())
    for module in modules:
        spec = importlib.util.find_spec(module)
        assert spec is not None and spec.origin is not None, module
        digest.update(Path(spec.origin).read_bytes())
    return digest.hexdigest()[:12]


def _digest(table: np.ndarray) -> str:
    return hashlib.sha256(table.tobytes()).hexdigest()


_NPY_TYPES = {"<i2": "h", "<i4": "i", "<i8": "q", "|u1": "B", "|i1": "b"}
MAP_OVER = 32 << 20  # bytes: a larger table is mapped, not read and digested


def _npy_payload(raw: bytes) -> tuple[str, tuple[int, ...], bytes]:
    """(dtype descr, shape, data bytes) of a C-order .npy file, read without numpy."""
    import ast

    if raw[:6] != b"\x93NUMPY":
        raise ValueError("not an .npy file")
    if raw[6] == 1:
        length, start = int.from_bytes(raw[8:10], "little"), 10
    else:
        length, start = int.from_bytes(raw[8:12], "little"), 12
    header = ast.literal_eval(raw[start : start + length].decode("latin1"))
    if header["fortran_order"]:
        raise ValueError("Fortran order")
    return header["descr"], tuple(header["shape"]), raw[start + length :]


def read_table(path: Path, length: int, dtype: str) -> memoryview | None:
    """The 1-d table saved in `path` as a flat memoryview (`numpy.asarray` views it without
    a copy), or None if absent, truncated, corrupt or of another length or dtype.

    Reads without numpy, so a command line can look a position up without loading it.
    """
    import zipfile

    typecode = _NPY_TYPES.get(dtype)
    if typecode is None or sys.byteorder != "little":
        raise ValueError(f"unsupported table dtype {dtype} on a {sys.byteorder}-endian machine")
    data: bytes | memoryview
    try:
        with zipfile.ZipFile(path) as archive:
            member = archive.getinfo("table.npy")
            mapped = member.file_size > MAP_OVER and member.compress_type == zipfile.ZIP_STORED
            if mapped:
                descr, shape, data = _mapped_payload(path, member)
            else:
                descr, shape, data = _npy_payload(archive.read("table.npy"))
                _, _, digest = _npy_payload(archive.read("sha256.npy"))
    except (OSError, KeyError, ValueError, SyntaxError, EOFError, zipfile.BadZipFile):
        return None
    if descr != dtype or shape != (length,) or len(data) != length * struct.calcsize(typecode):
        return None
    if not mapped and digest.decode(errors="replace") != hashlib.sha256(data).hexdigest():
        return None
    return memoryview(data).cast(typecode)  # type: ignore[call-overload]


def _mapped_payload(path: Path, member: zipfile.ZipInfo) -> tuple[str, tuple[int, ...], memoryview]:
    """`_npy_payload` of the stored (uncompressed) `member` of `path`, its data mapped
    read-only rather than read (shorter than the member says if the file is cut)."""
    import mmap

    with open(path, "rb") as file:
        file.seek(member.header_offset)
        local = file.read(30)  # the zip local file header; its name and extra field follow
        if local[:4] != b"PK\x03\x04":
            raise ValueError("not a zip member")
        start = member.header_offset + 30 + int.from_bytes(local[26:28], "little")
        start += int.from_bytes(local[28:30], "little")
        file.seek(start)
        head = file.read(min(member.file_size, 4096))
        descr, shape, rest = _npy_payload(head)
        mapped = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
    offset = start + len(head) - len(rest)  # where the data begins
    return descr, shape, memoryview(mapped)[offset : start + member.file_size]


def write_table(path: Path, table: np.ndarray) -> None:
    """Save `table` atomically with its digest; delete this table's files under older keys."""
    import tempfile

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


def read_or_build(path: Path, length: int, dtype: str, build: Callable[[], np.ndarray], *,
                  name: str, solved: str, build_missing: bool = True) -> memoryview | None:
    """The table at `path` (as `read_table`), or one `build()` makes now and saves there;
    None if it is missing and not `build_missing`.

    Solved tables are built where they are first needed, so stderr says so: a damaged
    file being rebuilt, a cache that cannot be written (the table is still used: a
    read-only cache costs time, never the answer), and what was solved in how long.
    `name` is the table's kind ("fox endgame table"), `solved` its contents.
    """
    table = read_table(path, length, dtype)
    if table is not None or not build_missing:
        return table
    if path.exists():
        print(f"aviary: rebuilding the corrupt {name} {path}", file=sys.stderr, flush=True)
    started = time.monotonic()
    built = build()
    try:
        write_table(path, built)
    except OSError as error:
        print(f"aviary: could not save the {name} to {path}: {error}", file=sys.stderr)
    print(f"aviary: solved {solved} ({len(built):,} positions) in "
          f"{time.monotonic() - started:.1f} s", file=sys.stderr, flush=True)
    return built.data
