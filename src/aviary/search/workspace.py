"""The alpha-beta search's numbers and its `Workspace`, without numba.

Everything here is plain Python and numpy, so a driver that runs the search compiled
ahead of time (`aviary.search.compiled`) never imports numba; the compiled search
(`aviary.search.alphabeta`, which re-exports all of it) reads the same constants.
See `aviary.search.alphabeta` for what they mean.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from aviary.search.report import MATE

INF = 2 * MATE
NOT_OVER = -(2**62)  # what `terminal` returns while the game goes on
MAX_PLY = 96
HISTORY_SIZE = 1 << 20
CAPTURE_BONUS = 1_000_000
SEEN_SIZE = 1 << 14  # repetition filter: counts of path and history keys by low bits
SOLVED = 1023  # depth stored for a result with no horizon below it (valid at any depth)
PASS = -2  # the null move given to `make`/`unmake` (moves are >= 0, -1 is "no move")
NULL_MIN_DEPTH = 2  # the shallowest node a null move is tried at

# ctx slots
NODES, NODE_LIMIT, ABORTED, SELDEPTH, QUIESCE, LMR, TT_HITS, ROOT, HORIZON = range(9)
NULL, NULL_FLOOR, NULL_TRIES, NULL_CUTS = range(16, 20)  # null move: switch, path index
# of the position after the last pass (repetitions are looked for from there), counters
HISTORY_TOP = 20  # one past the highest history entry the search raised (see new_search)
CTX_SIZE = 21  # slots 9 to 15 belong to aviary.search.expectimax

# tt columns: key, move, score, depth * 4 + bound
EXACT, LOWER, UPPER = 1, 2, 3


class Workspace:
    """Every array one search needs, allocated once per engine and reused across moves.

    `max_moves` bounds both the moves of a position and the outcomes of a chance node.
    """

    def __init__(self, max_moves: int, tt_bits: int = 20) -> None:
        self.moves = np.zeros((MAX_PLY + 1, max_moves), dtype=np.int64)
        self.scores = np.zeros((MAX_PLY + 1, max_moves), dtype=np.int64)
        self.killers = np.zeros((MAX_PLY + 1, 2), dtype=np.int64)
        self.history = np.zeros(HISTORY_SIZE, dtype=np.int64)
        self.pv = np.zeros((MAX_PLY + 1, MAX_PLY + 1), dtype=np.int64)
        self.pv_length = np.zeros(MAX_PLY + 1, dtype=np.int64)
        self.tt = np.zeros((1 << tt_bits, 4), dtype=np.int64)
        self.ctx = np.zeros(CTX_SIZE, dtype=np.int64)
        self.path = np.zeros(MAX_PLY + 1, dtype=np.int64)  # game history, then the path
        self.seen = np.zeros(SEEN_SIZE, dtype=np.int64)
        self.probes = np.zeros((MAX_PLY + 1, max_moves), dtype=np.int64)  # expectimax only
        self._history_top = 0  # history entries from here on are 0
        self._history_keys = np.zeros(0, dtype=np.int64)

    def new_search(
        self, node_limit: int, quiesce: bool = True, lmr: bool = True, null_move: bool = False
    ) -> None:
        """Age the history, clear killers and counters, keep the transposition table.

        `null_move` only for a game whose make/unmake handle PASS (see the module)."""
        # age: // 8, over the entries a search ever raised (the rest are 0): a game's moves
        # use a few thousand of the table's million, and shifting it whole took 0.5 ms
        self._history_top = max(self._history_top, int(self.ctx[HISTORY_TOP]))
        raised = self.history[: self._history_top]
        np.right_shift(raised, 3, out=raised)
        self.killers[:] = 0
        self.ctx[:] = 0
        self.ctx[NODE_LIMIT] = node_limit
        self.ctx[QUIESCE] = int(quiesce)
        self.ctx[LMR] = int(lmr)
        self.ctx[NULL] = int(null_move)
        self.ctx[ROOT] = len(self._history_keys)

    def set_game_history(self, keys: Iterable[int]) -> None:
        """The keys of the game's positions before the root, oldest first (for repetitions)."""
        self._history_keys = np.array(list(keys), dtype=np.int64).reshape(-1)
        size = len(self._history_keys) + MAX_PLY + 1
        if self.path.shape[0] < size:
            self.path = np.zeros(size, dtype=np.int64)
        self.path[: len(self._history_keys)] = self._history_keys
        self.ctx[ROOT] = len(self._history_keys)
        self.reset_seen()

    def reset_seen(self) -> None:
        """Refill the repetition filter from the history alone (an aborted search leaves
        path entries counted)."""
        self.seen[:] = 0
        np.add.at(self.seen, self._history_keys & (SEEN_SIZE - 1), 1)

    def arrays(self, stop: np.ndarray, timeout: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
        """The `ws` tuple the compiled search takes; the search stops once `stop[0]` or
        `timeout[0]` is set (a caller's cancel flag and the search's own deadline)."""
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
            stop if timeout is None else timeout,
            self.path,
            self.seen,
        )
