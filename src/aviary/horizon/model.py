"""The HMM a ridge line is decoded from: emission scores per pixel, a transition band.

What makes the true ridge different from the other strong edges in a photo?

1. It is an edge: brightness changes across it (the course's |vertical Sobel|).
   Edge strength is measured relative to the photo's own strong edges (its 99th
   percentile), so dim hazy photos and crisp ones score alike, and it enters as a
   log, so a faint but real ridge is not swamped by one very bright edge lower down.
2. Sky lies above it. Sky is smooth, so every long edge *above* a candidate
   row is evidence against that row. "Long" is measured by averaging the signed
   colour gradient along the row before taking its size: a ridge keeps its sign
   over many columns, cloud texture does not and averages away. And the photo's
   own sky looks different from its ground, so after a first decoding we fit
   colour models to the pixels above the line and below it, and score each
   candidate row by how well "sky above, ground below" explains its column (a
   1-D GrabCut), then decode again. Each side is a mixture of two Gaussians,
   because a sky is often blue *and* white cloud and a ground is near layers
   *and* hazy far ones; a single Gaussian stretched over both claims colours of
   the other side. They start as the side's darker and brighter half and are
   then fitted by EM (10 steps): layers of a ground often differ in hue at equal
   brightness, and halves split by brightness alone left the ground's two
   Gaussians broad, so a hazy far layer was explained about as well by a sky
   Gaussian as by the ground's, and the line slid down to the nearer layer
   (measured: map 2.18 -> 1.91 px over the 600 tuning photos). The colour term is what
   keeps the line on a hazy distant range rather than the crisp tree or city
   edge below it, and on a ridge rather than inside a bright cloud.
   Fine grain above a row counts against it too: a far hazy range can have
   nearly the sky's colour (so the colour models, fitted to a line on the nearer
   range, learn it as sky and confirm that line), but it is grainier than sky.
   "Grainier" is relative to the sky's own grain, measured above the first
   decoded line (its median), so a photo with textured clouds does not push its
   line up into them; and the few rows just above a row are not counted, because
   the grain window there straddles the ridge's own jagged outline (counting them
   lifted the line over white snow tops into the sky). The first line is a quick
   one (one colour round: more rounds measured the same); the real decoding then
   starts from scratch with the grain term.
3. Sky is usually brighter than what is below it, so an edge that gets darker
   going down counts fully and one that gets brighter counts at a discount.
4. It is continuous: neighbouring columns rarely differ by more than a few
   rows. Transitions score -slope * |step| (a Laplace prior: smooth, but a cliff
   edge can still climb steeply) inside a band of +-K rows that grows with the
   image height, and are impossible outside it.

All scores are log-probabilities up to a per-column constant, so Viterbi's sums
are log-likelihoods and the per-column argmax is the course's first Bayes net.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from statistics import NormalDist

import numpy as np
from numpy.typing import NDArray

from aviary.horizon.edges import GREY_WEIGHTS, FloatImage
from aviary.horizon.kernels import (
    colour_scores_kernel,
    edge_kernel,
    edge_scores_kernel,
    grain_penalty_kernel,
    texture_kernel,
)


@dataclass(frozen=True)
class RidgeModel:
    """Weights of the emission and transition model.

    Defaults were chosen by looking at the nine course photos and measuring the
    synthetic set (benchmarks/horizon_accuracy.py); settings that scored better on
    the synthetic set but put lines into the clouds of real photos were rejected.
    """

    edge_floor: float = 0.03  # edge strength (relative) below which a row is "no edge"
    darker_below_discount: float = 0.5  # weight of edges that get brighter going down
    sky_edge_penalty: float = 0.5  # cost per unit of ridge-like edge above the row
    colour_weight: float = 0.15  # weight of the per-pixel sky/ground colour log-ratio
    colour_floor: float = 25.0  # a pixel's colour log-likelihood never drops below -this
    sky_margin_fraction: float = 0.01  # sky colour is fit this far (per image row) above the line
    ridge_window_fraction: float = 1 / 16  # row-wise averaging window of the sky penalty
    texture_penalty: float = 1.0  # cost per unit of log-excess grain above the row (0: off)
    texture_ratio: float = 2.5  # grain counts above this multiple of the sky's grain (was 3)
    texture_quantile: float = 50.0  # the sky's grain: this percentile above the first line
    texture_cap: float = 0.5  # one pixel's grain costs at most this (times the penalty)
    texture_gap: int = 3  # grain this many rows just above a row is not counted against it
    texture_half_window: int = 2  # grain is averaged over (2 * this + 1)^2 pixels
    grain_probe_rounds: int = 1  # colour rounds of the first line the sky's grain is measured on
    colour_rounds: int = 12  # at most this many refit-colours-and-decode rounds (stops early;
    # 6 before: a line started in the clouds creeps down a few rows a round and needs ~12)
    sky_components: int = 2  # Gaussians in the sky's colour mixture (started by brightness)
    ground_components: int = 2  # and in the ground's
    colour_em_steps: int = 10  # EM steps of each colour fit (0: brightness halves, earlier model)
    colour_em_samples: int = 20000  # EM runs on at most this many evenly spaced pixels a side
    slope_penalty: float = 0.4  # log-score per row of step between columns
    band_fraction: float = 1 / 32  # half-width K of the transition band, per image row
    upper_start: bool = True  # decode again from an edge line above map's (False: earlier model)

    upper_start_gap: float = 0.04  # that line lies at least this far (per image row) above
    layer_grain_ratio: float = 1.2  # its result is kept when the band between is this much
    # grainier than the sky above the start (a far layer, not sky)

    def earlier(self) -> RidgeModel:
        """This model with the settings it had before the colour rounds ran to 12 and the
        grain ratio came down to 2.5 (the benchmarks measure it in the same run)."""
        return replace(self, colour_rounds=6, texture_ratio=3.0)

    def band(self, height: int) -> int:
        return max(3, round(height * self.band_fraction))

    def log_transitions(self, height: int) -> NDArray[np.float64]:
        """Scores of steps -K..K: -slope_penalty * |step|."""
        band = self.band(height)
        return -self.slope_penalty * np.abs(np.arange(-band, band + 1, dtype=np.float64))


def edge_scores(pixels: FloatImage, model: RidgeModel) -> FloatImage:
    """Log edge evidence per pixel minus the smooth-sky penalty for what lies above it.

    Edge evidence is relative to the photo's own strong edges (its 99th percentile):
    the course's |vertical Sobel| of the grayscale image combined with the same Sobel
    of each colour channel (a hazy range can differ from the sky in hue more than in
    brightness), with edges that get brighter going down discounted. Above the row,
    `ridge_like` edges count against it: the signed colour gradient averaged along
    the row over a window before taking its length, so it is large only on long,
    consistent edges; cloud texture of both signs averages away.
    """
    window = max(3, round(pixels.shape[1] * model.ridge_window_fraction))
    grey_gradient, colour, long_strength, averaged_grey = edge_kernel(pixels, GREY_WEIGHTS, window)
    strength = np.maximum(np.abs(grey_gradient), colour)
    edge_scale = float(np.percentile(strength, 99)) or 1.0
    return np.asarray(edge_scores_kernel(
        grey_gradient, colour, long_strength, averaged_grey,
        edge_scale, model.edge_floor, model.darker_below_discount, model.sky_edge_penalty,
    ))


def grain_costs(
    pixels: FloatImage, rows: NDArray[np.int64], model: RidgeModel
) -> FloatImage | None:
    """Cost of the grain above each (row, column), relative to the sky above `rows`.

    Grain (fine texture, see `texture_kernel`) counts where it exceeds
    `texture_ratio` times the `texture_quantile` percentile of the grain above the
    line `rows` (the sky of a first decoding), by the log of the excess, capped;
    the `texture_gap` rows just above a row are skipped. None when the penalty is
    off or the line leaves too little sky to measure.
    """
    if model.texture_penalty <= 0:
        return None
    height = pixels.shape[0]
    texture = texture_kernel(pixels, GREY_WEIGHTS, model.texture_half_window)
    margin = max(1, height // 100)
    sky = texture[np.arange(height)[:, None] < rows[None, :] - margin]
    if sky.size < pixels.shape[1]:
        return None
    scale = max(model.texture_ratio * float(np.percentile(sky, model.texture_quantile)), 1e-6)
    return np.asarray(grain_penalty_kernel(
        texture, scale, model.texture_penalty, model.texture_cap, model.texture_gap
    ))


def band_grain_ratio(
    pixels: FloatImage, upper: NDArray[np.int64], lower: NDArray[np.int64], model: RidgeModel
) -> float:
    """Median grain of the band between two lines over the median grain above the upper.

    Near 1 when the band is more sky; well above 1 when it is a far mountain layer.
    """
    height = pixels.shape[0]
    texture = texture_kernel(pixels, GREY_WEIGHTS, model.texture_half_window)
    margin = max(1, height // 100) + model.texture_half_window
    rows = np.arange(height)[:, None]
    sky = texture[rows < upper[None, :] - margin]
    band = texture[(rows > upper[None, :] + margin) & (rows < lower[None, :] - margin)]
    if sky.size < pixels.shape[1] or band.size < pixels.shape[1]:
        return 0.0
    return float(np.median(band)) / max(float(np.median(sky)), 1e-6)


def colour_scores(
    pixels: FloatImage, rows: NDArray[np.int64], model: RidgeModel
) -> FloatImage | None:
    """Log-likelihood of "sky above row r, ground from r down" for every (r, column).

    A two-Gaussian colour mixture is fit to the pixels above `rows`, one to those below
    (a few rows of margin either side), each started from brightness groups and
    refined by `colour_em_steps` EM steps; each pixel's log-density has a floor
    (at least `-colour_floor`), so one odd pixel (JPEG ringing, a bird) cannot outvote
    its column. None when either side has too few pixels to fit (a line at the very top).
    """
    height, width, _ = pixels.shape
    margin = max(1, height // 100)
    sky_margin = max(margin, round(height * model.sky_margin_fraction))
    scores, fitted = colour_scores_kernel(
        pixels, np.ascontiguousarray(rows, np.int64), sky_margin, margin,
        model.colour_floor, model.colour_weight, float(width),
        brightness_splits(model.sky_components), brightness_splits(model.ground_components),
        model.colour_em_steps, model.colour_em_samples,
    )
    return scores if fitted else None


def brightness_splits(components: int) -> NDArray[np.float64]:
    """Where a side's brightness is split to start its components: at mean + z * sd for
    the z that would cut a normal distribution into `components` equal parts (one
    split, at the mean, for two)."""
    normal = NormalDist()
    return np.array([normal.inv_cdf(k / components) for k in range(1, components)])


def prepare(rgb: NDArray[np.generic]) -> FloatImage:
    """Float RGB, C-contiguous (unblurred: a blur would smear the sky into the ridge's first
    row); grey images become three equal channels."""
    pixels = np.asarray(rgb, dtype=np.float64)
    if pixels.ndim == 2:
        pixels = np.repeat(pixels[..., None], 3, axis=2)
    pixels = np.ascontiguousarray(pixels[..., :3])
    return pixels
