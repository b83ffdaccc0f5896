"""Every game's textbook opponent (`aviary:textbook`): the yardstick engines are measured by.

The search is `aviary.search.textbook` (plain alpha-beta, expectiminimax with
chance, iterative deepening to the clock); a game gives it its kernels with its
plain evaluation (a game's `engine.py` has `TEXTBOOK_KERNELS` and
`make_textbook`) and the `Searcher` its engine uses to turn states into kernel
arrays and kernel moves back into moves. It is an `Engine` in every other way
(reports, `best_move` with `time=`, `depth=`, `nodes=`), except that it knows no
tables, no history and no early stop: with a time limit it uses the engine's
budget (`aviary.search.clock.budget`) and deepens until that runs out.
"""

from __future__ import annotations

import time as clock
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from aviary.games.base import Game, Move, State, TableUse
from aviary.games.engine import Engine, Report, Searcher
from aviary.search import textbook
from aviary.search.clock import Limit


class Textbook(Engine[State, Move]):
    """The textbook opponent of one game: `searcher` for its states, `kernels` to search."""

    next_depth_share = 1.0  # deepen until the clock runs out

    def __init__(
        self,
        game: Game[State, Move],
        searcher: Searcher[State, Move],
        kernels: tuple[Any, ...],
        quick: Callable[[State], Move] | None = None,
    ) -> None:
        super().__init__(game, searcher, quick)
        self.textbook_kernels = kernels

    def decided(self, score: int) -> bool:
        return False  # the search itself stops once the tree is exhausted or a result proven

    def textbook_workspace(self, state: State) -> textbook.Workspace:
        """This thread's textbook search arrays for `state`'s board shape."""
        key, max_moves = self.searcher.shape(state)
        cache: dict[Hashable, textbook.Workspace] = self._workspaces.__dict__.setdefault(
            "textbook", {})
        if key not in cache:
            cache[key] = textbook.Workspace(max_moves)
        return cache[key]

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
        entered = clock.monotonic()
        game = self.game
        if game.outcome(state) is not None or not game.legal_moves(state):
            return
        array = self.searcher.state_array(state)
        if array is None:  # beyond the kernels (too large a board): the quick player
            if self.quick is not None:
                move = self.quick(state)
                yield Report(1, 0, move, game.answer(state, move), (move,), 0, 0.0, 0.0)
            return
        if limit.time is not None:  # the time limit counts from the call: set-up included
            limit = replace(limit, time=max(limit.time - (clock.monotonic() - entered), 0.001))
        workspace = self.textbook_workspace(state)
        for raw in textbook.iterate(array, self.textbook_kernels, workspace, limit, stop=stop):
            yield self._report(state, raw)
