"""A fast strength guard: every engine beats the textbook opponent at equal node budgets.

Both players search a fixed number of nodes a move (no clock), each game with fresh
tables, so the games replay alike on a busy machine and after any other test; over
two seeded openings, each played with colours
swapped; the engine's solved tables are off, so what is measured is its search
and evaluation. The bar is low on purpose (a guard, not a figure: the figures are
arena runs at 1 s a move): the engine scores at least 3 of 4. In Fox-Geese the
engine's fox is not asked to win (the classic fox loses with good play by the
geese); its geese must, and the engine loses no game there (a game without chance:
a loss would be the engine's alone).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from aviary.games import registry
from aviary.games.base import Game

NODES = 3000
PAIRS = 2
MAX_PLIES = 4000  # beyond any game here (Fox-Geese's move limit is 600 plies)

CONFIGURATIONS = [
    ("pikachu", {}),
    ("betsy", {}),
    ("foxgeese", {"variant": "classic"}),
    ("foxgeese", {"variant": "elephants"}),
    ("ijk", {"mode": "det"}),
    ("ijk", {"mode": "nondet"}),
]


def play(game: Game[Any, Any], players: tuple[Any, Any], state: Any, rng: random.Random
         ) -> float | None:
    """The first player's score (1, 0.5, 0), or None if the game did not end."""
    for player in players:
        player.new_game()  # tables from earlier tests' searches (some timed) would steer it
    states = [state]
    for _ in range(MAX_PLIES):
        ended = game.outcome(state)
        if ended is not None:
            return ended.score(0)
        if game.is_chance(state):
            move = game.sample_chance(state, rng)
        else:
            player = players[game.to_move(state)]  # (the textbook player ignores both options)
            move = player.best_move(state, nodes=NODES, tables="off", history=states[:-1])
        state = game.play(state, move)
        states.append(state)
    return None


@pytest.mark.parametrize(("name", "settings"), CONFIGURATIONS,
                         ids=[f"{n}-{'-'.join(map(str, s.values())) or 'default'}"
                              for n, s in CONFIGURATIONS])
def test_the_engine_beats_the_textbook_opponent_at_equal_nodes(name, settings):
    game = registry.make(name, **settings)
    spec = registry.spec(name)
    engine, textbook = spec.engine("engine", game), spec.engine("textbook", game)
    scores = {}
    for pair in range(PAIRS):
        opening = game.opening(random.Random(pair), 4)
        for engine_side in (0, 1):
            players = (engine, textbook) if engine_side == 0 else (textbook, engine)
            first = play(game, players, opening, random.Random(2 * pair + engine_side))
            assert first is not None, "the game ended"
            scores[pair, engine_side] = first if engine_side == 0 else 1 - first
    assert sum(scores.values()) >= 3, scores
    if name == "foxgeese":  # the engine's geese win, its fox loses nothing
        geese = game.labels.index("g")
        assert all(scores[pair, geese] == 1 for pair in range(PAIRS)), scores
        assert min(scores.values()) >= 0.5, scores
