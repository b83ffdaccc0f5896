"""The fallback search alone (no numba in its moves) wins issue 27's Betsy position: it
captures the Kingfisher within 20 plies against the textbook opponent.

Deterministic: the fallback searches a fixed number of positions a move (fewer than it
reaches in a one-second course command's share), the opponent a fixed depth. The
timed measurement is `benchmarks/course_betsy_position.py`."""

from __future__ import annotations

import random
import time

from aviary.games import registry
from aviary.games.betsy import quick, rules
from aviary.games.fallback import Fallback

BOARD = "....K......R.....................q............b..n.....r......k."
FALLBACK_NODES = 2_000
OPPONENT_DEPTH = 6


def test_the_fallback_captures_the_kingfisher_within_20_plies():
    spec = registry.spec("betsy")
    game = registry.make("betsy", kingfisher="diagonal")
    opponent = spec.engine("textbook", game)
    state = game.parse(BOARD, "b")
    for _ in range(20):
        if game.outcome(state) is not None:
            break
        if game.label(state) == "b":
            reports = list(Fallback(game, quick.evaluate).think(
                state, time.monotonic() + 600, max_nodes=FALLBACK_NODES))
            move = reports[-1].move
        else:
            move = opponent.best_move(state, depth=OPPONENT_DEPTH)
        state = game.play(state, move)
    ended = game.outcome(state)
    assert ended is not None and ended.winner == 1 and ended.reason == "kingfisher-captured"


def test_forcing_moves_are_the_legal_captures_and_promotions_and_the_threat_is_real():
    """`Betsy.forcing` against the rules: every capture or promotion among the legal
    moves, nothing else, and `threatened` exactly when a reply takes the Kingfisher."""
    rng = random.Random(3)
    for kingfisher in ("orthogonal", "diagonal"):
        game = registry.make("betsy", kingfisher=kingfisher)
        for _ in range(150):
            state = game.opening(rng, rng.randrange(2, 60))
            board, far = state.board, 7 if state.player == "w" else 0
            wanted = {move for move in rules.legal_moves(state) if board[move.end] != "."
                      or board[move.start] in "Pp" and move.end >> 3 == far}
            forcing = game.forcing(state)
            assert set(forcing.moves) == wanted and len(forcing.moves) == len(wanted)
            mine = board.find("K" if state.player == "w" else "k")
            passed = rules.Position(board, rules.opponent(state.player), state.diagonal)
            assert forcing.threatened == any(move.end == mine
                                             for move in rules.legal_moves(passed))
