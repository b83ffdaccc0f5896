"""`aviary warmup` compiles every listed module's kernels through one `warmup()` hook, and
what it compiles is what a course command then loads instead of compiling."""

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from aviary import warmup
from aviary.games import registry

GAME = "betsy"  # a game without endgame tables: its warmup is only compiling
START = "RNBQKBNRPPPPPPPP................................pppppppprnbqkbnr"


def test_every_warmup_module_exposes_a_warmup_function():
    for name in warmup.WARMUP_MODULES:
        assert callable(importlib.import_module(name).warmup), name
    assert warmup.DEEP_WARMUP_MODULES, "the deep tables are listed"
    for name in warmup.DEEP_WARMUP_MODULES:
        assert callable(importlib.import_module(name).deep_warmup), name


def test_pikachu_warmup_runs_and_reports_each_module(capsys, monkeypatch):
    monkeypatch.setattr(warmup, "WARMUP_MODULES", ["aviary.games.pikachu.engine"])
    assert warmup.main([]) == 0
    assert "aviary.games.pikachu.engine: ready in" in capsys.readouterr().out


def cache_files(folder: Path) -> dict[str, int]:
    """numba's cache files under `folder`, with their modification times."""
    return {str(path.relative_to(folder)): path.stat().st_mtime_ns
            for path in folder.rglob("*") if path.is_file()}


@pytest.mark.slow
def test_after_warmup_in_a_fresh_cache_the_course_engine_answers_without_compiling(tmp_path):
    """`aviary warmup`'s code (its module list cut to one game: the whole list compiles for
    minutes) fills an empty numba cache; then the game's course command answers from its
    engine at once, and writes nothing to the cache: it compiled nothing."""
    numba_cache = tmp_path / "numba"
    numba_cache.mkdir()
    env = dict(os.environ, NUMBA_CACHE_DIR=str(numba_cache),
               AVIARY_CACHE_DIR=str(tmp_path / "tables"), AVIARY_NO_WARM="1")
    modules = list(registry.spec(GAME).warmup)
    warm = subprocess.run(
        [sys.executable, "-c", "import sys; from aviary import warmup; "
         f"warmup.WARMUP_MODULES[:] = {modules!r}; sys.exit(warmup.main([]))"],
        capture_output=True, text=True, env=env, timeout=300)
    assert warm.returncode == 0, warm.stderr
    assert all(f"{module}: ready in" in warm.stdout for module in modules), warm.stdout
    compiled = cache_files(numba_cache)
    assert any(name.endswith(".nbc") for name in compiled), "warmup cached no compiled code"

    # seconds enough for a loaded machine to load the cached engine (without the cache it
    # compiles for longer than that, and the fallback's answer stands)
    course = subprocess.run([sys.executable, "-m", "aviary", GAME, "w", START, "6"],
                            capture_output=True, text=True, env=env, timeout=60,
                            stdin=subprocess.DEVNULL)
    assert course.returncode == 0, course.stderr
    said = course.stderr.strip().splitlines()[-1]
    assert said.startswith("engine (depth "), f"the engine did not answer: {course.stderr}"
    assert cache_files(numba_cache) == compiled, "the course command compiled something"
