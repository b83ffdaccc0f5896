"""Null-move pruning in the shared alpha-beta: off by default, exact where a pass never helps.

Tic-tac-toe has no zugzwang (a mark more never hurts its owner), so once the search
is deep enough to reach the end of every line, null reductions included, a null cut
may only change the speed: every position must still be solved exactly by distance.
"""

import numpy as np
import toy_games as toy

from aviary.search import alphabeta
from aviary.search.alphabeta import PASS, SEEN_SIZE, Workspace
from aviary.search.clock import Limit
from aviary.search.deepening import iterate

DEEP = Limit(depth=40)  # 9 marks + passes, with a reduction of at most 4 per pass: the end


def unfinished() -> list[toy.TttState]:
    return [p for p in toy.ttt_positions() if toy.ttt_result(p) is None]


def test_the_toy_pass_turns_the_side_and_back():
    state = toy.ttt_array(((1, 0, 0, 0, -1, 0, 0, 0, 0), 1))
    original, key = state.copy(), toy.ttt_key(state)
    undo = toy.ttt_make(state, PASS)
    assert undo >= 0 and state[9] == -1 and toy.ttt_key(state) != key
    np.testing.assert_array_equal(state[:9], original[:9])
    toy.ttt_unmake(state, PASS, undo)
    np.testing.assert_array_equal(state, original)


def test_tic_tac_toe_solved_exactly_with_null_move_and_it_cuts():
    workspace = Workspace(16, tt_bits=14)
    tries = cuts = 0
    for position in unfinished():
        state = toy.ttt_array(position)
        reports = list(iterate(state, toy.TTT_KERNELS, workspace, DEEP, null_move=True))
        assert reports[-1].score == toy.ttt_solve(position), position
        np.testing.assert_array_equal(state, toy.ttt_array(position))  # restored
        tries += int(workspace.ctx[alphabeta.NULL_TRIES])
        cuts += int(workspace.ctx[alphabeta.NULL_CUTS])
    assert cuts > 1000 and tries > cuts  # the null move ran, and did not always cut


def test_null_move_is_off_unless_asked_for():
    workspace = Workspace(16, tt_bits=14)
    for position in unfinished()[::50]:
        list(iterate(toy.ttt_array(position), toy.TTT_KERNELS, workspace, DEEP))
        assert workspace.ctx[alphabeta.NULL] == 0 and workspace.ctx[alphabeta.NULL_TRIES] == 0


def test_repetitions_are_looked_for_only_after_the_last_pass():
    path = np.array([11, 22, 33, 44, 0], dtype=np.int64)
    seen = np.zeros(SEEN_SIZE, dtype=np.int64)
    np.add.at(seen, path[:4] & (SEEN_SIZE - 1), 1)
    assert alphabeta.repeated(path, seen, 4, 22, 0)
    assert alphabeta.repeated(path, seen, 4, 33, 2)
    assert not alphabeta.repeated(path, seen, 4, 22, 2)  # 22 came before the pass
    assert not alphabeta.repeated(path, seen, 4, 55, 0)
