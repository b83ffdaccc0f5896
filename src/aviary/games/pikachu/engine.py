"""The Pikachu player: an evaluation kernel plus the shared search core's settings.

Evaluation (centipawn-like, from the side to move): a Pichu is 100, a Pikachu 450
(it slides and jumps along whole lines, and the course write-ups valued it at five
Pichus); Pichus earn more the closer they get to promotion, steeply on the last
two rows, because a promotion is nearly a free Pikachu. A lead is worth more as
material comes off (so the side ahead trades down), and once either side is down
to a few pieces mobility counts, so the hunter corners the last Pikachus instead
of chasing them around forever. Tactics (captures, recaptures, promotions) are
left to the quiescence search rather than guessed statically.

`think` is the anytime generator (a `Report` per completed depth); `best_move`
is the one-call form the arena uses. A Pikachu-only ending small enough for the
solved tables (`endgame.py`) is answered from them instead: one Report with the
table's move and its exact result as a mate score.
"""

from __future__ import annotations

import threading
import time as clock
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from numba import cfunc, njit

from aviary.errors import NoMoveError
from aviary.games.pikachu import endgame, kernels, quick, rules
from aviary.games.pikachu.kernels import BOARD, N_SLOT, SIDE_SLOT
from aviary.search import alphabeta
from aviary.search.alphabeta import MATE, Workspace
from aviary.search.clock import Limit, budget
from aviary.search.deepening import RawReport, iterate

PICHU = 100
PIKACHU = 450


ENDGAME_PIECES = 4  # a side this small is hunted: mobility starts to count
MOBILITY = 6


@njit(cache=True, nogil=True)
def evaluate(state):
    """Material plus promotion pressure, white-positive, returned for the side to move."""
    n = state[N_SLOT]
    score = 0
    white = black = 0
    material = 0
    for square in range(n * n):
        piece = state[BOARD + square]
        if piece == 0:
            continue
        if piece > 0:
            white += 1
        else:
            black += 1
        if piece == 2:
            score += PIKACHU
            material += PIKACHU
        elif piece == -2:
            score -= PIKACHU
            material += PIKACHU
        else:
            material += PICHU
            row = square // n
            distance = n - 1 - row if piece > 0 else row  # rows left to promotion
            value = PICHU + 6 * (n - 1 - distance)
            if distance == 1:
                value += 90
            elif distance == 2:
                value += 35
            score += value if piece > 0 else -value
    # when ahead, trading down brings the win closer: the lead grows as material shrinks
    score += score * 300 // (material + 300)
    if white <= ENDGAME_PIECES or black <= ENDGAME_PIECES:
        # hunting down the last pieces: take away their squares, keep ours
        score += MOBILITY * (kernels.count_moves(state, 1) - kernels.count_moves(state, -1))
    return score * state[SIDE_SLOT]


# The search core takes kernels as first-class functions with fixed signatures, so that
# numba can cache the compiled search on disk (see aviary.search.alphabeta).
@cfunc(alphabeta.GENERATE, cache=True, nogil=True)
def _generate(state, out, captures_only):
    return kernels.generate(state, out, captures_only)


@cfunc(alphabeta.MAKE, cache=True, nogil=True)
def _make(state, move):
    return kernels.make(state, move)


@cfunc(alphabeta.UNMAKE, cache=True, nogil=True)
def _unmake(state, move, undo):
    kernels.unmake(state, move, undo)


@cfunc(alphabeta.EVALUATE, cache=True, nogil=True)
def _evaluate(state):
    return evaluate(state)


@cfunc(alphabeta.KEY, cache=True, nogil=True)
def _key(state):
    return kernels.key(state)


@cfunc(alphabeta.ORDER, cache=True, nogil=True)
def _order(state, move):
    return kernels.order(state, move)


KERNELS = (_generate, _make, _unmake, _evaluate, _key, _order)


@dataclass(frozen=True)
class Report:
    """One completed depth: the move it recommends and how it got there."""

    depth: int
    score: int
    move: rules.Move
    board: str
    pv: tuple[rules.Move, ...]
    nodes: int
    nps: float
    seconds: float
    seldepth: int = 0

    @property
    def mate_in(self) -> int | None:
        """Plies to a forced result (positive: we win), or None if not proven."""
        if abs(self.score) < MATE // 2:
            return None
        plies = MATE - abs(self.score)
        return plies if self.score > 0 else -plies


_workspaces = threading.local()


def workspace(n: int) -> Workspace:
    """This thread's reusable search arrays for board size n (the TT survives across moves)."""
    cache: dict[int, Workspace] = _workspaces.__dict__.setdefault("by_n", {})
    if n not in cache:
        cache[n] = Workspace(kernels.move_buffer_size(n))
    return cache[n]


def _report(position: rules.Position, raw: RawReport) -> Report:
    pv = tuple(kernels.decode(move) for move in raw.pv)
    board = rules.format_board(rules.play(position, pv[0]))
    return Report(
        raw.depth, raw.score, pv[0], board, pv, raw.nodes, raw.nps, raw.seconds, raw.seldepth
    )


def _table_report(position: rules.Position, verdict: endgame.Verdict) -> Report:
    """The solved tables' answer as a Report: a win or loss in d plies is a mate score."""
    assert verdict.move is not None
    sign = {endgame.WIN: 1, endgame.DRAW: 0, endgame.LOSS: -1}[verdict.result]
    score = sign * (MATE - verdict.distance)
    board = rules.format_board(rules.play(position, verdict.move))
    return Report(verdict.distance, score, verdict.move, board, (verdict.move,), 0, 0.0, 0.0)


def think(
    position: rules.Position, limit: Limit, *, tables: endgame.Use | None = None
) -> Iterator[Report]:
    """Yield a `Report` after each completed depth until `limit`; nothing if no legal move.

    A position in the endgame tables gets one report, the table's. `tables`: build a
    missing table first ("build", seconds once per machine), use cached ones only
    ("cached"), or search without them ("off"); by default "cached" under a time
    limit (a build would overrun it) and "build" otherwise. Boards larger than the
    kernels support (n > 32) get one report from the rules-based quick player.
    """
    if not rules.legal_moves(position):
        return
    use = tables or ("cached" if limit.time is not None else "build")
    verdict = endgame.probe(position, use=use)
    if verdict is not None:
        yield _table_report(position, verdict)
        return
    if position.n > kernels.MAX_N:
        move = quick.best_move(position)
        board = rules.format_board(rules.play(position, move))
        yield Report(1, 0, move, board, (move,), 0, 0.0, 0.0)
        return
    state = kernels.state_from_position(position)
    for raw in iterate(state, KERNELS, workspace(position.n), limit):
        yield _report(position, raw)


def best_move(
    position: rules.Position, *, time: float | None = None, depth: int | None = None,
    tables: endgame.Use | None = None,
) -> rules.Move:
    """The engine's move within `time` seconds and/or to `depth` plies (default: 1 s).

    With a time limit it stops early once another depth is unlikely to finish.
    `tables` as in `think`. Raises NoMoveError when the side to move has no legal move.
    """
    moves = rules.legal_moves(position)
    if not moves:
        raise NoMoveError(f"player {position.player} has no legal move")
    if len(moves) == 1:
        return moves[0]
    if time is None and depth is None:
        time = 1.0
    started = clock.monotonic()
    move = moves[0]
    limit = Limit(time=None if time is None else budget(time), depth=depth)
    for report in think(position, limit, tables=tables):
        move = report.move
        if time is not None and clock.monotonic() - started > 0.45 * time:
            break
    return move


def warmup() -> None:
    """Compile (or load from cache) every kernel the engine uses."""
    position = rules.start_position(8)
    kernels.kernel_perft(position, 2)
    kernels.legal_moves(position)
    kernels.board_from_state(kernels.state_from_position(position))
    for _ in think(position, Limit(depth=3)):
        pass
    state = kernels.state_from_position(position)
    np.testing.assert_equal(kernels.full_key(state), state[kernels.KEY_SLOT])
