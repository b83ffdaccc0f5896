"""Which pairings a ladder calibration's next games go to.

A level's Elo is read off the pairings that link it to the anchor, so its interval is the
sum of theirs; the widest is the top level's, mostly, and it narrows fastest by games
where they say most about it for the time they take. A pair of games between two levels
tells their difference with a variance that follows from how they have scored (a pair
that always ends the same says little, and a pairing two steps apart crosses two steps
at once); the stored games tell it, and how long each pairing's games take.

`design` spends the games still to come in even slices of time, each on the pairing that
most narrows the widest interval (the normal approximation of the Elo fit: the inverse of
the games' information), until every level is within the target. The shares it chose are
the weights of the calibration's next phase (`schedule.Config.phases`). On the ladders
calibrated before (a uniform round robin over neighbours and next neighbours), it needs
about half the time the round robin would for the same interval.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from aviary.arena.ladder import pairs_of
from aviary.arena.store import StoredGame

ELO_SLOPE = math.log(10) / 400  # d(score)/d(Elo) = ELO_SLOPE * p * (1 - p)
Z95 = 1.96
FEWEST_PAIRS = 20  # a pairing's pairs before its scores are judged
CYCLE = 100  # pairs in a phase's cycle of weights
SLICES = 200  # the time of the games stored, in this many slices: the design's step
MOST_SLICES = 100 * SLICES  # a target a hundred times further than the games stored is
# not planned for all at once


@dataclass(frozen=True)
class Design:
    """A phase's weights (pairs per pairing in a cycle, in the schedule's order of
    pairings), and about how many more games reach the target with them."""

    weights: tuple[int, ...]
    games: int
    widest: float  # the widest interval now (normal approximation, +-Elo)
    seconds: float  # what those games take, at each pairing's mean wall time so far (or,
    # where the games were not timed, in pairs: every pairing's pair counted as 1)


def pair_statistics(names: Sequence[str], pairings: Sequence[tuple[str, str]],
                    stored: Sequence[StoredGame]) -> list[tuple[list[float], list[float]]]:
    """For each pairing: its complete pairs' scores (the first-named level's, 0 to 1; the
    pairs as the fit takes them, `ladder.pairs_of`), and its games' wall seconds (those
    that were timed: games carried from a ladder file were not)."""
    index = {pairing: i for i, pairing in enumerate(pairings)}
    order = {name: i for i, name in enumerate(names)}

    def pairing_of(first: str, second: str) -> tuple[int | None, str]:
        low, high = sorted((first, second), key=order.__getitem__)
        return index.get((low, high)), low

    scores: list[list[float]] = [[] for _ in pairings]
    walls: list[list[float]] = [[] for _ in pairings]
    for pair in pairs_of(stored):
        i, low = pairing_of(pair[0][0], pair[0][1])
        if i is not None and len(pair) == 2:
            scores[i].append(sum(score if first == low else 1 - score
                                 for first, _, score in pair) / 2)
    for game in stored:
        i, _ = pairing_of(game.first, game.second)
        if i is not None and game.wall > 0:
            walls[i].append(game.wall)
    return list(zip(scores, walls, strict=True))


@dataclass(frozen=True)
class PairingModel:
    """What the stored games say of each pairing, for the normal approximation of the fit:
    its two levels (indices into the names), what one pair tells of their difference, what
    a pair costs (wall seconds, or 1 a pair where the games were not timed), and the
    complete pairs it has."""

    ends: list[tuple[int, int]]
    information: np.ndarray
    cost: np.ndarray
    held: np.ndarray

    def covariance(self, size: int, more: np.ndarray | float = 0.0) -> np.ndarray | None:
        """The Elos' covariance with `more` pairs of each pairing on top of those held."""
        return elo_covariance(size, self.ends, (self.held + more) * self.information)


def pairing_model(names: Sequence[str], pairings: Sequence[tuple[str, str]],
                  stored: Sequence[StoredGame]) -> PairingModel | None:
    """The pairings' model, or None while a pairing has fewer than `FEWEST_PAIRS` pairs."""
    statistics = pair_statistics(names, pairings, stored)
    if min(len(scores) for scores, _ in statistics) < FEWEST_PAIRS:
        return None
    order = {name: i for i, name in enumerate(names)}
    timed = all(len(walls) >= FEWEST_PAIRS for _, walls in statistics)
    return PairingModel(
        [(order[a], order[b]) for a, b in pairings],
        np.array([information(scores) for scores, _ in statistics]),
        np.array([2 * float(np.mean(walls)) if timed else 1.0 for _, walls in statistics]),
        np.array([len(scores) for scores, _ in statistics], dtype=float))


def information(scores: Sequence[float]) -> float:
    """What one pair of a pairing with these pair scores tells of the two levels'
    difference: (d score / d Elo)^2 over the variance of a pair's score."""
    count = len(scores)
    mean = min(max(float(np.mean(scores)), 0.5 / count), 1 - 0.5 / count)
    variance = max(float(np.var(scores)), 0.25 / count)  # never more sure than one
    # pair in `count` the other way would leave it
    slope = ELO_SLOPE * mean * (1 - mean)
    return slope * slope / variance


def elo_covariance(size: int, ends: Sequence[tuple[int, int]], information: np.ndarray
                   ) -> np.ndarray | None:
    """The covariance of `size` levels' Elos (level 0 the anchor, at 0 exactly) that games
    of `information` in all between the levels of each pairing `ends` give: the inverse of
    their Fisher information. None where a level is linked to no other."""
    fisher = np.zeros((size, size))
    for (i, j), weight in zip(ends, information, strict=True):
        fisher[[i, j], [i, j]] += weight
        fisher[i, j] -= weight
        fisher[j, i] -= weight
    covariance = np.zeros((size, size))
    try:
        covariance[1:, 1:] = np.linalg.inv(fisher[1:, 1:])
    except np.linalg.LinAlgError:
        return None
    return covariance


def design(names: Sequence[str], pairings: Sequence[tuple[str, str]],
           stored: Sequence[StoredGame], target: float) -> Design | None:
    """The shares of pairs that bring every level within +-target of the anchor
    (`names[0]`) soonest, or None while a pairing has fewer than `FEWEST_PAIRS` pairs."""
    model = pairing_model(names, pairings, stored)
    if model is None:
        return None
    covariance = model.covariance(len(names))
    if covariance is None:  # pairings that leave a level unlinked: nothing to weigh
        return None
    ends, per_pair, cost, held = model.ends, model.information, model.cost, model.held
    widest = Z95 * math.sqrt(covariance.diagonal().max())
    pairs = (float(held @ cost) / SLICES) / cost  # pairs of each pairing a slice buys
    gain = pairs * per_pair
    low = [i for i, _ in ends]
    high = [j for _, j in ends]
    bought = np.zeros(len(pairings))
    limit = (target / Z95) ** 2
    for _ in range(MOST_SLICES):
        if covariance.diagonal().max() <= limit:
            break
        shift = covariance[:, low] - covariance[:, high]  # C (e_i - e_j), one column each
        spread = shift[low, range(len(ends))] - shift[high, range(len(ends))]
        after = covariance.diagonal()[:, None] - gain * shift ** 2 / (1 + gain * spread)
        best = int(after.max(axis=0).argmin())
        column = shift[:, best]
        covariance -= gain[best] * np.outer(column, column) / (1 + gain[best] * spread[best])
        bought[best] += pairs[best]
    if not bought.any():
        return Design((1,) * len(pairings), 0, widest, 0.0)
    weights = tuple(int(round(CYCLE * share)) for share in bought / bought.sum())
    if max(weights) == 0:  # pragma: no cover - shares sum to 1, so one is >= 1 / len
        weights = tuple(int(count == bought.max()) for count in bought)
    return Design(weights, 2 * math.ceil(bought.sum()), widest, float(bought @ cost))
