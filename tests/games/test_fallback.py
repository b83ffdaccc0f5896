"""The rules-only fallback search: forced wins a few plies deep in every game, and moves
as good as a plain minimax of the same depth (checked by brute force over the rules)."""

from __future__ import annotations

import random
import time

import pytest

from aviary.games import registry
from aviary.games.fallback import Fallback

# A position per game where the player to move forces a win in 3 plies, not in 1
# (found by random play and checked by `wins_within` below).
FORCED_WINS = [
    ("betsy", {}, "b ....KB.RNP.R..........p.b.P.P..Pp.b....p..ppPNpq........rn...knr"),
    ("pikachu", {}, "w ......b........................................b.......W........"),
    ("foxgeese", {}, "g ##...####..G##G......G.GGG......G..##GFG####G.G## 67"),
    ("ijk", {"mode": "det"}, "+ hgf.J.ifJFgejgIi.HF.e.i.Ehi.jhIHegFh"),
]
GAMES = [("betsy", {}), ("pikachu", {}), ("foxgeese", {}), ("foxgeese", {"variant": "elephants"}),
         ("ijk", {"mode": "det"}), ("ijk", {"mode": "nondet", "variant": "handout"})]


def wins_within(game, state, plies: int, me: int) -> bool:
    """Brute force: can player `me` force a win within `plies` plies from `state`?"""
    ended = game.outcome(state)
    if ended is not None:
        return ended.winner == me
    moves = game.legal_moves(state)
    if plies == 0 or not moves:
        return False
    children = (wins_within(game, game.play(state, move), plies - 1, me) for move in moves)
    return any(children) if game.to_move(state) == me else all(children)


QUIET_PLIES = 3  # the quiescence bound compared (the unpruned reference is slow past it)


def quiet_value(game, evaluate, state, left: int) -> float:
    """Plain quiescence for player 0: the static value or a better forcing move (every
    move when the mover is threatened), `left` forcing moves deep at most."""
    ended = game.outcome(state)
    if ended is not None:
        return 0.0 if ended.winner is None else (1e9 if ended.winner == 0 else -1e9)
    forcing = game.forcing(state)
    if forcing is None:
        return evaluate(state)
    best = max if game.to_move(state) == 0 else min
    if forcing.threatened and left > 0:
        return best(quiet_value(game, evaluate, game.play(state, move), left - 1)
                    for move in game.legal_moves(state))
    if left == 0 or not forcing.moves:
        return evaluate(state)
    return best([evaluate(state), *(quiet_value(game, evaluate, game.play(state, move), left - 1)
                                    for move in forcing.moves)])


def minimax(game, evaluate, state, depth: int) -> float:
    """Plain minimax (expectation at chance nodes) for player 0, scored like the fallback;
    past the depth, plain quiescence where the game tells forcing moves."""
    ended = game.outcome(state)
    if ended is not None:
        return 0.0 if ended.winner is None else (1e9 if ended.winner == 0 else -1e9)
    if game.is_chance(state):
        return sum(p * minimax(game, evaluate, game.play(state, o), depth)
                   for o, p in game.chance_outcomes(state))
    if depth == 0 and not game.is_chance(state) and game.forcing(state) is not None:
        return quiet_value(game, evaluate, state, QUIET_PLIES)
    moves = game.legal_moves(state)
    if depth == 0 or not moves:
        return evaluate(state)
    values = [minimax(game, evaluate, game.play(state, move), depth - 1) for move in moves]
    return max(values) if game.to_move(state) == 0 else min(values)


def fallback_for(name: str, settings: dict) -> tuple:
    game = registry.make(name, **settings)
    return game, Fallback(game, registry.load(registry.spec(name).evaluation))


@pytest.mark.parametrize(("name", "settings", "encoded"), FORCED_WINS,
                         ids=[case[0] for case in FORCED_WINS])
def test_the_fallback_finds_a_forced_win_three_plies_deep(name, settings, encoded):
    game, fallback = fallback_for(name, settings)
    state = game.decode(encoded)
    me = game.to_move(state)
    assert not wins_within(game, state, 1, me) and wins_within(game, state, 3, me)
    reports = list(fallback.think(state, time.monotonic() + 600))  # ends at the proof
    last = reports[-1]
    assert last.mate_in is not None and last.mate_in > 0
    assert "win in 3" in last.describe()
    if game.forcing(state) is None:
        assert last.depth == 3  # a plain search needs all three plies
    else:  # past depth 1, quiescence answers the threat and takes the Kingfisher
        assert last.depth <= 3
    assert wins_within(game, game.play(state, last.move), 2, me)  # the move keeps the win


@pytest.mark.parametrize(("name", "settings"), GAMES, ids=[f"{n}-{s}" for n, s in GAMES])
def test_each_depth_chooses_a_move_as_good_as_plain_minimax(name, settings):
    """Alpha-beta, move order and the table change the work, never the value of the
    chosen move (captures and wins within the depth are seen as minimax sees them)."""
    game, _ = fallback_for(name, settings)
    evaluate = registry.load(registry.spec(name).evaluation)
    rng = random.Random(5)
    checked = 0
    while checked < 3:
        state = game.opening(rng, rng.randrange(4, 24))
        if game.is_chance(state) or game.outcome(state) is not None:
            continue
        sign = 1 if game.to_move(state) == 0 else -1
        # two plies where chance follows a move or quiescence follows the depth (the
        # unpruned reference takes minutes at three), else three
        quiescent = game.forcing(state) is not None
        chance = game.is_chance(game.play(state, game.legal_moves(state)[0]))
        depth = 2 if quiescent or chance else 3
        reports = list(Fallback(game, evaluate, QUIET_PLIES).think(
            state, time.monotonic() + 600, max_depth=depth))
        values = {move: sign * minimax(game, evaluate, game.play(state, move), depth - 1)
                  for move in game.legal_moves(state)}
        last = reports[-1]
        assert values[last.move] == pytest.approx(max(values.values()))
        if last.depth == depth:  # the score in hundredths of the evaluation's unit
            assert abs(last.score - 100 * max(values.values())) <= 0.5
        checked += 1


def test_the_first_depth_is_finished_even_past_the_deadline_and_later_ones_stop():
    game, fallback = fallback_for("betsy", {})
    state = game.start()
    reports = list(fallback.think(state, time.monotonic() - 1))
    assert [report.depth for report in reports] == [1]
    asked = []
    stopped = list(fallback.think(state, time.monotonic() + 600,
                                  stop=lambda: asked.append(1) or len(asked) > 3))
    assert stopped and len(stopped) < 6 and asked  # the stop request is heard
