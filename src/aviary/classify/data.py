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
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from aviary.errors import UsageError


@dataclass(frozen=True)
class Labeled:
    """Parallel lists of labels and texts read from one file."""

    labels: list[str]
    texts: list[str]


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
    for number, line in _numbered_lines(Path(path)):
        if line[0].isspace():
            raise UsageError(
                f"classify: {path}: line {number} has no label (expected 'LABEL text...', "
                f"got {_excerpt(line)})"
            )
        parts = line.split(maxsplit=1)
        labels.append(parts[0])
        texts.append(parts[1] if len(parts) > 1 else "")
    return Labeled(labels, texts)


def _numbered_lines(path: Path) -> list[tuple[int, str]]:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise UsageError(f"classify: no such file: {path}") from None
    except IsADirectoryError:
        raise UsageError(f"classify: {path} is a directory, not a file") from None
    except OSError as error:
        raise UsageError(f"classify: cannot read {path}: {error.strerror}") from None
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    numbered = [(number, _decode(line)) for number, line in enumerate(_records(raw), 1)]
    numbered = [(number, line) for number, line in numbered if line.strip()]
    if not numbered:
        raise UsageError(f"classify: {path} is empty (no non-blank line)")
    return numbered


def _records(raw: bytes) -> list[bytes]:
    """The file's records, without endings: split at LF, a CR before it dropped,
    every other CR made a space. A file without any LF splits at CR instead."""
    if b"\n" not in raw:
        return raw.split(b"\r")
    records = raw.split(b"\n")
    if not records[-1]:
        records.pop()  # the file ends with LF: no record after it
    return [record.removesuffix(b"\r").replace(b"\r", b" ") for record in records]


def _decode(line: bytes) -> str:
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError:
        return line.decode("latin-1")


def _excerpt(line: str, width: int = 40) -> str:
    return repr(line if len(line) <= width else line[:width] + "...")
