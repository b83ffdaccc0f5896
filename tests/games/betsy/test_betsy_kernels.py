"""The numba kernels agree with rules.py: move sets, perft, make/unmake, Zobrist keys, the end."""

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aviary.games.betsy import kernels, rules
from aviary.games.betsy.engine import BetsySearcher
from aviary.search.alphabeta import MATE, PASS
from capture_walks import capture_walk


def random_walk(plies: int, seed: int, diagonal: bool) -> list[rules.Position]:
    """Positions reached by random legal moves from the start (stops when the game ends)."""
    return capture_walk(rules.start_position(diagonal), rules.legal_moves, rules.play,
                        lambda position, move: position.board[move.end] != rules.EMPTY,
                        plies, seed)


def random_position(seed: int) -> rules.Position:
    """Any position, reachable or not: pieces of every kind anywhere, at most one Kingfisher."""
    chooser = random.Random(seed)
    density = chooser.uniform(0.05, 0.6)
    cells = [chooser.choice("PRNBQprnbq") if chooser.random() < density else "." for _ in range(64)]
    for kingfisher in "Kk":
        if chooser.random() < 0.95:
            cells[chooser.randrange(64)] = kingfisher
    board = "".join(cells)
    if board.count("K") > 1 or board.count("k") > 1:  # one overwrote the other's square
        board = board.replace("K", ".")
    return rules.Position(board, chooser.choice("wb"), chooser.random() < 0.5)


def same_moves(position: rules.Position) -> None:
    assert sorted(kernels.legal_moves(position)) == sorted(rules.legal_moves(position)), position


def is_quiescent_move(position: rules.Position, move: rules.Move) -> bool:
    """Captures, and Parakeet steps onto the far row."""
    promotes = position.board[move.start] in "Pp" and move.end // 8 in (0, 7)
    return position.board[move.end] != rules.EMPTY or promotes


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 160), st.integers(0, 2**32), st.booleans())
def test_kernel_moves_equal_rules_moves_on_reachable_positions(plies, seed, diagonal):
    for position in random_walk(plies, seed, diagonal):
        same_moves(position)


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32))
def test_kernel_moves_equal_rules_moves_on_arbitrary_positions(seed):
    same_moves(random_position(seed))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32))
def test_make_then_unmake_restores_the_state_and_keys_stay_exact(seed):
    position = random_position(seed)
    state = kernels.state_from_position(position)
    original = state.copy()
    for move in rules.legal_moves(position):
        encoded = kernels.encode(move)
        undo = kernels.make(state, encoded)
        after = rules.play(position, move)
        np.testing.assert_array_equal(state, kernels.state_from_position(after))
        kernels.unmake(state, encoded, undo)
        np.testing.assert_array_equal(state, original)


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32))
def test_capture_only_generation_is_the_captures_and_promotions(seed):
    position = random_position(seed)
    expected = sorted(m for m in rules.legal_moves(position) if is_quiescent_move(position, m))
    assert sorted(kernels.legal_moves(position, captures_only=True)) == expected


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32))
def test_terminal_agrees_with_the_rules_winner(seed):
    position = random_position(seed)
    over = kernels.terminal(kernels.state_from_position(position))
    won = rules.winner(position)
    if all(rules.kingfishers(position)):
        assert over == kernels.NOT_OVER  # no legal move is left to the search
    else:
        assert over == (MATE if won == position.player else -MATE)


@pytest.mark.parametrize("diagonal", [False, True])
def test_kernel_perft_equals_rules_perft_to_depth_4(diagonal):
    start = rules.start_position(diagonal)
    game = rules.Betsy(kingfisher="diagonal" if diagonal else "orthogonal")
    assert [BetsySearcher().perft(start, d) for d in range(1, 5)] == [
        game.perft(start, d) for d in range(1, 5)
    ]


@pytest.mark.parametrize("diagonal, expected", [(True, 8902), (False, 8822)])
def test_kernel_perft_3_from_the_start_is_the_independent_number(diagonal, expected):
    assert BetsySearcher().perft(rules.start_position(diagonal), 3) == expected


@pytest.mark.parametrize("diagonal", [False, True])
def test_kernel_perft_equals_rules_perft_in_a_middle_game(diagonal):
    position = random_walk(24, seed=7, diagonal=diagonal)[-1]
    assert rules.winner(position) is None
    assert BetsySearcher().perft(position, 3) == rules.Betsy().perft(position, 3)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32))
def test_engine_mobility_counts_the_rules_destinations_of_each_piece(seed):
    from aviary.games.betsy import engine

    position = random_position(seed)
    if not all(rules.kingfishers(position)):
        return
    state = kernels.state_from_position(position)
    for player in ("w", "b"):
        mover = rules.Position(position.board, player, position.diagonal)
        moves = rules.legal_moves(mover)
        for square, piece in enumerate(position.board):
            if rules.owner(piece) == player and piece.upper() in "NBRQ":
                kind = abs(int(state[kernels.BOARD + square]))
                expected = sum(1 for m in moves if m.start == square)
                assert engine.mobility(state, square, kind) == expected


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32))
def test_a_pass_turns_the_side_and_unmake_restores_the_state_exactly(seed):
    position = random_position(seed)
    state = kernels.state_from_position(position)
    original = state.copy()
    undo = kernels.make(state, PASS)
    officers = "NBRQ" if position.player == "w" else "nbrq"
    if not any(char in officers for char in position.board):
        assert undo == -1  # only Kingfisher and Parakeets: zugzwang-prone, no pass
        np.testing.assert_array_equal(state, original)
        return
    assert undo >= 0
    passed = rules.Position(position.board, rules.opponent(position.player), position.diagonal)
    np.testing.assert_array_equal(state, kernels.state_from_position(passed))
    assert state[kernels.KEY_SLOT] == kernels.full_key(state) != original[kernels.KEY_SLOT]
    kernels.unmake(state, PASS, undo)
    np.testing.assert_array_equal(state, original)


def test_no_pass_for_a_side_with_only_its_kingfisher_and_parakeets():
    board = "K" + "." * 7 + "PP" + "." * 46 + "pppq" + "." * 3 + "k"
    assert len(board) == 64
    for player, allowed in (("w", False), ("b", True)):
        state = kernels.state_from_position(rules.Position(board, player, False))
        assert (kernels.make(state, PASS) >= 0) == allowed
