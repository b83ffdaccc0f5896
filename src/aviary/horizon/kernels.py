"""numba kernels for the per-pixel work: gradients, grain, the edge emission, colour
models and the Laplace-band Viterbi step.

All are plain loops so they run in one pass over the image without the
temporaries numpy would allocate; at 1920x1080 that is the difference between
seconds and a tenth of one.
"""

from __future__ import annotations

import numpy as np
from numba import njit

LOG_2PI = float(np.log(2 * np.pi))
RIDGE_REGULARISER = 4.0  # added to each colour variance: JPEG-flat skies are not singular
SOFTPLUS_STEP = 1 / 64  # log(1 + exp(-x)) tabulated on 0..32 at this step (error < 1e-5)
SOFTPLUS_TABLE = np.log1p(np.exp(-np.arange(0.0, 32.0 + 2 * SOFTPLUS_STEP, SOFTPLUS_STEP)))


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


@njit(cache=True, nogil=True, fastmath=True)
def colour_scores_kernel(
    pixels, rows, sky_margin, ground_margin, floor, weight, min_pixels,
    sky_splits, ground_splits, iterations, max_samples,
):  # pragma: no cover - compiled
    """Score of "sky above row r, ground from r down" for every (r, column).

    Sky is the pixels more than `sky_margin` rows above `rows`, ground those more
    than `ground_margin` below. Each side is a mixture of Gaussians in RGB, one per
    brightness group to start with: a side's pixels are split where their brightness
    (R + G + B) crosses mean + z * sd for each z in `sky_splits` / `ground_splits`
    (one split at z = 0 gives a darker and a brighter half). A sky is often blue
    *and* white cloud, a ground near layers *and* hazy far ones, and one Gaussian
    stretched over both would claim colours that belong to the other side. Then
    `iterations` EM steps on an evenly spaced sample of at most `max_samples` of the
    side's pixels let the components follow colour, not only brightness (layers of
    a ground often differ in hue at equal brightness). Returns (scores, fitted):
    scores are `weight` * (sum of log p(sky) above r + sum of log p(ground) from r
    down); fitted is False (scores zero) when a side has fewer than `min_pixels`.
    """
    height, width, _ = pixels.shape
    sky_n = 0.0  # scalars, not arrays: no store-to-load chains in the hot loop
    sky_grey = 0.0
    sky_grey2 = 0.0
    ground_n = 0.0
    ground_grey = 0.0
    ground_grey2 = 0.0
    for r in range(height):
        for c in range(width):
            grey = pixels[r, c, 0] + pixels[r, c, 1] + pixels[r, c, 2]
            if r < rows[c] - sky_margin:
                sky_n += 1.0
                sky_grey += grey
                sky_grey2 += grey * grey
            elif r > rows[c] + ground_margin:
                ground_n += 1.0
                ground_grey += grey
                ground_grey2 += grey * grey
    scores = np.zeros((height, width))
    if sky_n < min_pixels or ground_n < min_pixels:
        return scores, False
    sky_count = sky_splits.shape[0] + 1
    count = sky_count + ground_splits.shape[0] + 1  # components: the sky's, then the ground's
    n_side = np.array([sky_n, ground_n])
    thresholds = np.empty(count - 2)  # brightness splits, the sky's then the ground's
    sky_mean = sky_grey / sky_n
    sky_sd = np.sqrt(max(sky_grey2 / sky_n - sky_mean * sky_mean, 0.0))
    for j in range(sky_count - 1):
        thresholds[j] = sky_mean + sky_splits[j] * sky_sd
    ground_mean = ground_grey / ground_n
    ground_sd = np.sqrt(max(ground_grey2 / ground_n - ground_mean * ground_mean, 0.0))
    for j in range(ground_splits.shape[0]):
        thresholds[sky_count - 1 + j] = ground_mean + ground_splits[j] * ground_sd
    # per component the count, the three sums and the six distinct products
    acc = np.zeros((count, 10))
    for r in range(height):
        for c in range(width):
            side = _side(r, rows[c], sky_margin, ground_margin)
            if side < 0:
                continue
            x0 = pixels[r, c, 0]
            x1 = pixels[r, c, 1]
            x2 = pixels[r, c, 2]
            grey = x0 + x1 + x2
            if side == 0:
                k = 0
                for j in range(sky_count - 1):
                    if grey > thresholds[j]:
                        k += 1
            else:
                k = sky_count
                for j in range(sky_count - 1, count - 2):
                    if grey > thresholds[j]:
                        k += 1
            _accumulate(acc, k, x0, x1, x2, 1.0)
    means = np.zeros((count, 3))
    inverses = np.zeros((count, 3, 3))
    log_norms = np.full(count, -1e30)  # log weight - 0.5 * log det; finite, for fastmath
    _fit_components(acc, n_side, sky_count, means, inverses, log_norms)
    for _ in range(iterations):
        _em_step(pixels, rows, sky_margin, ground_margin, max_samples, n_side, sky_count,
                 means, inverses, log_norms, floor)
    above = np.zeros(width)  # sum of (log p(sky) - log p(ground)) over the rows above r
    ground_total = np.zeros(width)
    for r in range(height):
        for c in range(width):
            x0, x1, x2 = pixels[r, c, 0], pixels[r, c, 1], pixels[r, c, 2]
            sky = _mixture(x0, x1, x2, means, inverses, log_norms, 0, sky_count, floor)
            ground = _mixture(x0, x1, x2, means, inverses, log_norms, sky_count, count, floor)
            scores[r, c] = above[c]
            above[c] += sky - ground
            ground_total[c] += ground
    for r in range(height):
        for c in range(width):
            scores[r, c] = weight * (scores[r, c] + ground_total[c])
    return scores, True


@njit(cache=True, nogil=True, inline="always")
def _accumulate(acc, k, x0, x1, x2, w):  # pragma: no cover - compiled
    """Add one colour, with weight w, to component k's count, sums and products."""
    acc[k, 0] += w
    acc[k, 1] += w * x0
    acc[k, 2] += w * x1
    acc[k, 3] += w * x2
    acc[k, 4] += w * x0 * x0
    acc[k, 5] += w * x0 * x1
    acc[k, 6] += w * x0 * x2
    acc[k, 7] += w * x1 * x1
    acc[k, 8] += w * x1 * x2
    acc[k, 9] += w * x2 * x2


@njit(cache=True, nogil=True)
def _fit_components(acc, n_side, sky_count, means, inverses, log_norms):  # pragma: no cover
    """Each component's Gaussian from its accumulated moments; an empty one is dropped."""
    products = np.empty((3, 3))
    for k in range(acc.shape[0]):
        n = acc[k, 0]
        if n < 1.0:
            log_norms[k] = -1e30
            continue
        products[0, 0] = acc[k, 4]
        products[0, 1] = products[1, 0] = acc[k, 5]
        products[0, 2] = products[2, 0] = acc[k, 6]
        products[1, 1] = acc[k, 7]
        products[1, 2] = products[2, 1] = acc[k, 8]
        products[2, 2] = acc[k, 9]
        mean, inverse, log_det = _fit_gaussian(n, acc[k, 1:4].copy(), products)
        means[k] = mean
        inverses[k] = inverse
        side_n = n_side[0] if k < sky_count else n_side[1]
        log_norms[k] = np.log(n / side_n) - 0.5 * log_det - 1.5 * LOG_2PI


@njit(cache=True, nogil=True, fastmath=True)
def _em_step(
    pixels, rows, sky_margin, ground_margin, max_samples, n_side, sky_count,
    means, inverses, log_norms, floor,
):  # pragma: no cover - compiled
    """One EM step of both sides' mixtures on an evenly spaced sample of each side.

    Responsibilities are each component's share of the pixel's mixture density
    (within its own side); the components are refit from the weighted moments,
    scaled back to the side's full pixel count.
    """
    height, width, _ = pixels.shape
    count = means.shape[0]
    acc = np.zeros((count, 10))
    seen = np.zeros(2)
    total = height * width
    stride = max(1, total // max_samples)
    log_parts = np.empty(count)
    for index in range(0, total, stride):
        r = index // width
        c = index - r * width
        side = _side(r, rows[c], sky_margin, ground_margin)
        if side < 0:
            continue
        first = 0 if side == 0 else sky_count
        last = sky_count if side == 0 else count
        x0, x1, x2 = pixels[r, c, 0], pixels[r, c, 1], pixels[r, c, 2]
        top = -1e30
        for k in range(first, last):
            log_parts[k] = _component(x0, x1, x2, means, inverses, log_norms, k)
            top = max(top, log_parts[k])
        total_weight = 0.0
        for k in range(first, last):
            log_parts[k] = np.exp(log_parts[k] - top) if log_parts[k] > top - 40.0 else 0.0
            total_weight += log_parts[k]
        seen[side] += 1.0
        for k in range(first, last):
            _accumulate(acc, k, x0, x1, x2, log_parts[k] / total_weight)
    for k in range(count):
        side = 0 if k < sky_count else 1
        if seen[side] > 0:
            for j in range(10):
                acc[k, j] *= n_side[side] / seen[side]
    _fit_components(acc, n_side, sky_count, means, inverses, log_norms)


@njit(cache=True, nogil=True, inline="always", fastmath=True)
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


@njit(cache=True, nogil=True, inline="always", fastmath=True)
def _log_add(a, b):  # pragma: no cover - compiled
    """log(exp(a) + exp(b)) by table: libm is the cost in the scoring loop."""
    top = max(a, b)
    x = (top - min(a, b)) * (1.0 / SOFTPLUS_STEP)
    if x >= 32.0 / SOFTPLUS_STEP:  # exp(-32) changes nothing
        return top
    i = int(x)
    return top + SOFTPLUS_TABLE[i] + (x - i) * (SOFTPLUS_TABLE[i + 1] - SOFTPLUS_TABLE[i])


@njit(cache=True, nogil=True, inline="always", fastmath=True)
def _mixture(x0, x1, x2, means, inverses, log_norms, first, last, floor):  # pragma: no cover
    """log of the mixture of components first..last-1 at one colour, never below -floor."""
    total = _component(x0, x1, x2, means, inverses, log_norms, first)
    for k in range(first + 1, last):
        total = _log_add(total, _component(x0, x1, x2, means, inverses, log_norms, k))
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
def texture_kernel(pixels, grey_weights, half):  # pragma: no cover - compiled
    """Fine texture: |horizontal second difference| of grey, box-averaged over
    (2 * half + 1)^2 pixels (edges repeated).

    A second difference across the columns does not see a ridge (a change going
    down) or a sky's smooth gradient, only grain: rock, trees, a distant range's
    speckle. Sky keeps just its sensor noise.
    """
    height, width, _ = pixels.shape
    grey = np.empty((height, width))
    for r in range(height):
        for c in range(width):
            grey[r, c] = (grey_weights[0] * pixels[r, c, 0] + grey_weights[1] * pixels[r, c, 1]
                          + grey_weights[2] * pixels[r, c, 2])
    rows_sum = np.empty((height, width))
    size = 2 * half + 1
    for r in range(height):  # horizontal box sum of |second difference|
        acc = 0.0
        for j in range(-half, half + 1):
            acc += _grain(grey, r, min(max(j, 0), width - 1), width)
        for c in range(width):
            rows_sum[r, c] = acc
            enter = min(c + half + 1, width - 1)
            leave = max(c - half, 0)
            acc += _grain(grey, r, enter, width) - _grain(grey, r, leave, width)
    texture = np.empty((height, width))
    column = np.zeros(width)
    for j in range(-half, half + 1):  # vertical box sum, running down the rows
        jj = min(max(j, 0), height - 1)
        for c in range(width):
            column[c] += rows_sum[jj, c]
    scale = 1.0 / (size * size)
    for r in range(height):
        enter = min(r + half + 1, height - 1)
        leave = max(r - half, 0)
        for c in range(width):
            texture[r, c] = column[c] * scale
            column[c] += rows_sum[enter, c] - rows_sum[leave, c]
    return texture


@njit(cache=True, nogil=True, inline="always")
def _grain(grey, r, c, width):  # pragma: no cover - compiled
    left = max(c - 1, 0)
    right = min(c + 1, width - 1)
    return abs(grey[r, left] - 2.0 * grey[r, c] + grey[r, right])


@njit(cache=True, nogil=True)
def edge_scores_kernel(
    grey_gradient, colour_strength, long_strength, averaged_grey,
    edge_scale, edge_floor, discount, sky_edge_penalty,
):  # pragma: no cover - compiled
    """The edge emission in one pass: log edge evidence at the row minus what is above it.

    edge = min(max(|grey|, colour) / edge_scale, 1), discounted when it gets brighter
    going down; ridge_like = min(long_strength / edge_scale, 1), likewise discounted.
    The score of row r is log(edge_floor + edge[r]) - sky_edge_penalty * (sum of
    ridge_like over the rows above r).
    """
    height, width = grey_gradient.shape
    scores = np.empty((height, width))
    above = np.zeros(width)
    for r in range(height):
        for c in range(width):
            g = grey_gradient[r, c]
            strength = max(abs(g), colour_strength[r, c])
            edge = min(strength / edge_scale, 1.0)
            if g > 0:
                edge *= discount
            scores[r, c] = np.log(edge_floor + edge) - above[c]
            ridge_like = min(long_strength[r, c] / edge_scale, 1.0)
            if averaged_grey[r, c] > 0:
                ridge_like *= discount
            above[c] += sky_edge_penalty * ridge_like
    return scores


@njit(cache=True, nogil=True)
def grain_penalty_kernel(texture, texture_scale, penalty, cap, gap):  # pragma: no cover
    """Cost of row r: penalty * sum over rows above r - gap of
    clip(log(texture / texture_scale), 0, cap).

    The `gap` rows just above r are skipped: the grain window straddles the ridge
    there, and a jagged ridge's own outline is not grain in the sky.
    """
    height, width = texture.shape
    costs = np.zeros((height, width))
    above = np.zeros(width)
    for r in range(gap + 1, height):
        source = r - gap - 1
        for c in range(width):
            t = texture[source, c]
            if t > texture_scale:
                above[c] += penalty * min(np.log(t / texture_scale), cap)
            costs[r, c] = above[c]
    return costs


@njit(cache=True, nogil=True)
def backtrack(score, back):  # pragma: no cover - compiled
    """The best path's rows, from the last column's scores and each column's back-pointers.

    Ties go to the lower row index, as in every Viterbi here.
    """
    width, height = back.shape
    rows = np.empty(width, np.int64)
    last = 0
    for r in range(1, height):
        if score[r] > score[last]:
            last = r
    rows[width - 1] = last
    for c in range(width - 1, 0, -1):
        rows[c - 1] = back[c, rows[c]]
    return rows, score[last]


@njit(cache=True, nogil=True)
def laplace_viterbi_kernel(emit, slope, band):  # pragma: no cover - compiled
    """Viterbi with log_trans(d) = -slope * |d| for |d| <= band, in O(rows) per column.

    The best predecessor of row r from above is max over p in [r - band, r] of
    (score[p] + slope * p) - slope * r: a sliding-window maximum, kept in a
    monotone queue; likewise from below. So the band costs nothing, however wide.
    Ties go to the lower predecessor row, like the general kernel.
    """
    height, width = emit.shape  # rows x columns, read in place (a transposed copy costs more)
    score = emit[:, 0].copy()
    fresh = np.empty(height)
    back = np.empty((width, height), np.int32)
    queue = np.empty(height, np.int64)
    best_value = np.empty(height)
    best_arg = np.empty(height, np.int64)
    rising = np.empty(height)  # score[p] + slope * p
    falling = np.empty(height)  # score[p] - slope * p
    for c in range(1, width):
        for p in range(height):
            rising[p] = score[p] + slope * p
            falling[p] = score[p] - slope * p
        # from above or level: p in [r - band, r], value rising[p]
        head = 0
        tail = 0
        for r in range(height):
            value = rising[r]
            while tail > head and rising[queue[tail - 1]] < value:
                tail -= 1
            queue[tail] = r
            tail += 1
            if queue[head] < r - band:
                head += 1
            best_value[r] = rising[queue[head]] - slope * r
            best_arg[r] = queue[head]
        # from below: p in [r + 1, r + band], value falling[p]
        head = 0
        tail = 0
        for r in range(height - 2, -1, -1):
            p = r + 1
            value = falling[p]
            while tail > head and falling[queue[tail - 1]] <= value:
                tail -= 1
            queue[tail] = p
            tail += 1
            if queue[head] > r + band:
                head += 1
            candidate = falling[queue[head]] + slope * r
            if candidate > best_value[r]:
                best_value[r] = candidate
                best_arg[r] = queue[head]
        for r in range(height):
            fresh[r] = best_value[r] + emit[r, c]
            back[c, r] = best_arg[r]
        score, fresh = fresh, score
    return backtrack(score, back)
