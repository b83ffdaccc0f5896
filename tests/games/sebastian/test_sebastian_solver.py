"""The exact solver: the known optimum, brute-force endgames, the numpy reference, the cache."""

import itertools
from functools import cache

import numpy as np
import pytest

from aviary.games.sebastian import cache as table_cache
from aviary.games.sebastian.reference import solve_reference
from aviary.games.sebastian.rules import BONUS_POINTS, CATEGORY_INDEX, NUMBERS, score
from aviary.games.sebastian.solver import (
    BONUS,
    FULL_MASK,
    MEAN,
    QUINTUPLICATAM_50,
    masks_by_filled_count,
)
from aviary.games.sebastian.tables import reachable_upper_totals


def test_optimal_play_from_the_empty_scorecard_is_worth_245_8708(solution):
    assert solution.mean == pytest.approx(245.8708, abs=0.0005)


def test_optimal_play_has_sd_39_8_and_a_69_percent_bonus_rate(solution):
    assert round(solution.sd, 1) == 39.8
    assert round(100 * solution.bonus_rate, 1) == 69.0
    assert 0.0 < solution.quintuplicatam_rate < 1.0


def brute_force_last_turn(category, upper):
    """Expected points of the last turn by enumerating every reroll outcome die by die.

    Independent of the solver's tables: keeps are chosen by dice positions and
    rerolls enumerate all 6^n ordered outcomes.
    """
    def final(dice):
        points = score(dice, category)
        total = min(63, upper + points) if category in NUMBERS else upper
        return points + (BONUS_POINTS if total >= 63 else 0)

    @cache
    def after_keep(rolls_left, keep):
        outcomes = list(itertools.product(range(1, 7), repeat=5 - len(keep)))
        return sum(best(rolls_left, tuple(sorted(keep + o))) for o in outcomes) / len(outcomes)

    @cache
    def best(rolls_left, dice):
        if rolls_left == 0:
            return final(dice)
        return max(after_keep(rolls_left - 1, tuple(sorted(dice[i] for i in kept)))
                   for n in range(6) for kept in itertools.combinations(range(5), n))

    return after_keep(2, ())


@pytest.mark.parametrize(("category", "upper"), [
    ("quintuplicatam", 63),
    ("company", 10),
    ("squadron", 40),
    ("pandemonium", 0),
    ("sextus", 45),  # three sixes or more earn the bonus too
    ("primis", 62),
])
def test_last_turn_value_equals_brute_force(solution, category, upper):
    mask = FULL_MASK & ~(1 << CATEGORY_INDEX[category])
    assert reachable_upper_totals()[mask & 63, upper]
    expected = brute_force_last_turn(category, upper)
    assert solution.values[mask * 64 + upper, MEAN] == pytest.approx(expected, abs=1e-9)


def test_quintuplicatam_as_the_last_category_hits_4_6_percent_of_the_time(solution):
    mask = FULL_MASK & ~(1 << CATEGORY_INDEX["quintuplicatam"])
    # the classic figure: P(five alike within three rolls, keeping the largest group) = 0.04603
    assert solution.values[mask * 64, QUINTUPLICATAM_50] == pytest.approx(0.046029, abs=1e-6)
    assert solution.values[mask * 64 + 63, BONUS] == pytest.approx(1.0)


def test_compiled_solver_equals_the_numpy_reference_on_endgames(solution):
    groups = masks_by_filled_count()[:2]  # 12 and 11 categories filled
    values = solve_reference(groups)
    states = np.concatenate([m * 64 + np.flatnonzero(reachable_upper_totals()[m & 63])
                             for g in groups for m in g])
    np.testing.assert_allclose(values[states], solution.values[states, MEAN], atol=1e-9)


def test_the_table_is_cached_and_reused(solution, session_cache):
    path = table_cache.table_path()
    assert path.parent == session_cache and path.exists()
    again = table_cache.load_solution()
    np.testing.assert_array_equal(again.values, solution.values)
    assert again.mean == solution.mean


def test_the_cache_key_changes_with_the_rules_version(monkeypatch):
    before = table_cache.table_path()
    monkeypatch.setattr(table_cache, "RULES_VERSION", "sebastian-other-rules")
    assert table_cache.table_path() != before


def test_a_corrupt_table_is_ignored(tmp_path):
    broken = tmp_path / "broken.npz"
    broken.write_bytes(b"not a numpy file")
    assert table_cache._read(broken) is None


def test_single_state_turn_kernel_agrees_with_the_batched_table(solution):
    """The player's one-state kernel and the solver's batched one are separate code."""
    from aviary.games.sebastian.solver import evaluate_turn, kernel_tables
    from aviary.games.sebastian.tables import dice_tables

    t = dice_tables()
    n = len(t.keeps)
    rng = np.random.default_rng(3)
    reachable = reachable_upper_totals()
    for _ in range(40):
        mask = int(rng.integers(0, FULL_MASK))
        up = int(rng.choice(np.flatnonzero(reachable[mask & 63])))
        result = np.zeros(4)
        evaluate_turn(mask, up, solution.values, 4, *kernel_tables(t),
                      np.empty(len(t.rolls), dtype=np.int64), np.zeros((n, 4)), np.zeros((n, 4)),
                      np.zeros(n, dtype=np.int64), result)
        np.testing.assert_allclose(result, solution.values[mask * 64 + up], rtol=1e-12, atol=1e-9)
