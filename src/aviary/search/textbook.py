"""The textbook opponent: plain negamax alpha-beta with iterative deepening, for every game.

The yardstick every engine's strength is measured against, the search a course
write-up would have: minimax in negamax form with alpha-beta pruning, moves in
the order the game generates them, deepened one ply at a time until the clock
runs out (a depth left unfinished is thrown away, depth 1 too). No
move ordering, transposition table, quiescence, null move, reductions or
repetition detection: what it knows of a game is its rules (the kernels) and
the game's plain evaluation. For a game with chance it is expectiminimax: a
chance node is the floor of its outcomes' weighted mean, each outcome searched
with the full window (no Star1/Star2).

It runs on a game's compiled kernels, passed as first-class `cfunc`s with the
signatures of `aviary.search.alphabeta` and `aviary.search.expectimax` (one
compiled search, cached on disk, serves every game; see alphabeta's module):

    TextbookKernels(generate, make, unmake, evaluate, terminal, chance)

`generate`, `make`, `unmake`, `terminal` and `chance` as in those modules, and
`evaluate` the game's plain evaluation for the side to move; a game without
chance passes `no_chance`. Conventions (the expectimax module's): a chance
outcome keeps the side to move, depth counts player moves, a node at depth 0
(player or chance) is evaluated, results are scored by ply (a win met at ply p
scores MATE - p: sooner wins and later losses are preferred), a side with no
legal move has lost.

`iterate` yields a `Report[int]` per completed depth. It stops before its limit
only when another depth cannot change the answer: no leaf was cut by depth (the
game tree is exhausted), or, in a search that met no chance node, a win or loss
is proven within the depth searched.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from numba import cfunc, njit

from aviary.search.alphabeta import MATE, MAX_PLY, NOT_OVER, extend_pv
from aviary.search.clock import Limit
from aviary.search.dispatch import direct
from aviary.search.expectimax import CHANCE
from aviary.search.iteration import UNBOUNDED, Deepening
from aviary.search.report import Report, TextbookKernels

INF = 2 * MATE
# ctx slots: nodes, node limit, aborted, leaves cut by depth, chance nodes met, deepest ply
NODES, NODE_LIMIT, ABORTED, HORIZON, CHANCES, SELDEPTH = range(6)
CTX_SIZE = 6


@cfunc(CHANCE, cache=True, nogil=True)
def no_chance(state, outcomes, weights):
    """The chance kernel of a game without chance: every node is a player's."""
    return 0


class Workspace:
    """The arrays one textbook search needs; `max_moves` bounds moves and chance outcomes."""

    def __init__(self, max_moves: int) -> None:
        self.moves = np.zeros((MAX_PLY + 1, max_moves), dtype=np.int64)
        self.weights = np.zeros((MAX_PLY + 1, max_moves), dtype=np.int64)
        self.pv = np.zeros((MAX_PLY + 1, MAX_PLY + 1), dtype=np.int64)
        self.pv_length = np.zeros(MAX_PLY + 1, dtype=np.int64)
        self.ctx = np.zeros(CTX_SIZE, dtype=np.int64)

    def arrays(self, stop: np.ndarray, timeout: np.ndarray) -> tuple[np.ndarray, ...]:
        return (self.moves, self.weights, self.pv, self.pv_length, self.ctx, stop, timeout)


@njit(cache=True, nogil=True)
def negamax(state, depth, ply, alpha, beta, ws, generate, make, unmake, evaluate, terminal,
            chance):
    """The value of `state` for its side to move (fail-soft within (alpha, beta))."""
    moves, weights, pv, pv_length, ctx, stop, timeout = ws
    ctx[NODES] += 1
    if ctx[NODES] >= ctx[NODE_LIMIT] or (
        (ctx[NODES] & 1023) == 0 and (stop[0] != 0 or timeout[0] != 0)
    ):
        ctx[ABORTED] = 1
    pv_length[ply] = ply
    if ctx[ABORTED]:
        return 0
    over = terminal(state)
    if over != NOT_OVER:  # a result d plies ahead, met at ply p, scores MATE - d - p
        if over > MATE // 2:
            return over - ply
        if over < -MATE // 2:
            return over + ply
        return over
    if ply > ctx[SELDEPTH]:
        ctx[SELDEPTH] = ply
    if depth <= 0 or ply >= MAX_PLY:
        ctx[HORIZON] += 1
        return evaluate(state)
    count = chance(state, moves[ply], weights[ply])
    if count > 0:  # the weighted mean of the outcomes, each searched with the full window
        ctx[CHANCES] += 1
        wide = np.int64(INF)  # a run-time value: see alphabeta's note on recursive calls
        total = 0
        weighted = 0
        for i in range(count):
            outcome = moves[ply, i]
            undo = make(state, outcome)
            value = negamax(state, depth, ply + 1, -wide, wide, ws,
                            generate, make, unmake, evaluate, terminal, chance)
            unmake(state, outcome, undo)
            if ctx[ABORTED]:
                return 0
            total += weights[ply, i]
            weighted += weights[ply, i] * value
        return weighted // total
    count = generate(state, moves[ply], False)
    if count == 0:
        return -MATE + ply
    best = -INF
    for i in range(count):
        move = moves[ply, i]
        undo = make(state, move)
        score = -negamax(state, depth - 1, ply + 1, -beta, -alpha, ws,
                         generate, make, unmake, evaluate, terminal, chance)
        unmake(state, move, undo)
        if ctx[ABORTED]:
            return 0
        if score > best:
            best = score
            if score > alpha:
                alpha = score
                extend_pv(pv, pv_length, ply, move)
                if alpha >= beta:
                    break
    return best


def iterate(
    state: np.ndarray,
    kernels: TextbookKernels,
    workspace: Workspace,
    limit: Limit,
    *,
    stop: np.ndarray | None = None,
) -> Iterator[Report[int]]:
    """A `Report[int]` after each completed depth 1, 2, 3, ... until `limit` runs out.

    `limit`'s time (seconds or deadline) is when the search stops (a caller that must
    answer by a deadline asks `Deadline.search_until` for it); `limit.nodes` counts
    every node of every depth from depth 2 on (depth 1 ignores it); `stop` is the
    caller's one-element flag: setting it cancels the depth under way, depth 1 too. A
    depth cut short is thrown away. `state` is restored after each depth.
    """
    if not isinstance(kernels, TextbookKernels):
        raise TypeError(f"kernels must be aviary.search.report.TextbookKernels, got "
                        f"{type(kernels).__name__}")
    run = Deepening.begin(limit, stop, MAX_PLY)
    ctx = workspace.ctx
    ctx[:] = 0
    ctx[NODE_LIMIT] = UNBOUNDED
    arrays = workspace.arrays(run.cancel, run.timeout)
    searching = direct(negamax)
    with run.timer():
        for depth in run.depths():
            if depth > 1 and (run.interrupted() or ctx[NODES] >= run.node_limit):
                ctx[ABORTED] = 1
                return
            ctx[HORIZON] = ctx[CHANCES] = 0
            score = int(searching(state, depth, 0, -INF, INF, arrays, *kernels.textbook))
            ctx[NODE_LIMIT] = run.node_limit
            if ctx[ABORTED]:
                return
            report = run.report(depth, score, workspace.pv, workspace.pv_length,
                                int(ctx[NODES]), int(ctx[SELDEPTH]))
            if report is None:  # the game is over or the mover has no move
                return
            yield report
            if ctx[HORIZON] == 0:
                return  # every line reached the game's end: deeper searches repeat this one
            if ctx[CHANCES] == 0 and MATE - abs(score) <= depth:
                return  # a win or loss proven within the depth searched
