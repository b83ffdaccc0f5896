"""Game-agnostic alpha-beta search, compiled by numba with a game's kernels as arguments.

A game supplies six compiled kernels over its own int64 state array (layout is the
game's business; search only reads it through the kernels):

    generate(state, out: int64[:], captures_only: bool) -> int
        Legal moves of the side to move written into `out`, returning how many.
        With `captures_only`, only the moves quiescence should try (captures).
        Moves are non-negative int64; the low 20 bits must identify the move well
        enough for the history table (e.g. from-square | to-square << 10).
    make(state, move) -> int            play `move` in place, return an undo token
    unmake(state, move, undo) -> None   restore the state exactly
    evaluate(state) -> int              static score for the side to move (centipawn-like,
                                        well inside +-MATE / 2)
    key(state) -> int                   Zobrist key of the state, side to move included
    order(state, move) -> int           static ordering bonus (captures >= CAPTURE_BONUS)

A side with no legal move loses (scored -MATE + ply). `negamax(state, depth, 0, ...)`
runs one iteration at a fixed depth (PV left in ws.pv[0, :ws.pv_length[0]]);
`aviary.search.deepening.iterate` drives iterative deepening, aspiration windows,
reports and the deadline. The search polls
`stop[0]` every 1024 nodes and is compiled `nogil`, so a timer thread can stop it;
an aborted iteration is reported as such and its result must be discarded.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types

# The six kernel signatures. Kernels reach the search as compiled `cfunc`s with exactly
# these types (see a game's `engine.py` for the pattern): a first-class function
# type is keyed by its signature, so the search compiled for them is cached on disk by
# numba, which is not the case when plain `@njit` dispatchers are passed as arguments.
STATE = types.int64[::1]
GENERATE = types.int64(STATE, types.int64[::1], types.boolean)
MAKE = types.int64(STATE, types.int64)
UNMAKE = types.void(STATE, types.int64, types.int64)
EVALUATE = types.int64(STATE)
KEY = types.int64(STATE)
ORDER = types.int64(STATE, types.int64)

MATE = 1_000_000
INF = 2 * MATE
MAX_PLY = 96
HISTORY_SIZE = 1 << 20
CAPTURE_BONUS = 1_000_000

# ctx slots
NODES, NODE_LIMIT, ABORTED, SELDEPTH, QUIESCE, LMR, TT_HITS = 0, 1, 2, 3, 4, 5, 6
CTX_SIZE = 8

# tt columns: key, move, score, depth * 4 + bound
EXACT, LOWER, UPPER = 1, 2, 3


class Workspace:
    """Every array one search needs, allocated once per engine and reused across moves."""

    def __init__(self, max_moves: int, tt_bits: int = 20) -> None:
        self.moves = np.zeros((MAX_PLY + 1, max_moves), dtype=np.int64)
        self.scores = np.zeros((MAX_PLY + 1, max_moves), dtype=np.int64)
        self.killers = np.zeros((MAX_PLY + 1, 2), dtype=np.int64)
        self.history = np.zeros(HISTORY_SIZE, dtype=np.int64)
        self.pv = np.zeros((MAX_PLY + 1, MAX_PLY + 1), dtype=np.int64)
        self.pv_length = np.zeros(MAX_PLY + 1, dtype=np.int64)
        self.tt = np.zeros((1 << tt_bits, 4), dtype=np.int64)
        self.ctx = np.zeros(CTX_SIZE, dtype=np.int64)

    def new_search(self, node_limit: int, quiesce: bool = True, lmr: bool = True) -> None:
        """Age the history, clear killers and counters, keep the transposition table."""
        self.history //= 8
        self.killers[:] = 0
        self.ctx[:] = 0
        self.ctx[NODE_LIMIT] = node_limit
        self.ctx[QUIESCE] = int(quiesce)
        self.ctx[LMR] = int(lmr)

    def arrays(self, stop: np.ndarray) -> tuple[np.ndarray, ...]:
        """The `ws` tuple the compiled search takes; the search stops once `stop[0] != 0`."""
        return (
            self.moves,
            self.scores,
            self.killers,
            self.history,
            self.pv,
            self.pv_length,
            self.tt,
            self.ctx,
            stop,
        )


@njit(cache=True, nogil=True, inline="always")
def _poll(ctx, stop):
    ctx[NODES] += 1
    if (ctx[NODES] & 1023) == 0 and (stop[0] != 0 or ctx[NODES] >= ctx[NODE_LIMIT]):
        ctx[ABORTED] = 1


@njit(cache=True, nogil=True, inline="always")
def _to_tt(score, ply):
    if score > MATE // 2:
        return score + ply
    if score < -MATE // 2:
        return score - ply
    return score


@njit(cache=True, nogil=True, inline="always")
def _from_tt(score, ply):
    if score > MATE // 2:
        return score - ply
    if score < -MATE // 2:
        return score + ply
    return score


@njit(cache=True, nogil=True, inline="always")
def _pick(moves, scores, first, count):
    """Selection sort step: bring the best-scored remaining move to `first`."""
    best = first
    for j in range(first + 1, count):
        if scores[j] > scores[best]:
            best = j
    if best != first:
        moves[first], moves[best] = moves[best], moves[first]
        scores[first], scores[best] = scores[best], scores[first]


@njit(cache=True, nogil=True)
def quiesce(state, ply, alpha, beta, ws, generate, make, unmake, evaluate, key, order):
    moves, scores, killers, history, pv, pv_length, tt, ctx, stop = ws
    _poll(ctx, stop)
    pv_length[ply] = ply
    if ctx[ABORTED]:
        return 0
    if ply > ctx[SELDEPTH]:
        ctx[SELDEPTH] = ply
    stand = evaluate(state)
    if stand >= beta or ply >= MAX_PLY:
        return stand
    if stand > alpha:
        alpha = stand
    count = generate(state, moves[ply], True)
    for i in range(count):
        scores[ply, i] = order(state, moves[ply, i])
    best = stand
    for i in range(count):
        _pick(moves[ply], scores[ply], i, count)
        move = moves[ply, i]
        undo = make(state, move)
        score = -quiesce(
            state, ply + 1, -beta, -alpha, ws, generate, make, unmake, evaluate, key, order
        )
        unmake(state, move, undo)
        if ctx[ABORTED]:
            return 0
        if score > best:
            best = score
            if score > alpha:
                alpha = score
                if score >= beta:
                    break
    return best


@njit(cache=True, nogil=True)
def negamax(state, depth, ply, alpha, beta, ws, generate, make, unmake, evaluate, key, order):
    """Principal variation search with TT, killers, history and late-move reductions."""
    moves, scores, killers, history, pv, pv_length, tt, ctx, stop = ws
    pv_length[ply] = ply
    if depth <= 0:
        if ctx[QUIESCE]:
            return quiesce(
                state, ply, alpha, beta, ws, generate, make, unmake, evaluate, key, order
            )
        _poll(ctx, stop)
        return evaluate(state)
    _poll(ctx, stop)
    if ctx[ABORTED]:
        return 0
    if ply >= MAX_PLY:
        return evaluate(state)
    if ply > ctx[SELDEPTH]:
        ctx[SELDEPTH] = ply

    here = key(state)
    slot = here & (tt.shape[0] - 1)
    hash_move = -1
    is_pv = beta - alpha > 1
    if tt[slot, 0] == here:
        ctx[TT_HITS] += 1
        hash_move = tt[slot, 1]
        stored_depth = tt[slot, 3] >> 2
        bound = tt[slot, 3] & 3
        if ply > 0 and not is_pv and stored_depth >= depth:
            stored = _from_tt(tt[slot, 2], ply)
            if (
                bound == EXACT
                or (bound == LOWER and stored >= beta)
                or (bound == UPPER and stored <= alpha)
            ):
                return stored

    count = generate(state, moves[ply], False)
    if count == 0:
        return -MATE + ply
    for i in range(count):
        move = moves[ply, i]
        if move == hash_move:
            bonus = 1 << 40
        else:
            bonus = order(state, move)
            if bonus < CAPTURE_BONUS:
                if move == killers[ply, 0]:
                    bonus += 800_000
                elif move == killers[ply, 1]:
                    bonus += 700_000
                else:
                    bonus += min(history[move & (HISTORY_SIZE - 1)], 600_000)
        scores[ply, i] = bonus

    original_alpha = alpha
    best = -INF
    best_move = moves[ply, 0]
    for i in range(count):
        _pick(moves[ply], scores[ply], i, count)
        move = moves[ply, i]
        quiet = scores[ply, i] < CAPTURE_BONUS
        undo = make(state, move)
        if i == 0:
            score = -negamax(
                state,
                depth - 1,
                ply + 1,
                -beta,
                -alpha,
                ws,
                generate,
                make,
                unmake,
                evaluate,
                key,
                order,
            )
        else:
            reduction = 0
            if ctx[LMR] and quiet and depth >= 3 and i >= 3:
                reduction = 1 if i < 8 else 2
                if reduction > depth - 2:
                    reduction = depth - 2
            score = -negamax(
                state,
                depth - 1 - reduction,
                ply + 1,
                -alpha - 1,
                -alpha,
                ws,
                generate,
                make,
                unmake,
                evaluate,
                key,
                order,
            )
            if score > alpha and reduction > 0:
                score = -negamax(
                    state,
                    depth - 1,
                    ply + 1,
                    -alpha - 1,
                    -alpha,
                    ws,
                    generate,
                    make,
                    unmake,
                    evaluate,
                    key,
                    order,
                )
            if alpha < score < beta:
                score = -negamax(
                    state,
                    depth - 1,
                    ply + 1,
                    -beta,
                    -alpha,
                    ws,
                    generate,
                    make,
                    unmake,
                    evaluate,
                    key,
                    order,
                )
        unmake(state, move, undo)
        if ctx[ABORTED]:
            return 0
        if score > best:
            best = score
            best_move = move
            if score > alpha:
                alpha = score
                pv[ply, ply] = move
                for j in range(ply + 1, pv_length[ply + 1]):
                    pv[ply, j] = pv[ply + 1, j]
                pv_length[ply] = max(pv_length[ply + 1], ply + 1)
                if score >= beta:
                    if quiet:
                        if killers[ply, 0] != move:
                            killers[ply, 1] = killers[ply, 0]
                            killers[ply, 0] = move
                        history[move & (HISTORY_SIZE - 1)] += depth * depth
                    break

    if best >= beta:
        bound = LOWER
    elif best > original_alpha:
        bound = EXACT
    else:
        bound = UPPER
    if tt[slot, 0] != here or (tt[slot, 3] >> 2) <= depth or bound == EXACT:
        tt[slot, 0] = here
        tt[slot, 1] = best_move
        tt[slot, 2] = _to_tt(best, ply)
        tt[slot, 3] = depth * 4 + bound
    return best
