"""Fox-Geese's plain evaluation (the textbook opponent's), computed again from the rules."""

import random

import pytest

from aviary.games import registry
from aviary.games.foxgeese import engine, kernels, rules


def plain(position: rules.Position) -> int:
    """500 a fox, -100 a goose, -300 an elephant, +10 a fox step or jump; for the side to move."""
    board = position.board
    fox_moves = sum(len(rules.piece_moves(board, point))
                    for point, piece in enumerate(board) if piece == rules.FOX)
    foxes = (500 * board.count(rules.FOX) - 100 * board.count(rules.GOOSE)
             - 300 * board.count(rules.ELEPHANT) + 10 * fox_moves)
    return foxes if position.player == "f" else -foxes


@pytest.mark.parametrize("variant", rules.VARIANTS)
def test_plain_evaluation_kernel_equals_the_rules(variant):
    game = registry.make("foxgeese", variant=variant, shrink=True)
    rng = random.Random(variant)
    for _ in range(40):
        state = game.opening(rng, rng.randrange(0, 80))
        assert engine.plain_evaluate(kernels.search_state(state)) == plain(state)
