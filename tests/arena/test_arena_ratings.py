"""Elo, error bars, LOS, SPRT and Bradley-Terry against values worked out by hand.

Hand computations (95% intervals use z = 1.959964):
- 60-20-20: s = 0.7, per-game variance 0.6*0.3^2 + 0.2*0.2^2 + 0.2*0.7^2 = 0.16,
  sd of the mean 0.04, interval 0.6216..0.7784 -> Elo 86.22..218.26, so
  +147.19 +- 66.02.
- 50-0-50: s = 0.5, sd 0.05, interval 0.402..0.598 -> +- 69.0 (the planning
  figure "100 games, no draws: +-69").
- Pairs 2/5/10/5/3 (scoring 0, 1/2, 1, 3/2, 2 of 2): mean 13/25 = 0.52,
  variance 1.865/25 = 0.0746, sd of the mean 0.054626, interval 0.41293..0.62707
  -> Elo -61.12..+90.27, so +13.90 +- 75.70.
- LOS 10 wins 5 losses: 0.5 (1 + erf(5 / sqrt(30))) = 0.90165.
- A perfect score over N samples: no estimate, a one-sided bound at the score 0.05^(1/N):
  20 pairs 0.86089 -> +316.6 Elo; 4 games 0.47287 -> -18.9.
"""

import math

import pytest

from aviary.arena import ratings


def test_trinomial_elo_and_margin_match_hand_computation():
    estimate = ratings.trinomial(60, 20, 20)
    assert estimate.score == pytest.approx(0.7)
    assert estimate.elo == pytest.approx(147.19, abs=0.01)
    assert estimate.margin == pytest.approx(66.02, abs=0.02)


def test_even_score_over_100_decisive_games_is_plus_minus_69():
    estimate = ratings.trinomial(50, 0, 50)
    assert estimate.elo == pytest.approx(0.0)
    assert estimate.margin == pytest.approx(69.0, abs=0.1)


@pytest.mark.parametrize("score, elo", [(0.55, 34.86), (0.75, 190.85), (0.9, 381.70)])
def test_elo_of_a_score_matches_the_planning_numbers(score, elo):
    assert ratings.elo_from_score(score) == pytest.approx(elo, abs=0.01)
    assert ratings.score_from_elo(elo) == pytest.approx(score, abs=1e-5)


def test_pentanomial_elo_and_margin_match_hand_computation():
    estimate = ratings.pentanomial([2, 5, 10, 5, 3])
    assert estimate.samples == 25
    assert estimate.score == pytest.approx(0.52)
    assert estimate.elo == pytest.approx(13.90, abs=0.01)
    assert estimate.margin == pytest.approx(75.70, abs=0.02)


def test_pentanomial_bar_is_narrower_than_trinomial_when_pairs_are_consistent():
    # 4 pairs won-lost and 16 pairs won-drawn: 20 wins, 16 draws, 4 losses either way.
    pairs = ratings.pentanomial([0, 0, 4, 16, 0])
    games = ratings.trinomial(20, 16, 4)
    assert pairs.score == pytest.approx(games.score) == pytest.approx(0.7)
    assert pairs.elo == pytest.approx(games.elo)
    assert pairs.margin < games.margin


def test_a_perfect_score_has_a_one_sided_bound_and_no_estimate():
    figure = ratings.elo_figure([0, 0, 0, 0, 20])
    assert figure.kind == "above" and figure.elo is None
    assert figure.bound == pytest.approx(316.6, abs=0.1)
    assert str(figure) == "above +317 Elo, 95%"
    games = ratings.elo_figure([0, 0, 4])  # 4-0-0 in games
    assert str(games) == "above -19 Elo, 95%"
    assert str(ratings.elo_figure([4, 0, 0])) == "below +19 Elo, 95%"
    assert str(ratings.elo_figure([20, 0, 0, 0, 0])) == "below -317 Elo, 95%"


@pytest.mark.parametrize("pairs", [1, 2, 5, 20, 200])
def test_the_one_sided_bound_holds_with_95_percent(pairs):
    """At the bound's score, a player winning each pair with probability s (and losing it
    otherwise: the least score that wins as often) wins them all 5% of the time."""
    bound = ratings.elo_figure([0, 0, 0, 0, pairs]).bound
    assert bound is not None
    assert ratings.score_from_elo(bound) ** pairs == pytest.approx(0.05)


@pytest.mark.parametrize("counts, said", [
    ([0, 0, 0, 20, 0], "no Elo: all 20 pairs 1½ of 2"),
    ([0, 0, 20, 0, 0], "no Elo: all 20 pairs 1 of 2"),
    ([0, 7, 0], "no Elo: all 7 games drawn"),
])
def test_identical_samples_give_no_elo(counts, said):
    figure = ratings.elo_figure(counts)
    assert figure.kind == "identical" and figure.elo is None and str(figure) == said
    assert "±" not in figure.explained() and "sides" in figure.explained()


def test_an_interval_that_passes_a_score_of_one_is_one_bound_not_a_clamp():
    # 19 pairs won 2-0, one 1½: the interval of the score reaches past 1
    figure = ratings.elo_figure([0, 0, 0, 1, 19])
    assert figure.kind == "interval" and figure.high is None and figure.low is not None
    assert str(figure).startswith("+757.5, above +")
    assert "1199.8" not in figure.explained()


def test_an_ordinary_interval_is_fishtests():
    estimate, figure = ratings.pair_estimate([2, 5, 10, 5, 3]), ratings.elo_figure([2, 5, 10, 5, 3])
    assert str(figure) == str(estimate) == "+13.9 ± 75.7"
    assert figure.nelo == pytest.approx(estimate.nelo)
    assert figure.nelo_margin == pytest.approx(estimate.nelo_margin)


def _moments_by_hand(counts):
    values = [i / (len(counts) - 1) for i in range(len(counts))]
    n = sum(counts)
    mean = sum(c * v for c, v in zip(counts, values, strict=True)) / n
    central = [sum(c * (v - mean) ** k for c, v in zip(counts, values, strict=True)) / n
               for k in (2, 3, 4)]
    return n, mean, central


@pytest.mark.parametrize("counts", [[2, 5, 10, 5, 3], [1, 2, 5, 9, 4], [1, 3, 10, 4, 2]])
def test_normalized_elo_margin_has_fishtests_t_dependent_variance(counts):
    """Fishtest's raw statistics: t = (s - 1/2) / sd over a pair, var(t) = 1 - t skewness
    + t^2 (excess kurtosis + 2) / 4, normalized Elo 800 / ln 10 * t / sqrt 2 with margin
    1.96 sqrt(var(t) / N) likewise. (No empty cell here, so no pseudo-count.)"""
    n, mean, (m2, m3, m4) = _moments_by_hand(counts)
    t = (mean - 0.5) / math.sqrt(m2)
    variance_t = 1 - t * m3 / m2**1.5 + t**2 * (m4 / m2**2 - 1) / 4
    scale = 800 / math.log(10) / math.sqrt(2)
    estimate = ratings.pair_estimate(counts)
    assert estimate.nelo == pytest.approx(scale * t)
    assert estimate.nelo_margin == pytest.approx(scale * 1.959964 * math.sqrt(variance_t / n))


def test_normalized_elo_margins_differ_between_figures_of_the_same_size():
    """The old margin was 1.96 * 800 / ln 10 / sqrt(2 N) whatever the results: the same
    +-107.7 for every 20-pair figure."""
    margins = {round(ratings.pair_estimate(counts).nelo_margin, 1)
               for counts in ([2, 4, 8, 4, 2], [0, 2, 5, 9, 4], [0, 0, 4, 8, 8])}
    assert len(margins) == 3


def test_likelihood_of_superiority_matches_hand_computation():
    assert ratings.likelihood_of_superiority(10, 5) == pytest.approx(0.90165, abs=1e-5)
    assert ratings.likelihood_of_superiority(7, 7) == 0.5
    assert ratings.likelihood_of_superiority(0, 0) == 0.5


def test_there_is_no_trinomial_sprt_to_decide_on_zero_variance():
    """The arena's SPRT is over pairs; the trinomial one by the normal approximation set a
    zero variance to 1e-6 and so decided on a handful of identical games: it is gone."""
    assert not hasattr(ratings, "sprt_trinomial") and not hasattr(ratings, "sprt")
    assert ratings.sprt_pairs([0, 0, 0, 0, 3], 0, 10).decision is None


def test_bradley_terry_two_players_recovers_the_score_elo():
    games = [("a", "b", 1.0)] * 30 + [("a", "b", 0.0)] * 10
    fitted = ratings.bradley_terry(["a", "b"], games)
    difference = fitted["a"].elo - fitted["b"].elo
    assert difference == pytest.approx(ratings.elo_from_score(0.75), abs=2)  # weak prior: ~0.3
    assert fitted["a"].elo == pytest.approx(-fitted["b"].elo)


def test_bradley_terry_orders_a_transitive_field_and_keeps_losers_finite():
    games = [("a", "b", 1.0)] * 6 + [("a", "b", 0.5)] * 2 + [("b", "c", 1.0)] * 8
    games += [("a", "c", 1.0)] * 8
    fitted = ratings.bradley_terry(["a", "b", "c"], games)
    assert fitted["a"].elo > fitted["b"].elo > fitted["c"].elo
    assert math.isfinite(fitted["c"].elo) and fitted["c"].margin > 0
    assert sum(rating.elo for rating in fitted.values()) == pytest.approx(0, abs=1e-6)


# Fishtest's statistics over colour-swapped pairs. The expected values are what fishtest's
# own formulas (stats/LLRcalc.py: regularize, LLR_logistic, LLR_normalized; stats/
# stat_util.py: get_elo) give for the same counts, worked out once with its code.
FISHTEST_CASES = [
    # pairs 0/0.5/1/1.5/2, (elo, elo95, los), LLR logistic [0, 50], [-3, 1], normalized
    # [0.764, 3.439]
    ([0, 0, 0, 0, 1], (1041.0844, 395.5919, 1.0), 0.133837, 0.0115691, 0.0107999),
    ([0, 0, 0, 0, 20], (1199.8262, 128.3343, 1.0), 2.672083, 0.2309444, 0.2159017),
    ([2, 5, 10, 5, 3], (13.9048, 75.6968, 0.642864), -0.372012, 0.0413100, 0.0175997),
    ([1, 3, 10, 4, 2], (26.1067, 74.8953, 0.756956), 0.0436920, 0.0755619, 0.0317209),
    ([0, 2, 5, 9, 4], (136.9413, 80.6472, 0.999921), 2.670183, 0.2308571, 0.1317101),
    ([10789, 19328, 33806, 19402, 10543], (-0.77358, 1.27758, 0.117659), -2965.3024,
     2.131068, -12.701292),
    ([39, 2226, 31451, 2412, 40], (0.90298, 0.66253, 0.996222), -4604.4829, 65.973585,
     2.162941),
]


@pytest.mark.parametrize("pairs, elo, llr, llr_close, llr_normalized", FISHTEST_CASES)
def test_pair_statistics_equal_fishtests_formulas(pairs, elo, llr, llr_close, llr_normalized):
    estimate = ratings.pair_estimate(pairs)
    assert (estimate.elo, estimate.margin, estimate.los) == pytest.approx(elo, rel=1e-4)
    assert ratings.sprt_pairs(pairs, 0, 50).llr == pytest.approx(llr, rel=1e-5)
    assert ratings.sprt_pairs(pairs, -3, 1).llr == pytest.approx(llr_close, rel=1e-5)
    normalized = ratings.sprt_pairs(pairs, 0.764, 3.439, model="normalized").llr
    assert normalized == pytest.approx(llr_normalized, rel=1e-4)


def test_no_single_pair_decides_an_sprt():
    # The old normal approximation gave LLR 33178 for one pair of wins (zero variance).
    assert ratings.sprt_pairs([0, 0, 0, 0, 1], 0, 50).decision is None
    llrs = [ratings.sprt_pairs([0, 0, 0, 0, n], 0, 50).llr for n in range(1, 30)]
    assert all(later > earlier for earlier, later in zip(llrs, llrs[1:], strict=False))
    first_decided = next(n for n, llr in enumerate(llrs, 1) if llr >= math.log(0.95 / 0.05))
    assert first_decided == 23


def test_hand_made_pair_estimate_matches_the_formula_by_hand():
    # Pairs 2/5/10/5/3 have no empty cell, so fishtest's estimate is the plain one:
    # mean 0.52, variance of a pair's score (over 2) 0.0746, standard error 0.054626.
    estimate = ratings.pair_estimate([2, 5, 10, 5, 3])
    assert estimate.score == pytest.approx(0.52)
    assert estimate.elo == pytest.approx(ratings.pentanomial([2, 5, 10, 5, 3]).elo)
    assert estimate.margin == pytest.approx(75.70, abs=0.02)
    # normalized Elo: (0.52 - 0.5) / sqrt(2 * 0.0746) * 800 / ln 10
    assert estimate.nelo == pytest.approx(0.02 / math.sqrt(0.1492) * 800 / math.log(10))


def test_an_unknown_elo_model_is_refused():
    with pytest.raises(ValueError, match="unknown Elo model"):
        ratings.sprt_pairs([1, 1, 1, 1, 1], 0, 5, model="bayes")
