"""One rule for every file a command writes.

An output path must be a new file in an existing folder, or an existing
*regular* file that may be replaced (`--force`, or a command whose outputs are
always rewritten, like horizon's course files). A directory, a symbolic
link, a device or a FIFO is refused: renaming over them would replace the
link or device node, and opening a FIFO blocks. Every path is checked before
anything is written, and each file is written to a temporary name beside it
and renamed into place, so a failed or interrupted write leaves the old file
(or nothing), never half a file.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Callable
from pathlib import Path

from aviary.errors import UsageError


def check_output(path: Path, *, replace: bool, flag: str = "--force") -> None:
    """UsageError unless `path` can be written by `write_atomically` under the rule above."""
    try:
        info = path.lstat()
    except FileNotFoundError:
        info = None
    except OSError as error:
        raise UsageError(f"cannot write {path}: {error.strerror}") from None
    if info is not None:
        if stat.S_ISLNK(info.st_mode):
            raise UsageError(f"{path} is a symbolic link; write to the file it names, or "
                             "another path")
        if stat.S_ISDIR(info.st_mode):
            raise UsageError(f"{path} is a directory; name a file to write")
        if not stat.S_ISREG(info.st_mode):
            raise UsageError(f"{path} exists and is not a regular file; refusing to replace it")
        if not replace:
            raise UsageError(f"{path} exists; choose another name or add {flag}")
    folder = path.parent
    if not folder.is_dir():
        raise UsageError(f"cannot write {path}: folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise UsageError(f"cannot write {path}: folder {folder} is not writable")


def write_atomically(path: Path, write: Callable[[Path], object]) -> None:
    """Call `write(temporary)` on a temporary file beside `path`, then rename it over `path`.

    The temporary file gets the permissions a new file would (umask), not mkstemp's 0600.
    """
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    temporary = Path(name)
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)
        write(temporary)
        os.replace(temporary, path)
    except OSError as error:
        raise UsageError(f"cannot write {path}: {error.strerror or error}") from None
    finally:
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()


def write_text_atomically(path: Path, text: str) -> None:
    write_atomically(path, lambda temporary: temporary.write_text(text, encoding="utf-8"))
