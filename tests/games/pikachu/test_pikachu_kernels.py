"""The numba kernels agree with rules.py: move sets, perft, make/unmake, Zobrist keys."""

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aviary.games.pikachu import kernels, rules
from aviary.games.pikachu.engine import PikachuSearcher
from aviary.search.alphabeta import MATE, NOT_OVER
from capture_walks import capture_walk


def terminal_by_pieces(position: rules.Position) -> int:
    """What the terminal kernel must say: the game is over when a side has no piece."""
    if rules.pieces(position, position.player) == 0:
        return -MATE
    if rules.pieces(position, rules.opponent(position.player)) == 0:
        return MATE
    return NOT_OVER


def random_walk(n: int, plies: int, seed: int) -> list[rules.Position]:
    """Positions reached by random legal moves from the start (stops when the game ends)."""
    return capture_walk(rules.start_position(n), rules.legal_moves, rules.play,
                        lambda _, move: move.is_capture, plies, seed)


def random_position(n: int, seed: int) -> rules.Position:
    """Any legal position, reachable or not: pieces of every kind anywhere."""
    chooser = random.Random(seed)
    density = chooser.uniform(0.05, 0.6)
    board = "".join(
        chooser.choice("wbWB") if chooser.random() < density else "." for _ in range(n * n)
    )
    return rules.Position(n, board, chooser.choice("wb"))


def same_moves(position: rules.Position) -> None:
    expected = sorted(rules.legal_moves(position))
    assert sorted(kernels.legal_moves(position)) == expected, position


@settings(max_examples=120, deadline=None)
@given(st.integers(7, 12), st.integers(0, 120), st.integers(0, 2**32))
def test_kernel_moves_equal_rules_moves_on_reachable_positions(n, plies, seed):
    for position in random_walk(n, plies, seed):
        same_moves(position)


@settings(max_examples=300, deadline=None)
@given(st.integers(7, 12), st.integers(0, 2**32))
def test_kernel_moves_equal_rules_moves_on_arbitrary_positions(n, seed):
    same_moves(random_position(n, seed))


@settings(max_examples=60, deadline=None)
@given(st.integers(7, 12), st.integers(0, 2**32))
def test_make_then_unmake_restores_the_state_and_keys_stay_exact(n, seed):
    position = random_position(n, seed)
    state = kernels.state_from_position(position)
    assert kernels.terminal(state) == terminal_by_pieces(position)
    original = state.copy()
    for move in rules.legal_moves(position):
        encoded = kernels.encode(move)
        undo = kernels.make(state, encoded)
        after = rules.play(position, move)
        assert kernels.board_from_state(state) == after.board
        assert state[kernels.KEY_SLOT] == kernels.full_key(state)
        assert state[kernels.COUNT_SLOT] == kernels.piece_counts(state)
        assert kernels.terminal(state) == terminal_by_pieces(after)
        kernels.unmake(state, encoded, undo)
        np.testing.assert_array_equal(state, original)


@settings(max_examples=200, deadline=None)
@given(st.integers(7, 12), st.integers(0, 2**32))
def test_move_counts_for_both_sides_equal_the_rules_move_counts(n, seed):
    position = random_position(n, seed)
    state = kernels.state_from_position(position)
    for player, side in (("w", 1), ("b", -1)):
        expected = len(rules.legal_moves(rules.Position(n, position.board, player)))
        assert kernels.count_moves(state, side) == expected


@settings(max_examples=200, deadline=None)
@given(st.integers(7, 12), st.integers(0, 2**32))
def test_capture_only_generation_is_the_capture_subset(n, seed):
    position = random_position(n, seed)
    state = kernels.state_from_position(position)
    out = np.zeros(kernels.move_buffer_size(n), dtype=np.int64)
    count = kernels.generate(state, out, True)
    captures = sorted(kernels.decode(int(move)) for move in out[:count])
    assert captures == sorted(move for move in rules.legal_moves(position) if move.is_capture)


@pytest.mark.parametrize("n", [7, 8])
def test_kernel_perft_equals_rules_perft_to_depth_4(n):
    start = rules.start_position(n)
    assert [PikachuSearcher().perft(start, d) for d in range(1, 5)] == [
        rules.Pikachu(n=n).perft(start, d) for d in range(1, 5)
    ]


def test_perft_of_n8_start_is_known():
    assert PikachuSearcher().perft(rules.start_position(8), 4) == 9926


def test_kernel_perft_equals_rules_perft_in_a_middle_game():
    position = random_walk(9, 30, seed=7)[-1]
    assert PikachuSearcher().perft(position, 3) == rules.Pikachu(n=9).perft(position, 3)


def test_move_encoding_round_trips_on_the_largest_board():
    move = rules.Move(kernels.MAX_N**2 - 1, 0, kernels.MAX_N**2 - 2)
    assert kernels.decode(kernels.encode(move)) == move


def test_capturing_the_last_piece_ends_the_game_for_the_terminal_kernel():
    # white's Pikachu jumps black's only piece: black, to move, has lost
    position = rules.parse(7, "W..b..." + "." * 42, "w")
    capture = next(move for move in rules.legal_moves(position) if move.is_capture)
    state = kernels.state_from_position(position)
    assert kernels.terminal(state) == NOT_OVER
    undo = kernels.make(state, kernels.encode(capture))
    assert kernels.terminal(state) == -MATE == terminal_by_pieces(rules.play(position, capture))
    kernels.unmake(state, kernels.encode(capture), undo)
    assert kernels.terminal(state) == NOT_OVER
