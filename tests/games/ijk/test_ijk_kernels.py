"""The kernels equal rules.py: moves, every move's result, game end and keys, on random games."""

import random

import numpy as np
import pytest

from aviary.games.ijk import kernels, rules
from aviary.games.ijk.rules import IJK

SETTINGS = [(variant, mode) for variant in ("course", "handout") for mode in ("det", "nondet")]


def random_positions(game: IJK, count: int, seed: int, longest: int = 400
                     ) -> list[rules.Position]:
    """Positions met in random games (chance nodes included), varied in length."""
    rng = random.Random(seed)
    found: list[rules.Position] = []
    while len(found) < count:
        state = game.start()
        for _ in range(rng.randrange(1, longest)):
            if game.outcome(state) is not None:
                break
            found.append(state)
            if game.is_chance(state):
                state = game.play(state, game.sample_chance(state, rng))
            else:
                state = game.play(state, rng.choice(game.legal_moves(state)))
        found.append(state)
    return found[:count]


@pytest.mark.parametrize(("variant", "mode"), SETTINGS)
def test_kernel_moves_and_results_equal_the_rules(variant, mode):
    game = IJK(variant=variant, mode=mode)
    det = mode == "det"
    for position in random_positions(game, 300, seed=len(variant) + len(mode)):
        state = kernels.state_from_position(position, variant, det)
        assert kernels.position_from_state(state) == position
        moves = game.legal_moves(position)
        assert kernels.legal_moves(state) == moves
        for move in moves:
            kernels.make(state, kernels.encode(move))
            expected = game.play(position, move)
            assert kernels.position_from_state(state) == expected, (position, move)
            assert kernels.key(state) == kernels.key(
                kernels.state_from_position(expected, variant, det))
            kernels.unmake(state, kernels.encode(move), 0)
            assert kernels.position_from_state(state) == position


def game_ends(game: IJK, games: int, seed: int, cap: int = 6000) -> list[rules.Position]:
    """The last 40 positions of random games played to their end (or `cap` plies)."""
    rng = random.Random(seed)
    found: list[rules.Position] = []
    for _ in range(games):
        state = game.start()
        path = [state]
        while game.outcome(state) is None and len(path) < cap:
            if game.is_chance(state):
                state = game.play(state, game.sample_chance(state, rng))
            else:
                state = game.play(state, rng.choice(game.legal_moves(state)))
            path.append(state)
        found += path[-40:]
    return found


@pytest.mark.parametrize(("variant", "mode"), SETTINGS)
def test_kernel_game_end_equals_the_rules(variant, mode):
    game = IJK(variant=variant, mode=mode)
    ended = 0
    positions = random_positions(game, 300, seed=7) + game_ends(game, 2, seed=8)
    for position in positions:
        state = kernels.state_from_position(position, variant, mode == "det")
        result = game.outcome(position)
        value = kernels.terminal(state)
        if result is None:
            assert value == kernels.NOT_OVER
            continue
        ended += 1
        mover = 1 if position.player == "+" else -1
        won = 0 if result.winner is None else (1 if result.winner == 0 else -1)
        assert value == won * mover * kernels.MATE
    assert ended >= 2


def test_end_values_for_each_kind_of_end():
    course = "ABCD" * 9  # full board, + highest D vs - nothing: + wins
    state = kernels.state_from_position(rules.parse(course, "-"), "course", True)
    assert kernels.terminal(state) == -kernels.MATE  # - to move has lost
    tie = kernels.state_from_position(rules.parse("Kk" + "." * 34, "+"), "course", True)
    assert kernels.terminal(tie) == 0
    handout_full = kernels.state_from_position(rules.parse("ABCD" * 4, "+", "handout"),
                                               "handout", True)
    assert kernels.terminal(handout_full) == kernels.NOT_OVER
    lower_k = kernels.state_from_position(rules.parse("k" + "." * 15, "+", "handout"),
                                          "handout", True)
    assert kernels.terminal(lower_k) == -kernels.MATE


def test_chance_outcomes_are_the_empty_cells_with_equal_weight():
    game = IJK(mode="nondet")
    position = game.play(game.start(), "D")
    state = kernels.state_from_position(position, "course", False)
    outcomes = np.zeros(36, dtype=np.int64)
    weights = np.zeros(36, dtype=np.int64)
    count = kernels.chance(state, outcomes, weights)
    assert [kernels.decode(int(c)) for c in outcomes[:count]] == [
        cell for cell, _ in game.chance_outcomes(position)]
    assert set(weights[:count]) == {1}
    assert kernels.generate(state, outcomes, False) == 0  # not a player node


def test_keys_tell_side_chance_and_board_apart():
    a = rules.Position("A" + "." * 35, "+")
    b = rules.Position("A" + "." * 35, "-")
    c = rules.Position("A" + "." * 35, "+", chance=True)
    keys = {kernels.key(kernels.state_from_position(p, "course", False)) for p in (a, b, c)}
    assert len(keys) == 3


def test_random_playout_stays_within_the_frames_and_ends_games():
    state = kernels.state_from_position(rules.start_position("course"), "course", False)
    made = kernels.random_playout(state, 5000, 1)
    assert 0 < made < 5000
    assert kernels.winner(state) != kernels.NOT_OVER
