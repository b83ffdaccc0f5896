"""One iterative deepening's bookkeeping, shared by the search drivers (`deepening`,
`expectimax`, `textbook`): its start, its limits, the flags that stop it, its reports."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from aviary.search.clock import Limit, StopTimer
from aviary.search.report import Report

UNBOUNDED = 2**62  # a node limit that is never reached


@dataclass(frozen=True)
class Deepening:
    """One iterative deepening's bookkeeping, the same for every search driver.

    `timeout` is a deadline flag of the search's own (a timer of an abandoned earlier
    search cannot stop this one); `cancel` is the caller's flag, only ever read. Both
    stop depth 1 too: its quiescence can run to hundreds of thousands of nodes (two rows
    of pieces facing each other: 0.7 s), and a move past its deadline loses the game;
    the player answers without a search then (`aviary.games.engine.Engine.think`). The
    node limit starts after depth 1, so a node budget always gets a searched move.
    """

    limit: Limit
    started: float
    node_limit: int
    max_depth: int
    timeout: np.ndarray
    cancel: np.ndarray

    @classmethod
    def begin(cls, limit: Limit, stop: np.ndarray | None, max_ply: int) -> Deepening:
        return cls(
            limit, time.monotonic(),
            limit.nodes if limit.nodes is not None else UNBOUNDED,
            min(limit.depth or max_ply - 1, max_ply - 1),
            np.zeros(1, dtype=np.int64),
            stop if stop is not None else np.zeros(1, dtype=np.int64),
        )

    def depths(self) -> range:
        return range(1, self.max_depth + 1)

    def timer(self) -> StopTimer:
        """The timer that sets `timeout` when the limit's time runs out."""
        return StopTimer(self.timeout, self.limit.seconds())

    def interrupted(self) -> bool:
        """The caller's flag or the deadline is set (a small search polls rarely)."""
        return bool(self.cancel[0] or self.timeout[0])

    def report(self, depth: int, score: int, pv: np.ndarray, pv_length: np.ndarray,
               nodes: int, seldepth: int) -> Report[int] | None:
        """The completed depth's report; None when its principal variation is empty
        (no legal move, or the game is over)."""
        length = int(pv_length[0])
        if length == 0:
            return None
        line = tuple(int(move) for move in pv[0, :length])
        seconds = time.monotonic() - self.started
        return Report(depth, score, line[0], "", line, nodes,
                      nodes / seconds if seconds > 0 else 0.0, seconds, seldepth)
