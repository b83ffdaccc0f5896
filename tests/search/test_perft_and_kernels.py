"""The shared kernel perft, and kernels wrapped once (`aviary.search.kernels`) that numba
loads from its disk cache in the next process instead of compiling them again."""

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import toy_games as toy

from aviary.search import perft
from aviary.search.alphabeta import GENERATE
from aviary.search.kernels import wrap


def test_perft_counts_the_move_tree_and_leaves_the_state_alone():
    state = toy.ttt_array(toy.ttt_start())
    before = state.copy()
    # no line can be complete before the fifth mark: every empty cell is a move
    counts = [perft.count(state, depth, toy.TTT_KERNELS, 9) for depth in range(5)]
    assert counts == [1, 9, 9 * 8, 9 * 8 * 7, 9 * 8 * 7 * 6]
    np.testing.assert_array_equal(state, before)


def test_the_generate_kernels_moves_are_the_rules_moves_and_leave_the_state_alone():
    """`perft.moves`, behind `Searcher.kernel_moves` by default (the conformance suite's
    kernels-against-rules check), on tic-tac-toe positions along a game."""
    board = toy.ttt_start()
    for move in (4, 0, 8, 2):
        state = toy.ttt_array(board)
        before = state.copy()
        assert sorted(perft.moves(state, toy.TTT_KERNELS, 9)) == sorted(toy.ttt_moves(board))
        np.testing.assert_array_equal(state, before)
        board = toy.ttt_play(board, move)


def test_a_wrapped_kernel_calls_the_kernel():
    generate = wrap(toy._ttt_generate, GENERATE)
    assert wrap(toy._ttt_generate, GENERATE) is generate  # made once
    kernels = toy.TTT_KERNELS._replace(generate=generate)
    state = toy.ttt_array(toy.ttt_play(toy.ttt_start(), 4))
    assert perft.count(state, 3, kernels, 9) == 8 * 7 * 6


COUNT = """
import toy_games as toy
from aviary.search import perft
from aviary.search.alphabeta import GENERATE
from aviary.search.kernels import wrap
kernels = toy.TTT_KERNELS._replace(generate=wrap(toy._ttt_generate, GENERATE))
print(perft.count(toy.ttt_array(toy.ttt_start()), 2, kernels, 9))
"""


def test_wrapped_kernels_come_from_the_disk_cache_in_the_next_process(tmp_path):
    environment = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path),
                   "PYTHONPATH": os.pathsep.join(  # the aviary under test stays first
                       filter(None, [str(Path(__file__).parent),
                                     os.environ.get("PYTHONPATH")]))}

    def run(debug: bool) -> str:
        extra = {"NUMBA_DEBUG_CACHE": "1"} if debug else {}
        done = subprocess.run([sys.executable, "-c", COUNT], env={**environment, **extra},
                              capture_output=True, text=True, timeout=600, check=True)
        return done.stdout

    assert run(debug=False).strip() == "72"
    second = run(debug=True)
    assert second.strip().endswith("72")
    assert "_ttt_generate_cfunc" in second and "data loaded" in second
    assert "data saved" not in second  # nothing compiled again
