"""numba kernels for the per-pixel work: colour models and the Laplace-band Viterbi step.

Both are plain loops so they run in one pass over the image without the
temporaries numpy would allocate; at 1920x1080 that is the difference between
seconds and a tenth of one.
"""

from __future__ import annotations

import numpy as np
from numba import njit

LOG_2PI = float(np.log(2 * np.pi))
RIDGE_REGULARISER = 4.0  # added to each colour variance: JPEG-flat skies are not singular


@njit(cache=True, nogil=True)
def _fit_gaussian(n, total, products):  # pragma: no cover - compiled
    """Mean, inverse covariance and log-determinant from counts, sums and sums of products."""
    mean = total / n
    cov = products / n - np.outer(mean, mean)
    for k in range(3):
        cov[k, k] += RIDGE_REGULARISER
    a, b, c = cov[0, 0], cov[0, 1], cov[0, 2]
    d, e, f = cov[1, 1], cov[1, 2], cov[2, 2]
    c00 = d * f - e * e
    c01 = c * e - b * f
    c02 = b * e - c * d
    det = a * c00 + b * c01 + c * c02
    inverse = np.empty((3, 3))
    inverse[0, 0] = c00 / det
    inverse[0, 1] = inverse[1, 0] = c01 / det
    inverse[0, 2] = inverse[2, 0] = c02 / det
    inverse[1, 1] = (a * f - c * c) / det
    inverse[1, 2] = inverse[2, 1] = (b * c - a * e) / det
    inverse[2, 2] = (a * d - b * b) / det
    return mean, inverse, np.log(det)


@njit(cache=True, nogil=True)
def _side(r, row, sky_margin, ground_margin):  # pragma: no cover - compiled
    """0 for sky (well above the line), 1 for ground (below it), -1 for the margin."""
    if r < row - sky_margin:
        return 0
    if r > row + ground_margin:
        return 1
    return -1


@njit(cache=True, nogil=True)
def colour_scores_kernel(
    pixels, rows, sky_margin, ground_margin, floor, weight, min_pixels
):  # pragma: no cover - compiled
    """Score of "sky above row r, ground from r down" for every (r, column).

    Sky is the pixels more than `sky_margin` rows above `rows`, ground those more
    than `ground_margin` below. Each is modelled by two Gaussians in RGB, one for its
    darker and one for its brighter half (split at the side's mean brightness): a sky
    is often blue *and* white cloud, a ground near layers *and* hazy far ones, and
    one Gaussian stretched over both would claim colours that belong to the other
    side. Returns (scores, fitted): scores are `weight` * (sum of log p(sky) above r
    + sum of log p(ground) from r down); fitted is False (scores zero) when a side
    has fewer than `min_pixels`.
    """
    height, width, _ = pixels.shape
    n_side = np.zeros(2)
    grey_side = np.zeros(2)
    for r in range(height):
        for c in range(width):
            side = _side(r, rows[c], sky_margin, ground_margin)
            if side >= 0:
                n_side[side] += 1.0
                grey_side[side] += pixels[r, c, 0] + pixels[r, c, 1] + pixels[r, c, 2]
    scores = np.zeros((height, width))
    if n_side[0] < min_pixels or n_side[1] < min_pixels:
        return scores, False
    split = grey_side / n_side
    n = np.zeros(4)  # component = 2 * side + (1 if brighter than the side's mean)
    sums = np.zeros((4, 3))
    products = np.zeros((4, 3, 3))
    for r in range(height):
        for c in range(width):
            side = _side(r, rows[c], sky_margin, ground_margin)
            if side < 0:
                continue
            grey = pixels[r, c, 0] + pixels[r, c, 1] + pixels[r, c, 2]
            k = 2 * side + (1 if grey > split[side] else 0)
            n[k] += 1.0
            for i in range(3):
                v = pixels[r, c, i]
                sums[k, i] += v
                for j in range(i, 3):
                    products[k, i, j] += v * pixels[r, c, j]
    means = np.zeros((4, 3))
    inverses = np.zeros((4, 3, 3))
    log_norms = np.full(4, -np.inf)  # log weight - 0.5 * log det
    for k in range(4):
        if n[k] < 1.0:
            continue
        for i in range(3):
            for j in range(i):
                products[k, i, j] = products[k, j, i]
        mean, inverse, log_det = _fit_gaussian(n[k], sums[k], products[k])
        means[k] = mean
        inverses[k] = inverse
        log_norms[k] = np.log(n[k] / n_side[k // 2]) - 0.5 * log_det - 1.5 * LOG_2PI
    ratio = np.empty((height, width))
    above = np.zeros(width)
    for r in range(height):
        for c in range(width):
            sky = _mixture(pixels, r, c, means, inverses, log_norms, 0, floor)
            ground = _mixture(pixels, r, c, means, inverses, log_norms, 2, floor)
            ratio[r, c] = sky - ground
            above[c] += ground  # first pass: the column's all-ground total
    for r in range(height):
        for c in range(width):
            scores[r, c] = weight * above[c]
            above[c] += ratio[r, c]
    return scores, True


@njit(cache=True, nogil=True, inline="always")
def _component(x0, x1, x2, means, inverses, log_norms, k):  # pragma: no cover - compiled
    """log weight + log density of Gaussian component k at one colour (scalars only)."""
    d0 = x0 - means[k, 0]
    d1 = x1 - means[k, 1]
    d2 = x2 - means[k, 2]
    q = (
        inverses[k, 0, 0] * d0 * d0 + inverses[k, 1, 1] * d1 * d1 + inverses[k, 2, 2] * d2 * d2
        + 2.0 * (inverses[k, 0, 1] * d0 * d1 + inverses[k, 0, 2] * d0 * d2
                 + inverses[k, 1, 2] * d1 * d2)
    )
    return log_norms[k] - 0.5 * q


@njit(cache=True, nogil=True, inline="always")
def _mixture(pixels, r, c, means, inverses, log_norms, first, floor):  # pragma: no cover
    """log of a two-Gaussian mixture at one pixel, never below -floor (outliers)."""
    x0, x1, x2 = pixels[r, c, 0], pixels[r, c, 1], pixels[r, c, 2]
    a = _component(x0, x1, x2, means, inverses, log_norms, first)
    b = _component(x0, x1, x2, means, inverses, log_norms, first + 1)
    top = max(a, b)
    if top < -floor - 40.0:  # both far below the floor (or an empty component): the floor
        return -floor
    gap = min(a, b) - top
    total = top if gap < -30.0 else top + np.log1p(np.exp(gap))  # exp(-30) changes nothing
    return max(total, -floor)


@njit(cache=True, nogil=True)
def edge_kernel(pixels, grey_weights, window):  # pragma: no cover - compiled
    """Vertical Sobel of each colour channel and of the grey image, plus row-averages.

    Returns (grey_gradient, colour_strength, long_strength, averaged_grey), all H x W:
    long_strength is the size of the channel gradients averaged over `window` columns.
    Boundaries repeat the edge pixel, like
    scipy.ndimage.sobel(mode="nearest"), which `edges.py` uses and tests compare with.
    """
    height, width, _ = pixels.shape
    channels = np.empty((height, width, 3))
    grey = np.empty((height, width))
    strength = np.empty((height, width))
    for r in range(height):
        up = max(r - 1, 0)
        down = min(r + 1, height - 1)
        for c in range(width):
            left = max(c - 1, 0)
            right = min(c + 1, width - 1)
            total = 0.0
            g = 0.0
            for k in range(3):
                d = (
                    pixels[down, left, k] + 2.0 * pixels[down, c, k] + pixels[down, right, k]
                    - pixels[up, left, k] - 2.0 * pixels[up, c, k] - pixels[up, right, k]
                )
                channels[r, c, k] = d
                total += d * d
                g += grey_weights[k] * d
            grey[r, c] = g
            strength[r, c] = np.sqrt(total / 3.0)
    long_strength = np.empty((height, width))
    averaged_grey = np.empty((height, width))
    half = window // 2
    for r in range(height):  # running sums over [c - half, c - half + window), edges repeated
        acc = np.zeros(4)
        for j in range(-half, window - half):
            jj = min(max(j, 0), width - 1)
            for k in range(3):
                acc[k] += channels[r, jj, k]
            acc[3] += grey[r, jj]
        for c in range(width):
            long_strength[r, c] = np.sqrt((acc[0] ** 2 + acc[1] ** 2 + acc[2] ** 2) / 3.0) / window
            averaged_grey[r, c] = acc[3] / window
            enter = min(max(c - half + window, 0), width - 1)
            leave = min(max(c - half, 0), width - 1)
            for k in range(3):
                acc[k] += channels[r, enter, k] - channels[r, leave, k]
            acc[3] += grey[r, enter] - grey[r, leave]
    return grey, strength, long_strength, averaged_grey


@njit(cache=True, nogil=True)
def laplace_viterbi_kernel(emit_by_column, slope, band):  # pragma: no cover - compiled
    """Viterbi with log_trans(d) = -slope * |d| for |d| <= band, in O(rows) per column.

    The best predecessor of row r from above is max over p in [r - band, r] of
    (score[p] + slope * p) - slope * r: a sliding-window maximum, kept in a
    monotone queue; likewise from below. So the band costs nothing, however wide.
    Ties go to the lower predecessor row, like the general kernel.
    """
    width, height = emit_by_column.shape
    score = emit_by_column[0].copy()
    fresh = np.empty(height)
    back = np.empty((width, height), np.int32)
    queue = np.empty(height, np.int64)
    best_value = np.empty(height)
    best_arg = np.empty(height, np.int64)
    for c in range(1, width):
        # from above or level: p in [r - band, r], value score[p] + slope * p
        head = 0
        tail = 0
        for r in range(height):
            value = score[r] + slope * r
            while tail > head and score[queue[tail - 1]] + slope * queue[tail - 1] < value:
                tail -= 1
            queue[tail] = r
            tail += 1
            if queue[head] < r - band:
                head += 1
            best_value[r] = score[queue[head]] + slope * queue[head] - slope * r
            best_arg[r] = queue[head]
        # from below: p in [r + 1, r + band], value score[p] - slope * p
        head = 0
        tail = 0
        for r in range(height - 2, -1, -1):
            p = r + 1
            value = score[p] - slope * p
            while tail > head and score[queue[tail - 1]] - slope * queue[tail - 1] <= value:
                tail -= 1
            queue[tail] = p
            tail += 1
            if queue[head] > r + band:
                head += 1
            candidate = score[queue[head]] - slope * queue[head] + slope * r
            if candidate > best_value[r]:
                best_value[r] = candidate
                best_arg[r] = queue[head]
        for r in range(height):
            fresh[r] = best_value[r] + emit_by_column[c, r]
            back[c, r] = best_arg[r]
        score, fresh = fresh, score
    rows = np.empty(width, np.int64)
    last = 0
    for r in range(1, height):
        if score[r] > score[last]:
            last = r
    total = score[last]
    rows[width - 1] = last
    for c in range(width - 1, 0, -1):
        rows[c - 1] = back[c, rows[c]]
    return rows, total
