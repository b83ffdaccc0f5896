"""Every game's textbook opponent (`aviary:textbook`): the yardstick engines are measured by.

The search is `aviary.search.textbook` (plain alpha-beta, expectiminimax with
chance, iterative deepening to the clock); a game gives it its kernels with its
plain evaluation (a game's `engine.py` has `TEXTBOOK_KERNELS` and
`make_textbook`) and the `Searcher` its engine uses to turn states into kernel
arrays and kernel moves back into moves. It is an `Engine` in every other way
(reports, `best_move` by a deadline, `depth=`, `nodes=`), except that it knows no
tables, no history and no early stop: under a deadline it searches until the
engine's stop (`Deadline.search_until`), starting depths until then
(`aviary.search.clock.DEEPEN_TO_DEADLINE`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from aviary.games.base import Game, Move, State, TableUse
from aviary.games.engine import Engine, Report, Searcher, WorkspaceCache
from aviary.search import textbook
from aviary.search.clock import DEEPEN_TO_DEADLINE, Limit


class Textbook(Engine[State, Move]):
    """The textbook opponent of one game: `searcher` for its states, `kernels` to search."""

    depth_share = DEEPEN_TO_DEADLINE  # the yardstick deepens until the clock runs out

    def __init__(
        self,
        game: Game[State, Move],
        searcher: Searcher[State, Move],
        kernels: tuple[Any, ...],
        quick: Callable[[State], Move] | None = None,
    ) -> None:
        super().__init__(game, searcher, quick)
        self.textbook_kernels = kernels
        self._textbook_workspaces = WorkspaceCache(textbook.Workspace)

    def decided(self, score: int) -> bool:
        return False  # the search itself stops once the tree is exhausted or a result proven

    def textbook_workspace(self, state: State) -> textbook.Workspace:
        """This thread's textbook search arrays for `state`'s board shape."""
        return self._textbook_workspaces.get(*self.searcher.shape(state))

    def think(
        self,
        state: State,
        limit: Limit,
        *,
        stop: np.ndarray | None = None,
        history: Sequence[State] = (),
        tables: TableUse | None = None,
    ) -> Iterator[Report[Move]]:
        """A `Report` after each completed depth until `limit`; nothing if the game is over.

        `history` and `tables` are accepted and ignored: the textbook player knows neither.
        """
        limit = limit.from_now()  # seconds count from the call, set-up included
        game = self.game
        if game.outcome(state) is not None or not game.legal_moves(state):
            return
        array = self.searcher.state_array(state)
        if array is None:  # beyond the kernels (too large a board): the quick player
            if self.quick is not None:
                move = self.quick(state)
                yield Report(1, 0, move, game.answer(state, move), (move,), 0, 0.0, 0.0)
            return
        workspace = self.textbook_workspace(state)
        for raw in textbook.iterate(array, self.textbook_kernels, workspace, limit, stop=stop):
            yield self._report(state, raw)
