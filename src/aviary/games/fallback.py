"""A small alpha-beta over the `Game` protocol, rules only: the answer while numba loads.

A course command is a fresh process per move. Its compiled engine needs numba, whose
import can take most of a one-second move on a slow or busy machine; until the
engine's first depth arrives, this search answers instead. It needs nothing but the
game's rules and a static evaluation (`evaluate(state)`, in any unit, for player 0),
so it is one implementation for every game: iterative deepening, alpha-beta with a
transposition table and the children's static values for move order, expectation at
chance nodes. Finished games score as wins and losses, so it sees forced wins (and,
through the evaluation, captures) as deep as its share of the time reaches; in pure
Python that is a few plies, not the engine's ten or more.

Where the game tells its forcing moves (`Game.forcing`: captures, say), the search
does not stop at its depth in the middle of an exchange: a quiescence search plays
the forcing moves on until the position is quiet, and a player whose king (the piece
whose capture ends the game) is attacked must answer it (no standing on the static
value). So a depth-1 search already sees a king that cannot escape capture, and each
depth one move more.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any, Generic

from aviary.games.base import Game, Move, Report, State
from aviary.search.report import MATE

WIN = 1e9  # a finished game: won, minus the plies it took
PROVEN = WIN / 2  # scores beyond this are forced results, not estimates
_POLL = 16  # nodes between looks at the clock and the stop request
QUIESCENCE_PLIES = 8  # the longest line of forcing moves past the depth (a guard)
_EXACT, _LOWER, _UPPER = 0, 1, 2


class _Stopped(Exception):
    """The deadline passed or the caller asked to stop: the depth in progress is dropped."""


class Fallback(Generic[State, Move]):
    """Searches one position at a time; `think` yields a report per completed depth."""

    def __init__(self, game: Game[State, Move], evaluate: Callable[[State], float],
                 quiescence_plies: int = QUIESCENCE_PLIES) -> None:
        self.game, self.evaluate = game, evaluate
        self.quiescence_plies = quiescence_plies
        self.nodes = 0
        self._table: dict[Any, tuple[int, float, int, Any]] = {}
        self._stop: Callable[[], bool] = lambda: False
        self._order: dict[Any, list[Any]] = {}  # a position's moves, ordered once
        self._deadline = 0.0
        self._max_nodes = 0
        self._may_stop = False  # the first depth always finishes: some answer is needed
        self._horizon = False  # some line was cut by the depth limit (deeper may change it)
        # whether the game tells forcing moves: asked once, of the first position searched
        self._quiesce_on: bool | None = None

    def think(self, state: State, deadline: float, stop: Callable[[], bool] = lambda: False,
              max_depth: int = 64, max_nodes: int = 0) -> Iterator[Report[Move]]:
        """Deepen until `deadline` (monotonic clock), `stop()`, `max_nodes` searched
        (when positive: a budget that does not depend on the machine), a forced result,
        or the whole tree is seen. The first depth is always finished, however late.

        Each completed depth is a `Report` (`report`)."""
        game = self.game
        if game.is_chance(state) or not game.legal_moves(state):
            return
        if self._quiesce_on is None:
            self._quiesce_on = game.forcing(state) is not None
        sign = 1.0 if game.to_move(state) == 0 else -1.0
        started = time.monotonic()
        self._deadline, self._stop, self.nodes = deadline, stop, 0
        self._max_nodes = max_nodes
        order = self._ordered(state, game.legal_moves(state), sign)
        for depth in range(1, max_depth + 1):
            self._may_stop, self._horizon = depth > 1, False
            best_move, best = order[0], -float("inf")
            scored: list[tuple[float, int]] = []
            try:
                for index, move in enumerate(order):
                    # the root's best so far bounds the others (scores for the root's mover)
                    bound = sign * best
                    low, high = ((bound, float("inf")) if sign > 0
                                 else (-float("inf"), bound))
                    value = sign * self._search(game.play(state, move), depth - 1, low, high, 1)
                    scored.append((value, index))
                    if value > best:
                        best, best_move = value, move
            except _Stopped:
                return
            yield self.report(state, depth, best, best_move, started)
            if abs(best) >= PROVEN or not self._horizon:
                return
            scored.sort(key=lambda pair: -pair[0])  # stable: ties keep the older order
            order = [order[index] for _, index in scored]
            if time.monotonic() >= deadline or stop():
                return

    def report(self, state: State, depth: int, value: float, move: Move,
               started: float) -> Report[Move]:
        """A completed depth as every search's `Report`: `value` (for the player to move,
        in the evaluation's unit) as hundredths, a forced result as a mate score (MATE
        less its plies, as the engines score it); `summary`, what the course command
        says of it: `depth 4, score +1.20, nodes 5,120` or `depth 5, win in 5, nodes 812`."""
        if abs(value) >= PROVEN:
            plies = round(WIN - abs(value))
            score = (MATE - plies) if value > 0 else -(MATE - plies)
            said = f"{'win' if value > 0 else 'loss'} in {plies}"
        else:
            score, said = round(100 * value), f"score {value:+.2f}"
        seconds = time.monotonic() - started
        return Report(depth, score, move, self.game.answer(state, move), (move,), self.nodes,
                      self.nodes / seconds if seconds > 0 else 0.0, seconds,
                      summary=f"depth {depth}, {said}, nodes {self.nodes:,}")

    def _poll(self) -> None:
        self.nodes += 1
        if self._may_stop and self.nodes % _POLL == 0 and (
                time.monotonic() >= self._deadline or self._stop()
                or 0 < self._max_nodes <= self.nodes):
            raise _Stopped

    def _finished(self, state: State, ply: int) -> float | None:
        """The score of a finished game for player 0 (sooner wins score higher), else None."""
        ended = self.game.outcome(state)
        if ended is None:
            return None
        if ended.winner is None:
            return 0.0
        return (WIN - ply) if ended.winner == 0 else -(WIN - ply)

    def _ordered(self, state: State, moves: list[Move], sign: float) -> list[Move]:
        """Moves best first for the player to move (`sign` 1 for player 0) by the static
        value after them (not asking whether the game ended: that costs a move
        generation, and the search below sees it anyway)."""
        game, evaluate = self.game, self.evaluate
        return sorted(moves, key=lambda move: sign * evaluate(game.play(state, move)),
                      reverse=True)

    def _search(self, state: State, depth: int, alpha: float, beta: float, ply: int) -> float:
        """The value of `state` for player 0: minimax with alpha-beta within [alpha, beta]."""
        self._poll()
        game = self.game
        ended = self._finished(state, ply)
        if ended is not None:
            return ended
        if game.is_chance(state):  # the expectation over the outcomes; no pruning through it
            return sum(probability * self._search(game.play(state, outcome), depth,
                                                  -float("inf"), float("inf"), ply + 1)
                       for outcome, probability in game.chance_outcomes(state))
        if depth <= 0:
            self._horizon = True
            if self._quiesce_on:
                return self._quiesce(state, alpha, beta, ply, self.quiescence_plies)
            return self.evaluate(state)
        moves = self._order.get(state)
        if moves is None:
            moves = game.legal_moves(state)
            if not moves:
                return self.evaluate(state)
            if depth >= 2:  # (at depth 1 the static order costs more than it saves)
                moves = self._ordered(state, moves, 1.0 if game.to_move(state) == 0 else -1.0)
            self._order[state] = moves
        maximizing = game.to_move(state) == 0
        first = None
        stored = self._table.get(state)
        if stored is not None:
            stored_depth, stored_value, kind, first = stored
            if stored_depth >= depth and abs(stored_value) < PROVEN:
                if kind == _EXACT:
                    return stored_value
                if kind == _LOWER:
                    alpha = max(alpha, stored_value)
                else:
                    beta = min(beta, stored_value)
                if alpha >= beta:
                    return stored_value
        if first is not None and first != moves[0] and first in moves:
            moves = [first, *(move for move in moves if move != first)]
        low, high = alpha, beta
        best_move = moves[0]
        best = -float("inf") if maximizing else float("inf")
        for move in moves:
            value = self._search(game.play(state, move), depth - 1, alpha, beta, ply + 1)
            if maximizing and value > best or not maximizing and value < best:
                best, best_move = value, move
            if maximizing:
                alpha = max(alpha, value)
            else:
                beta = min(beta, value)
            if alpha >= beta:
                break
        kind = _UPPER if best <= low else _LOWER if best >= high else _EXACT
        self._table[state] = (depth, best, kind, best_move)
        return best

    def _quiesce(self, state: State, alpha: float, beta: float, ply: int, left: int) -> float:
        """The value of `state` for player 0 past the depth: the static value unless a
        forcing move beats it (the mover may stand on it), or, with the mover's
        king attacked (`Forcing.threatened`), the best of all moves (it may not)."""
        self._poll()
        game = self.game
        ended = self._finished(state, ply)
        if ended is not None:
            return ended
        forcing = game.forcing(state) if not game.is_chance(state) else None
        if forcing is None:
            return self.evaluate(state)
        maximizing = game.to_move(state) == 0
        if forcing.threatened and left > 0:
            tried = set(forcing.moves)
            moves = forcing.moves + [move for move in game.legal_moves(state)
                                     if move not in tried]
            best = -float("inf") if maximizing else float("inf")
        else:
            best = self.evaluate(state)
            if left <= 0 or not forcing.moves:
                return best
            if maximizing:
                alpha = max(alpha, best)
            else:
                beta = min(beta, best)
            if alpha >= beta:
                return best
            moves = forcing.moves
        for move in moves:
            value = self._quiesce(game.play(state, move), alpha, beta, ply + 1, left - 1)
            if maximizing:
                if value > best:
                    best = value
                alpha = max(alpha, value)
            else:
                if value < best:
                    best = value
                beta = min(beta, value)
            if alpha >= beta:
                break
        return best

