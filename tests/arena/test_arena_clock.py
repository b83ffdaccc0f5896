"""The arena hands an in-process engine its move's seconds as one deadline, and nothing more.

The bug this guards against: margins stacked on margins (the arena's, the engine's
budget, its depth share of an already shortened time) made Pikachu at `--time 1`
stop after about 0.66 s. Handed 1 s, an engine must use more than its depth share
of it and return within it, on a loaded two-core machine too.
"""

import random
import time

import pytest

from aviary.arena.games import make_engine, make_game
from aviary.search.clock import DEPTH_SHARE


@pytest.mark.parametrize("name", ["engine", "textbook"])
def test_a_pikachu_player_handed_one_second_uses_most_of_it_and_returns_in_time(name):
    game = make_game("pikachu", {"n": "8"})
    engine = make_engine(game, name, depth=None)  # compiled here, before the clock
    state = game.opening(random.Random(1), 10)  # a middle game
    assert len(game.legal_moves(state)) > 10  # many moves: no depth finishes the game
    started = time.monotonic()
    line = engine(state, 1.0, ())
    used = time.monotonic() - started
    assert line in game.answers(state)
    assert DEPTH_SHARE - 0.05 < used <= 1.0
