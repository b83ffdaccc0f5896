"""Solved tables on disk (`aviary.cache`): round trip, damage reads as absent, old keys go."""

import mmap

import numpy as np

from aviary import cache


def test_cache_dir_follows_the_override(tmp_path, monkeypatch):
    monkeypatch.setenv("AVIARY_CACHE_DIR", str(tmp_path / "here"))
    assert cache.cache_dir() == tmp_path / "here"
    monkeypatch.delenv("AVIARY_CACHE_DIR")
    assert cache.cache_dir().name == "aviary"


def test_a_table_reads_back_only_whole_and_of_the_expected_shape(tmp_path):
    table = np.arange(1000, dtype=np.int16)
    path = tmp_path / "deep" / "thing-0123456789ab.npz"
    cache.write_table(path, table)
    np.testing.assert_array_equal(cache.read_table(path, 1000, "<i2"), table)
    assert cache.read_table(path, 999, "<i2") is None
    assert cache.read_table(path, 1000, "<i4") is None
    assert cache.read_table(tmp_path / "absent.npz", 1000, "<i2") is None
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01  # one bit inside the table
    path.write_bytes(bytes(data))
    assert cache.read_table(path, 1000, "<i2") is None
    path.write_bytes(bytes(data[:100]))
    assert cache.read_table(path, 1000, "<i2") is None
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary left


def test_a_large_table_is_mapped_and_checked_for_its_header_and_length(tmp_path, monkeypatch):
    monkeypatch.setattr(cache, "MAP_OVER", 100)  # bytes: this 2,000-byte table is "large"
    table = np.arange(1000, dtype=np.int16)
    path = tmp_path / "thing-0123456789ab.npz"
    cache.write_table(path, table)
    mapped = cache.read_table(path, 1000, "<i2")
    assert isinstance(mapped.obj, mmap.mmap)  # mapped, not read
    np.testing.assert_array_equal(mapped, table)
    assert cache.read_table(path, 999, "<i2") is None
    assert cache.read_table(path, 1000, "<i4") is None
    path.write_bytes(path.read_bytes()[:1500])
    assert cache.read_table(path, 1000, "<i2") is None


def test_saving_deletes_the_same_table_under_older_keys_only(tmp_path):
    old = tmp_path / "thing-aaaaaaaaaaaa.npz"
    other = tmp_path / "other-aaaaaaaaaaaa.npz"
    old.write_bytes(b"old")
    other.write_bytes(b"other")
    cache.write_table(tmp_path / "thing-bbbbbbbbbbbb.npz", np.zeros(3, dtype=np.int16))
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "other-aaaaaaaaaaaa.npz", "thing-bbbbbbbbbbbb.npz"]
