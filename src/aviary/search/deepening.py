"""Iterative deepening around the compiled core: one report per completed depth.

`iterate` is the one driver a game engine calls, for alpha-beta and, when the game's
`Kernels` have a `chance` kernel, expectiminimax. Each depth is one compiled call; the
deadline (a flag of the search's own) or the caller's stop flag stops it, and an
interrupted depth is thrown away, so what the caller last received stays the answer.
Aspiration windows start narrow around the previous score and widen on failure.
The iterations end early once a depth is solved (no leaf cut by depth) or a win or
loss is proven.

The search at each depth is numba's (`aviary.search.alphabeta.negamax` over the
game's kernels), or the same search compiled ahead of time (a `CompiledSearch`, see
`aviary.search.compiled`): this module imports numba only for the former.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

import numpy as np

from aviary.search.clock import Limit
from aviary.search.compiled import CompiledSearch
from aviary.search.dispatch import direct
from aviary.search.iteration import UNBOUNDED, Deepening
from aviary.search.report import Kernels, Report
from aviary.search.workspace import (
    ABORTED,
    HORIZON,
    INF,
    MATE,
    MAX_PLY,
    NODE_LIMIT,
    NODES,
    SELDEPTH,
    Workspace,
)

# one iteration at a fixed depth: (state, depth, alpha, beta, workspace arrays) -> score
Root = Callable[[np.ndarray, int, int, int, tuple[np.ndarray, ...]], int]


def iterate(
    state: np.ndarray,
    kernels: Kernels | CompiledSearch,
    workspace: Workspace,
    limit: Limit,
    *,
    stop: np.ndarray | None = None,
    history: Iterable[int] = (),
    bounds: tuple[int, int] | None = None,
    star2: bool = False,
    aspiration: int = 40,
    quiesce: bool = True,
    lmr: bool = True,
    null_move: bool = False,
) -> Iterator[Report[int]]:
    """Yield a `Report[int]` after each completed depth until `limit` or a solved position.

    `kernels` is a game's `Kernels`, or its alpha-beta search compiled ahead of time
    (a `CompiledSearch`: the same search, numba not imported); with a `chance`
    kernel the expectiminimax of
    `aviary.search.expectimax` runs, its depth counting player moves, with Star1
    pruning (Star2 with `star2`) when `bounds` = (lower, upper) bounds every score the
    search can meet (evaluations and game results); `aspiration`, `quiesce`, `lmr` and
    `null_move` concern alpha-beta only (`null_move` only for a game whose make/unmake
    handle `alphabeta.PASS`).
    `stop`: the caller's one-element int64 flag; setting `stop[0] = 1` (from any
    thread) cancels the search: the depth under way is thrown away and the
    iterator ends (`workspace.ctx[ABORTED]` is then 1). The time limit runs on a
    flag of the search's own, so a stale timer never touches the caller's flag.
    `history`: Zobrist keys of the game's positions before `state` (oldest first);
    a repetition of one of them, or of a position on the search path, is a draw.
    Depth 1 ignores the node limit (a node budget always gets a searched move), but
    not the clock or `stop`: with no report, the caller answers without a search
    (`aviary.search.iteration.Deepening`). `state` is searched
    in place and restored after each depth.
    """
    root: Root
    if isinstance(kernels, CompiledSearch):
        root = kernels.root
    elif not isinstance(kernels, Kernels):
        raise TypeError(f"kernels must be aviary.search.report.Kernels, got "
                        f"{type(kernels).__name__}")
    elif kernels.chance is not None:
        from aviary.search import expectimax  # compiled only for games with chance

        yield from expectimax.iterate(
            state, kernels, workspace, limit, stop=stop, history=history, bounds=bounds,
            star2=star2,
        )
        return
    else:
        root = _jit_root(kernels)
    run = Deepening.begin(limit, stop, MAX_PLY)
    workspace.set_game_history(history)
    workspace.new_search(UNBOUNDED, quiesce, lmr, null_move)
    arrays = workspace.arrays(run.cancel, run.timeout)
    with run.timer():
        score = 0
        for depth in run.depths():
            if depth > 1 and run.interrupted():
                workspace.ctx[ABORTED] = 1
                return
            if depth == 1:  # under the deadline, not the node limit (`Deepening`)
                workspace.ctx[HORIZON] = 0
                score = root(state, 1, -INF, INF, arrays)
                workspace.ctx[NODE_LIMIT] = run.node_limit
            else:
                score = _aspirated(state, depth, score, aspiration, arrays, root, workspace)
            if workspace.ctx[ABORTED]:
                workspace.reset_seen()
                return
            report = run.report(depth, score, workspace.pv, workspace.pv_length,
                                int(workspace.ctx[NODES]),
                                int(workspace.ctx[SELDEPTH]))
            if report is None:  # no legal move, or the game is over: nothing to report
                return
            yield report
            if workspace.ctx[HORIZON] == 0:
                return  # solved: no leaf was cut by depth, deeper searches repeat this one
            if abs(score) > MATE // 2 and depth >= MATE - abs(score) + 2:
                return  # a proven win or loss does not change with depth


def _aspirated(
    state: np.ndarray,
    depth: int,
    guess: int,
    window: int,
    arrays: tuple[np.ndarray, ...],
    root: Root,
    workspace: Workspace,
) -> int:
    low, high = (guess - window, guess + window) if depth >= 4 else (-INF, INF)
    delta = window
    while True:
        workspace.ctx[HORIZON] = 0
        score = root(state, depth, low, high, arrays)
        if workspace.ctx[ABORTED]:
            return score
        delta *= 4
        if score <= low:
            low = score - delta if delta <= 64 * window else -INF
        elif score >= high:
            high = score + delta if delta <= 64 * window else INF
        else:
            return score



def _jit_root(kernels: Kernels) -> Root:
    """numba's alpha-beta iteration over `kernels` (numba imported here, not before)."""
    from aviary.search.alphabeta import negamax

    search, bound = direct(negamax), kernels.alphabeta

    def root(state: np.ndarray, depth: int, alpha: int, beta: int,
             arrays: tuple[np.ndarray, ...]) -> int:
        return int(search(state, depth, 0, alpha, beta, arrays, *bound))

    return root
