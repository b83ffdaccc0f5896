"""Betsy's search compiled ahead of time (`aviary.search.aot`, numba's pycc): built into
the session's cache folder, it answers as numba's JIT engine does (null-move pruning and
the evaluation's switches included), loads without numba, is what a cold course command
thinks with, and is what a warm server loads first. Skipped where no C compiler is
present (the JIT engine then answers, as before)."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import textwrap

import pytest

from aviary.games.betsy import compiled, engine, rules
from aviary.search import aot
from aviary.search import compiled as compiled_search
from aviary.search.clock import Limit

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(aot.compiler_present() is not None,
                       reason=f"cannot compile ahead of time: {aot.compiler_present()}"),
]

START = rules.start_position().board
ENDING = "....K......R.....................q............b..n.....r......k."


def _positions() -> list[rules.Position]:
    """The start (both variants), an ending where the null move is refused to one side,
    and middle games reached by random moves (seeded)."""
    chooser = random.Random(53)
    positions = [rules.start_position(), rules.start_position(diagonal=True),
                 rules.Position(ENDING, "w"), rules.Position(ENDING, "b", True)]
    game = rules.Betsy()
    for plies in (7, 16, 30):
        position = rules.start_position(diagonal=plies == 16)
        for _ in range(plies):
            moves = game.legal_moves(position)
            if not moves or game.outcome(position) is not None:
                break
            position = game.play(position, chooser.choice(moves))
        positions.append(position)
    return positions


@pytest.fixture(scope="module")
def built(session_cache):
    """The extension, built once into the session's cache folder (tens of seconds of CPU)."""
    path = aot.build(compiled.GAME, engine.KERNELS)
    assert path.is_file() and path.parent.parent == session_cache / "compiled"
    return path


def _run(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=300, env=dict(os.environ, **env))


def test_compiled_search_answers_as_the_jit_engine_at_each_depth(built):
    game = rules.Betsy()
    aot_engine = compiled.make_engine(game)
    assert aot_engine is not None
    assert isinstance(aot_engine.searcher.kernels, compiled_search.CompiledSearch)
    assert aot_engine.searcher.null_move and engine.make_engine(game).searcher.null_move
    jit_engine = engine.make_engine(game)
    for position in _positions():
        if game.outcome(position) is not None:
            continue
        for depth in range(1, 5):
            # a fresh workspace each: the transposition table of one search steers the next
            fresh = [type(e)(game, e.searcher, e.quick, e.tables) for e in (jit_engine,
                                                                          aot_engine)]
            jit, ahead = ([(r.depth, r.score, r.move, r.nodes) for r in
                           e.think(position, Limit(depth=depth))] for e in fresh)
            assert jit and ahead == jit, (position, depth)


def test_compiled_engine_thinks_without_numba(built):
    result = _run(f"""
        import sys
        from aviary.games.betsy import compiled, rules
        from aviary.search.clock import Limit
        engine = compiled.make_engine(rules.Betsy())
        position = rules.Position("{START}", "w")
        reports = list(engine.think(position, Limit(depth=4)))
        print(reports[-1].depth, reports[-1].answer)
        print("numba loaded" if any(m.split(".")[0] == "numba" for m in sys.modules)
              else "numba not loaded")
        """)
    assert result.returncode == 0, result.stderr
    depth, answer, *_ = result.stdout.split()
    assert depth == "4" and answer in rules.Betsy().answers(rules.start_position())
    assert result.stdout.splitlines()[-1] == "numba not loaded"


def test_engine_host_loads_the_compiled_engine_first(built):
    """What a warm server serves with (`engine_host.load`): the compiled engine, numba never
    imported; with AVIARY_NO_COMPILED=1 (as where the extension is missing), numba's."""
    code = """
        import sys
        from aviary.course import engine_host
        game, engine = engine_host.load("betsy", {})
        print(type(engine.searcher.kernels).__name__)
        print(any(m.split(".")[0] == "numba" for m in sys.modules))
        """
    ahead = _run(code)
    assert ahead.returncode == 0, ahead.stderr
    assert ahead.stdout.split() == ["CompiledSearch", "False"]
    jit = _run(code, AVIARY_NO_COMPILED="1")
    assert jit.returncode == 0, jit.stderr
    assert jit.stdout.split() == ["Kernels", "True"]


def test_cold_course_command_thinks_with_the_compiled_search(built):
    # 4 s, not 2: on a loaded CI machine a command alone took 1.2 s to start
    env = dict(os.environ, AVIARY_COURSE_TRACE="1", AVIARY_NO_WARM="1")
    result = subprocess.run([sys.executable, "-m", "aviary", "betsy", "w", START, "4"],
                            capture_output=True, text=True, timeout=60, env=env)
    assert result.returncode == 0, result.stderr
    assert "engine built (compiled ahead of time: no numba)" in result.stderr
    assert "numba imported" not in result.stderr
    assert result.stderr.splitlines()[-1].startswith("engine (depth ")
    legal = rules.Betsy().answers(rules.start_position())
    assert result.stdout.splitlines() and all(line in legal
                                              for line in result.stdout.splitlines())


def test_a_damaged_extension_is_built_again(built):
    """A damaged file (a disk error, a copy cut short) is not taken for a build: `aviary
    warmup` builds it again, and the rebuilt one loads. Last in this module: it leaves a
    good extension behind for the tests that follow."""
    good = built.read_bytes()
    damaged = built.with_name("damaged")
    damaged.write_bytes(good[: len(good) // 3])
    os.replace(damaged, built)  # a new file: this process still maps the old one
    assert not aot.loads(compiled.GAME, built)
    path = aot.build(compiled.GAME, engine.KERNELS)
    assert path == built and aot.loads(compiled.GAME, path)


def _entries_keyed_by_bound_kernels() -> int:
    """How many of numba's cached compilations of the search are keyed by a kernel's
    dispatcher (the type a kernel bound as a global gets), read from the cache's index."""
    import pickle

    from numba.core import types

    from aviary.search.alphabeta import negamax

    index = negamax._cache._cache_file._index_path
    if not os.path.exists(index):
        return 0
    with open(index, "rb") as file:
        pickle.load(file)  # numba's version
        _, overloads = pickle.loads(file.read())
    return sum(any(isinstance(arg, types.Dispatcher) for arg in key[0]) for key in overloads)


def test_a_build_leaves_numbas_cache_of_the_search_as_it_was(tmp_path):
    """An extension binds the kernels as globals; numba keyed such a compilation by the
    kernels' dispatchers, which no later process matched. Each build added one more
    entry to the search's cache index, and a build in a process that had read such
    entries failed to write the index ("underlying object has vanished"), leaving the
    JIT search. Two builds in two fresh processes: both succeed, and add nothing."""
    before = _entries_keyed_by_bound_kernels()
    for attempt in range(2):
        result = _run("""
            from aviary.games.betsy import engine
            from aviary.search import aot
            aot.build("betsy", engine.KERNELS)
            """, AVIARY_CACHE_DIR=str(tmp_path / str(attempt)))
        assert result.returncode == 0, result.stderr[-2000:]
        assert any((tmp_path / str(attempt) / "compiled").glob("betsy-*/*.so"))
    assert _entries_keyed_by_bound_kernels() == before
