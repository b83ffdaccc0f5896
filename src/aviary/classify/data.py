"""Reading the course's `LABEL text...` files the way real files arrive.

Files come from different machines and editors: UTF-8 or Latin-1 (or a mix,
line by line), LF or CR LF endings, a byte-order mark, blank lines, stray
bytes that decode as nothing, and tweets with a bare CR inside the text (an
old Mac line break typed into the tweet: thousands of them in some years'
files). So a record ends at LF (a CR right before it belongs to the ending)
and a bare CR inside a record is whitespace: treating every CR as a line end
would cut such a tweet in two and make its second half a line with no
label. Only a file with no LF at all (a classic Mac file) ends its lines at
CR. Each line is decoded as UTF-8 when it is valid UTF-8 and as Latin-1
otherwise (every byte is a Latin-1 character), so no file can make the
reader fail; blank lines are skipped.

Files are read record by record (`iter_lines`), so predicting over a huge file
keeps little in memory, and what is not text is refused at its first line:
a NUL byte (binary data, or UTF-16) or a line over `MAX_LINE_BYTES`. Only
regular files are read: a FIFO or a device could block or never end.
"""

from __future__ import annotations

import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from aviary.errors import UsageError


@dataclass(frozen=True)
class Labeled:
    """Parallel lists of labels and texts read from one file."""

    labels: list[str]
    texts: list[str]


MAX_LINE_BYTES = 1 << 20  # a text to classify is a tweet or a review, not a megabyte


def iter_lines(path: str | Path) -> Iterator[str]:
    """The non-blank lines of a file one at a time; UsageError as `read_lines`."""
    return (line for _, line in _numbered_lines(Path(path)))


def read_lines(path: str | Path) -> list[str]:
    """The non-blank lines of a file, decoded (UTF-8, else Latin-1), without endings.

    Lines end at LF (or CR LF); a bare CR inside a line reads as a space.

    Raises UsageError when the file is missing, unreadable, or has no
    non-blank line.
    """
    return [line for _, line in _numbered_lines(Path(path))]


def read_labeled(path: str | Path) -> Labeled:
    """A `LABEL text...` file: the first word of each line is its label.

    A line holding only a label is an empty text (the course files have a
    few). A line that starts with a space or tab has no label: UsageError
    naming the line.
    """
    labels: list[str] = []
    texts: list[str] = []
    for label, text in iter_labeled(path):
        labels.append(label)
        texts.append(text)
    return Labeled(labels, texts)


def iter_labeled(path: str | Path) -> Iterator[tuple[str, str]]:
    """(label, text) of each line of a `LABEL text...` file, one at a time."""
    for number, line in _numbered_lines(Path(path)):
        if line[0].isspace():
            raise UsageError(
                f"classify: {path}: line {number} has no label (expected 'LABEL text...', "
                f"got {_excerpt(line)})"
            )
        parts = line.split(maxsplit=1)
        yield parts[0], parts[1] if len(parts) > 1 else ""


def _numbered_lines(path: Path) -> Iterator[tuple[int, str]]:
    try:
        info = path.stat()
        if stat.S_ISDIR(info.st_mode):
            raise UsageError(f"classify: {path} is a directory, not a file")
        if not stat.S_ISREG(info.st_mode):
            raise UsageError(f"classify: {path} is not a regular file")
        handle = open(path, "rb")  # noqa: SIM115 - closed below, the generator may stop early
    except FileNotFoundError:
        raise UsageError(f"classify: no such file: {path}") from None
    except OSError as error:
        raise UsageError(f"classify: cannot read {path}: {error.strerror}") from None
    return _lines_of(path, handle)


def _lines_of(path: Path, handle: BinaryIO) -> Iterator[tuple[int, str]]:
    number = 0
    seen = False
    with handle:
        first = True
        while chunk := handle.readline(MAX_LINE_BYTES + 1):
            if len(chunk) > MAX_LINE_BYTES:
                raise UsageError(f"classify: {path}: line {number + 1} is longer than "
                                 f"{MAX_LINE_BYTES} bytes; not a file of texts")
            if first and chunk.startswith(b"\xef\xbb\xbf"):
                chunk = chunk[3:]
            first = False
            if b"\0" in chunk:
                raise UsageError(f"classify: {path}: line {number + 1} has a NUL byte: a binary "
                                 "file (or UTF-16; save it as UTF-8)")
            for piece in _records(chunk):
                number += 1
                line = _decode(piece)
                if line.strip():
                    seen = True
                    yield number, line
    if not seen:
        raise UsageError(f"classify: {path} is empty (no non-blank line)")


def _records(chunk: bytes) -> list[bytes]:
    """One read line as records, without endings: a line ending at LF is one record, a
    CR before the LF dropped and every other CR made a space. A line without LF is the
    file's last, or the whole of a file without any LF, which splits at CR instead."""
    if not chunk.endswith(b"\n"):
        return chunk.split(b"\r")
    return [chunk[:-1].removesuffix(b"\r").replace(b"\r", b" ")]


def _decode(line: bytes) -> str:
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError:
        return line.decode("latin-1")


def _excerpt(line: str, width: int = 40) -> str:
    return repr(line if len(line) <= width else line[:width] + "...")
