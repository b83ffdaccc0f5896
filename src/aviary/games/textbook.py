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

import numpy as np

from aviary.games.base import Game, Move, State
from aviary.games.engine import Engine, Searcher, WorkspaceCache
from aviary.search import textbook
from aviary.search.clock import DEEPEN_TO_DEADLINE, Limit
from aviary.search.report import Report, TextbookKernels


class Textbook(Engine[State, Move]):
    """The textbook opponent of one game: `searcher` for its states, `kernels` to search."""

    depth_share = DEEPEN_TO_DEADLINE  # the yardstick deepens until the clock runs out

    def __init__(
        self,
        game: Game[State, Move],
        searcher: Searcher[State, Move],
        kernels: TextbookKernels,
        quick: Callable[[State], Move] | None = None,
    ) -> None:
        super().__init__(game, searcher, quick)
        self.textbook_kernels = kernels
        self._textbook_workspaces = WorkspaceCache(textbook.Workspace)

    def new_game(self) -> None:
        super().new_game()
        self._textbook_workspaces.clear()

    def decided(self, score: int) -> bool:
        return False  # the search itself stops once the tree is exhausted or a result proven

    def textbook_workspace(self, state: State) -> textbook.Workspace:
        """This thread's textbook search arrays for `state`'s board shape."""
        return self._textbook_workspaces.get(*self.searcher.shape(state))

    def _iterate(self, state: State, array: np.ndarray, limit: Limit, stop: np.ndarray | None,
                 history: Sequence[State]) -> Iterator[Report[int]]:
        """The textbook search's reports: `history` is ignored (it knows no repetitions),
        as are tables (it has none; beyond the kernels the quick player answers)."""
        return textbook.iterate(array, self.textbook_kernels, self.textbook_workspace(state),
                                limit, stop=stop)
