"""Iterative deepening around the compiled core: one report per completed depth.

Each depth is one compiled call; the deadline stops it through the stop flag, and an
interrupted depth is thrown away, so what the caller last received stays the answer.
Aspiration windows start narrow around the previous score and widen on failure.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from aviary.search import alphabeta
from aviary.search.alphabeta import INF, MATE, Workspace
from aviary.search.clock import Limit, StopTimer

Kernels = tuple[Callable[..., object], ...]


@dataclass(frozen=True)
class RawReport:
    """A completed depth in kernel terms: moves are the game's int64 encodings."""

    depth: int
    score: int
    pv: tuple[int, ...]
    nodes: int
    seconds: float
    seldepth: int

    @property
    def nps(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else 0.0


def iterate(
    state: np.ndarray,
    kernels: Kernels,
    workspace: Workspace,
    limit: Limit,
    *,
    aspiration: int = 40,
    quiesce: bool = True,
    lmr: bool = True,
    stop: np.ndarray | None = None,
) -> Iterator[RawReport]:
    """Yield a `RawReport` after each completed depth until `limit` or a proven result.

    Depth 1 always completes (it ignores the clock and node limit), so a caller
    with a legal move to make always gets one. `state` is searched in place and
    restored after each depth. Setting `stop[0]` (the caller's one-element int64 array)
    stops the search as the deadline does.
    """
    started = time.monotonic()
    node_limit = limit.nodes if limit.nodes is not None else 2**62
    max_depth = min(limit.depth or alphabeta.MAX_PLY - 1, alphabeta.MAX_PLY - 1)
    workspace.new_search(2**62, quiesce, lmr)
    # the caller's stop flag (a server cancels a search with it), else one of this search's
    # own: a timer of an abandoned earlier search cannot stop it
    if stop is None:
        stop = np.zeros(1, dtype=np.int64)
    arrays = workspace.arrays(stop)
    never = np.zeros(1, dtype=np.int64)
    with StopTimer(stop, limit.time):
        score = 0
        for depth in range(1, max_depth + 1):
            if depth == 1:
                first = workspace.arrays(never)
                score = int(alphabeta.negamax(state, 1, 0, -INF, INF, first, *kernels))
                workspace.ctx[alphabeta.NODE_LIMIT] = node_limit
            else:
                score = _aspirated(state, depth, score, aspiration, arrays, kernels, workspace)
            if workspace.ctx[alphabeta.ABORTED]:
                return
            length = int(workspace.pv_length[0])
            pv = tuple(int(move) for move in workspace.pv[0, :length])
            if not pv:  # no legal move: nothing to report
                return
            seconds = time.monotonic() - started
            yield RawReport(
                depth, score, pv, int(workspace.ctx[alphabeta.NODES]), seconds,
                int(workspace.ctx[alphabeta.SELDEPTH]),
            )
            if abs(score) > MATE // 2 and depth >= MATE - abs(score) + 2:
                return  # a proven win or loss does not change with depth


def _aspirated(
    state: np.ndarray,
    depth: int,
    guess: int,
    window: int,
    arrays: tuple[np.ndarray, ...],
    kernels: Kernels,
    workspace: Workspace,
) -> int:
    low, high = (guess - window, guess + window) if depth >= 4 else (-INF, INF)
    delta = window
    while True:
        score = int(alphabeta.negamax(state, depth, 0, low, high, arrays, *kernels))
        if workspace.ctx[alphabeta.ABORTED]:
            return score
        delta *= 4
        if score <= low:
            low = score - delta if delta <= 64 * window else -INF
        elif score >= high:
            high = score + delta if delta <= 64 * window else INF
        else:
            return score
