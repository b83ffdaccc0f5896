"""The tic-tac-toe player: plain negamax with alpha-beta, deepened one ply at a time.

A new game's first player needs only `think` (a Report per completed depth, until a
limit or the caller's stop flag): `DeepeningPlayer` gives it `best_move` by a deadline,
the same for every player, and `warmup` (nothing to compile). The whole game tree is
small: depth 9 solves it.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from typing import Any

from aviary.games.engine import DeepeningPlayer, Report
from aviary.search.alphabeta import MATE
from aviary.search.clock import Limit

from .rules import Position, TicTacToe

CENTRE_FIRST = (4, 0, 2, 6, 8, 1, 3, 5, 7)  # move order: centre, corners, edges


class OutOfTime(Exception):
    """The depth under way passed the deadline, a node limit or the stop flag."""


class Negamax(DeepeningPlayer[Position, int]):
    """Iterative-deepening alpha-beta over the rules (scores for the side to move)."""

    def __init__(self, game: TicTacToe) -> None:
        self.game = game

    def think(self, state: Position, limit: Limit, *, stop: Any = None,
              history: Sequence[Position] = ()) -> Iterator[Report[int]]:
        started = time.monotonic()
        limit = limit.from_now()
        deadline = None if limit.deadline is None else limit.deadline.at
        moves = self.game.legal_moves(state)
        if not moves:
            return
        nodes = [0]

        def search(here: Position, depth: int, ply: int, alpha: int,
                   beta: int) -> tuple[int, list[int]]:
            nodes[0] += 1
            if depth > 1 and (
                    (deadline is not None and time.monotonic() > deadline)
                    or (limit.nodes is not None and nodes[0] > limit.nodes)
                    or (stop is not None and stop[0])):
                raise OutOfTime
            ended = self.game.outcome(here)
            if ended is not None:
                return (0 if ended.winner is None else -(MATE - ply)), []
            if depth == 0:
                return 0, []
            best, line = -MATE - 1, []
            for move in sorted(self.game.legal_moves(here), key=CENTRE_FIRST.index):
                score, below = search(self.game.play(here, move), depth - 1, ply + 1,
                                      -beta, -alpha)
                if -score > best:
                    best, line = -score, [move, *below]
                alpha = max(alpha, best)
                if alpha >= beta:
                    break
            return best, line

        for depth in range(1, min(limit.depth or len(moves), len(moves)) + 1):
            try:
                score, pv = search(state, depth, 0, -MATE - 1, MATE + 1)
            except OutOfTime:
                return
            seconds = time.monotonic() - started
            yield Report(depth, score, pv[0], self.game.answer(state, pv[0]), tuple(pv),
                         nodes[0], nodes[0] / max(seconds, 1e-6), seconds)
            if abs(score) > MATE // 2:
                return  # a proven result does not change with depth


def make_engine(game: TicTacToe) -> Negamax:
    return Negamax(game)


def quick(state: Position) -> int:
    """The course command's first answer: a win at once, else block, else centre first."""
    game = TicTacToe()
    moves = game.legal_moves(state)
    for mover in (state.player, 1 - state.player):
        for move in moves:
            marked = Position(state.board, mover)
            if game.outcome(game.play(marked, move)) is not None:
                return move
    return min(moves, key=CENTRE_FIRST.index)
