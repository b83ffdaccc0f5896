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
- SPRT: fishtest's generalized SPRT over colour-swapped pairs (`sprt_pairs`),
  H0: elo = elo0, H1: elo = elo1. (A trinomial SPRT by the normal approximation
  is not offered: a run of identical games has no variance, and it decided on one.)
- At the edges (`elo_figure`): a perfect or zero score has no interval, only a
  one-sided bound; a run of identical samples tells nothing beyond the sides.
- Many players: Bradley-Terry (logistic, draws as half a win) maximum
  likelihood over all games at once, with a weak Gaussian prior so a player
  who lost every game still gets a finite rating; error bars from the
  inverse Hessian, ratings centred on mean 0.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
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
EMPTY_CELL = 1e-3  # fishtest's pseudo-count for a cell nobody has hit yet
SCORE_CLAMP = 1e-3  # fishtest reports Elo of scores clamped to [0.001, 0.999]: +-1200
NELO_PER_T = 800 / math.log(10)  # normalized Elo per unit of t-value (347.4)


def regularize(counts: Sequence[float]) -> list[float]:
    """Counts with every empty cell set to a tiny pseudo-count, as fishtest does.

    A run of identical pairs then keeps a small variance instead of none, so one pair
    can never decide an SPRT and an error bar never collapses to zero."""
    return [count if count > 0 else EMPTY_CELL for count in counts]


def _clamped_elo(score: float) -> float:
    return elo_from_score(min(max(score, SCORE_CLAMP), 1 - SCORE_CLAMP))


@dataclass(frozen=True)
class PairEstimate:
    """What fishtest reports for a match of colour-swapped pairs (pentanomial counts).

    `elo` +- `margin` is logistic Elo with its 95% interval, `los` the likelihood of
    superiority, `nelo` +- `nelo_margin` normalized Elo (the score's distance from
    1/2 in units of the per-game standard deviation, times 800 / ln 10), `pairs` the
    complete pairs counted. Empty cells are regularized first, so every figure is finite.
    """

    elo: float
    margin: float
    los: float
    nelo: float
    nelo_margin: float
    score: float
    pairs: int

    def __str__(self) -> str:
        return f"{self.elo + 0.0:+.1f} ± {self.margin:.1f}"


def _pdf(counts: Sequence[float]) -> tuple[float, list[tuple[float, float]]]:
    """(samples, [(per-game score of the cell, frequency)]) after regularization."""
    cells = regularize(counts)
    total = sum(cells)
    last = len(cells) - 1
    return total, [(i / last, cell / total) for i, cell in enumerate(cells)]


def _moments(pdf: Sequence[tuple[float, float]]) -> tuple[float, float]:
    mean = sum(p * a for a, p in pdf)
    return mean, sum(p * (a - mean) ** 2 for a, p in pdf)


def _normalized(pdf: Sequence[tuple[float, float]], samples: float) -> tuple[float, float]:
    """Normalized Elo and its 95% margin, as fishtest's raw statistics give them.

    t = (s - 1/2) / sd over one sample; its variance over N samples is (1 - t skewness +
    t^2 (excess kurtosis + 2) / 4) / N (the delta method), so the margin grows with t
    rather than being the same for every figure of N samples. A sample of g games (a
    pair: 2) has a t-value sqrt(g) times a game's; normalized Elo is 800 / ln 10 times
    a game's t."""
    mean, variance = _moments(pdf)
    sd = math.sqrt(variance)
    skewness = sum(p * (a - mean) ** 3 for a, p in pdf) / sd**3
    excess_kurtosis = sum(p * (a - mean) ** 4 for a, p in pdf) / variance**2 - 3
    t = (mean - 0.5) / sd
    variance_t = max(1 - t * skewness + t**2 * (excess_kurtosis + 2) / 4, 0.0)
    per_game = math.sqrt((len(pdf) - 1) / 2)  # 3 cells: games; 5 cells: pairs of 2
    return (NELO_PER_T * t / per_game,
            NELO_PER_T * Z95 * math.sqrt(variance_t / samples) / per_game)


def pair_estimate(pair_counts: Sequence[int]) -> PairEstimate:
    """Fishtest's Elo, 95% interval and LOS from pentanomial counts (pairs scoring 0..2).

    A pair's points over 2 is one sample; its variance is the pair's. With N pairs the
    per-game mean has standard error sqrt(var / N); the interval of the mean is mapped
    through the Elo curve (clamped at 0.1% / 99.9%) and the margin is half its width.
    Where the counts are at an edge (every pair won, or all alike) these numbers are
    artefacts of the clamp and the pseudo-counts: what a reader sees is `elo_figure`.
    """
    if len(pair_counts) != 5:
        raise ValueError("pentanomial needs five counts: pairs scoring 0, 1/2, 1, 3/2, 2")
    pairs = sum(pair_counts)
    if pairs == 0:
        return PairEstimate(0.0, math.inf, 0.5, 0.0, math.inf, 0.5, 0)
    samples, pdf = _pdf(pair_counts)
    mean, variance = _moments(pdf)
    error = math.sqrt(variance / samples)
    low, high = mean - Z95 * error, mean + Z95 * error
    margin = (_clamped_elo(high) - _clamped_elo(low)) / 2
    los = NormalDist().cdf((mean - 0.5) / error)
    nelo, nelo_margin = _normalized(pdf, samples)
    return PairEstimate(_clamped_elo(mean), margin, los, nelo, nelo_margin, mean, pairs)


ONE_SIDED = 0.05  # the one-sided bound of a perfect or zero score holds with 95%


@dataclass(frozen=True)
class EloFigure:
    """What a match's counts say about Elo, worded so that it holds at the edges.

    `kind` is
    - "interval": `elo` with its 95% interval `low`..`high` (None where the interval of
      the score passes 0 or 1: that end is unbounded), and normalized Elo;
    - "above" / "below": every sample won / lost: no estimate and no upper (lower) end,
      only a one-sided 95% `bound`;
    - "identical": every sample scored the same (`same` points, not 0 nor all): the
      samples do not tell the players apart; a zero variance gives no interval;
    - "empty": nothing counted yet.
    """

    kind: str
    samples: int
    unit: str  # "pairs" or "games"
    elo: float | None = None
    low: float | None = None
    high: float | None = None
    bound: float | None = None
    same: float | None = None
    nelo: float | None = None
    nelo_margin: float | None = None

    def __str__(self) -> str:
        """The short text a table cell holds."""
        if self.kind == "interval" and self.elo is not None:
            elo = f"{self.elo + 0.0:+.1f}"
            if self.low is not None and self.high is not None:
                return f"{elo} ± {(self.high - self.low) / 2:.1f}"
            if self.low is not None:
                return f"{elo}, above {self.low:+.0f} (95%)"
            if self.high is not None:
                return f"{elo}, below {self.high:+.0f} (95%)"
            return f"{elo} (95% interval unbounded)"
        if self.kind in ("above", "below") and self.bound is not None:
            return f"{self.kind} {self.bound:+.0f} Elo, 95%"
        if self.kind == "identical" and self.same is not None:
            if self.unit == "games":
                return f"no Elo: all {self.samples} games drawn"
            return f"no Elo: all {self.samples} pairs {_points(self.same)} of 2"
        return "-"

    def explained(self) -> str:
        """The text with its reason, for a report's or a figure's own lines."""
        if self.kind == "interval":
            text = f"Elo {self}" + ("" if self.low is None or self.high is None else " (95%)")
            text += f" over {self.samples} {self.unit}"
            if self.nelo is not None and self.nelo_margin is not None:
                text += f"; normalized Elo {self.nelo:+.1f} ± {self.nelo_margin:.1f}"
            return text
        if self.kind in ("above", "below") and self.bound is not None:
            won = "won" if self.kind == "above" else "lost"
            return (f"{self} (one-sided: all {self.samples} "
                    f"{self.unit} {won}, so no estimate; {self.samples} {won} in a row have "
                    "a 5% chance at the bound)")
        if self.kind == "identical":
            return (f"{self}: every one scored the same, which tells the players apart no "
                    "more than the sides do (no variance, so no interval)")
        return "no Elo: nothing counted yet"


def _points(points: float) -> str:
    whole, half = divmod(round(2 * points), 2)
    return f"{whole or ''}{'½' if half else ''}" or "0"


def elo_figure(counts: Sequence[int]) -> EloFigure:
    """Elo from counts of samples by score, lowest first: 3 counts are games scoring 0,
    ½ and 1 (trinomial), 5 counts pairs scoring 0, ½, 1, 1½ and 2 of 2 (pentanomial).
    The one place that decides how a match's Elo reads, for reports and pages alike.

    A perfect score over N samples gives no estimate: its interval has no upper end. Its
    lower bound is the score s at which N wins in a row have 5% chance: a sample wins
    with probability p <= s (its score is at least p), so p^N <= s^N = 5%, s = 0.05^(1/N)
    (Clopper-Pearson's one-sided bound; exact for samples that are all won or lost).
    Samples all alike elsewhere have zero variance: no interval, so no Elo. Otherwise
    the interval is fishtest's (regularized counts, normal approximation); an end that
    leaves the score's range 0..1 is unbounded, not clamped.
    """
    if len(counts) not in (3, 5):
        raise ValueError("counts of games scoring 0, 1/2, 1 or of pairs scoring 0..2")
    unit = "games" if len(counts) == 3 else "pairs"
    samples = sum(counts)
    top = len(counts) - 1
    if samples == 0:
        return EloFigure("empty", 0, unit)
    if counts[top] == samples:
        return EloFigure("above", samples, unit, bound=elo_from_score(ONE_SIDED ** (1 / samples)))
    if counts[0] == samples:
        return EloFigure("below", samples, unit,
                         bound=elo_from_score(1 - ONE_SIDED ** (1 / samples)))
    if max(counts) == samples:
        return EloFigure("identical", samples, unit, same=counts.index(samples) / 2)
    size, pdf = _pdf(counts)
    mean, variance = _moments(pdf)
    error = math.sqrt(variance / size)
    low, high = mean - Z95 * error, mean + Z95 * error
    nelo, nelo_margin = _normalized(pdf, size)
    return EloFigure("interval", samples, unit, elo=elo_from_score(mean),
                     low=elo_from_score(low) if low > 0 else None,
                     high=elo_from_score(high) if high < 1 else None,
                     nelo=nelo, nelo_margin=nelo_margin)


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


def _root(function: Callable[[float], float], low: float, high: float) -> float:
    """A root of an increasing-or-decreasing `function` in (low, high), by bisection."""
    f_low = function(low)
    for _ in range(200):
        middle = (low + high) / 2
        f_middle = function(middle)
        if (f_middle > 0) == (f_low > 0):
            low, f_low = middle, f_middle
        else:
            high = middle
        if high - low < 1e-15:
            break
    return (low + high) / 2


def _tilted(pdf: Sequence[tuple[float, float]], shifts: Sequence[float]
            ) -> list[tuple[float, float]]:
    """The distribution closest to `pdf` (maximum likelihood) whose `shifts` average 0:
    p_i / (1 + x d_i) with x solving sum p_i d_i / (1 + x d_i) = 0."""
    low, high = -1 / max(shifts), -1 / min(shifts)
    gap = 1e-9 * (high - low)
    x = _root(lambda x: sum(p * d / (1 + x * d) for (_, p), d in zip(pdf, shifts, strict=True)),
              low + gap, high - gap)
    return [(a, p / (1 + x * d)) for (a, p), d in zip(pdf, shifts, strict=True)]


def _mle_with_mean(pdf: Sequence[tuple[float, float]], mean: float
                   ) -> list[tuple[float, float]]:
    return _tilted(pdf, [a - mean for a, _ in pdf])


def _mle_with_t(pdf: Sequence[tuple[float, float]], t: float) -> list[tuple[float, float]]:
    """The most likely distribution with (mean - 1/2) / sd = t (fixed-point iteration)."""
    model = [(a, 1 / len(pdf)) for a, _ in pdf]
    for _ in range(50):
        mean, variance = _moments(model)
        sd = math.sqrt(variance)
        shifts = [a - 0.5 - t * sd * (1 + ((mean - a) / sd) ** 2) / 2 for a, _ in pdf]
        previous, model = model, _tilted(pdf, shifts)
        if max(abs(p - q) for (_, p), (_, q) in zip(previous, model, strict=True)) < 1e-12:
            break
    return model


ELO_MODELS = ("logistic", "normalized")


def sprt_pairs(pair_counts: Sequence[int], elo0: float, elo1: float, alpha: float = 0.05,
               beta: float = 0.05, model: str = "logistic") -> SprtResult:
    """Fishtest's generalized SPRT over colour-swapped pairs (pentanomial counts).

    The log-likelihood ratio is exact for the multinomial: N times the mean log ratio of
    the most likely pair distributions under H1 and H0, each fitted to the observed
    (regularized) one with its score fixed at elo1 / elo0 ("logistic" Elo) or its
    t-value fixed at the normalized Elo ("normalized"). Bounds log(beta / (1 - alpha))
    and log((1 - beta) / alpha) (without fishtest's overshoot correction)."""
    if model not in ELO_MODELS:
        raise ValueError(f"unknown Elo model {model!r}; known: {', '.join(ELO_MODELS)}")
    lower, upper = sprt_bounds(alpha, beta)
    if sum(pair_counts) == 0:
        return SprtResult(0.0, lower, upper)
    samples, pdf = _pdf(pair_counts)
    if model == "logistic":
        h0, h1 = (_mle_with_mean(pdf, score_from_elo(elo)) for elo in (elo0, elo1))
    else:  # a pair's t-value is sqrt(2) times a game's
        h0, h1 = (_mle_with_t(pdf, math.sqrt(2) * elo / NELO_PER_T) for elo in (elo0, elo1))
    llr = samples * sum(p * (math.log(q1) - math.log(q0))
                        for (_, p), (_, q0), (_, q1) in zip(pdf, h0, h1, strict=True))
    return SprtResult(llr, lower, upper)


def sprt_pentanomial(pair_counts: Sequence[int], elo0: float, elo1: float,
                     alpha: float = 0.05, beta: float = 0.05) -> SprtResult:
    """The arena's SPRT: fishtest's over pairs, in logistic Elo."""
    return sprt_pairs(pair_counts, elo0, elo1, alpha, beta)


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


# Fixed scales: a ladder of reference players, and a player placed on it ---------------------

@dataclass(frozen=True)
class ScaleRating:
    """A rating on a fixed scale with its 95% interval (the anchor's is 0, 0, 0)."""

    elo: float
    low: float
    high: float

    @property
    def margin(self) -> float:
        return (self.high - self.low) / 2


RESAMPLE_BATCH = 10_000  # resamples fitted at once by `anchored_fits`


@dataclass(frozen=True)
class PairKinds:
    """Colour-swapped pairs sorted into kinds: a kind is one pairing's pairs that went the
    same way (the same games with the same results: nine kinds of whole pairs a pairing,
    six of pairs whose second game is missing). A fit needs only each ordered pairing's
    games and points, so a resample of pairs is how many of each kind it drew, however
    many games there are."""

    cells: np.ndarray  # (a, b) of each ordered pairing played: rows of two player indices
    played: np.ndarray  # [kind, cell]: a pair of this kind's games in the cell
    points: np.ndarray  # [kind, cell]: and their points, for the cell's first player
    count: np.ndarray  # pairs of each kind
    pairing: np.ndarray  # each kind's pairing (an index into the pairings)
    example: np.ndarray  # each kind's first pair (an index into the pairs given)


def pair_kinds(index: dict[str, int], pairs: Sequence[Sequence[tuple[str, str, float]]]
               ) -> PairKinds:
    """`pairs` (of games (a, b, a's score), players named as in `index`) by kind."""
    kinds: dict[tuple[tuple[int, int], tuple[tuple[int, int, float], ...]], int] = {}
    count: list[int] = []
    example: list[int] = []
    for number, pair in enumerate(pairs):
        games = tuple(sorted((index[a], index[b], float(s)) for a, b, s in pair))
        first, second, _ = games[0]
        key = ((min(first, second), max(first, second)), games)
        if key not in kinds:
            kinds[key] = len(count)
            count.append(0)
            example.append(number)
        count[kinds[key]] += 1
    cells = sorted({(a, b) for _, games in kinds for a, b, _ in games})
    cell_of = {cell: i for i, cell in enumerate(cells)}
    played = np.zeros((len(kinds), len(cells)))
    points = np.zeros((len(kinds), len(cells)))
    pairings = sorted({pairing for pairing, _ in kinds})
    pairing_of = {pairing: i for i, pairing in enumerate(pairings)}
    pairing = np.zeros(len(kinds), dtype=np.intp)
    for (which, games), kind in kinds.items():
        pairing[kind] = pairing_of[which]
        for a, b, s in games:
            played[kind, cell_of[(a, b)]] += 1
            points[kind, cell_of[(a, b)]] += s
    return PairKinds(np.array(cells, dtype=np.intp).reshape(-1, 2), played, points,
                     np.array(count, dtype=np.int64), pairing, np.array(example, dtype=np.intp))


def resampled_counts(kinds: PairKinds, resamples: int, rng: np.random.Generator
                     ) -> np.ndarray:
    """[resample, kind]: how many pairs of each kind a resample drew, drawing within each
    pairing as many pairs as it has, with replacement (a multinomial draw a pairing)."""
    drawn = np.zeros((resamples, len(kinds.count)), dtype=np.int64)
    for which in range(int(kinds.pairing.max(initial=-1)) + 1):
        members = np.flatnonzero(kinds.pairing == which)
        total = int(kinds.count[members].sum())
        drawn[:, members] = rng.multinomial(total, kinds.count[members] / total, resamples)
    return drawn


def _anchored_fit_rows(size: int, cells: np.ndarray, played: np.ndarray, points: np.ndarray,
                       anchor: int, prior_sd: float, start: np.ndarray) -> np.ndarray:
    """Bradley-Terry maximum likelihood with player `anchor` held at 0 and a weak prior on
    the others' ratings (a player who won every game stays finite), for many sets of
    games at once, a row each: `played[r, c]` games of `cells[c, 0]` against `cells[c, 1]`
    with `points[r, c]` for the first. Newton steps from `start`, every row in one batch
    of small linear solves."""
    rows = played.shape[0]
    free = np.array([i for i in range(size) if i != anchor], dtype=np.intp)
    a, b = cells[:, 0], cells[:, 1]
    towards = np.zeros((len(cells), size))  # each cell's (+1 at a, -1 at b)
    towards[np.arange(len(cells)), a] += 1
    towards[np.arange(len(cells)), b] -= 1
    outer = np.einsum("ci,cj->cij", towards, towards).reshape(len(cells), size * size)
    precision = 1 / prior_sd**2
    ratings = np.tile(start, (rows, 1)).astype(float)
    ratings[:, anchor] = 0.0
    for _ in range(100):
        p = 1 / (1 + np.exp(-_K * (ratings[:, a] - ratings[:, b])))
        gradient = -precision * ratings + (_K * (points - played * p)) @ towards
        hessian = -(_K**2 * played * p * (1 - p)) @ outer
        hessian = hessian.reshape(rows, size, size) - precision * np.eye(size)
        step = np.linalg.solve(hessian[:, free][:, :, free], gradient[:, free, None])[..., 0]
        ratings[:, free] -= step
        if np.max(np.abs(step), initial=0.0) < 1e-6:
            break
    return ratings


def anchored_fits(names: Sequence[str], pairs: Sequence[Sequence[tuple[str, str, float]]],
                  anchor: str, resamples: int = 300, seed: int = 1, prior_sd: float = 2000.0
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Every player's Elo with `anchor` at 0, from colour-swapped pairs of games (each
    pair a sequence of (a, b, a's score)), and `resamples` refits on pairs drawn with
    replacement within each pairing (rows of the second array), for intervals.

    Pairs, not games, are resampled (as the pentanomial model counts them), so an opening
    that favours one side is not taken for luck. A resample is drawn as counts of the
    pairs' kinds (`PairKinds`) and all are fitted at once, so thousands cost about a
    second however many games there are."""
    index = {name: i for i, name in enumerate(names)}
    size = len(names)
    kinds = pair_kinds(index, pairs)
    whole = kinds.count[None, :].astype(float)
    centre = _anchored_fit_rows(size, kinds.cells, whole @ kinds.played, whole @ kinds.points,
                                index[anchor], prior_sd, np.zeros(size))[0]
    if not resamples:
        return centre, np.zeros((0, size))
    rng = np.random.default_rng(seed)
    draws = []
    for done in range(0, resamples, RESAMPLE_BATCH):  # batches: memory stays small
        drawn = resampled_counts(kinds, min(RESAMPLE_BATCH, resamples - done), rng).astype(float)
        draws.append(_anchored_fit_rows(size, kinds.cells, drawn @ kinds.played,
                                        drawn @ kinds.points, index[anchor], prior_sd, centre))
    return centre, np.concatenate(draws)


def anchored_ratings(names: Sequence[str], pairs: Sequence[Sequence[tuple[str, str, float]]],
                     anchor: str, resamples: int = 300, seed: int = 1
                     ) -> dict[str, ScaleRating]:
    """`anchored_fits` as ratings with 95% intervals. The intervals are against the
    anchor, so they widen up a ladder: a level's includes every step below it."""
    centre, draws = anchored_fits(names, pairs, anchor, resamples, seed)
    low = np.percentile(draws, 2.5, axis=0) if resamples else centre
    high = np.percentile(draws, 97.5, axis=0) if resamples else centre
    return {name: ScaleRating(float(centre[i]), float(min(low[i], centre[i])),
                              float(max(high[i], centre[i])))
            for i, name in enumerate(names)}


@dataclass(frozen=True)
class Placement:
    """A player's Elo on a fixed scale from its games against players of known Elo, with
    its 95% interval; None where the games set no bound (won or lost every game)."""

    elo: float | None
    low: float | None
    high: float | None

    @property
    def margin(self) -> float | None:
        """Half the interval's width; None while it is open on a side."""
        if self.low is None or self.high is None:
            return None
        return (self.high - self.low) / 2

    def elo_text(self) -> str:
        """The Elo as a table shows it: `+1234`, `> +2900` (won every game), `< -150`
        (lost every game) or `no games`."""
        if self.elo is not None:
            return f"{self.elo:+.0f}"
        if self.low is not None:
            return f"> {self.low:+.0f}"
        if self.high is not None:
            return f"< {self.high:+.0f}"
        return "no games"

    def interval_text(self) -> str:
        """The 95% interval as a table shows it: `+1100 .. +1380`, `above +2900`,
        `below -150`, or empty (no games)."""
        if self.low is not None and self.high is not None:
            return f"{self.low:+.0f} .. {self.high:+.0f}"
        if self.low is not None:
            return f"above {self.low:+.0f}"
        if self.high is not None:
            return f"below {self.high:+.0f}"
        return ""

    def __str__(self) -> str:
        if self.elo is not None and self.low is not None and self.high is not None:
            return f"{self.elo:+.0f} [{self.low:+.0f}, {self.high:+.0f}]"
        return self.interval_text() or "no games"


_EDGE = 4000.0  # Elo beyond every ladder: where a placement stops looking


class _Likelihood:
    """The log likelihood of a player's scores against opponents of known Elo, as a
    function of the player's Elo; the games tallied by opponent (a grade meets a few
    levels many times) and summed in plain floats (a grade places its players again
    after every pair, and a simulated grade thousands of times)."""

    def __init__(self, games: Sequence[tuple[float, float]]) -> None:
        tally: dict[float, list[float]] = {}
        for opponent, score in games:
            entry = tally.setdefault(float(opponent), [0.0, 0.0])
            entry[0] += score
            entry[1] += 1
        self.rows = [(opponent, points, count - points)
                     for opponent, (points, count) in tally.items()]
        self.low_edge, self.high_edge = min(tally) - _EDGE, max(tally) + _EDGE
        self.all_won = all(lost == 0 for _, _, lost in self.rows)
        self.all_lost = all(won == 0 for _, won, _ in self.rows)

    def __call__(self, elo: float) -> float:
        # log p = -softplus(-x) and log(1 - p) = -softplus(x), p the chance of a win
        return -sum(won * softplus(_K * (opponent - elo)) + lost * softplus(_K * (elo - opponent))
                    for opponent, won, lost in self.rows)

    def slope(self, elo: float) -> float:
        """d loglik / d elo, falling: the log likelihood is concave."""
        return sum(won - (won + lost) / (1 + math.exp(_K * (opponent - elo)))
                   for opponent, won, lost in self.rows)

    def most_likely(self) -> float:
        """The Elo of the greatest likelihood (a player who scored, not every game)."""
        left, right = self.low_edge, self.high_edge
        for _ in range(60):
            middle = (left + right) / 2
            if self.slope(middle) > 0:
                left = middle
            else:
                right = middle
        return (left + right) / 2

    def crossing(self, cut: float, inside: float, outside: float) -> float:
        """Where the log likelihood falls to `cut`, between `inside` (at or above it) and
        `outside` (below)."""
        for _ in range(60):
            middle = (inside + outside) / 2
            if self(middle) >= cut:
                inside = middle
            else:
                outside = middle
        return (inside + outside) / 2


def place(games: Sequence[tuple[float, float]]) -> Placement:
    """The Elo that best explains scores `games` = (opponent's Elo, score 0..1), by maximum
    likelihood (draws as half a win), and the profile-likelihood 95% interval: every Elo
    whose likelihood is within 1.92 log units of the best. A player who won every game has
    only a lower bound (and no point estimate), one who lost every game an upper one."""
    if not games:
        return Placement(None, None, None)
    likelihood = _Likelihood(games)
    low_edge, high_edge = likelihood.low_edge, likelihood.high_edge
    if likelihood.all_won:  # the likelihood rises to 1 (log 0) towards the open side
        return Placement(None, likelihood.crossing(-Z95**2 / 2, high_edge, low_edge), None)
    if likelihood.all_lost:
        return Placement(None, None, likelihood.crossing(-Z95**2 / 2, low_edge, high_edge))
    best_elo = likelihood.most_likely()
    cut = likelihood(best_elo) - Z95**2 / 2
    return Placement(best_elo, likelihood.crossing(cut, best_elo, low_edge),
                     likelihood.crossing(cut, best_elo, high_edge))


def even_chance_elo(games: Sequence[tuple[float, float]]) -> float | None:
    """For games (opponent's Elo, score) all won, or all lost, where no Elo is the most
    likely: the Elo at which that result has an even chance (its likelihood 1/2), a
    point to rank such a player by. Its one-sided 95% bound (`place`) lies on the open
    side, far from the games when there are few: two games lost to a level put the bound
    above that level, this point below it. None for anything else (`place` gives the
    most likely Elo)."""
    if not games:
        return None
    likelihood = _Likelihood(games)
    low_edge, high_edge = likelihood.low_edge, likelihood.high_edge
    if likelihood.all_won:
        return likelihood.crossing(-math.log(2), high_edge, low_edge)
    if likelihood.all_lost:
        return likelihood.crossing(-math.log(2), low_edge, high_edge)
    return None


def softplus(x: float) -> float:
    """log(1 + e**x), without overflow."""
    return max(x, 0.0) + math.log1p(math.exp(-abs(x)))
