"""The estimators recover clean ridges, and the human line always honours its points."""

import itertools

import numpy as np
import pytest

from aviary.horizon import find_ridges
from aviary.horizon.synthetic import generate


def clean_ridge_photo(height: int = 120, width: int = 160) -> tuple[np.ndarray, np.ndarray]:
    """Bright smooth sky over a darker ground, one sharp ridge: a sine plus a peak."""
    cols = np.arange(width)
    ridge = np.round(
        50 + 12 * np.sin(cols / 17.0) - 20 * np.clip(1 - np.abs(cols - 100) / 25, 0, None)
    ).astype(np.int64)
    rows = np.arange(height)[:, None]
    ground = rows >= ridge[None, :]
    image = np.empty((height, width, 3))
    image[:] = [170, 200, 235]
    image[ground] = [70, 90, 60]
    return image.astype(np.uint8), ridge


def test_map_recovers_a_clean_sharp_ridge_within_one_pixel():
    image, ridge = clean_ridge_photo()
    ridges = find_ridges(image)
    assert np.abs(ridges.map - ridge).max() <= 1


def test_every_estimator_gives_one_row_per_column_inside_the_image():
    photo = generate(3)
    ridges = find_ridges(photo.rgb, [(int(photo.ridge[10]), 10)])
    height, width = photo.rgb.shape[:2]
    for rows in (ridges.simple, ridges.map, ridges.human):
        assert rows is not None and rows.shape == (width,)
        assert rows.min() >= 0 and rows.max() < height


def test_without_points_there_is_no_human_line():
    assert find_ridges(generate(1).rgb).human is None


@pytest.mark.parametrize("seed", range(12))
def test_human_line_passes_through_every_given_point(seed):
    rng = np.random.default_rng(seed)
    photo = generate(seed, height=96, width=128)
    count = int(rng.integers(1, 4))
    cols = rng.choice(128, size=count, replace=False)
    # anywhere at all, even far from the ridge: the line must still obey
    points = [(int(rng.integers(96)), int(col)) for col in cols]
    ridges = find_ridges(photo.rgb, points)
    band = max(3, round(96 / 32))
    human = ridges.human
    assert human is not None
    assert np.abs(np.diff(human)).max() <= band, "the human line left the transition band"
    passed = [(row, col) for row, col in points if human[col] == row]
    if _reachable(points, band):
        assert passed == points
    else:  # no line joins them all: it joins as many as one line can (the command refuses)
        most = max(len(subset) for size in range(1, count + 1)
                   for subset in itertools.combinations(points, size)
                   if _reachable(subset, band))
        assert len(passed) == most < count


def _reachable(points, band):
    ordered = sorted(points, key=lambda p: p[1])
    return all(abs(b[0] - a[0]) <= band * (b[1] - a[1]) for a, b in itertools.pairwise(ordered))


def test_a_point_on_the_true_ridge_never_makes_the_line_worse_on_these_photos():
    for seed in range(8):
        photo = generate(seed)
        first = find_ridges(photo.rgb)
        col = int(np.argmax(np.abs(first.map - photo.ridge)))
        helped = find_ridges(photo.rgb, [(int(photo.ridge[col]), col)])
        assert helped.human is not None
        assert np.abs(helped.human - photo.ridge).mean() <= np.abs(first.map - photo.ridge).mean()


def test_point_outside_the_image_is_refused():
    with pytest.raises(ValueError):
        find_ridges(generate(0).rgb, [(500, 3)])


def test_grayscale_images_work_too():
    image, ridge = clean_ridge_photo()
    grey = image.mean(axis=2).astype(np.uint8)
    assert np.abs(find_ridges(grey).map - ridge).max() <= 1


def test_simple_is_the_edge_emission_alone_with_no_viterbi_in_it():
    from aviary.horizon.model import RidgeModel, edge_scores, prepare

    photo = generate(5)
    ridges = find_ridges(photo.rgb)
    edges = edge_scores(prepare(photo.rgb), RidgeModel())
    assert np.array_equal(ridges.simple, np.argmax(edges, axis=0))


def test_second_start_finds_a_far_layer_the_colour_rounds_took_for_sky():
    from aviary.horizon.model import RidgeModel

    photo = generate(1002)   # a hazy far range above a crisper near one (tuning set)
    without = find_ridges(photo.rgb, model=RidgeModel(upper_start=False))
    with_second = find_ridges(photo.rgb)
    assert np.abs(without.map - photo.ridge).mean() > 20   # on the nearer range
    assert np.abs(with_second.map - photo.ridge).mean() < 3


def test_colour_rounds_bring_a_line_started_in_the_clouds_down_to_the_ridge():
    from aviary.horizon.model import RidgeModel

    photo = generate(3025)   # soft clouds over a hazy range; the edge-only line starts in them
    six_rounds = find_ridges(photo.rgb, model=RidgeModel(colour_rounds=6))
    default = find_ridges(photo.rgb)
    assert RidgeModel().colour_rounds > 6
    assert np.abs(six_rounds.map - photo.ridge).mean() > 20   # still among the cloud edges
    assert np.abs(default.map - photo.ridge).mean() < 3


def test_grain_above_two_and_a_half_times_the_skys_keeps_the_line_on_a_hazy_far_layer():
    from aviary.horizon.model import RidgeModel

    photo = generate(5232)   # overcast sky over a hazy, grainy far range (tuning set)
    ratio_three = find_ridges(photo.rgb, model=RidgeModel(texture_ratio=3.0))
    default = find_ridges(photo.rgb)
    assert RidgeModel().texture_ratio < 3.0
    assert np.abs(ratio_three.map - photo.ridge).mean() > 20   # on a nearer layer
    assert np.abs(default.map - photo.ridge).mean() < 3


def test_earlier_model_is_the_model_with_the_old_settings():
    from aviary.horizon.model import RidgeModel

    earlier = RidgeModel().earlier()
    assert (earlier.colour_rounds, earlier.texture_ratio) == (6, 3.0)
    assert earlier.colour_em_steps == RidgeModel().colour_em_steps


def test_band_grain_ratio_tells_a_grainy_layer_from_more_sky():
    from aviary.horizon.model import RidgeModel, band_grain_ratio

    rng = np.random.default_rng(0)
    height, width = 120, 160
    image = np.full((height, width, 3), 180.0) + rng.normal(0, 1.0, (height, width, 3))
    image[60:] = 120 + rng.normal(0, 12.0, (60, width, 3))           # a grainy layer
    upper = np.full(width, 30, dtype=np.int64)
    model = RidgeModel()
    sky_band = band_grain_ratio(image, upper, np.full(width, 58, dtype=np.int64), model)
    layer_band = band_grain_ratio(image, upper, np.full(width, 110, dtype=np.int64), model)
    assert 0.7 < sky_band < model.layer_grain_ratio < layer_band
