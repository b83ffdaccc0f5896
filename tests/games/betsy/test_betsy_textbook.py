"""Betsy's plain evaluation (the textbook opponent's) equals the course's, from the rules."""

import random

from aviary.games import registry
from aviary.games.betsy import kernels
from aviary.games.betsy.tables import PST

VALUE = {"P": 100, "N": 320, "B": 330, "R": 500, "Q": 900, "K": 0}
KIND = {"P": 1, "N": 2, "B": 3, "R": 4, "Q": 5, "K": 6}


def plain(board: str, player: str) -> int:
    """Material plus piece-square tables, white's minus black's, for the side to move."""
    white = 0
    for square, char in enumerate(board):
        if char == ".":
            continue
        kind = char.upper()
        if char.isupper():
            white += VALUE[kind] + int(PST[KIND[kind], square])
        else:
            white -= VALUE[kind] + int(PST[KIND[kind], square ^ 56])
    return white if player == "w" else -white


def test_plain_evaluation_kernel_equals_the_course_evaluation():
    game = registry.make("betsy")
    rng = random.Random(4)
    for _ in range(40):
        state = game.opening(rng, rng.randrange(0, 60))
        array = kernels.state_from_position(state)
        assert kernels.plain_evaluate(array) == plain(state.board, state.player)
