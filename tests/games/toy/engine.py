"""The Connect Four players: plain negamax with alpha-beta over the rules, deepened a ply at
a time; the engine tries the centre columns first, the textbook opponent left to right.

A new game's first player needs only `think` (a Report per completed depth, until a
limit or the caller's stop flag): `DeepeningPlayer` gives it `best_move` by a deadline,
the same for every player, and `warmup` (nothing to compile).
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from typing import Any

from aviary.games.engine import DeepeningPlayer, Report
from aviary.search.alphabeta import MATE
from aviary.search.clock import Limit

from .rules import COLS, EMPTY, LINES, MARKS, ConnectFour, Position

CENTRE_FIRST = (3, 2, 4, 1, 5, 0, 6)
LEFT_TO_RIGHT = tuple(range(COLS))
LINE_WORTH = (0, 1, 4, 16, 0)  # a line holding 0..4 discs of one side only


class OutOfTime(Exception):
    """The depth under way passed the deadline, a node limit or the stop flag."""


def evaluate(state: Position) -> int:
    """Lines still open to one side, worth more the fuller they are, for the side to move."""
    board, score = state.board, 0
    for line in LINES:
        mine = theirs = 0
        for cell in line:
            mark = board[cell]
            if mark == MARKS[state.player]:
                mine += 1
            elif mark != EMPTY:
                theirs += 1
        if not theirs:
            score += LINE_WORTH[mine]
        elif not mine:
            score -= LINE_WORTH[theirs]
    return score


class Negamax(DeepeningPlayer[Position, int]):
    """Iterative-deepening alpha-beta over the rules (scores for the side to move)."""

    def __init__(self, game: ConnectFour, order: tuple[int, ...] = CENTRE_FIRST) -> None:
        self.game, self.order = game, order

    def think(self, state: Position, limit: Limit, *, stop: Any = None,
              history: Sequence[Position] = ()) -> Iterator[Report[int]]:
        started = time.monotonic()
        limit = limit.from_now()
        deadline = None if limit.deadline is None else limit.deadline.at
        game = self.game
        if not game.legal_moves(state):
            return
        nodes = [0]

        def search(here: Position, depth: int, ply: int, alpha: int,
                   beta: int) -> tuple[int, list[int]]:
            nodes[0] += 1
            if ply and ((deadline is not None and time.monotonic() > deadline)
                        or (limit.nodes is not None and nodes[0] > limit.nodes)
                        or (stop is not None and stop[0])):
                raise OutOfTime
            ended = game.outcome(here)
            if ended is not None:
                return (0 if ended.winner is None else -(MATE - ply)), []
            if depth == 0:
                return evaluate(here), []
            best, line = -MATE - 1, []
            for move in sorted(game.legal_moves(here), key=self.order.index):
                score, below = search(game.play(here, move), depth - 1, ply + 1,
                                      -beta, -alpha)
                if -score > best:
                    best, line = -score, [move, *below]
                alpha = max(alpha, best)
                if alpha >= beta:
                    break
            return best, line

        empty = state.board.count(EMPTY)
        for depth in range(1, min(limit.depth or empty, empty) + 1):
            try:
                score, pv = search(state, depth, 0, -MATE - 1, MATE + 1)
            except OutOfTime:
                return
            seconds = time.monotonic() - started
            yield Report(depth, score, pv[0], game.answer(state, pv[0]), tuple(pv),
                         nodes[0], nodes[0] / max(seconds, 1e-6), seconds)
            if abs(score) > MATE // 2:
                return  # a proven result does not change with depth


def make_engine(game: ConnectFour) -> Negamax:
    return Negamax(game)


def make_textbook(game: ConnectFour) -> Negamax:
    """The textbook opponent: the same search, columns tried left to right."""
    return Negamax(game, LEFT_TO_RIGHT)
