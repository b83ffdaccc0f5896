"""The compiled search core returns exactly the minimax value when nothing unsound is on.

With late-move reductions and quiescence off, alpha-beta, PVS, aspiration windows,
the transposition table and move ordering may only change the speed, never the
score: checked against a plain negamax written over rules.py.
"""

import random

import pytest

from aviary.games.pikachu import engine, kernels, rules
from aviary.search.alphabeta import MATE, Workspace
from aviary.search.clock import Limit
from aviary.search.deepening import iterate


def static(position: rules.Position) -> int:
    return int(engine.evaluate(kernels.state_from_position(position)))


def minimax(position: rules.Position, depth: int, ply: int = 0) -> int:
    moves = rules.legal_moves(position)
    if not moves:
        return -MATE + ply
    if depth == 0:
        return static(position)
    return max(-minimax(rules.play(position, move), depth - 1, ply + 1) for move in moves)


def positions(count: int) -> list[rules.Position]:
    chooser = random.Random(4)
    found = []
    while len(found) < count:
        position = rules.start_position(7)
        for _ in range(chooser.randint(6, 40)):
            moves = rules.legal_moves(position)
            if not moves:
                break
            position = rules.play(position, chooser.choice(moves))
        if rules.legal_moves(position):
            found.append(position)
    return found


@pytest.mark.parametrize("position", positions(6))
def test_search_scores_equal_plain_minimax_at_every_depth(position):
    state = kernels.state_from_position(position)
    workspace = Workspace(kernels.move_buffer_size(position.n), tt_bits=12)
    reports = list(iterate(state, engine.KERNELS, workspace, Limit(depth=3), quiesce=False,
                           lmr=False))
    assert [r.score for r in reports] == [minimax(position, d) for d in (1, 2, 3)]
    assert kernels.board_from_state(state) == position.board  # the state is restored


def test_a_node_limit_keeps_the_last_completed_depth():
    state = kernels.state_from_position(rules.start_position(9))
    workspace = Workspace(kernels.move_buffer_size(9))
    reports = list(iterate(state, engine.KERNELS, workspace, Limit(nodes=20_000)))
    assert reports and [r.depth for r in reports] == list(range(1, len(reports) + 1))
    assert reports[-1].nodes <= 20_000 + 1024
