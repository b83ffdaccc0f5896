"""The arena gives in-process engines the game's earlier positions, as `aviary play` does.

Without them an engine cannot see that a move repeats the game (only repeats
inside its own search), so a side that is ahead can shuffle to the ply limit.
"""

import random

from aviary.arena.players import InProcessPlayer, build_engine, random_engine
from aviary.arena.referee import GameRecord, play_game
from aviary.games import registry
from aviary.games.pikachu import rules


def test_the_referee_passes_every_earlier_position_of_the_game():
    game = registry.make("ijk", mode="nondet")  # chance positions belong to the history too
    seen: list[tuple[list[str], str]] = []

    def recording(seed: str):
        chooser = random_engine(game, {"seed": seed})

        def engine(state, seconds, history=()):
            seen.append(([game.encode(s) for s in history], game.encode(state)))
            return chooser(state, seconds, history)
        engine.new_game = chooser.new_game
        return engine

    players = (InProcessPlayer(recording("1"), grace=1.0),
               InProcessPlayer(recording("2"), grace=1.0))
    opening = game.start()
    record = play_game(game, players, opening, 1.0, 12,
                       GameRecord(0, "a", "b", game.encode(opening)), chance=random.Random(3))
    game_states = [game.encode(opening)] + [move.state for move in record.moves]
    assert len(seen) == 6  # 12 plies: 6 answers and 6 tiles
    for history, state in seen:
        assert history == game_states[:len(history)]
        assert state == game_states[len(history)]
    assert [len(history) for history, _ in seen] == [0, 2, 4, 6, 8, 10]


def test_an_arena_engine_ahead_avoids_the_move_that_repeats_the_game():
    # white is a Pikachu up; its best move leads to a position the game already had,
    # and told so, the arena's engine plays something else
    game = registry.make("pikachu", n=7)
    position = rules.parse(7, "W......" + "." * 21 + "...b..." + "." * 14, "w")
    engine = build_engine("aviary:engine?depth=5", game)
    first = engine(position, 1.0, ())
    seen = game.play(position, game.read_answer(position, first))
    assert engine(position, 1.0, [seen]) != first
    elsewhere = rules.parse(7, "." * 42 + "W.....b", "w")
    assert engine(position, 1.0, [elsewhere]) == first  # a position it cannot reach: no change
