"""Controlling a search from outside: the caller's stop flag, and the game's history.

- stop: a server owns a one-element flag and cancels a running search from another
  thread; the depth under way is thrown away, the iterator ends, the state is restored.
- history: a position repeated from the game so far, or along the search path, is a
  draw, so a side that is ahead does not shuffle and a side behind heads for one.
"""

import threading

import numpy as np
import pytest
import toy_games as toy

from aviary.games.pikachu import engine, kernels, rules
from aviary.search import alphabeta
from aviary.search.alphabeta import Workspace
from aviary.search.clock import Limit
from aviary.search.deepening import iterate


def run_until_stopped(state, kernels_, workspace, **options):
    """Start an unlimited search in a thread, stop it after its third report."""
    stop = np.zeros(1, dtype=np.int64)
    reports = []
    third = threading.Event()

    def think():
        for report in iterate(state, kernels_, workspace, Limit(), stop=stop, **options):
            reports.append(report)
            if len(reports) == 3:
                third.set()
        third.set()

    thread = threading.Thread(target=think, daemon=True)
    thread.start()
    assert third.wait(120)
    stop[0] = 1
    thread.join(60)
    assert not thread.is_alive()  # the search noticed the flag and returned
    return reports


def test_the_callers_flag_cancels_a_running_alphabeta_search():
    position = rules.start_position(8)
    state = kernels.state_from_position(position)
    workspace = Workspace(kernels.move_buffer_size(8))
    reports = run_until_stopped(state, engine.KERNELS, workspace)
    assert workspace.ctx[alphabeta.ABORTED] == 1  # the last depth was cut, not reported
    assert [r.depth for r in reports] == list(range(1, len(reports) + 1))
    assert len(reports) < alphabeta.MAX_PLY - 1
    line = position
    for move in reports[-1].pv:  # the last report is whole: a legal principal variation
        line = rules.play(line, kernels.decode(move))
    np.testing.assert_array_equal(state, kernels.state_from_position(position))


def test_the_callers_flag_cancels_a_running_expectimax_search():
    position = toy.race_start(goal=60, turns=80)
    state = toy.race_array(position)
    workspace = Workspace(8, tt_bits=16)
    reports = run_until_stopped(
        state, toy.RACE_KERNELS, workspace, bounds=toy.race_bounds(60, toy.WINS)
    )
    assert workspace.ctx[alphabeta.ABORTED] == 1
    assert [r.depth for r in reports] == list(range(1, len(reports) + 1))
    np.testing.assert_array_equal(state, toy.race_array(position))


def test_a_deadline_never_writes_the_callers_flag():
    stop = np.zeros(1, dtype=np.int64)
    state = kernels.state_from_position(rules.start_position(8))
    workspace = Workspace(kernels.move_buffer_size(8))
    reports = list(iterate(state, engine.KERNELS, workspace, Limit(time=0.2), stop=stop))
    assert reports and stop[0] == 0  # the flag stays the caller's to set


def test_a_flag_set_before_the_start_still_yields_depth_1():
    stop = np.ones(1, dtype=np.int64)
    state = toy.ttt_array(toy.ttt_start())
    reports = list(iterate(state, toy.TTT_KERNELS, Workspace(16, tt_bits=10), Limit(), stop=stop))
    assert [r.depth for r in reports] == [1]


SHUFFLES = [(square, side) for square in range(toy.SQUARES) for side in (1, -1)]


@pytest.mark.parametrize("position", SHUFFLES)
def test_repetitions_score_as_plain_minimax_with_repetition_draws(position):
    workspace = Workspace(4, tt_bits=10)
    state = toy.shuffle_array(position)
    reports = list(iterate(state, toy.SHUFFLE_KERNELS, workspace, Limit(depth=12), lmr=False))
    assert [r.depth for r in reports] == list(range(1, 13))
    # every line of 12 plies repeats one of the 10 positions: a draw
    assert reports[-1].score == 0 == toy.shuffle_minimax(position, 12)
    for depth in (1, 2, 3):
        assert reports[depth - 1].score == toy.shuffle_minimax(position, depth)


def test_a_history_position_denies_the_shuffle_to_the_side_ahead():
    # X to move at square 2: right (square 3) is worth 10, left -10
    position = (2, 1)
    state = toy.shuffle_array(position)
    free = list(iterate(state, toy.SHUFFLE_KERNELS, Workspace(4, tt_bits=10), Limit(depth=1)))
    assert (free[-1].score, free[-1].pv[0]) == (10, 1)
    history = [toy.shuffle_key((3, -1))]  # the game already had square 3, O to move
    reports = list(iterate(state, toy.SHUFFLE_KERNELS, Workspace(4, tt_bits=10),
                           Limit(depth=1), history=history))
    assert (reports[-1].score, reports[-1].pv[0]) == (0, 1)  # a draw, still better than -10
    assert toy.shuffle_minimax(position, 1, earlier=((3, -1),)) == 0
    # the same key with the other side to move is another position
    other = [toy.shuffle_key((3, 1))]
    reports = list(iterate(state, toy.SHUFFLE_KERNELS, Workspace(4, tt_bits=10),
                           Limit(depth=1), history=other))
    assert reports[-1].score == 10


def test_pikachu_side_ahead_avoids_the_repeating_move():
    # white is a Pikachu up; its best move leads to a position the game already had,
    # and with that position in the history the engine plays something else
    position = rules.parse(7, "W......" + "." * 21 + "...b..." + "." * 14, "w")
    state = kernels.state_from_position(position)
    workspace = Workspace(kernels.move_buffer_size(7))
    first = list(iterate(state, engine.KERNELS, workspace, Limit(depth=5)))[-1]
    best = kernels.decode(first.pv[0])
    seen = kernels.state_from_position(rules.play(position, best))
    workspace = Workspace(kernels.move_buffer_size(7))
    again = list(iterate(state, engine.KERNELS, workspace, Limit(depth=5),
                         history=[int(seen[kernels.KEY_SLOT])]))[-1]
    assert kernels.decode(again.pv[0]) != best
    assert again.score > 0  # still ahead: a repetition (0) is not what it settles for


@pytest.mark.parametrize("position", SHUFFLES[::3])
def test_expectimax_sees_repetitions_too(position):
    kernels = toy.SHUFFLE_KERNELS._replace(chance=toy.no_chance)
    history = [toy.shuffle_key((2, -position[1]))]
    earlier = ((2, -position[1]),)
    reports = list(iterate(toy.shuffle_array(position), kernels, Workspace(4, tt_bits=10),
                           Limit(depth=6), history=history))
    assert [r.score for r in reports] == [
        toy.shuffle_minimax(position, depth, earlier) for depth in range(1, 7)
    ]


# Pikachu n=8 from an engine-against-engine game: both sides' rows face each other, and
# depth 1's quiescence alone searches 515,708 nodes (0.7 s on the machine it was found on)
FACING_ROWS = "b ........wwwww.ww.....w..wwwwwwwwbbbbbbbb........bbbbbbbb........"
DEPTH_ONE_NODES = 515_708


def test_the_deadline_cuts_even_depth_one_and_the_player_still_answers():
    from aviary.games import registry
    from aviary.search.clock import Deadline

    spec = registry.spec("pikachu")
    game = spec.make(n=8)
    state = game.decode(FACING_ROWS)
    player = spec.own_engine("engine", game)
    full = list(player.think(state, Limit(depth=1)))
    assert full[-1].nodes == DEPTH_ONE_NODES  # no deadline: depth 1 runs to its end
    player.new_game()
    reports = []
    move = player.best_move(state, deadline=Deadline.after(0.05), on_report=reports.append)
    assert move in game.legal_moves(state)
    assert reports and all(report.nodes < DEPTH_ONE_NODES for report in reports)
