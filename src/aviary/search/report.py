"""What the searches take and hand back, shared by the alpha-beta, expectimax, textbook and
perft drivers and every player above them: a game's kernels by name, and `Report`, a
completed depth."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, NamedTuple, TypeVar

Move = TypeVar("Move")


class Kernels(NamedTuple):
    """A game's compiled kernels as the engine's search takes them (`cfunc`s with the
    signatures of `aviary.search.alphabeta`; `aviary.search.kernels.search_kernels` makes
    them). With `chance` (expectimax's eighth kernel) the game has chance nodes and
    `deepening.iterate` runs expectiminimax; without, alpha-beta."""

    generate: Any
    make: Any
    unmake: Any
    evaluate: Any
    key: Any
    order: Any
    terminal: Any
    chance: Any = None

    @property
    def alphabeta(self) -> tuple[Any, ...]:
        """The seven, in the order `alphabeta.negamax` takes them."""
        return (self.generate, self.make, self.unmake, self.evaluate, self.key, self.order,
                self.terminal)

    @property
    def expectimax(self) -> tuple[Any, ...]:
        """The eight, in the order `expectimax.search` takes them (ValueError without chance)."""
        if self.chance is None:
            raise ValueError("expectimax needs the chance kernel (Kernels.chance)")
        return (*self.alphabeta, self.chance)


class TextbookKernels(NamedTuple):
    """The textbook opponent's kernels (`aviary.search.textbook`): the game's rules, its
    plain evaluation, and `chance` (`textbook.no_chance` for a game without chance);
    `aviary.search.kernels.textbook_kernels` makes them."""

    generate: Any
    make: Any
    unmake: Any
    evaluate: Any
    terminal: Any
    chance: Any

    @property
    def textbook(self) -> tuple[Any, ...]:
        """The six, in the order `textbook.negamax` takes them."""
        return (self.generate, self.make, self.unmake, self.evaluate, self.terminal,
                self.chance)


MATE = 1_000_000  # a won position's score; a win in p plies scores MATE - p


@dataclass(frozen=True)
class Report(Generic[Move]):
    """One completed depth of any search: the move it recommends and how it got there.

    The one report type: the compiled searches yield `Report[int]` (moves are the
    game's kernel codes, no answer line yet), `aviary.games.engine.Engine` turns them
    into the game's moves, and every player's `think`, the rules-only fallback search,
    the course command and the web page speak it."""

    depth: int
    score: int
    move: Move
    answer: str  # the course's answer line for `move` ("" from the compiled search)
    pv: tuple[Move, ...]
    nodes: int
    nps: float
    seconds: float
    seldepth: int = 0
    # what a search that counts neither depth nor nodes says of itself instead (OpenSpiel's
    # MCTS: its simulations and the move's value); `describe` shows it
    summary: str = ""

    @property
    def mate_in(self) -> int | None:
        """Plies to a forced result (positive: the mover wins), or None if not proven."""
        if abs(self.score) < MATE // 2:
            return None
        plies = MATE - abs(self.score)
        return plies if self.score > 0 else -plies

    def describe(self) -> str:
        """`depth 7  score +35  nodes 120k` style one-liner for logs and terminals (the
        `summary` instead, where the search gave one)."""
        if self.summary:
            return f"{self.summary}  {self.seconds:.2f} s"
        mate = self.mate_in
        score = (f"win in {mate}" if mate is not None and mate > 0 else
                 f"loss in {-mate}" if mate is not None else f"{self.score:+d}")
        return (f"depth {self.depth:>2}  score {score:>9}  nodes {self.nodes:>9,}  "
                f"{self.nps / 1000:,.0f} kn/s  {self.seconds:.2f} s")
