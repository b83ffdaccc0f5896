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
def _log_density(x0, x1, x2, mean, inverse, log_det, floor):  # pragma: no cover - compiled
    d0, d1, d2 = x0 - mean[0], x1 - mean[1], x2 - mean[2]
    m = (
        inverse[0, 0] * d0 * d0 + inverse[1, 1] * d1 * d1 + inverse[2, 2] * d2 * d2
        + 2.0 * (inverse[0, 1] * d0 * d1 + inverse[0, 2] * d0 * d2 + inverse[1, 2] * d1 * d2)
    )
    # a floor, so an outlier pixel (JPEG ringing, a bird) cannot outvote its column
    return max(-0.5 * (m + log_det + 3.0 * LOG_2PI), -floor)


@njit(cache=True, nogil=True)
def colour_scores_kernel(
    pixels, rows, sky_margin, ground_margin, floor, weight, min_pixels
):  # pragma: no cover - compiled
    """Score of "sky above row r, ground from r down" for every (r, column).

    Fits one Gaussian to the pixels more than `sky_margin` rows above `rows` and one
    to those more than `ground_margin` rows below. Returns (scores, fitted): scores
    are `weight` * (sum of log p(sky) above r + sum of log p(ground) from r down),
    fitted is False (and scores zero) when a side has fewer than `min_pixels`.
    """
    height, width, _ = pixels.shape
    n = np.zeros(2)
    sums = np.zeros((2, 3))
    products = np.zeros((2, 3, 3))
    for r in range(height):
        for c in range(width):
            if r < rows[c] - sky_margin:
                side = 0
            elif r > rows[c] + ground_margin:
                side = 1
            else:
                continue
            n[side] += 1.0
            for i in range(3):
                v = pixels[r, c, i]
                sums[side, i] += v
                for j in range(i, 3):
                    products[side, i, j] += v * pixels[r, c, j]
    scores = np.zeros((height, width))
    if n[0] < min_pixels or n[1] < min_pixels:
        return scores, False
    for side in range(2):
        for i in range(3):
            for j in range(i):
                products[side, i, j] = products[side, j, i]
    sky_mean, sky_inv, sky_logdet = _fit_gaussian(n[0], sums[0], products[0])
    ground_mean, ground_inv, ground_logdet = _fit_gaussian(n[1], sums[1], products[1])
    ratio = np.empty((height, width))
    above = np.zeros(width)
    for r in range(height):
        for c in range(width):
            x0, x1, x2 = pixels[r, c, 0], pixels[r, c, 1], pixels[r, c, 2]
            ground = _log_density(x0, x1, x2, ground_mean, ground_inv, ground_logdet, floor)
            sky = _log_density(x0, x1, x2, sky_mean, sky_inv, sky_logdet, floor)
            ratio[r, c] = sky - ground
            above[c] += ground  # first pass: the column's all-ground total
    for r in range(height):
        for c in range(width):
            scores[r, c] = weight * above[c]
            above[c] += ratio[r, c]
    return scores, True


@njit(cache=True, nogil=True)
def edge_kernel(pixels, grey_weights, window):  # pragma: no cover - compiled
    """Vertical Sobel of each colour channel and of the grey image, plus row-averages.

    Returns (grey_gradient, colour_strength, averaged_channels, averaged_grey), all
    H x W (averaged_channels H x W x 3). Boundaries repeat the edge pixel, like
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
    averaged = np.empty((height, width, 3))
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
            for k in range(3):
                averaged[r, c, k] = acc[k] / window
            averaged_grey[r, c] = acc[3] / window
            enter = min(max(c - half + window, 0), width - 1)
            leave = min(max(c - half, 0), width - 1)
            for k in range(3):
                acc[k] += channels[r, enter, k] - channels[r, leave, k]
            acc[3] += grey[r, enter] - grey[r, leave]
    return grey, strength, averaged, averaged_grey


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
