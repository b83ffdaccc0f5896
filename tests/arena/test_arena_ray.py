"""The Ray backend plays the same games as the local pool, against a local Ray instance.

Skipped when Ray is not installed (`pip install 'aviary[cluster]'`).
"""

import sqlite3
import subprocess
import sys

import pytest
from arena_programs import assert_no_process_mentions, write_programs

pytest.importorskip("ray")


def test_ray_backend_runs_a_tournament_to_the_planned_count(tmp_path):
    commands = write_programs(tmp_path)
    db = tmp_path / "ray.sqlite"
    result = subprocess.run(
        [sys.executable, "-m", "aviary", "arena", "run", "--backend", "ray", "--jobs", "2",
         "--n", "7", "--time", "1", "--games", "4", "--max-plies", "6", "--db", str(db),
         "aviary:random?seed=1", f"mover={commands['random_mover']}", f"bad={commands['garbage']}"],
        capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    with sqlite3.connect(db) as connection:
        rows = connection.execute("SELECT id, first, second, reason FROM games").fetchall()
    assert sorted(row[0] for row in rows) == [1, 2, 3, 4]
    for _, first, second, reason in rows:
        expected = "illegal" if "bad" in (first, second) else "ply-limit"
        assert reason == expected
    assert_no_process_mentions(str(tmp_path))
