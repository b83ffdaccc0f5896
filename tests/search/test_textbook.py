"""The textbook opponent's search: plain minimax / expectimax exactly, deepening to its limits.

Scores are checked against plain recursions written over rules: the toy games of
tests/search/toy_games.py (every depth, to the end of the game), Pikachu's
`rules.py` with the course evaluation written again in Python, and IJK (both
modes, random tiles averaged) through the game protocol.
"""

import random
from functools import cache

import numpy as np
import pytest
import toy_games as toy

from aviary.games import registry
from aviary.games.ijk import rules as ijk_rules
from aviary.games.pikachu import kernels as pikachu_kernels
from aviary.games.pikachu import rules as pikachu
from aviary.search import textbook
from aviary.search.alphabeta import MATE
from aviary.search.clock import Limit
from aviary.search.report import TextbookKernels

TTT = TextbookKernels(toy.ttt_generate, toy.ttt_make, toy.ttt_unmake,
                      toy.ttt_evaluate_kernel, toy.ttt_terminal, textbook.no_chance)
RACE = TextbookKernels(toy.race_generate, toy.race_make, toy.race_unmake,
                       toy.race_evaluate_kernel, toy.race_terminal, toy.race_chance)
POSITIONS = toy.ttt_positions()


def test_it_takes_its_kernels_by_name():
    with pytest.raises(TypeError, match="TextbookKernels"):
        list(textbook.iterate(toy.ttt_array(toy.ttt_start()), tuple(TTT),
                              textbook.Workspace(16), Limit(depth=1)))


@pytest.mark.parametrize("index", range(0, len(POSITIONS), 37))
def test_tic_tac_toe_equals_plain_minimax_at_every_depth_and_stops_once_solved(index):
    position = POSITIONS[index]
    state = toy.ttt_array(position)
    reports = list(textbook.iterate(state, TTT, textbook.Workspace(16), Limit()))
    np.testing.assert_array_equal(state, toy.ttt_array(position))  # restored
    if toy.ttt_result(position) is not None:
        assert reports == []
        return
    assert [r.depth for r in reports] == list(range(1, len(reports) + 1))
    assert [r.score for r in reports] == [toy.ttt_minimax(position, d)
                                          for d in range(1, len(reports) + 1)]
    # without a limit it stops only once nothing deeper can change the answer
    assert reports[-1].score == toy.ttt_solve(position)
    assert len(reports) <= 9 - sum(1 for cell in position[0] if cell)
    assert reports[-1].pv[0] in toy.ttt_moves(position)


@pytest.mark.parametrize("mode", [toy.WINS, toy.MARGIN])
def test_dice_race_equals_plain_expectimax_at_every_depth(mode):
    for position in toy.race_positions(7, 9, mode)[::9]:
        state = toy.race_array(position)
        reports = list(textbook.iterate(state, RACE, textbook.Workspace(8), Limit(depth=4)))
        np.testing.assert_array_equal(state, toy.race_array(position))
        expected = [toy.race_expectimax(position, depth) for depth in range(1, 5)]
        assert [r.score for r in reports] == expected[: len(reports)], position
        assert reports and reports[-1].pv[0] in toy.race_moves(position)


# ---- Pikachu: the kernels' search against a plain minimax over rules.py ----------------


def pikachu_plain(position: pikachu.Position) -> int:
    """The course evaluation (doubled) for the side to move, from the rules alone."""
    n, me = position.n, position.player
    score = 0
    for square, piece in enumerate(position.board):
        owner = pikachu.owner(piece)
        if owner is None:
            continue
        sign = 1 if owner == me else -1
        if piece in "WB":
            score += 50 * sign
        else:
            row = square // n
            far_half = 2 * row > n - 1 if owner == "w" else 2 * row < n - 1
            score += (30 if far_half else 10) * sign
    other = pikachu.Position(n, position.board, pikachu.opponent(me))
    return score + len(pikachu.legal_moves(position)) - len(pikachu.legal_moves(other))


def pikachu_minimax(position: pikachu.Position, depth: int, ply: int = 0) -> int:
    me = position.player
    if pikachu.pieces(position, me) == 0:
        return -MATE + ply
    if pikachu.pieces(position, pikachu.opponent(me)) == 0:
        return MATE - ply
    if depth == 0:
        return pikachu_plain(position)
    moves = pikachu.legal_moves(position)
    if not moves:
        return -MATE + ply
    return max(-pikachu_minimax(pikachu.play(position, move), depth - 1, ply + 1)
               for move in moves)


def random_positions(game, count: int, seed: int, plies: range) -> list:
    rng = random.Random(seed)
    return [game.opening(rng, rng.choice(plies)) for _ in range(count)]


PIKACHU = registry.make("pikachu", n=7)


def test_pikachu_plain_evaluation_kernel_equals_the_rules():
    for position in random_positions(PIKACHU, 30, 3, range(0, 40)):
        state = pikachu_kernels.state_from_position(position)
        assert pikachu_kernels.plain_evaluate(state) == pikachu_plain(position)


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_pikachu_textbook_equals_plain_minimax_over_the_rules(depth):
    player = registry.spec("pikachu").engine("textbook", PIKACHU)
    count = 6 if depth < 3 else 2
    for position in random_positions(PIKACHU, count, depth, range(6, 30)):
        reports = list(player.think(position, Limit(depth=depth)))
        last = reports[-1]
        best = pikachu_minimax(position, depth)
        assert last.score == best, position
        # the move it chose is one of the best
        assert -pikachu_minimax(pikachu.play(position, last.move), depth - 1, 1) == best
        assert player.best_move(position, depth=depth) == last.move


# ---- IJK: expectiminimax over the game protocol, random tiles averaged -----------------


def ijk_plain(state: ijk_rules.Position) -> int:
    side = 1 if state.player == "+" else -1
    letters = sum(ijk_rules.UPPER.index(c) + 1 for c in state.board if c in ijk_rules.UPPER)
    letters -= sum(ijk_rules.LOWER.index(c) + 1 for c in state.board if c in ijk_rules.LOWER)
    return state.board.count(".") + side * letters


def ijk_expectimax(game, state, depth: int, ply: int = 0) -> int:
    ended = game.outcome(state)
    if ended is not None:
        if ended.winner is None:
            return 0
        mine = ended.winner == (0 if state.player == "+" else 1)
        return MATE - ply if mine else -MATE + ply
    if depth == 0:
        return ijk_plain(state)
    if game.is_chance(state):
        outcomes = game.chance_outcomes(state)  # every empty cell, equally likely
        values = [ijk_expectimax(game, game.play(state, cell), depth, ply + 1)
                  for cell, _ in outcomes]
        return sum(values) // len(values)
    return max(-ijk_expectimax(game, game.play(state, move), depth - 1, ply + 1)
               for move in game.legal_moves(state))


@pytest.mark.parametrize(("mode", "depth"), [("det", 3), ("nondet", 1), ("nondet", 2)])
def test_ijk_textbook_equals_plain_expectiminimax_over_the_rules(mode, depth):
    game = registry.make("ijk", mode=mode)
    player = registry.spec("ijk").engine("textbook", game)
    rng = random.Random(depth)
    for _ in range(4):
        state = game.opening(rng, rng.randrange(4, 30))
        if game.is_chance(state):
            state = game.play(state, game.sample_chance(state, rng))
        if game.outcome(state) is not None:
            continue
        reports = list(player.think(state, Limit(depth=depth)))
        best = ijk_expectimax(game, state, depth)
        assert reports[-1].score == best, state
        after = game.play(state, reports[-1].move)
        assert -ijk_expectimax(game, after, depth - 1, 1) == best


# ---- limits -------------------------------------------------------------------------------


@cache
def middle_game(name: str, settings: tuple = ()):
    """A middle-game position of a game (30 random plies in), and its textbook player."""
    game = registry.make(name, **dict(settings))
    rng = random.Random(11)
    state = game.opening(rng, 30)
    if game.is_chance(state):
        state = game.play(state, game.sample_chance(state, rng))
    return game, state, registry.spec(name).engine("textbook", game)


CONFIGURATIONS = [("pikachu", ()), ("betsy", ()), ("foxgeese", (("variant", "elephants"),)),
                  ("ijk", ()), ("ijk", (("mode", "nondet"),))]


@pytest.mark.parametrize(("name", "settings"), CONFIGURATIONS)
def test_it_deepens_with_time_and_answers_legally(name, settings):
    game, state, player = middle_game(name, settings)
    player.warmup()
    reached = {}
    # far apart on purpose: a depth costs 5-100 times the one before without move
    # ordering, and on a busy machine the longer search may get a fraction of a core
    for seconds in (0.003, 0.5):
        reports = list(player.think(state, Limit(time=seconds)))
        assert [r.depth for r in reports] == list(range(1, len(reports) + 1))
        reached[seconds] = reports[-1].depth
        assert reports[-1].move in game.legal_moves(state)
    assert reached[0.5] > reached[0.003], reached
    assert player.best_move(state, time=0.05) in game.legal_moves(state)


@pytest.mark.parametrize(("name", "settings"), CONFIGURATIONS)
def test_a_node_limit_is_kept_and_replays_alike(name, settings):
    game, state, player = middle_game(name, settings)
    reports = list(player.think(state, Limit(nodes=20_000)))
    workspace = player.textbook_workspace(state)
    assert workspace.ctx[textbook.NODES] <= 20_000  # every node visited, the cut depth's too
    assert reports[-1].nodes < 20_000
    more = list(player.think(state, Limit(nodes=400_000)))
    assert more[-1].depth > reports[-1].depth
    assert player.best_move(state, nodes=20_000) == reports[-1].move  # deterministic


def test_depth_one_always_completes_whatever_the_limits():
    game, state, player = middle_game("betsy")
    reports = list(player.think(state, Limit(nodes=1)))
    assert [r.depth for r in reports] == [1]
    stop = np.ones(1, dtype=np.int64)
    reports = list(player.think(state, Limit(depth=5), stop=stop))
    assert [r.depth for r in reports] == [1]


def test_a_won_position_stops_deepening_once_the_win_is_proven():
    # white's Pikachu takes black's last piece: a win in one, proven at depth 1
    position = pikachu.parse(7, "W..b" + "." * 45, "w")
    player = registry.spec("pikachu").engine("textbook", PIKACHU)
    reports = list(player.think(position, Limit(time=30)))
    assert reports[-1].score == MATE - 1 and reports[-1].depth <= 2
    assert pikachu.winner(pikachu.play(position, reports[-1].move)) == "w"
