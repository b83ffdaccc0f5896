"""Pikachu's search compiled ahead of time (`aviary.search.aot`, numba's pycc): built into
the session's cache folder, it answers as numba's JIT engine does, loads without numba,
is not used once built from other sources, and is what a cold course command thinks with.
Skipped where no C compiler is present (the JIT engine then answers, as before)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from aviary.games.pikachu import compiled, engine, rules
from aviary.search import aot
from aviary.search import compiled as compiled_search
from aviary.search.clock import Limit

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(aot.compiler_present() is not None,
                       reason=f"cannot compile ahead of time: {aot.compiler_present()}"),
]

START = "........wwwwwwwwwwwwwwww................bbbbbbbbbbbbbbbb........"
POSITIONS = [
    ("w", START),
    ("b", "........wwwwwwww.wwwwwww........w.......bbbbbbbbbbbbbbbb........"),
    ("w", "....W.....ww.w....w..b........b...w..b....bb.b.....B......b....."),  # captures
    ("b", "..........w.W..........b.....................B.........w........"),  # few pieces
    ("w", "...........ww.....w...........b.b............b.......B.........."),
]


@pytest.fixture(scope="module")
def built(pikachu_cache):
    """The extension, built once into the session's cache folder (tens of seconds of CPU)."""
    path = aot.build(compiled.GAME, engine.KERNELS)
    assert path.is_file() and path.parent.parent == pikachu_cache / "compiled"
    return path


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=300, env=dict(os.environ))


def test_compiled_search_answers_as_the_jit_engine_at_each_depth(built):
    game = rules.Pikachu(n=8)
    aot_engine = compiled.make_engine(game)
    assert aot_engine is not None
    assert isinstance(aot_engine.searcher.kernels, compiled_search.CompiledSearch)
    jit_engine = engine.make_engine(game)
    for player, board in POSITIONS:
        position = rules.Position(8, board, player)
        for depth in range(1, 5):
            # a fresh workspace each: the transposition table of one search steers the next
            fresh = [type(e)(game, e.searcher, e.quick, e.tables) for e in (jit_engine,
                                                                          aot_engine)]
            jit, ahead = ([(r.depth, r.score, r.move, r.nodes) for r in
                           e.think(position, Limit(depth=depth), tables="off")]
                          for e in fresh)
            assert jit and ahead == jit, (player, board, depth)


def test_compiled_engine_thinks_without_numba(built):
    result = _run(f"""
        import sys
        from aviary.games.pikachu import compiled, rules
        from aviary.search.clock import Limit
        engine = compiled.make_engine(rules.Pikachu(n=8))
        position = rules.Position(8, "{START}", "w")
        reports = list(engine.think(position, Limit(depth=4)))
        print(reports[-1].depth, reports[-1].answer)
        print("numba loaded" if any(m.split(".")[0] == "numba" for m in sys.modules)
              else "numba not loaded")
        """)
    assert result.returncode == 0, result.stderr
    depth, answer, *_ = result.stdout.split()
    assert depth == "4" and answer in rules.Pikachu(n=8).answers(rules.Position(8, START, "w"))
    assert result.stdout.splitlines()[-1] == "numba not loaded"


def test_compiled_search_stops_at_its_deadline(built):
    """The extension releases the GIL, so the deadline's timer thread stops a deep search."""
    result = _run(f"""
        import time
        from aviary.games.pikachu import compiled, rules
        from aviary.search.clock import Limit
        engine = compiled.make_engine(rules.Pikachu(n=8))
        started = time.monotonic()
        reports = list(engine.think(rules.Position(8, "{START}", "w"),
                                    Limit(time=0.5, depth=40)))
        print(len(reports), time.monotonic() - started)
        """)
    assert result.returncode == 0, result.stderr
    depths, seconds = result.stdout.split()
    assert int(depths) >= 1 and float(seconds) < 1.5


def test_an_extension_of_other_sources_is_not_loaded(built, tmp_path):
    """Keyed by the sources: the same file under another key is never found."""
    other = tmp_path / "compiled" / f"{compiled.GAME}-0123456789abcdef"
    other.parent.mkdir()
    shutil.copytree(built.parent, other)
    code = """
        from aviary.games.pikachu import compiled, rules
        print(compiled.make_engine(rules.Pikachu(n=8)))
        """
    stale = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                           text=True, timeout=300,
                           env=dict(os.environ, AVIARY_CACHE_DIR=str(tmp_path)))
    assert stale.returncode == 0, stale.stderr
    assert stale.stdout.strip() == "None"
    assert _run(code).stdout.startswith("<aviary.games.engine.Engine")  # the current one


def test_cold_course_command_thinks_with_the_compiled_search(built):
    # seconds to spare: on a loaded CI machine the command alone took 1.2 s to start, and
    # numba's engine child then had not even imported numba by a 2-second deadline
    env = dict(os.environ, AVIARY_COURSE_TRACE="1", AVIARY_NO_WARM="1")
    result = subprocess.run([sys.executable, "-m", "aviary", "pikachu", "8", "w", START, "4"],
                            capture_output=True, text=True, timeout=60, env=env)
    assert result.returncode == 0, result.stderr
    assert "engine built (compiled ahead of time: no numba)" in result.stderr
    assert "numba imported" not in result.stderr
    assert result.stderr.splitlines()[-1].startswith("engine (depth ")
    legal = rules.Pikachu(n=8).answers(rules.Position(8, START, "w"))
    assert result.stdout.splitlines() and all(line in legal
                                              for line in result.stdout.splitlines())
    off = subprocess.run([sys.executable, "-m", "aviary", "pikachu", "8", "w", START, "8"],
                         capture_output=True, text=True, timeout=60,
                         env=dict(env, AVIARY_NO_COMPILED="1"))
    assert "numba imported" in off.stderr and "compiled ahead of time" not in off.stderr
