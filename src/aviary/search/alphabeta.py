"""Game-agnostic alpha-beta search, compiled by numba with a game's kernels as arguments.

A game supplies seven compiled kernels over its own int64 state array (layout is the
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
    terminal(state) -> int              NOT_OVER while the game goes on; else the result
                                        for the side to move: 0 a draw, MATE won now,
                                        -MATE lost now, +-(MATE - d) decided d plies
                                        ahead (an endgame table), or a final score
                                        within +-MATE / 2 taken as it is

A game's `KERNELS` is them by name, `aviary.search.report.Kernels(generate, make,
unmake, evaluate, key, order, terminal)` (`aviary.search.kernels.search_kernels` makes
it). Scores are relative to the root: a result `MATE - d` met at ply p scores
`MATE - d - p` (a quicker win is better, a later loss less bad). `terminal` is
checked on entering every node, quiescence included, before the transposition
table and move generation; a side with no legal move loses (-MATE + ply).

Null move (off unless the search is asked for it, `Workspace.new_search(null_move=True)`;
only for a game whose make and unmake know the pass): at a null-window node at least
NULL_MIN_DEPTH from the horizon, whose evaluation already reaches beta, the side to move
passes (`make(state, PASS)`) and the opponent gets a search R = 2 plies shallower (3 from
depth 7 on); if even that fails high the node is cut. `make(state, PASS)` turns the side
to move (and the key's side bit) and returns an undo token >= 0, or returns -1 and
leaves the state untouched where a pass is unsafe (zugzwang-prone material: the game
says which). Never at the root, twice in a row, after the game is decided (terminal
comes first) or for a side with no legal move. A null cut counts as a horizon (it is
not a proof), a mate score from the null search is not trusted (beta is returned), and
repetitions are looked for only after the last pass on the path: a pass is no move of
the game, so a position before it does not repeat one after it.

Repetition: the workspace keeps the key of every position on the current path after
the game's history (`Workspace.set_game_history`); a position (ply > 0) whose key occurs
earlier on the path or in the history, the same side to move (keys include it), is a
draw (0). A 16K-counter filter makes the usual case one table read. Draw scores by
repetition depend on the path, so nodes below one never store their result as solved;
like every engine with a transposition table we otherwise accept the usual
graph-history interaction (a score stored on one path reused on another).

`negamax(state, depth, 0, ...)` runs one iteration at a fixed depth (PV left in
ws.pv[0, :ws.pv_length[0]]); `aviary.search.deepening.iterate` drives iterative
deepening, aspiration windows, reports and the deadline. The search polls the
caller's `stop[0]` and its own `timeout[0]` every 1024 nodes and is compiled
`nogil`, so another thread can stop it; an aborted iteration (ctx[ABORTED]) is
reported as such and its result must be discarded. ctx[HORIZON] counts the leaves
cut by depth (or by a repetition, or by a stored result that was): an iteration that
ends with none has solved the position, and deeper iterations would repeat it.

For whoever edits a compiled search here: pass no constant (`INF`, `True`) straight
to a recursive call. numba then compiles a second, literal-typed version of the
function, and the cached pair crashed when loaded from numba's disk cache.
"""

from __future__ import annotations

from numba import njit, types

from aviary.search.workspace import (  # noqa: F401 - re-exported: the search's numbers
    ABORTED,
    CAPTURE_BONUS,
    CTX_SIZE,
    EXACT,
    HISTORY_SIZE,
    HISTORY_TOP,
    HORIZON,
    INF,
    LMR,
    LOWER,
    MATE,
    MAX_PLY,
    NODE_LIMIT,
    NODES,
    NOT_OVER,
    NULL,
    NULL_CUTS,
    NULL_FLOOR,
    NULL_MIN_DEPTH,
    NULL_TRIES,
    PASS,
    QUIESCE,
    ROOT,
    SEEN_SIZE,
    SELDEPTH,
    SOLVED,
    TT_HITS,
    UPPER,
    Workspace,
)

# The seven kernel signatures. Kernels reach the search as compiled `cfunc`s with exactly
# these types (`aviary.search.kernels` makes them from a game's `@njit` kernels): a
# first-class function type is keyed by its signature, so the search compiled for them
# is cached on disk by numba, which is not the case when plain `@njit` dispatchers are
# passed as arguments.
STATE = types.int64[::1]
GENERATE = types.int64(STATE, types.int64[::1], types.boolean)
MAKE = types.int64(STATE, types.int64)
UNMAKE = types.void(STATE, types.int64, types.int64)
EVALUATE = types.int64(STATE)
KEY = types.int64(STATE)
ORDER = types.int64(STATE, types.int64)
TERMINAL = types.int64(STATE)


@njit(cache=True, nogil=True, inline="always")
def _poll(ctx, stop, timeout):
    ctx[NODES] += 1
    if (ctx[NODES] & 1023) == 0 and (
        stop[0] != 0 or timeout[0] != 0 or ctx[NODES] >= ctx[NODE_LIMIT]
    ):
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
def probe_tt(tt, slot, here, depth, ply, may_cut, alpha, beta, ctx):
    """(cut, score, hash move) from the table: cut when a stored result deep enough
    settles the window (`may_cut`: not at the root nor on the principal variation)."""
    if tt[slot, 0] != here:
        return False, 0, -1
    ctx[TT_HITS] += 1
    stored_depth = tt[slot, 3] >> 2
    bound = tt[slot, 3] & 3
    if may_cut and stored_depth >= depth:
        stored = _from_tt(tt[slot, 2], ply)
        if (
            bound == EXACT
            or (bound == LOWER and stored >= beta)
            or (bound == UPPER and stored <= alpha)
        ):
            if stored_depth != SOLVED:
                ctx[HORIZON] += 1  # a result with a horizon below it
            return True, stored, tt[slot, 1]
    return False, 0, tt[slot, 1]


@njit(cache=True, nogil=True, inline="always")
def store_tt(tt, slot, here, move, score, depth, bound, ctx, horizon_before):
    """Store a result (score already made ply-independent); SOLVED when no leaf below
    was cut by depth since `horizon_before`. Deeper and exact results are kept."""
    stored_depth = SOLVED if ctx[HORIZON] == horizon_before else depth
    if tt[slot, 0] != here or (tt[slot, 3] >> 2) <= stored_depth or bound == EXACT:
        tt[slot, 0] = here
        tt[slot, 1] = move
        tt[slot, 2] = score
        tt[slot, 3] = stored_depth * 4 + bound


@njit(cache=True, nogil=True, inline="always")
def repeated(path, seen, at, here, floor):
    """Whether key `here` (about to be path[at]) occurs in path[floor:at] (history and
    path; `floor` > 0 below a pass)."""
    if seen[here & (SEEN_SIZE - 1)] == 0:
        return False
    for i in range(at - 1, floor - 1, -1):  # noqa: SIM110 (numba compiles no generators)
        if path[i] == here:
            return True
    return False


@njit(cache=True, nogil=True, inline="always")
def extend_pv(pv, pv_length, ply, move):
    """The principal variation at `ply` becomes `move` and then the one found below it."""
    pv[ply, ply] = move
    for j in range(ply + 1, pv_length[ply + 1]):
        pv[ply, j] = pv[ply + 1, j]
    pv_length[ply] = max(pv_length[ply + 1], ply + 1)


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
def quiesce(
    state, ply, alpha, beta, ws, generate, make, unmake, evaluate, key, order, terminal
):
    """Captures only, standing pat on the evaluation; the game's end is checked first."""
    moves, scores, killers, history, pv, pv_length, tt, ctx, stop, timeout, path, seen = ws
    _poll(ctx, stop, timeout)
    pv_length[ply] = ply
    if ctx[ABORTED]:
        return 0
    over = terminal(state)
    if over != NOT_OVER:
        return _from_tt(over, ply)
    ctx[HORIZON] += 1
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
            state, ply + 1, -beta, -alpha, ws, generate, make, unmake, evaluate, key, order,
            terminal,
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
def negamax(
    state, depth, ply, alpha, beta, ws, generate, make, unmake, evaluate, key, order, terminal
):
    """Principal variation search with TT, killers, history and late-move reductions."""
    moves, scores, killers, history, pv, pv_length, tt, ctx, stop, timeout, path, seen = ws
    pv_length[ply] = ply
    here = key(state)
    at = ctx[ROOT] + ply
    if ply > 0 and repeated(path, seen, at, here, ctx[NULL_FLOOR]):
        ctx[NODES] += 1
        ctx[HORIZON] += 1  # a draw by this path only: nothing above it counts as solved
        return 0
    if depth <= 0 and ctx[QUIESCE]:
        return quiesce(
            state, ply, alpha, beta, ws, generate, make, unmake, evaluate, key, order, terminal
        )
    _poll(ctx, stop, timeout)
    if ctx[ABORTED]:
        return 0
    over = terminal(state)
    if over != NOT_OVER:
        return _from_tt(over, ply)
    if depth <= 0 or ply >= MAX_PLY:
        ctx[HORIZON] += 1
        return evaluate(state)
    if ply > ctx[SELDEPTH]:
        ctx[SELDEPTH] = ply

    horizon_before = ctx[HORIZON]
    slot = here & (tt.shape[0] - 1)
    cut, stored, hash_move = probe_tt(
        tt, slot, here, depth, ply, ply > 0 and beta - alpha <= 1, alpha, beta, ctx
    )
    if cut:
        return stored

    count = generate(state, moves[ply], False)
    if count == 0:
        return -MATE + ply
    if (
        ctx[NULL]
        and ply > 0
        and beta - alpha <= 1
        and depth >= NULL_MIN_DEPTH
        and ctx[NULL_FLOOR] != at  # the move into this node was no pass
        and beta < MATE // 2
        and evaluate(state) >= beta
    ):
        undo = make(state, PASS)
        if undo >= 0:
            ctx[NULL_TRIES] += 1
            floor = ctx[NULL_FLOOR]
            ctx[NULL_FLOOR] = at + 1
            reduced = depth - 3 if depth < 7 else depth - 4
            score = -negamax(
                state, reduced, ply + 1, -beta, -beta + 1, ws,
                generate, make, unmake, evaluate, key, order, terminal,
            )
            ctx[NULL_FLOOR] = floor
            unmake(state, PASS, undo)
            if ctx[ABORTED]:
                return 0
            if score >= beta:
                ctx[NULL_CUTS] += 1
                ctx[HORIZON] += 1  # a cut by a pass is no proof: nothing above is solved
                return beta if score > MATE // 2 else score
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

    path[at] = here
    seen[here & (SEEN_SIZE - 1)] += 1
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
                state, depth - 1, ply + 1, -beta, -alpha, ws,
                generate, make, unmake, evaluate, key, order, terminal,
            )
        else:
            reduction = 0
            if ctx[LMR] and quiet and depth >= 3 and i >= 3:
                reduction = 1 if i < 8 else 2
                if reduction > depth - 2:
                    reduction = depth - 2
            score = -negamax(
                state, depth - 1 - reduction, ply + 1, -alpha - 1, -alpha, ws,
                generate, make, unmake, evaluate, key, order, terminal,
            )
            if score > alpha and reduction > 0:
                score = -negamax(
                    state, depth - 1, ply + 1, -alpha - 1, -alpha, ws,
                    generate, make, unmake, evaluate, key, order, terminal,
                )
            if alpha < score < beta:
                score = -negamax(
                    state, depth - 1, ply + 1, -beta, -alpha, ws,
                    generate, make, unmake, evaluate, key, order, terminal,
                )
        unmake(state, move, undo)
        if ctx[ABORTED]:
            return 0  # the repetition filter is refilled before the next search
        if score > best:
            best = score
            best_move = move
            if score > alpha:
                alpha = score
                extend_pv(pv, pv_length, ply, move)
                if score >= beta:
                    if quiet:
                        if killers[ply, 0] != move:
                            killers[ply, 1] = killers[ply, 0]
                            killers[ply, 0] = move
                        entry = move & (HISTORY_SIZE - 1)
                        history[entry] += depth * depth
                        if entry >= ctx[HISTORY_TOP]:
                            ctx[HISTORY_TOP] = entry + 1
                    break
    seen[here & (SEEN_SIZE - 1)] -= 1

    if best >= beta:
        bound = LOWER
    elif best > original_alpha:
        bound = EXACT
    else:
        bound = UPPER
    store_tt(tt, slot, here, best_move, _to_tt(best, ply), depth, bound, ctx, horizon_before)
    return best
