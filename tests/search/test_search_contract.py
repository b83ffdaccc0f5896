"""The contract test: the compiled search scores toy games exactly as plain search over rules.

Tic-tac-toe (terminal kernel, wins/losses by distance, draws) goes through the real
alpha-beta core with every refinement on; the dice race (chance nodes) through the
expectiminimax core with and without Star1/Star2 pruning. Each must equal a plain
minimax / expectimax written over the toy's rules (tests/search/toy_games.py) at
every reachable position -- to the end of the game, and at fixed depths.
"""

import numpy as np
import pytest
import toy_games as toy

from aviary.search import alphabeta, expectimax
from aviary.search.alphabeta import MATE, Workspace
from aviary.search.clock import Limit
from aviary.search.deepening import iterate

POSITIONS = toy.ttt_positions()


def test_tic_tac_toe_kernels_equal_the_rules_everywhere():
    out = np.zeros(16, dtype=np.int64)
    for position in POSITIONS:
        state = toy.ttt_array(position)
        result = toy.ttt_result(position)
        assert toy.ttt_terminal(state) == (alphabeta.NOT_OVER if result is None else result)
        assert toy.ttt_evaluate_kernel(state) == toy.ttt_evaluate(position)
        count = toy.ttt_generate(state, out, False)
        assert sorted(out[:count]) == toy.ttt_moves(position)


def test_tic_tac_toe_every_position_solved_exactly_by_distance():
    workspace = Workspace(16, tt_bits=14)
    solved = 0
    for position in POSITIONS:
        state = toy.ttt_array(position)
        reports = list(iterate(state, toy.TTT_KERNELS, workspace, Limit()))
        if toy.ttt_result(position) is not None:
            assert reports == []  # a finished game has no move to report
            continue
        assert reports[-1].score == toy.ttt_solve(position), position
        assert reports[-1].pv[0] in toy.ttt_moves(position)
        np.testing.assert_array_equal(state, toy.ttt_array(position))  # restored
        solved += 1
    assert solved == 4520  # every unfinished position
    start = toy.ttt_start()
    assert toy.ttt_solve(start) == 0
    # a win found by distance: X to play and win at once rather than later
    position = ((1, 1, 0, -1, -1, 0, 0, 0, 0), 1)
    assert toy.ttt_solve(position) == MATE - 1


@pytest.mark.parametrize("index", range(0, len(POSITIONS), 97))
def test_tic_tac_toe_equals_plain_minimax_at_every_depth(index):
    position = POSITIONS[index]
    if toy.ttt_result(position) is not None:
        return
    workspace = Workspace(16, tt_bits=12)
    state = toy.ttt_array(position)
    reports = list(
        iterate(state, toy.TTT_KERNELS, workspace, Limit(depth=4), quiesce=False, lmr=False)
    )
    expected = [toy.ttt_minimax(position, depth) for depth in range(1, 5)]
    assert [r.score for r in reports] == expected[: len(reports)]
    # the iterations stop early only once solved
    assert len(reports) == 4 or reports[-1].score == toy.ttt_solve(position)


RACES = [(goal, turns, mode) for goal, turns in ((6, 6), (7, 9)) for mode in (toy.WINS, toy.MARGIN)]
PRUNINGS = ["none", "star1", "star2"]


def race_iterate(position, workspace, limit, pruning):
    goal, mode = position[5], position[6]
    bounds = None if pruning == "none" else toy.race_bounds(goal, mode)
    state = toy.race_array(position)
    reports = list(
        expectimax.iterate(
            state, toy.RACE_KERNELS, workspace, limit, bounds=bounds, star2=pruning == "star2"
        )
    )
    np.testing.assert_array_equal(state, toy.race_array(position))  # restored
    return reports


def test_dice_race_kernels_equal_the_rules_everywhere():
    outcomes = np.zeros(8, dtype=np.int64)
    weights = np.zeros(8, dtype=np.int64)
    moves = np.zeros(8, dtype=np.int64)
    for position in toy.race_positions(7, 9, toy.WINS):
        for action in toy.race_moves(position):
            node = toy.race_play(position, action)
            state = toy.race_array(position)
            undo = toy.race_make(state, action)
            np.testing.assert_array_equal(state, toy.race_array(node))
            count = toy.race_chance(state, outcomes, weights)
            assert list(zip(outcomes[:count], weights[:count], strict=True)) == list(
                toy.race_outcomes(node)
            )
            assert toy.race_generate(state, moves, False) == 0
            assert toy.race_terminal(state) == alphabeta.NOT_OVER
            for advance, _ in toy.race_outcomes(node):
                after = toy.race_play(node, advance)
                back = toy.race_make(state, advance)
                np.testing.assert_array_equal(state, toy.race_array(after))
                result = toy.race_result(after)
                expected = alphabeta.NOT_OVER if result is None else result
                assert toy.race_terminal(state) == expected
                assert toy.race_evaluate_kernel(state) == toy.race_evaluate(after)
                toy.race_unmake(state, advance, back)
            toy.race_unmake(state, action, undo)
            np.testing.assert_array_equal(state, toy.race_array(position))


@pytest.mark.parametrize("race", RACES)
@pytest.mark.parametrize("pruning", PRUNINGS)
def test_dice_race_every_position_solved_exactly(race, pruning):
    workspace = Workspace(8, tt_bits=14)
    for position in toy.race_positions(*race):
        reports = race_iterate(position, workspace, Limit(), pruning)
        turns = position[2]
        assert reports[-1].score == toy.race_expectimax(position, turns + 1), position
        # it stops once solved: the last move's chance event resolved at depth turns + 1
        assert reports[-1].depth <= turns + 1
        assert reports[-1].pv[0] in toy.race_moves(position)


@pytest.mark.parametrize("pruning", PRUNINGS)
@pytest.mark.parametrize("mode", [toy.WINS, toy.MARGIN])
def test_dice_race_equals_plain_expectimax_at_every_depth(pruning, mode):
    positions = toy.race_positions(7, 9, mode)
    for position in positions[::7]:
        workspace = Workspace(8, tt_bits=12)  # a fresh table: no deeper result reused
        reports = race_iterate(position, workspace, Limit(depth=4), pruning)
        expected = [toy.race_expectimax(position, depth) for depth in range(1, 5)]
        assert [r.score for r in reports] == expected[: len(reports)], position


def test_star_pruning_keeps_the_value_and_visits_fewer_nodes():
    nodes = {pruning: 0 for pruning in PRUNINGS}
    for mode in (toy.WINS, toy.MARGIN):
        for position in toy.race_positions(8, 12, mode)[::5]:
            scores = set()
            for pruning in PRUNINGS:
                workspace = Workspace(8, tt_bits=14)
                report = race_iterate(position, workspace, Limit(depth=5), pruning)[-1]
                scores.add(report.score)
                nodes[pruning] += report.nodes
            assert len(scores) == 1, position
    assert nodes["star1"] < nodes["none"]
    assert nodes["star2"] < nodes["none"]


def test_expectimax_without_chance_kernel_is_refused():
    workspace = Workspace(8)
    with pytest.raises(ValueError, match="chance kernel"):
        list(expectimax.iterate(toy.race_array(toy.race_start()), toy.TTT_KERNELS, workspace,
                                Limit(depth=1)))


def test_kernels_are_taken_by_name_not_as_a_bare_tuple():
    """A positional tuple is refused: which search runs is the `chance` field's business,
    not the tuple's length."""
    with pytest.raises(TypeError, match="Kernels"):
        list(iterate(toy.ttt_array(toy.ttt_start()), tuple(toy.TTT_KERNELS), Workspace(16),
                     Limit(depth=1)))


@pytest.mark.parametrize("index", range(0, len(POSITIONS), 211))
def test_expectimax_without_chance_is_minimax(index):
    position = POSITIONS[index]
    if toy.ttt_result(position) is not None:
        return
    kernels = toy.TTT_KERNELS._replace(chance=toy.no_chance)
    for pruning in (None, (-MATE, MATE)):
        state = toy.ttt_array(position)
        reports = list(expectimax.iterate(state, kernels, Workspace(16, tt_bits=12), Limit(),
                                          bounds=pruning))
        expected = [toy.ttt_minimax(position, depth) for depth in range(1, len(reports) + 1)]
        assert [r.score for r in reports] == expected
        assert reports[-1].score == toy.ttt_solve(position)
        line = position  # without chance nodes the principal variation is a whole line
        for move in reports[-1].pv:
            assert move in toy.ttt_moves(line) and toy.ttt_result(line) is None
            line = toy.ttt_play(line, move)
        assert len(reports[-1].pv) >= 1
