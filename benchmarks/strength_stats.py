"""Elo with a 95% interval from per-game results, shared by the strength benchmarks.

The Elo of a score is the arena's (`aviary.arena.ratings.elo_from_score`); the
interval here is per game, for a match of one engine against one opponent.
"""

from __future__ import annotations

import math

from aviary.arena.ratings import elo_from_score as elo


def elo_interval(results: list[float]) -> tuple[float, float, float]:
    """Elo of the mean score with a 95% interval from the per-game (trinomial) variance."""
    games = len(results)
    mean = sum(results) / games
    if mean in (0.0, 1.0):  # no variance to estimate: exact (Clopper-Pearson) bound instead
        bound = 0.025 ** (1 / games)
        return (elo(1.0), elo(bound), elo(1.0)) if mean else (elo(0.0), elo(0.0), elo(1 - bound))
    variance = sum((r - mean) ** 2 for r in results) / max(games - 1, 1)
    margin = 1.96 * math.sqrt(variance / games)
    return elo(mean), elo(mean - margin), elo(mean + margin)
