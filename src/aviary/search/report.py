"""What a search iteration hands back, shared by the alpha-beta and expectimax drivers."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

Kernels = tuple[Callable[..., object], ...]
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
