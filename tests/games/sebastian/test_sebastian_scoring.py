"""Scoring exactly as the course's SebastianState (Spring 2021), one rule per test."""

import random

import pytest

from aviary.games.sebastian.rules import (
    CATEGORIES,
    Dice,
    Scorecard,
    possible_upper_totals,
    score,
)


@pytest.mark.parametrize(("category", "dice", "points"), [
    ("primis", [1, 1, 3, 1, 6], 3),
    ("secundus", [2, 2, 2, 2, 2], 10),
    ("tertium", [1, 2, 4, 5, 6], 0),
    ("quartus", [4, 4, 1, 1, 1], 8),
    ("quintus", [5, 1, 5, 5, 2], 15),
    ("sextus", [6, 6, 6, 6, 1], 24),
])
def test_number_category_scores_face_times_count(category, dice, points):
    assert score(dice, category) == points


def test_company_is_one_to_five_or_two_to_six_for_40():
    assert score([5, 4, 3, 2, 1], "company") == 40
    assert score([2, 6, 4, 3, 5], "company") == 40
    assert score([1, 2, 3, 4, 4], "company") == 0
    assert score([1, 2, 3, 4, 6], "company") == 0


def test_prattle_needs_a_run_of_four_for_30():
    assert score([1, 2, 3, 4, 4], "prattle") == 30
    assert score([6, 5, 4, 3, 3], "prattle") == 30
    assert score([2, 3, 4, 5, 2], "prattle") == 30
    assert score([1, 2, 3, 5, 6], "prattle") == 0


def test_company_also_scores_as_prattle():
    assert score([1, 2, 3, 4, 5], "prattle") == 30
    assert score([2, 3, 4, 5, 6], "prattle") == 30


def test_squadron_is_a_triple_and_a_pair_for_25():
    assert score([3, 3, 5, 5, 3], "squadron") == 25
    assert score([3, 3, 3, 3, 5], "squadron") == 0


def test_five_of_a_kind_is_not_a_squadron():
    assert score([4, 4, 4, 4, 4], "squadron") == 0


def test_five_of_a_kind_is_triplex_quadrupla_and_quintuplicatam():
    assert score([4, 4, 4, 4, 4], "triplex") == 20
    assert score([4, 4, 4, 4, 4], "quadrupla") == 20
    assert score([4, 4, 4, 4, 4], "quintuplicatam") == 50


def test_triplex_and_quadrupla_score_the_sum_of_all_dice():
    assert score([6, 6, 6, 1, 2], "triplex") == 21
    assert score([6, 6, 1, 1, 2], "triplex") == 0
    assert score([6, 6, 6, 6, 2], "quadrupla") == 26
    assert score([6, 6, 6, 1, 2], "quadrupla") == 0


def test_quintuplicatam_needs_five_alike_for_50():
    assert score([1, 1, 1, 1, 1], "quintuplicatam") == 50
    assert score([1, 1, 1, 1, 2], "quintuplicatam") == 0


def test_pandemonium_is_the_sum():
    assert score([1, 3, 5, 6, 6], "pandemonium") == 21


def test_unknown_category_is_refused():
    with pytest.raises(ValueError):
        score([1, 2, 3, 4, 5], "yahtzee")


def _record(card, category, dice):
    roll = Dice()
    roll.dice = dice
    card.record(category, roll)


def test_bonus_is_paid_at_exactly_63():
    card = Scorecard()
    # 3 of each face: 3 * (1 + ... + 6) = 63
    for category, face in zip(CATEGORIES[:6], range(1, 7), strict=True):
        _record(card, category, [face, face, face, 1 if face != 1 else 2, 6 if face != 6 else 5])
    assert sum(card.scorecard[c] for c in CATEGORIES[:6]) == 63
    assert card.bonusflag and card.bonusscore == 35
    assert card.totalscore == 63 + 35


def test_no_bonus_at_62():
    card = Scorecard()
    dice = {1: [1, 1, 2, 2, 3], 2: [2, 2, 2, 1, 1], 3: [3, 3, 3, 1, 1], 4: [4, 4, 4, 1, 1],
            5: [5, 5, 5, 1, 1], 6: [6, 6, 6, 1, 1]}  # 2 + 6 + 9 + 12 + 15 + 18 = 62
    for category, face in zip(CATEGORIES[:6], range(1, 7), strict=True):
        _record(card, category, dice[face])
    assert card.bonusflag and card.bonusscore == 0 and card.totalscore == 62


def test_a_category_cannot_be_filled_twice():
    card = Scorecard()
    _record(card, "pandemonium", [1, 2, 3, 4, 5])
    with pytest.raises(ValueError):
        _record(card, "pandemonium", [1, 2, 3, 4, 5])


def test_dice_reroll_changes_only_the_given_positions():
    dice = Dice(random.Random(7))
    before = list(dice.roll())
    after = dice.reroll([1, 3])
    assert [after[i] for i in (0, 2, 4)] == [before[i] for i in (0, 2, 4)]
    assert all(1 <= d <= 6 for d in after)


def test_possible_upper_totals_are_sums_of_face_multiples():
    assert possible_upper_totals(set()) == {0}
    assert possible_upper_totals({"primis"}) == {0, 1, 2, 3, 4, 5}
    assert 12 not in possible_upper_totals({"primis"})
    assert max(possible_upper_totals(set(CATEGORIES[:6]))) == 105
