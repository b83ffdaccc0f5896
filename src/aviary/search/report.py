"""What the searches take and hand back, shared by the alpha-beta, expectimax, textbook and
perft drivers: a game's kernels by name, and a completed depth in kernel terms."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple


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
