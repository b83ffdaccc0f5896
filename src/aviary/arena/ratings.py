"""Ratings with honest error bars: Elo from scores, trinomial and pentanomial, LOS, SPRT, BT.

Conventions follow cutechess/fastchess so figures can be compared:
- Elo difference from an expected score s: -400 log10(1/s - 1).
- Trinomial: each game is one sample (1, 1/2, 0); the 95% interval of the
  mean score is mapped through the Elo curve and the error bar is half its
  width in Elo.
- Pentanomial: each colour-swapped pair is one sample (0, 1/4, 1/2, 3/4, 1 as
  a per-game score), which removes the opening's and colour's share of the
  variance that the trinomial model wrongly counts as luck.
- LOS (likelihood of superiority): the normal approximation
  1/2 (1 + erf((W - L) / sqrt(2 (W + L)))).
- SPRT: the generalised SPRT with the normal approximation to the log-
  likelihood ratio, LLR = N (s1 - s0)(2 s - s0 - s1) / (2 var), over games
  (trinomial) or pairs (pentanomial), with H0: elo = elo0, H1: elo = elo1.
- Many players: Bradley-Terry (logistic, draws as half a win) maximum
  likelihood over all games at once, with a weak Gaussian prior so a player
  who lost every game still gets a finite rating; error bars from the
  inverse Hessian, ratings centred on mean 0.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

Z95 = NormalDist().inv_cdf(0.975)  # 1.959963984540054
_K = math.log(10) / 400  # Elo points -> logistic natural units


def elo_from_score(score: float) -> float:
    """Elo difference that expects `score` (0..1); +-inf at the ends."""
    if score <= 0:
        return -math.inf
    if score >= 1:
        return math.inf
    return -400 * math.log10(1 / score - 1)


def score_from_elo(elo: float) -> float:
    return 1 / (1 + 10 ** (-elo / 400))


@dataclass(frozen=True)
class Estimate:
    """An Elo estimate and its 95% interval: elo +- margin (margin is half the interval)."""

    elo: float
    margin: float
    score: float
    samples: int

    def __str__(self) -> str:
        if math.isinf(self.elo) or math.isnan(self.margin):
            return f"{self.elo:+.0f}"
        return f"{self.elo + 0.0:+.1f} ± {self.margin:.1f}"


def _estimate(values: Sequence[float], counts: Sequence[int]) -> Estimate:
    """Elo and margin from the distribution of a per-sample score."""
    n = sum(counts)
    if n == 0:
        return Estimate(0.0, math.inf, 0.5, 0)
    probabilities = [count / n for count in counts]
    mean = sum(p * v for p, v in zip(probabilities, values, strict=True))
    variance = sum(p * (v - mean) ** 2 for p, v in zip(probabilities, values, strict=True))
    stdev = math.sqrt(variance / n)
    low, high = mean - Z95 * stdev, mean + Z95 * stdev
    margin = (elo_from_score(high) - elo_from_score(low)) / 2
    if math.isinf(elo_from_score(mean)):
        margin = math.nan
    return Estimate(elo_from_score(mean), margin, mean, n)


def trinomial(wins: int, draws: int, losses: int) -> Estimate:
    """Elo +- 95% from game counts."""
    return _estimate((1.0, 0.5, 0.0), (wins, draws, losses))


PAIR_SCORES = (0.0, 0.5, 1.0, 1.5, 2.0)


def pentanomial(pair_counts: Sequence[int]) -> Estimate:
    """Elo +- 95% from counts of pairs scoring 0, 1/2, 1, 3/2, 2 points out of 2."""
    if len(pair_counts) != 5:
        raise ValueError("pentanomial needs five counts: pairs scoring 0, 1/2, 1, 3/2, 2")
    return _estimate([score / 2 for score in PAIR_SCORES], pair_counts)


def likelihood_of_superiority(wins: int, losses: int) -> float:
    """Probability that the player is truly stronger, from decisive games only."""
    if wins + losses == 0:
        return 0.5
    return 0.5 * (1 + math.erf((wins - losses) / math.sqrt(2 * (wins + losses))))


@dataclass(frozen=True)
class SprtResult:
    llr: float
    lower: float
    upper: float

    @property
    def decision(self) -> str | None:
        """'H1' (elo1 accepted), 'H0' (elo0 accepted) or None (keep playing)."""
        if self.llr >= self.upper:
            return "H1"
        if self.llr <= self.lower:
            return "H0"
        return None


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    return math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha)


def sprt(values: Sequence[float], counts: Sequence[int], elo0: float, elo1: float,
         alpha: float = 0.05, beta: float = 0.05) -> SprtResult:
    """GSPRT log-likelihood ratio for per-sample scores `values` seen `counts` times."""
    lower, upper = sprt_bounds(alpha, beta)
    n = sum(counts)
    if n == 0:
        return SprtResult(0.0, lower, upper)
    mean = sum(v * c for v, c in zip(values, counts, strict=True)) / n
    variance = sum(c * (v - mean) ** 2 for v, c in zip(values, counts, strict=True)) / n
    if variance <= 0:
        variance = 1e-6  # every sample identical: the ratio is decided by the mean alone
    s0, s1 = score_from_elo(elo0), score_from_elo(elo1)
    llr = n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * variance)
    return SprtResult(llr, lower, upper)


def sprt_trinomial(wins: int, draws: int, losses: int, elo0: float, elo1: float,
                   alpha: float = 0.05, beta: float = 0.05) -> SprtResult:
    return sprt((1.0, 0.5, 0.0), (wins, draws, losses), elo0, elo1, alpha, beta)


def sprt_pentanomial(pair_counts: Sequence[int], elo0: float, elo1: float,
                     alpha: float = 0.05, beta: float = 0.05) -> SprtResult:
    return sprt([s / 2 for s in PAIR_SCORES], pair_counts, elo0, elo1, alpha, beta)


@dataclass(frozen=True)
class Rating:
    elo: float
    margin: float


def bradley_terry(names: Sequence[str], games: Sequence[tuple[str, str, float]],
                  prior_sd: float = 1000.0) -> dict[str, Rating]:
    """Ratings for all players at once from (a, b, a's score) games; mean rating 0."""
    index = {name: i for i, name in enumerate(names)}
    size = len(names)
    if size == 0:
        return {}
    a = np.array([index[g[0]] for g in games], dtype=np.intp)
    b = np.array([index[g[1]] for g in games], dtype=np.intp)
    s = np.array([g[2] for g in games], dtype=float)
    ratings = np.zeros(size)
    precision = 1 / prior_sd**2
    hessian = -precision * np.eye(size)
    for _ in range(200):
        p = 1 / (1 + np.exp(-_K * (ratings[a] - ratings[b])))
        g = _K * (s - p)
        gradient = -precision * ratings + np.bincount(a, g, size) - np.bincount(b, g, size)
        w = _K**2 * p * (1 - p)
        hessian = -precision * np.eye(size)
        np.add.at(hessian, (a, a), -w)
        np.add.at(hessian, (b, b), -w)
        np.add.at(hessian, (a, b), w)
        np.add.at(hessian, (b, a), w)
        step = np.linalg.solve(hessian, gradient)
        ratings -= step
        if np.max(np.abs(step)) < 1e-7:
            break
    centre = np.eye(size) - 1 / size
    covariance = centre @ np.linalg.inv(-hessian) @ centre.T
    ratings -= ratings.mean()
    margins = Z95 * np.sqrt(np.clip(np.diag(covariance), 0, None))
    return {name: Rating(float(ratings[i]), float(margins[i])) for name, i in index.items()}
