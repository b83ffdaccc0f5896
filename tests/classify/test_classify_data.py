"""Reading messy real files: encodings, line endings, bare CRs, blank lines, missing labels."""

from __future__ import annotations

from collections import Counter

import pytest

from aviary.classify.data import read_labeled, read_lines
from aviary.classify.synthetic import CITIES, generate, write_tweet_file
from aviary.errors import UsageError


def test_utf8_latin1_crlf_and_blank_lines_are_all_read(tmp_path):
    path = tmp_path / "mixed.txt"
    path.write_bytes(
        b"\xef\xbb\xbfEastCoast caf\xc3\xa9 in nyc\r\n"   # BOM, UTF-8, CR LF
        b"\r\n   \n"                                        # blank lines
        b"WestCoast caf\xe9 in la\n"                        # Latin-1
        b"WestCoast broken \xff\xfe bytes\r\n"              # undecodable as UTF-8
        b"EastCoast \n"                                     # a label with an empty text
    )
    data = read_labeled(path)
    assert data.labels == ["EastCoast", "WestCoast", "WestCoast", "EastCoast"]
    assert data.texts == ["café in nyc", "café in la", "broken ÿþ bytes", ""]


def test_a_bare_cr_inside_a_tweet_is_whitespace_not_a_line_end(tmp_path):
    path = tmp_path / "mac_breaks.txt"
    path.write_bytes(
        b"Los_Angeles,_CA sunset\rat venice\r\n"          # bare CR inside, CR LF ending
        b"Boston,_MA\rfenway \xe9t\xe9\r\r\n"            # CR right after the label; CR CR LF
        b"Toronto,_Ontario leafs\n"                        # LF alone
        b"Chicago,_IL \r\n"                               # label, then only the ending
    )
    data = read_labeled(path)
    assert data.labels == ["Los_Angeles,_CA", "Boston,_MA", "Toronto,_Ontario", "Chicago,_IL"]
    assert data.texts == ["sunset at venice", "fenway été ", "leafs", ""]


def test_a_record_after_a_bare_cr_keeps_its_line_number(tmp_path):
    path = tmp_path / "nolabel_after_cr.txt"
    path.write_bytes(b"E snow\rday\r\nW surf\r\n  no label here\r\n")
    with pytest.raises(UsageError, match="line 3 has no label"):
        read_labeled(path)


def test_a_file_without_any_lf_ends_its_lines_at_cr(tmp_path):
    path = tmp_path / "classic_mac.txt"
    path.write_bytes(b"E snow day\rW surf\r")
    data = read_labeled(path)
    assert (data.labels, data.texts) == (["E", "W"], ["snow day", "surf"])


@pytest.mark.parametrize("seed", [3, 4])
def test_generated_city_files_read_one_record_per_lf_terminated_line(tmp_path, seed):
    tweets = generate(1500, seed=seed)
    path = tmp_path / "cities.txt"
    write_tweet_file(path, tweets)
    raw = path.read_bytes()
    bare_crs = raw.count(b"\r") - raw.count(b"\r\n")
    assert bare_crs > 150                       # the files under test really hold bare CRs
    assert any(byte >= 0x80 for byte in raw)    # and Latin-1 bytes
    assert b"\xe9" in raw and "é".encode() not in raw
    data = read_labeled(path)
    assert len(data.labels) == raw.count(b"\n") == len(tweets.labels)
    assert data.labels == tweets.labels
    assert data.texts == [text.replace("\r", " ") for text in tweets.texts]
    sizes = Counter(data.labels)
    assert len(sizes) == len(CITIES) >= 10
    assert max(sizes.values()) > 3 * min(sizes.values())   # unbalanced
    assert all("," in label and "_" in label for label in sizes)


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


def test_the_example_files_script_writes_a_train_and_a_test_file(tmp_path, capsys):
    from aviary.classify.data import read_labeled
    from aviary.classify.synthetic import main

    train, test = tmp_path / "train.txt", tmp_path / "test.txt"
    assert main([str(train), str(test), "--tweets", "40", "--seed", "5"]) == 0
    assert read_labeled(train).labels == generate(40, seed=5).labels
    assert read_labeled(test).labels == generate(10, seed=6).labels
    assert "wrote" in capsys.readouterr().out
    assert main([str(train), str(tmp_path / "other.txt")]) == 2  # never replaces a file
    assert main([str(tmp_path / "a"), str(tmp_path / "b"), "--tweets", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 2 and "exists" in err and "--tweets" in err
    assert not (tmp_path / "other.txt").exists()
