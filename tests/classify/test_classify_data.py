"""Reading messy real files: encodings, line endings, blank lines, missing labels."""

from __future__ import annotations

import pytest

from aviary.classify.data import read_labeled, read_lines
from aviary.errors import UsageError


def test_utf8_latin1_crlf_and_blank_lines_are_all_read(tmp_path):
    path = tmp_path / "mixed.txt"
    path.write_bytes(
        b"\xef\xbb\xbfEastCoast caf\xc3\xa9 in nyc\r\n"   # BOM, UTF-8, CR LF
        b"\r\n   \n"                                        # blank lines
        b"WestCoast caf\xe9 in la\n"                        # Latin-1
        b"WestCoast broken \xff\xfe bytes\r"                # undecodable as UTF-8, lone CR
        b"EastCoast \n"                                     # a label with an empty text
    )
    data = read_labeled(path)
    assert data.labels == ["EastCoast", "WestCoast", "WestCoast", "EastCoast"]
    assert data.texts == ["café in nyc", "café in la", "broken ÿþ bytes", ""]


def test_tab_separates_label_from_text(tmp_path):
    path = tmp_path / "tabs.txt"
    path.write_text("E\tsnow day\nW\tsurf\n")
    assert read_labeled(path).texts == ["snow day", "surf"]


def test_line_starting_with_space_has_no_label(tmp_path):
    path = tmp_path / "nolabel.txt"
    path.write_text("E snow\n\n  just some words\n")
    with pytest.raises(UsageError, match="line 3 has no label"):
        read_labeled(path)


@pytest.mark.parametrize("content", [b"", b"\n\r\n  \n"])
def test_empty_file_is_refused(tmp_path, content):
    path = tmp_path / "empty.txt"
    path.write_bytes(content)
    with pytest.raises(UsageError, match="empty"):
        read_lines(path)


def test_missing_file_is_named(tmp_path):
    with pytest.raises(UsageError, match="no such file"):
        read_lines(tmp_path / "absent.txt")
