"""The match object every game loop plays through, on real registered games: IJK with its
random tiles (chance), Pikachu (positions that come back: the history engines score
repetitions from), Fox-Geese (a game that ends)."""

import random

import pytest

from aviary.games import registry
from aviary.games.base import CHANCE, IllegalMove
from aviary.games.match import Match, Played


def ijk_nondet_match(seed: int, decisions: int) -> Match:
    """IJK with random tiles: the first legal move each turn, tiles from `seed`."""
    game = registry.make("ijk", mode="nondet")
    match = Match(game)
    rng = random.Random(seed)
    while match.decisions < decisions:
        match.play(game.legal_moves(match.state)[0])
        match.play_chances(rng)
    return match


def play_texts(match: Match, texts: list[str]) -> None:
    for text in texts:
        match.play(match.game.parse_move(match.state, text))


# Pikachu: after the first two moves, four moves bring the board back
PIKACHU_OPENING = ["a3-a4", "a6-a5"]
PIKACHU_CYCLE = ["b3-a3", "a5-b5", "a3-b3", "b5-a5"]
# Fox-Geese: the geese to move; e2-e1 shuts the fox in on d1 (the geese win)
FOX_TRAPPED_AFTER_E2E1 = "##GF.####.GG##...G.......G.........##...####G..##"


def test_a_new_match_starts_at_the_start_with_nothing_played():
    game = registry.make("pikachu")
    match = Match(game)
    assert match.state == game.start() == match.start
    assert match.history == [] and match.moves == [] and match.plies == 0
    assert match.to_move == 0 and match.outcome is None


def test_moves_keep_who_made_them_and_the_positions_before():
    game = registry.make("pikachu")
    match = Match(game)
    play_texts(match, PIKACHU_OPENING)
    assert [played.mover for played in match.moves] == [0, 1]
    assert match.history == match.states[:2]
    assert match.history[0] == game.start()
    assert match.state == game.play(match.history[1], match.moves[1].move)
    assert match.to_move == 0


def test_a_position_that_comes_back_is_in_the_history_for_repetitions():
    match = Match(registry.make("pikachu"))
    play_texts(match, PIKACHU_OPENING)
    before = match.state
    play_texts(match, PIKACHU_CYCLE)
    assert match.state == before
    assert match.history.count(match.state) == 1  # seen once before: a repetition
    assert match.history[2] == before
    assert match.plies == 6 and match.decisions == 6


def test_play_then_undo_restores_the_exact_states_history_and_moves():
    match = Match(registry.make("pikachu"))
    play_texts(match, PIKACHU_OPENING)
    states, history, moves = list(match.states), match.history, list(match.moves)
    play_texts(match, PIKACHU_CYCLE[:3])
    match.undo(3)
    assert match.states == states and match.history == history and match.moves == moves
    assert match.decisions == 2
    match.undo(2)
    assert match.states == [match.game.start()] and match.moves == [] and match.decisions == 0


def test_undo_more_than_was_played_is_refused_and_changes_nothing():
    match = Match(registry.make("pikachu"))
    play_texts(match, PIKACHU_OPENING)
    states = list(match.states)
    with pytest.raises(ValueError, match="cannot undo 3 plies: 2 played"):
        match.undo(3)
    assert match.states == states and match.plies == 2


def test_an_illegal_move_raises_and_leaves_the_match_unchanged():
    game = registry.make("pikachu")
    match = Match(game)
    play_texts(match, PIKACHU_OPENING)
    states, moves = list(match.states), list(match.moves)
    black_move = game.legal_moves(match.history[-1])[0]  # the other side's move
    assert black_move not in game.legal_moves(match.state)
    with pytest.raises(IllegalMove, match="not a legal move here"):
        match.play(black_move)
    assert match.states == states and match.moves == moves


def test_a_finished_game_refuses_any_move():
    game = registry.make("foxgeese")
    match = Match(game, game.parse(FOX_TRAPPED_AFTER_E2E1, "g"))
    play_texts(match, ["e2-e1"])
    assert match.outcome is not None and match.outcome.winner == 1
    assert match.outcome.reason == "no-foxes"
    # the move the fox would have had if the game went on is refused all the same
    with pytest.raises(IllegalMove, match="the game is over"):
        match.play(game.legal_moves(match.history[-1])[0])
    assert match.plies == 1


def test_chance_events_are_recorded_as_chance_and_counted_apart():
    match = ijk_nondet_match(seed=5, decisions=4)
    movers = [played.mover for played in match.moves]
    assert movers == [0, CHANCE, 1, CHANCE, 0, CHANCE, 1, CHANCE]
    assert all(played.is_chance == (played.mover == CHANCE) for played in match.moves)
    assert match.plies == 8 and match.decisions == 4


def test_chance_from_a_seeded_generator_replays_alike():
    first = ijk_nondet_match(seed=11, decisions=12)
    again = ijk_nondet_match(seed=11, decisions=12)
    other = ijk_nondet_match(seed=12, decisions=12)
    assert first.states == again.states and first.moves == again.moves
    assert first.moves != other.moves  # the tiles do come from the generator


def test_a_given_chance_outcome_is_played_like_a_move():
    game = registry.make("ijk", mode="nondet")
    match = Match(game)
    match.play(game.legal_moves(match.state)[0])
    assert match.is_chance and match.to_move == CHANCE
    outcomes = [outcome for outcome, _ in game.chance_outcomes(match.state)]
    match.play(outcomes[-1])
    assert match.moves[-1] == Played(CHANCE, outcomes[-1])
    assert match.state == game.play(match.history[-1], outcomes[-1])


def test_chance_is_refused_where_a_player_moves():
    match = Match(registry.make("ijk", mode="nondet"))
    with pytest.raises(IllegalMove, match="a player is to move"):
        match.play_chance(random.Random(0))
    assert match.plies == 0


def test_back_to_a_players_turn_skips_the_chance_events():
    match = ijk_nondet_match(seed=3, decisions=5)  # + - + - +, each followed by a tile
    played = list(match.states)
    assert match.to_move == 1 and match.plies == 10
    assert match.back_to_turn({0})  # before +'s last move: its tile and the move taken back
    assert match.states == played[:9] and match.to_move == 0 and match.decisions == 4
    assert match.back_to_turn({0, 1}, times=2)  # back over a - move and a + move
    assert match.states == played[:5] and match.decisions == 2 and match.to_move == 0
    assert match.back_to_turn({0})
    assert match.plies == 0 and match.state == match.game.start()
    assert not match.back_to_turn({0})  # nothing left to take back
    assert match.plies == 0


def test_back_to_a_turn_that_never_came_changes_nothing():
    match = ijk_nondet_match(seed=3, decisions=1)
    states = list(match.states)
    assert not match.back_to_turn({1})
    assert not match.back_to_turn({0}, times=2)
    assert match.states == states


def test_restart_forgets_every_move():
    game = registry.make("pikachu")
    match = Match(game)
    play_texts(match, PIKACHU_OPENING)
    middle = match.state
    match.restart(middle)
    assert match.states == [middle] and match.moves == [] and match.decisions == 0
    match.restart()
    assert match.state == game.start()
