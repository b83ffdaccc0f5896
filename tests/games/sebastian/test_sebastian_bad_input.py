"""Bad input to `aviary sebastian` and a damaged cached table: one line, never a traceback."""

import subprocess
import sys

import numpy as np

from aviary.games.sebastian import cache as table_cache


def test_a_negative_seed_is_one_line():
    result = subprocess.run([sys.executable, "-m", "aviary", "sebastian", "play", "--seed", "-1"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert result.stderr == "aviary sebastian play: --seed must be from 0 to 4294967295, got -1\n"


def test_a_truncated_table_is_read_as_missing_so_it_is_solved_again(tmp_path):
    whole = tmp_path / "whole.npz"
    np.savez(whole, values=np.zeros((1000, 4)), figures=np.zeros(4))
    for cut in (10, len(whole.read_bytes()) // 2, len(whole.read_bytes()) - 30):
        truncated = tmp_path / f"cut{cut}.npz"
        truncated.write_bytes(whole.read_bytes()[:cut])
        assert table_cache._read(truncated) is None  # before: zipfile.BadZipFile
