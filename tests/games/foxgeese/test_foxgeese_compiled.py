"""Fox-Geese's search compiled ahead of time (`aviary.search.aot`, numba's pycc): built by
`aviary warmup`'s hook into the session's cache folder, it answers as numba's JIT engine
does in every variant (classic, elephants, either on the shrinking board), loads without
numba, and is what a cold course command thinks with. Skipped where no C compiler is
present (the JIT engine then answers, as before). That a damaged extension is built again
is the generic builder's business, tested once (tests/games/betsy/test_betsy_compiled.py)."""

from __future__ import annotations

import os
import random
import subprocess
import sys
import textwrap

import pytest

from aviary import warmup
from aviary.games import registry
from aviary.games.foxgeese import compiled, engine, rules
from aviary.search import aot
from aviary.search import compiled as compiled_search
from aviary.search.clock import Limit

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(aot.compiler_present() is not None,
                       reason=f"cannot compile ahead of time: {aot.compiler_present()}"),
]

CONFIGURATIONS = [(variant, shrink) for variant in rules.VARIANTS for shrink in (False, True)]
DEPTH = 7  # every depth from 1 is compared on the way (about 30 ms a position)


def _positions(variant: str, shrink: bool) -> list[tuple[rules.Position, list[rules.Position]]]:
    """(position, the game before it) from random games (seeded): the start, a middle game,
    nine animals left (the shrinking board closes an arm within the search's reach) and
    the first position with an arm closed (without --shrink: the same ply of that game)."""
    game = rules.FoxGeese(variant=variant, shrink=shrink)
    chooser = random.Random(rules.VARIANTS.index(variant))
    played = [game.start()]
    while game.outcome(played[-1]) is None and game.legal_moves(played[-1]):
        played.append(game.play(played[-1], chooser.choice(game.legal_moves(played[-1]))))
    nine = next(i for i, p in enumerate(played) if rules.animals(p.board) <= 9)
    closed = next((i for i, p in enumerate(played)
                   if p.board.count(rules.HOLE) > len(rules.CORNERS)), nine + 2)
    return [(played[i], played[:i]) for i in sorted({0, 40, nine, closed})
            if i < len(played) and game.outcome(played[i]) is None]


@pytest.fixture(scope="module")
def built(session_cache):
    """The extension, built once into the session's cache folder by the module `aviary
    warmup` runs for it (tens of seconds of CPU)."""
    module = "aviary.games.foxgeese.compiled"
    assert module in warmup.WARMUP_MODULES
    assert registry.spec(compiled.GAME).compiled == f"{module}:make_engine"
    warmup.warm(module)
    path = compiled_search.extension_path(compiled.GAME)
    assert path.is_file() and path.parent.parent == session_cache / "compiled"
    return path


def _run(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=300, env=dict(os.environ, **env))


@pytest.mark.parametrize(("variant", "shrink"), CONFIGURATIONS)
def test_compiled_search_answers_as_the_jit_engine_at_each_depth(built, variant, shrink):
    game = rules.FoxGeese(variant=variant, shrink=shrink)
    aot_engine = compiled.make_engine(game)
    assert aot_engine is not None
    assert isinstance(aot_engine.searcher.kernels, compiled_search.CompiledSearch)
    jit_engine = engine.make_engine(game)
    assert aot_engine.tables is jit_engine.tables  # the same endgame tables and odds
    positions = _positions(variant, shrink)
    assert len(positions) >= 3, positions
    for position, before in positions:
        for history in ([], before):  # the game's earlier positions: repetitions are draws
            # a fresh workspace each: the transposition table of one search steers the next
            fresh = [type(e)(game, e.searcher, e.quick, e.tables) for e in (jit_engine,
                                                                          aot_engine)]
            jit, ahead = ([(r.depth, r.score, r.move, r.nodes) for r in
                           e.think(position, Limit(depth=DEPTH), tables="off",
                                   history=history)] for e in fresh)
            assert len(jit) == DEPTH and ahead == jit, (position, len(history))


def test_compiled_engine_thinks_without_numba(built):
    result = _run("""
        import sys
        from aviary.games.foxgeese import compiled, rules
        from aviary.search.clock import Limit
        engine = compiled.make_engine(rules.FoxGeese(variant="elephants", shrink=True))
        position = rules.start_position("elephants", shrink=True)
        reports = list(engine.think(position, Limit(depth=5)))
        print(reports[-1].depth, reports[-1].answer)
        print("numba loaded" if any(m.split(".")[0] == "numba" for m in sys.modules)
              else "numba not loaded")
        """)
    assert result.returncode == 0, result.stderr
    depth, answer = result.stdout.splitlines()[0].split()
    game = rules.FoxGeese(variant="elephants", shrink=True)
    assert depth == "5" and answer in game.answers(rules.start_position("elephants", True))
    assert result.stdout.splitlines()[-1] == "numba not loaded"


@pytest.mark.parametrize("options", [[], ["--variant", "elephants", "--shrink"]])
def test_cold_course_command_thinks_with_the_compiled_search(built, options):
    # 4 s, not 1: on a loaded CI machine a command alone took 1.2 s to start
    env = dict(os.environ, AVIARY_COURSE_TRACE="1", AVIARY_NO_WARM="1")
    variant = "elephants" if options else "classic"
    position = rules.start_position(variant, shrink=bool(options))
    result = subprocess.run([sys.executable, "-m", "aviary", "foxgeese", "f", position.board,
                             "4", *options], capture_output=True, text=True, timeout=60,
                            env=env)
    assert result.returncode == 0, result.stderr
    assert "engine built (compiled ahead of time: no numba)" in result.stderr
    assert "numba imported" not in result.stderr
    assert result.stderr.splitlines()[-1].startswith("engine (depth ")
    legal = rules.FoxGeese(variant=variant, shrink=bool(options)).answers(position)
    assert result.stdout.splitlines() and all(line in legal
                                              for line in result.stdout.splitlines())
