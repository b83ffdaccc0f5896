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
- SPRT [0, 10] on 60-20-20: s1 = 0.514390, LLR = 100 * 0.014390 * 0.385610 / 0.32 = 1.734.
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


def test_perfect_score_has_infinite_elo_and_no_margin():
    estimate = ratings.trinomial(10, 0, 0)
    assert estimate.elo == math.inf
    assert math.isnan(estimate.margin)
    assert str(estimate) == "+inf"


def test_likelihood_of_superiority_matches_hand_computation():
    assert ratings.likelihood_of_superiority(10, 5) == pytest.approx(0.90165, abs=1e-5)
    assert ratings.likelihood_of_superiority(7, 7) == 0.5
    assert ratings.likelihood_of_superiority(0, 0) == 0.5


def test_sprt_llr_matches_hand_computation_and_stays_undecided():
    result = ratings.sprt_trinomial(60, 20, 20, elo0=0, elo1=10)
    assert result.llr == pytest.approx(1.734, abs=0.002)
    assert result.upper == pytest.approx(math.log(0.95 / 0.05))
    assert result.decision is None


def test_sprt_accepts_h1_for_a_dominant_player_and_h0_for_an_even_one():
    assert ratings.sprt_trinomial(80, 10, 10, elo0=0, elo1=50).decision == "H1"
    assert ratings.sprt_trinomial(300, 0, 300, elo0=0, elo1=50).decision == "H0"


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
