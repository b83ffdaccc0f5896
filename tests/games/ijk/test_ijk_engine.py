"""The IJK search equals plain minimax / expectimax over rules.py, and plays winning moves.

The toy-game pattern of the search core's tests: the same evaluation kernel at
the leaves, the tree walked by rules.py in plain Python, compared score for score.
"""

import random

import pytest

from aviary.games.ijk import engine, kernels, rules
from aviary.games.ijk.rules import IJK
from aviary.search.alphabeta import MATE, Workspace
from aviary.search.clock import Limit
from aviary.search.deepening import iterate


def leaf(game: IJK, position: rules.Position) -> int:
    return int(engine.evaluate(kernels.state_from_position(
        position, game.variant, game.deterministic)))


def plain_minimax(game: IJK, position: rules.Position, depth: int, ply: int = 0) -> int:
    """Negamax over rules.py with the engine's evaluation; results MATE - ply."""
    result = game.outcome(position)
    if result is not None:
        if result.winner is None:
            return 0
        mover = game.to_move(position)
        return MATE - ply if result.winner == mover else -(MATE - ply)
    if depth == 0:
        return leaf(game, position)
    return max(-plain_minimax(game, game.play(position, move), depth - 1, ply + 1)
               for move in game.legal_moves(position))


def plain_expectimax(game: IJK, position: rules.Position, depth: int) -> int:
    """Expectimax over rules.py: chance nodes take the floor of the mean, results +-WIN."""
    result = game.outcome(position)
    if result is not None:
        if result.winner is None:
            return 0
        return engine.WIN if result.winner == (0 if position.player == "+" else 1) else -engine.WIN
    if depth == 0:
        return leaf(game, position)
    if game.is_chance(position):
        values = [plain_expectimax(game, game.play(position, cell), depth)
                  for cell in game.legal_moves(position)]
        return sum(values) // len(values)
    return max(-plain_expectimax(game, game.play(position, move), depth - 1)
               for move in game.legal_moves(position))


def searched(game: IJK, position: rules.Position, depth: int, **options) -> int:
    searcher = engine.IJKSearcher(game)
    state = searcher.state_array(position)
    reports = list(iterate(state, searcher.kernels, Workspace(kernels.CELLS), Limit(depth=depth),
                           **options))
    return reports[-1].score


def middle_game(game: IJK, plies: int, seed: int) -> rules.Position:
    rng = random.Random(seed)
    position = game.start()
    for _ in range(plies):
        if game.is_chance(position):
            position = game.play(position, game.sample_chance(position, rng))
        else:
            position = game.play(position, rng.choice(game.legal_moves(position)))
    if game.is_chance(position):
        position = game.play(position, game.sample_chance(position, rng))
    return position


@pytest.mark.parametrize("variant", ["course", "handout"])
def test_alpha_beta_equals_plain_minimax_in_det_mode(variant):
    game = IJK(variant=variant, mode="det")
    for seed in range(3):
        position = middle_game(game, 30 + 20 * seed, seed)
        assert searched(game, position, 4, lmr=False) == plain_minimax(game, position, 4)


def test_expectimax_equals_plain_expectimax_on_the_small_board():
    game = IJK(variant="handout", mode="nondet")
    for seed in range(3):
        position = middle_game(game, 30 + 10 * seed, seed)
        expected = plain_expectimax(game, position, 2)
        assert searched(game, position, 2) == expected
        assert searched(game, position, 2, bounds=(-engine.WIN, engine.WIN)) == expected


def test_expectimax_with_pruning_equals_plain_expectimax_on_the_course_board():
    game = IJK(variant="course", mode="nondet")
    position = middle_game(game, 120, 5)
    assert searched(game, position, 2, bounds=(-engine.WIN, engine.WIN)) == plain_expectimax(
        game, position, 2)


def winning_position() -> rules.Position:
    """+ to move; sliding L or R merges J J into K, and - has only an i: + wins at once."""
    return rules.parse("JJ..i." + "BCBCBC" + "CBCBCB" * 2 + "......" * 2, "+")


@pytest.mark.parametrize("mode", ["det", "nondet"])
def test_engine_takes_the_immediate_win(mode):
    game = IJK(mode=mode)
    position = winning_position()
    move = engine.make_engine(game).best_move(position, depth=3)
    result = game.outcome(game.play(position, move))
    assert result is not None and result.winner == 0


def test_det_engine_sees_a_forced_result_and_reports_it():
    game = IJK(mode="det")
    reports = list(engine.make_engine(game).think(winning_position(), Limit(depth=4)))
    assert reports and reports[-1].mate_in == 1


def test_evaluation_is_antisymmetric_in_the_side_to_move_without_threats():
    position = rules.parse("CB...." + "......" * 4 + "...aab", "+")
    flipped = rules.Position(position.board, "-")
    game = IJK()
    assert leaf(game, position) == -leaf(game, flipped)


def test_a_capture_at_hand_counts_for_the_side_to_move():
    game = IJK()
    board = "C..c.." + "......" * 5  # equal letters of opposite cases meet when sliding
    assert leaf(game, rules.parse(board, "+")) > 0
    assert leaf(game, rules.parse(board, "-")) > 0
    apart = "C....." + ".c...." + "......" * 4  # not in one row or column: no capture
    assert leaf(game, rules.parse(apart, "+")) == 0 == leaf(game, rules.parse(apart, "-"))


def test_the_fill_part_rewards_the_leader_for_every_occupied_cell():
    game = IJK()
    position = rules.parse("DB.b.." + "A....." + "......" * 4, "-")  # + leads, D against b
    state = kernels.state_from_position(position, game.variant, game.deterministic)
    plain = engine.evaluate_with(state, tuple(engine.DET._replace(fill=0)))
    filling = engine.evaluate_with(state, tuple(engine.DET._replace(fill=16, margin=1)))
    assert filling - plain == -16 * 4  # four tiles, seen by -, the side behind
    # a lead of two letters (D against b) is below a margin of three: no fill part
    assert engine.evaluate_with(state, tuple(engine.DET._replace(fill=16, margin=3))) == plain
    equal = kernels.state_from_position(rules.parse("B.b..." + "......" * 5, "+"), "course", True)
    assert (engine.evaluate_with(equal, tuple(engine.DET._replace(fill=16, margin=1)))
            == engine.evaluate_with(equal, tuple(engine.DET._replace(fill=0))))


@pytest.mark.parametrize("mode", ["det", "nondet"])
def test_the_cached_evaluation_uses_the_weights_of_the_mode(mode):
    game = IJK(mode=mode)
    position = rules.parse("E.b..." + "A..a.." + "B" * 12 + "......" * 2, "+")  # + leads by 3
    state = kernels.state_from_position(position, game.variant, game.deterministic)
    weights = engine.default_weights(game.deterministic)
    assert engine.evaluate(state) == engine.evaluate_with(state, tuple(weights))
    other = engine.NONDET if game.deterministic else engine.DET
    assert engine.evaluate(state) != engine.evaluate_with(state, tuple(other))


def test_the_merge_part_counts_each_sides_biggest_merge_of_its_own_tiles():
    game = IJK()
    position = rules.parse("C..C.." + "a.a..." + "......" * 4, "+")  # C C -> D, a a -> b
    state = kernels.state_from_position(position, game.variant, game.deterministic)
    plain = engine.evaluate_with(state, tuple(engine.DET._replace(merge=0)))
    merging = engine.evaluate_with(state, tuple(engine.DET._replace(merge=2)))
    assert merging - plain == 2 * (2**4 - 2**2)


def test_an_engine_with_other_weights_searches_with_them():
    game = IJK(mode="det")
    position = middle_game(game, 60, 3)
    weights = engine.DET._replace(fill=50, merge=3)
    searcher = engine.IJKSearcher(game, weights)
    state = searcher.state_array(position)
    reports = list(iterate(state, searcher.kernels, Workspace(kernels.CELLS), Limit(depth=1)))
    best = max(
        -engine.evaluate_with(kernels.state_from_position(
            game.play(position, move), game.variant, game.deterministic), tuple(weights))
        for move in game.legal_moves(position)
        if game.outcome(game.play(position, move)) is None)
    assert reports[-1].score == best


def test_a_chance_search_is_decided_at_a_certain_win_only():
    nondet = engine.IJKSearcher(IJK(mode="nondet"))
    assert nondet.decided(engine.WIN)
    assert not nondet.decided(engine.WIN - 1) and not nondet.decided(-engine.WIN)
    assert not engine.IJKSearcher(IJK(mode="det")).decided(engine.WIN)
    game = IJK(mode="nondet")
    reports = list(engine.make_engine(game).think(winning_position(), Limit(depth=3)))
    assert nondet.decided(reports[0].score)  # J J -> K: won whatever tile comes
