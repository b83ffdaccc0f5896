"""The banded Viterbi finds exactly the best path: checked against brute force."""

import itertools

import numpy as np
import pytest

from aviary.horizon.estimators import pin
from aviary.horizon.viterbi import banded_viterbi, laplace_slope, viterbi_full_reference


def brute_force(emit: np.ndarray, log_trans: np.ndarray) -> tuple[tuple[int, ...], float]:
    height, width = emit.shape
    band = (len(log_trans) - 1) // 2
    best_path, best_score = (), -np.inf
    for path in itertools.product(range(height), repeat=width):
        steps = np.diff(path)
        if np.any(np.abs(steps) > band):
            continue
        score = emit[list(path), range(width)].sum() + log_trans[steps + band].sum()
        if score > best_score:
            best_path, best_score = path, score
    return best_path, float(best_score)


def random_problem(rng: np.random.Generator):
    height, width = int(rng.integers(1, 6)), int(rng.integers(1, 6))
    band = int(rng.integers(0, 4))
    emit = rng.normal(size=(height, width)) * rng.uniform(0.1, 5)
    log_trans = rng.normal(size=2 * band + 1) * rng.uniform(0.1, 5)
    return emit, log_trans


@pytest.mark.parametrize("seed", range(300))
def test_banded_viterbi_equals_brute_force_path_and_score(seed):
    emit, log_trans = random_problem(np.random.default_rng(seed))
    expected_path, expected_score = brute_force(emit, log_trans)
    rows, score = banded_viterbi(emit, log_trans)
    assert tuple(rows) == expected_path
    assert score == pytest.approx(expected_score, abs=1e-9)


@pytest.mark.parametrize("seed", range(100))
def test_full_transition_reference_equals_brute_force(seed):
    emit, log_trans = random_problem(np.random.default_rng(1000 + seed))
    expected_path, expected_score = brute_force(emit, log_trans)
    rows, score = viterbi_full_reference(emit, log_trans)
    assert tuple(rows) == expected_path
    assert score == pytest.approx(expected_score, abs=1e-9)


@pytest.mark.parametrize("seed", range(100))
def test_pinned_viterbi_is_the_best_path_through_the_pins(seed):
    rng = np.random.default_rng(2000 + seed)
    emit, log_trans = random_problem(rng)
    height, width = emit.shape
    point = (int(rng.integers(height)), int(rng.integers(width)))
    rows, score = banded_viterbi(pin(emit, [point]), log_trans)
    assert rows[point[1]] == point[0]
    only_through_point = emit.copy()
    only_through_point[:, point[1]] = -np.inf
    only_through_point[point] = emit[point]
    expected_path, expected_score = brute_force(only_through_point, log_trans)
    assert tuple(rows) == expected_path
    assert score == pytest.approx(expected_score, abs=1e-9)


def test_banded_viterbi_never_steps_further_than_the_band():
    rng = np.random.default_rng(7)
    emit = rng.normal(size=(60, 80)) * 10
    log_trans = np.zeros(5)  # K = 2
    rows, _ = banded_viterbi(emit, log_trans)
    assert np.abs(np.diff(rows)).max() <= 2


def test_banded_viterbi_refuses_even_transition_vectors():
    with pytest.raises(ValueError):
        banded_viterbi(np.zeros((3, 3)), np.zeros(4))


@pytest.mark.parametrize("seed", range(200))
def test_laplace_band_kernel_equals_brute_force(seed):
    """The model's own -slope*|d| band takes the O(rows) monotone-queue kernel."""
    rng = np.random.default_rng(3000 + seed)
    height, width = int(rng.integers(1, 6)), int(rng.integers(1, 6))
    band = int(rng.integers(1, 4))
    slope = float(rng.uniform(0, 3))
    log_trans = -slope * np.abs(np.arange(-band, band + 1, dtype=np.float64))
    assert laplace_slope(log_trans) == slope
    emit = rng.normal(size=(height, width)) * rng.uniform(0.1, 5)
    expected_path, expected_score = brute_force(emit, log_trans)
    rows, score = banded_viterbi(emit, log_trans)
    assert tuple(rows) == expected_path
    assert score == pytest.approx(expected_score, abs=1e-9)


@pytest.mark.parametrize("seed", range(20))
def test_laplace_band_kernel_equals_full_reference_on_larger_grids(seed):
    rng = np.random.default_rng(4000 + seed)
    height, width = int(rng.integers(10, 60)), int(rng.integers(5, 40))
    band = int(rng.integers(1, 9))
    log_trans = -float(rng.uniform(0, 2)) * np.abs(np.arange(-band, band + 1, dtype=np.float64))
    emit = rng.normal(size=(height, width)) * 3
    rows, score = banded_viterbi(emit, log_trans)
    expected_rows, expected_score = viterbi_full_reference(emit, log_trans)
    assert np.array_equal(rows, expected_rows)
    assert score == pytest.approx(expected_score, abs=1e-9)


def test_non_laplace_bands_are_not_mistaken_for_laplace():
    assert laplace_slope(np.array([-1.0, 0.0, -2.0])) is None
    assert laplace_slope(np.array([-1.0, 0.5, -1.0])) is None
    assert laplace_slope(np.zeros(1)) is None
