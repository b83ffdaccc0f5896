"""IJK in the arena: the referee places the tiles, a real `aviary ijk move` process answers."""

import random
import sys

from aviary.arena.players import ExternalPlayer, InProcessPlayer, random_engine
from aviary.arena.referee import GameRecord, play_game
from aviary.games import registry
from aviary.games.base import CHANCE


def test_an_external_ijk_program_plays_nondet_moves_the_referee_accepts():
    game = registry.make("ijk", mode="nondet")
    program = ExternalPlayer([sys.executable, "-m", "aviary", "ijk", "move"], game, grace=1.0,
                             memory_mb=None)
    other = InProcessPlayer(random_engine(game, {"seed": "1"}), grace=1.0)
    record = play_game(game, (program, other), game.start(), 0.6, 8,
                       GameRecord(0, "program", "random", game.encode(game.start())),
                       chance=random.Random(7))
    assert record.reason == "ply-limit", (record.reason, record.detail)
    movers = [move.mover for move in record.moves]
    assert movers[:4] == [0, CHANCE, 1, CHANCE]  # every move is followed by the referee's tile
    for move in record.moves:
        state = game.decode(move.state)
        assert not game.is_chance(state) or move.mover != CHANCE
