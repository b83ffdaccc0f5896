"""The numba kernels agree with rules.py: moves, play (removals, closed arms), perft, keys."""

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aviary.games.foxgeese import kernels, rules
from aviary.games.foxgeese.engine import FoxGeeseSearcher
from capture_walks import capture_walk

CONFIGURATIONS = [("classic", False), ("classic", True), ("elephants", False),
                  ("elephants", True)]


def random_walk(variant: str, shrink: bool, plies: int, seed: int) -> list[rules.Position]:
    """Positions reached by random legal moves from the start (stops when the game ends)."""
    return capture_walk(rules.start_position(variant, shrink), rules.legal_moves, rules.play,
                        lambda _, move: move.is_capture, plies, seed)


def random_position(seed: int) -> rules.Position:
    """A legal position, reachable or not: up to 2 foxes, 3 elephants, 10 geese anywhere."""
    chooser = random.Random(seed)
    cells = ["#" if p in rules.CORNERS else "." for p in range(rules.CELLS)]
    for _, arm in rules.ARMS:
        if chooser.random() < 0.15:
            for p in arm:
                cells[p] = "#"
    free = [p for p in rules.POINTS if cells[p] == "."]
    chooser.shuffle(free)
    counts = [chooser.randint(0, 2), chooser.randint(0, 10), chooser.randint(0, 3)]
    for piece, count in zip("FGE", counts, strict=True):
        for _ in range(count):
            if free:
                cells[free.pop()] = piece
    player = chooser.choice("fg")
    ply = chooser.randrange(0, 20) * 2 + (player == "g")
    return rules.parse("".join(cells), player, "elephants", chooser.random() < 0.5, ply)


def check_position(position: rules.Position) -> None:
    """Same move set, and each move gives the same position in the kernels as in the rules."""
    expected = sorted(rules.legal_moves(position))
    assert sorted(kernels.legal_moves(position)) == expected, position
    for move in expected:
        mine, truth = kernels.play(position, move), rules.play(position, move)
        assert mine == truth and mine.ply == truth.ply, (position, move)


@pytest.mark.parametrize(("variant", "shrink"), CONFIGURATIONS)
@settings(max_examples=25, deadline=None)
@given(plies=st.integers(0, 160), seed=st.integers(0, 2**32))
def test_kernels_equal_rules_on_reachable_positions(variant, shrink, plies, seed):
    for position in random_walk(variant, shrink, plies, seed)[::3]:
        check_position(position)


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32))
def test_kernels_equal_rules_on_arbitrary_positions(seed):
    check_position(random_position(seed))


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32))
def test_terminal_kernel_agrees_with_the_rules_outcome(seed):
    position = random_position(seed)
    over = kernels.terminal(kernels.state_from_position(position))
    ended = rules.outcome(position)
    if ended is None or ended[1] == "no-move":  # no move is the search's to score
        assert over == kernels.NOT_OVER
        return
    winner = ended[0]
    expected = 0 if winner is None else (kernels.MATE if winner == position.player
                                         else -kernels.MATE)
    assert over == expected


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32))
def test_make_then_unmake_restores_the_state_and_keys_stay_exact(seed):
    for position in random_walk("elephants", True, 120, seed)[::10]:
        state = kernels.state_from_position(position)
        before = state.copy()
        out = np.zeros(kernels.MAX_MOVES, dtype=np.int64)
        for move in out[: kernels.generate(state, out, False)]:
            undo = kernels.make(state, move)
            assert state[kernels.KEY_SLOT] == kernels.full_key(state)
            kernels.unmake(state, move, undo)
            np.testing.assert_array_equal(state[: kernels.STACK], before[: kernels.STACK])


def test_captures_only_lists_the_jumps():
    position = rules.start_position("classic")
    position = rules.play(position, rules.Move(24, 17))
    position = rules.play(position, rules.Move(31, 24))  # a goose steps up next to the fox
    state = kernels.state_from_position(position)
    out = np.zeros(kernels.MAX_MOVES, dtype=np.int64)
    count = kernels.generate(state, out, True)
    jumps = sorted(kernels.decode(int(m)) for m in out[:count])
    assert jumps == sorted(m for m in rules.legal_moves(position) if m.is_capture)


@pytest.mark.parametrize(("variant", "shrink"), CONFIGURATIONS)
def test_perft_agrees_with_the_rules(variant, shrink):
    start = rules.start_position(variant, shrink)
    game, searcher = rules.FoxGeese(variant=variant, shrink=shrink), FoxGeeseSearcher()
    for depth in range(1, 5):
        assert searcher.perft(start, depth) == game.perft(start, depth)
    # and from a sparse middle game, where arms close and endings come up
    for position in random_walk(variant, shrink, 80, 7)[-1:]:
        for depth in range(1, 4):
            assert searcher.perft(position, depth) == game.perft(position, depth)


def test_perft_from_the_start_matches_known_counts():
    game, searcher = rules.FoxGeese(), FoxGeeseSearcher()
    classic = rules.start_position()
    assert [game.perft(classic, d) for d in range(1, 5)] == [3, 19, 64, 691]
    assert [searcher.perft(classic, d) for d in range(1, 5)] == [3, 19, 64, 691]
    elephants = rules.start_position("elephants")
    assert [game.perft(elephants, d) for d in range(1, 5)] == [6, 32, 178, 1686]
    assert [searcher.perft(elephants, d) for d in range(1, 5)] == [6, 32, 178, 1686]


def test_kernels_end_the_game_at_the_rules_move_limit():
    # numba caches compiled code per file: a stale cache would keep an old limit
    board = rules.start_board("classic")
    for ply, over in ((rules.MOVE_LIMIT - 2, False), (rules.MOVE_LIMIT, True)):
        state = kernels.state_from_position(rules.Position(board, "f", ply))
        out = np.zeros(kernels.MAX_MOVES, dtype=np.int64)
        assert (kernels.terminal(state) == 0) is over
        assert (kernels.generate(state, out, False) == 0) is over
