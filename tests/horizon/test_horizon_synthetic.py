"""The synthetic photo generator is seeded and its truth is the sky boundary."""

import numpy as np

from aviary.horizon.synthetic import generate


def test_same_seed_gives_the_same_photo_and_ridge():
    a, b = generate(5), generate(5)
    assert np.array_equal(a.rgb, b.rgb) and np.array_equal(a.ridge, b.ridge)


def test_different_seeds_give_different_photos():
    assert not np.array_equal(generate(1).rgb, generate(2).rgb)


def test_photo_has_the_requested_size_and_ridge_stays_inside():
    photo = generate(0, height=100, width=150)
    assert photo.rgb.shape == (100, 150, 3) and photo.rgb.dtype == np.uint8
    assert photo.ridge.shape == (150,)
    assert photo.ridge.min() > 0 and photo.ridge.max() < 100


def test_rows_above_the_ridge_look_like_sky_not_ground():
    """Averaged over many photos, the band just above the truth differs from just below."""
    contrasts = []
    for seed in range(10):
        photo = generate(seed)
        cols = np.arange(photo.ridge.size)
        above = photo.rgb[np.maximum(photo.ridge - 3, 0), cols].astype(float)
        below = photo.rgb[np.minimum(photo.ridge + 3, photo.rgb.shape[0] - 1), cols].astype(float)
        contrasts.append(np.abs(above - below).sum(axis=1).mean())
    assert min(contrasts) > 10


def test_numba_edge_kernel_matches_scipy_sobel():
    """The model's fast gradients are the course's scipy Sobel, to rounding."""
    from scipy import ndimage

    from aviary.horizon.edges import GREY_WEIGHTS, grayscale, vertical_gradient
    from aviary.horizon.kernels import edge_kernel

    pixels = np.random.default_rng(0).uniform(0, 255, size=(20, 30, 3))
    grey, _, _, averaged_grey = edge_kernel(pixels, GREY_WEIGHTS, 7)
    expected = vertical_gradient(grayscale(pixels))
    assert np.allclose(grey, expected, atol=1e-9)
    smoothed = ndimage.uniform_filter1d(expected, 7, axis=1, mode="nearest")
    assert np.allclose(averaged_grey, smoothed, atol=1e-9)


def test_numba_texture_kernel_is_box_averaged_horizontal_second_difference():
    """The grain map is |[1, -2, 1] across the columns| of grey, box-averaged, edges repeated."""
    from scipy import ndimage

    from aviary.horizon.edges import GREY_WEIGHTS, grayscale
    from aviary.horizon.kernels import texture_kernel

    pixels = np.random.default_rng(1).uniform(0, 255, size=(17, 23, 3))
    second = ndimage.correlate1d(grayscale(pixels), [1.0, -2.0, 1.0], axis=1, mode="nearest")
    expected = ndimage.uniform_filter(np.abs(second), 5, mode="nearest")
    assert np.allclose(texture_kernel(pixels, GREY_WEIGHTS, 2), expected, atol=1e-9)


def test_grain_cost_of_a_row_sums_capped_log_excess_above_it_skipping_the_gap_rows():
    """cost[r] = penalty * sum over rows < r - gap of clip(log(texture / scale), 0, cap)."""
    from aviary.horizon.kernels import grain_penalty_kernel

    texture = np.random.default_rng(2).uniform(0.0, 8.0, size=(19, 7))
    scale, penalty, cap, gap = 2.0, 0.7, 0.5, 3
    excess = penalty * np.clip(np.log(np.maximum(texture, 1e-12) / scale), 0.0, cap)
    expected = np.zeros_like(texture)
    for r in range(texture.shape[0]):
        expected[r] = excess[: max(r - gap, 0)].sum(axis=0)
    assert np.allclose(grain_penalty_kernel(texture, scale, penalty, cap, gap), expected)


def test_the_example_photo_script_writes_the_seeded_photo_and_points_on_its_ridge(tmp_path, capsys):
    from PIL import Image

    from aviary.horizon.synthetic import generate, main

    path = tmp_path / "photo.png"
    assert main([str(path), "--seed", "3", "--width", "64", "--height", "48"]) == 0
    truth = generate(3, 48, 64)
    assert np.array_equal(np.asarray(Image.open(path).convert("RGB")), truth.rgb)
    out = capsys.readouterr().out
    assert f"({truth.ridge[0]}, 0)" in out and f"({truth.ridge[63]}, 63)" in out


def test_the_example_photo_script_refuses_bad_input_in_one_line(tmp_path, capsys):
    from aviary.horizon.synthetic import main

    taken = tmp_path / "photo.jpg"
    taken.write_bytes(b"mine")
    assert main([str(taken)]) == 2
    assert main([str(tmp_path / "new.jpg"), "--width", "5"]) == 2
    assert main([str(tmp_path / "no-such-dir" / "x.jpg")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 3 and "exists" in err and "--width" in err and "cannot write" in err
    assert taken.read_bytes() == b"mine"
