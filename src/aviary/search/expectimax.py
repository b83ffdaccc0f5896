"""Expectiminimax for games with chance, compiled by numba like `alphabeta`.

A game with chance supplies the seven kernels of `aviary.search.alphabeta` and one
more, `Kernels.chance` (`aviary.search.report.Kernels`):

    chance(state, outcomes: int64[:], weights: int64[:]) -> int
        0 when a player moves in `state`; else the number of chance outcomes, with
        their codes written into `outcomes` and positive integer weights into
        `weights` (probability = weight / sum of weights, the sum below 2**32).
        An outcome is applied with `make` and taken back with `unmake`, like a move.

Conventions the search relies on:
- A chance outcome does not change the side to move: a chance node is scored for
  the side that moves after the outcome (after a player's move the turn passes,
  then the chance event happens, as with a random tile added for the next mover).
  `evaluate` and `terminal` must accept chance nodes, and `key` must tell a chance
  node from a player node.
  (A game whose chance event passes the turn gives the player a single "pass" move.)
- depth counts player moves: a chance node passes its depth on unchanged, and a
  node at depth 0 -- player or chance -- is evaluated. ply counts every edge from
  the root, moves and chance outcomes alike; results are scored by ply as in
  alphabeta (`MATE - d - ply`), and MAX_PLY bounds the path.
- A chance node's value is the floor of the weighted mean of its outcomes' values:
  floor(sum(weight * value) / sum(weight)). Values stay integers.
- The root of a search is a player node (the caller resolves chance at the root).

Pruning: player nodes are fail-soft alpha-beta (sound). At chance nodes, given
`bounds` (lower, upper) on every score the search can meet -- evaluations and game
results, so +-MATE for a game that ends in wins and losses -- Star1 (Ballard 1983)
gives each outcome the window that would decide the chance node (so alpha-beta
goes on below it) and cuts as soon as the known outcomes, the rest taken at the
bounds, put the node outside its window; Star2 first probes every outcome with
one move (the stored best, else the best ordered) for lower bounds, which can cut
at once and narrow Star1's windows. Without bounds every outcome is searched with
the full window: plain expectimax over alpha-beta player nodes. All three return
the same scores. benchmarks/search_expectimax.py measures them; Star1 is the
default because Star2's probes did not pay there once the table was on.

Transposition table: a score depends on the ply it is met at (a mix of wins at
different distances shifts with the ply, unlike a pure mate score), so entries are
keyed on position, ply and root, and are exact wherever reused: between the
iterations of one search and between transpositions at the same ply (the common
kind with chance: where every turn adds one tile and merges keep the tiles'
weighted total, a position fixes its ply).
Repetitions of the game's history or of the path are draws, as in alphabeta.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import numpy as np
from numba import njit, types

from aviary.search.alphabeta import (
    ABORTED,
    EXACT,
    HORIZON,
    INF,
    LOWER,
    MATE,
    MAX_PLY,
    NODE_LIMIT,
    NODES,
    NOT_OVER,
    ROOT,
    SEEN_SIZE,
    SELDEPTH,
    STATE,
    UPPER,
    Workspace,
    _from_tt,
    _pick,
    _poll,
    extend_pv,
    probe_tt,
    repeated,
    store_tt,
)
from aviary.search.clock import Limit
from aviary.search.dispatch import direct
from aviary.search.iteration import UNBOUNDED, Deepening
from aviary.search.report import Kernels, Report

CHANCE = types.int64(STATE, types.int64[::1], types.int64[::1])

# ctx slots of this search (alphabeta's own end at 9)
PRUNING, LOW, HIGH, SALT, CUTOFFS, PROBING = 9, 10, 11, 12, 13, 14
NONE, STAR1, STAR2 = 0, 1, 2

PLY_MULTIPLIER = 0x2545F4914F6CDD1D  # odd: ply salts differ in the low (slot) bits


@njit(cache=True, nogil=True)
def search(
    state, depth, ply, alpha, beta, ws,
    generate, make, unmake, evaluate, key, order, terminal, chance,
):
    """The value of `state` for its side to move, fail-soft within (alpha, beta).

    Star2's probe (ctx[PROBING] set by the caller, read and cleared here): at a
    player node search the first move only and return a lower bound of the value
    (a value <= alpha says nothing); at a chance node return -INF. One function
    serves every kind of node: numba compiles one recursive function readily, two
    mutually recursive ones not.
    """
    moves, scores, probes, pv, pv_length, tt, ctx, stop, timeout, path, seen = ws
    # full-window bounds as run-time values: a constant argument to the recursive call
    # would make numba compile (and cache) a second, literal-typed version of `search`
    wide_high = np.int64(INF)
    wide_low = -wide_high
    pv_length[ply] = ply
    probing = ctx[PROBING] != 0
    ctx[PROBING] = 0
    _poll(ctx, stop, timeout)
    if ctx[ABORTED]:
        return 0
    over = terminal(state)
    if over != NOT_OVER:
        return _from_tt(over, ply)
    here = key(state)
    at = ctx[ROOT] + ply
    if ply > 0 and repeated(path, seen, at, here, 0):
        ctx[HORIZON] += 1
        return 0
    if depth <= 0 or ply >= MAX_PLY:
        ctx[HORIZON] += 1
        return evaluate(state)
    if ply > ctx[SELDEPTH]:
        ctx[SELDEPTH] = ply

    horizon_before = ctx[HORIZON]
    if ply == 0:
        ctx[SALT] = here  # the root's key: entries of other roots' searches never match
    probe = here ^ ((ply + 1) * PLY_MULTIPLIER) ^ ctx[SALT]
    slot = probe & (tt.shape[0] - 1)
    # scores are stored as they are: the key holds the ply (no mate-score shift, 0)
    cut, stored, hash_move = probe_tt(tt, slot, probe, depth, 0, ply > 0, alpha, beta, ctx)
    if cut:
        return stored

    count = chance(state, moves[ply], scores[ply])
    is_chance = count > 0
    if is_chance and probing:
        return -INF
    if not is_chance:
        count = generate(state, moves[ply], False)
        if count == 0:
            return -MATE + ply
    path[at] = here
    seen[here & (SEEN_SIZE - 1)] += 1
    best_move = -1
    bound = EXACT
    if not is_chance:  # a player node: fail-soft alpha-beta
        for i in range(count):
            move = moves[ply, i]
            scores[ply, i] = (1 << 40) if move == hash_move else order(state, move)
        best = -INF
        for i in range(count):
            _pick(moves[ply], scores[ply], i, count)
            move = moves[ply, i]
            undo = make(state, move)
            score = -search(
                state, depth - 1, ply + 1, -beta, -max(alpha, best), ws,
                generate, make, unmake, evaluate, key, order, terminal, chance,
            )
            unmake(state, move, undo)
            if ctx[ABORTED]:
                return 0
            if probing:
                best, best_move = score, move
                bound = LOWER  # one move searched: at best a lower bound
                break
            if score > best:
                best = score
                best_move = move
                if score > alpha:
                    extend_pv(pv, pv_length, ply, move)
                if score >= beta:
                    break
        if best >= beta:
            bound = LOWER
        elif best <= alpha:
            bound = UPPER
        if probing and best <= alpha:
            seen[here & (SEEN_SIZE - 1)] -= 1
            return best  # an upper bound of one move: says nothing, not stored
    else:
        # A chance node: outcomes in moves[ply], weights in scores[ply]. Sums are kept
        # times the total weight so every test is exact integer arithmetic:
        # floor(S / total) <= alpha  iff  S <= (alpha + 1) * total - 1,
        # floor(S / total) >= beta   iff  S >= beta * total.
        total = 0
        for i in range(count):
            total += scores[ply, i]
        mode = ctx[PRUNING]
        low, high = ctx[LOW], ctx[HIGH]
        if mode == NONE:
            low, high = -INF, INF
        fail_low_sum = (alpha + 1) * total - 1
        fail_high_sum = beta * total
        # lower bounds of the outcomes' values: `low`, raised by Star2's probes
        rest_low = 0
        for i in range(count):
            probes[ply, i] = low
            rest_low += scores[ply, i] * low
        cut = False
        best = 0
        if mode == STAR2:
            # probe each outcome with one move for a lower bound; cut once they pass beta
            for i in range(count):
                weight = scores[ply, i]
                rest_low -= weight * low
                need = -((rest_low - fail_high_sum) // weight)  # ceil: v >= need cuts
                outcome = moves[ply, i]
                undo = make(state, outcome)
                ctx[PROBING] = 1
                value = search(
                    state, depth, ply + 1, low - 1, min(need, high + 1), ws,
                    generate, make, unmake, evaluate, key, order, terminal, chance,
                )
                unmake(state, outcome, undo)
                if ctx[ABORTED]:
                    return 0
                probes[ply, i] = max(value, low)
                rest_low += weight * probes[ply, i]
                if rest_low >= fail_high_sum:
                    ctx[CUTOFFS] += 1
                    best, bound, cut = rest_low // total, LOWER, True
                    break
        if not cut:
            known = 0
            remaining = total
            for i in range(count):
                weight = scores[ply, i]
                remaining -= weight
                rest_low -= weight * probes[ply, i]
                if mode == NONE:
                    cut_low, cut_high = -INF, INF
                else:
                    # the outcome's value v cuts this node when, the others at their
                    # bounds, the sum passes a threshold
                    cut_low = (fail_low_sum - known - remaining * high) // weight
                    cut_high = -((known + rest_low - fail_high_sum) // weight)
                child_alpha = max(cut_low, low - 1)
                child_beta = min(cut_high, high + 1)
                outcome = moves[ply, i]
                undo = make(state, outcome)
                value = search(
                    state, depth, ply + 1, child_alpha, child_beta, ws,
                    generate, make, unmake, evaluate, key, order, terminal, chance,
                )
                if cut_low < value < cut_high and (value <= child_alpha or value >= child_beta):
                    # outside `bounds`, yet cutting nothing (the bounds were wrong): be exact
                    value = search(
                        state, depth, ply + 1, wide_low, wide_high, ws,
                        generate, make, unmake, evaluate, key, order, terminal, chance,
                    )
                unmake(state, outcome, undo)
                if ctx[ABORTED]:
                    return 0
                if value <= cut_low:
                    ctx[CUTOFFS] += 1
                    best, bound = (known + weight * value + remaining * high) // total, UPPER
                    break
                if value >= cut_high:
                    ctx[CUTOFFS] += 1
                    best, bound = (known + weight * value + rest_low) // total, LOWER
                    break
                known += weight * value
            else:
                best = known // total
    seen[here & (SEEN_SIZE - 1)] -= 1

    store_tt(tt, slot, probe, best_move, best, depth, bound, ctx, horizon_before)
    return best


def iterate(
    state: np.ndarray,
    kernels: Kernels,
    workspace: Workspace,
    limit: Limit,
    *,
    stop: np.ndarray | None = None,
    history: Iterable[int] = (),
    bounds: tuple[int, int] | None = None,
    star2: bool = False,
) -> Iterator[Report[int]]:
    """Iterative deepening over `search`, yielding a `Report[int]` per completed depth.

    Same contract as `aviary.search.deepening.iterate` (which calls this for `Kernels`
    with a `chance` kernel): depth counts player moves, the node limit starts at depth
    2, the clock and `stop` cut any depth, the iterator ends once a depth leaves no
    leaf cut by depth (solved). With
    `bounds`, chance nodes are pruned (Star2 when `star2`, else Star1); scores are
    the same either way. The principal variation stops at the first chance node.
    """
    searched = kernels.expectimax  # ValueError without the chance kernel
    run = Deepening.begin(limit, stop, MAX_PLY)
    workspace.set_game_history(history)
    workspace.new_search(UNBOUNDED, quiesce=False, lmr=False)
    ctx = workspace.ctx
    if bounds is not None:
        low, high = bounds
        if not -INF < low <= high < INF:
            raise ValueError(f"bounds must satisfy -INF < lower <= upper < INF, got {bounds}")
        ctx[PRUNING] = STAR2 if star2 else STAR1
        ctx[LOW], ctx[HIGH] = low, high
    arrays = _arrays(workspace, run.cancel, run.timeout)
    searching = direct(search)
    with run.timer():
        for depth in run.depths():
            if depth > 1 and run.interrupted():
                ctx[ABORTED] = 1
                return
            ctx[HORIZON] = 0
            score = int(searching(state, depth, 0, -INF, INF, arrays, *searched))
            if depth == 1:
                ctx[NODE_LIMIT] = run.node_limit
            if ctx[ABORTED]:
                workspace.reset_seen()
                return
            report = run.report(depth, score, workspace.pv, workspace.pv_length,
                                int(ctx[NODES]), int(ctx[SELDEPTH]))
            if report is None:
                return
            yield report
            if ctx[HORIZON] == 0:
                return


def _arrays(workspace: Workspace, stop: np.ndarray, timeout: np.ndarray) -> tuple[np.ndarray, ...]:
    return (
        workspace.moves,
        workspace.scores,
        workspace.probes,
        workspace.pv,
        workspace.pv_length,
        workspace.tt,
        workspace.ctx,
        stop,
        timeout,
        workspace.path,
        workspace.seen,
    )
