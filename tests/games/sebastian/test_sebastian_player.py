"""The optimal player: its decisions, the course drop-in, and simulated games."""

import math
import random

import pytest

from aviary.games.sebastian import SebastianAutoPlayer
from aviary.games.sebastian.driver import SlotDice, mean_with_ci, play_game
from aviary.games.sebastian.player import OptimalPlayer, State, reroll_indices
from aviary.games.sebastian.rules import CATEGORIES, Dice, Scorecard, score


@pytest.fixture(scope="module")
def player(solution):
    return OptimalPlayer(solution)


class CourseShapedDice:
    """Only what the course's Dice exposes to a player: a `dice` list of five ints."""

    def __init__(self, values):
        self.dice = list(values)


class CourseShapedScorecard:
    def __init__(self, filled):
        self.scorecard = dict(filled)


def test_reroll_indices_keep_exactly_the_chosen_dice():
    assert reroll_indices([3, 1, 3, 6, 3], (3, 3)) == [1, 3, 4]
    assert reroll_indices([2, 2, 2, 2, 2], (2, 2, 2, 2, 2)) == []
    assert reroll_indices([1, 2, 3, 4, 5], ()) == [0, 1, 2, 3, 4]


def test_five_alike_are_kept_while_quintuplicatam_is_open(solution):
    auto = SebastianAutoPlayer(solution)
    card = CourseShapedScorecard({})
    assert auto.first_roll(CourseShapedDice([4, 4, 4, 4, 4]), card) == []
    assert auto.third_roll(CourseShapedDice([4, 4, 4, 4, 4]), card) == "quintuplicatam"


def test_with_only_quintuplicatam_open_the_odd_die_is_rerolled(solution):
    auto = SebastianAutoPlayer(solution)
    card = CourseShapedScorecard({c: 0 for c in CATEGORIES if c != "quintuplicatam"})
    assert auto.second_roll(CourseShapedDice([6, 6, 1, 6, 6]), card) == [2]
    assert auto.third_roll(CourseShapedDice([6, 6, 1, 6, 6]), card) == "quintuplicatam"


def test_keep_options_list_every_distinct_keep_best_first(player):
    state = State.from_filled(["primis"], 3)
    options = player.keep_options([1, 3, 3, 4, 6], 1, state)
    assert len(options) == 24  # multisets of {1, 3, 3, 4, 6}: 2 * 3 * 2 * 2
    values = [o.expected for o in options]
    assert values == sorted(values, reverse=True)
    assert options[0].keep == player.best_keep([1, 3, 3, 4, 6], 1, state)


def test_category_options_value_equals_points_plus_what_follows(player):
    state = State(0, 0)
    options = player.category_options([6, 6, 6, 4, 6], state)
    assert [o.category for o in options][0] == player.best_category([6, 6, 6, 4, 6], state)
    assert {o.category for o in options} == set(CATEGORIES)
    for option in options:
        assert option.points == score([6, 6, 6, 4, 6], option.category)


def test_keeping_before_the_last_roll_is_worth_the_mean_of_the_best_categories(player):
    """The value of a keep before roll 3 is the average over outcomes of the best category."""
    state = State.from_filled([c for c in CATEGORIES if c not in ("sextus", "triplex")], 40)
    kept = (6, 6, 6, 6)
    by_keep = {o.keep: o.expected for o in player.keep_options([6, 6, 6, 6, 1], 2, state)}
    outcomes = [player.category_options(sorted(kept + (f,)), state)[0].expected
                for f in range(1, 7)]
    assert by_keep[kept] == pytest.approx(sum(outcomes) / 6, abs=1e-9)


def test_the_drop_in_plays_full_games_with_course_shaped_objects(solution):
    auto = SebastianAutoPlayer(solution)
    for seed in range(3):
        card = play_game(auto, Dice(random.Random(seed)))
        assert isinstance(card, Scorecard)
        assert set(card.scorecard) == set(CATEGORIES)
        assert card.bonusflag
        assert card.totalscore == sum(card.scorecard.values()) + card.bonusscore


def test_a_verbose_game_prints_the_course_transcript(solution, capsys):
    import sys

    play_game(SebastianAutoPlayer(solution), SlotDice(5, 0), sys.stdout)
    out = capsys.readouterr().out
    assert out.count("* Turn") == 13 and out.count("Roll #3:") == 13
    assert "Final score: " in out.splitlines()[-1]


def test_thousands_of_games_average_within_three_standard_errors_of_the_optimum(solution):
    auto = SebastianAutoPlayer(solution)
    games = 3000
    scores = [play_game(auto, SlotDice(2026, g)).totalscore for g in range(games)]
    mean, _ = mean_with_ci(scores)
    standard_error = solution.sd / math.sqrt(games)
    assert abs(mean - solution.mean) < 3 * standard_error


def test_a_new_player_per_game_like_the_course_driver_reuses_one_loaded_table(solution):
    first, second = SebastianAutoPlayer(), SebastianAutoPlayer()
    assert first.player.solution is second.player.solution
    assert first.player.solution.mean == pytest.approx(solution.mean)
    card = play_game(second, SlotDice(9, 0))
    assert set(card.scorecard) == set(CATEGORIES)
