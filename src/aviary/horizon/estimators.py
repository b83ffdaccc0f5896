"""The three course estimators over one model: simple, map (Viterbi) and human.

- `simple`: per column, the row with the best edge emission, ignoring its
  neighbours (the course's first Bayes net). It uses the edge terms only
  (`model.edge_scores`), never the colour models or the grain term: those are
  fitted around a Viterbi line, so an argmax over them would borrow map's
  answer and no longer show what the chain adds.
- `map`: the most probable whole line under the HMM (banded Viterbi).
- `human`: the most probable line under map's final model that passes through
  the given (row, col) points: every other row of a pinned column is forbidden.
  Keeping map's colour models (rather than refitting them around the pins) keeps
  the human line equal to map away from where the pins pull it: on the 120
  generated photos it is never worse than map. Refitting from the pins helped
  more on average but made a few photos worse elsewhere, far from the pins.

The emission includes sky and ground colour models fitted to the line itself,
so decoding is coordinate ascent on one joint score (line, colour models):
decode on the edges alone, fit the colours to that line, decode again under
edges + colours, repeat (like EM). Before that, a quick first line (one colour
round) says where the sky is, so the sky's own grain can be measured and grain
above a row charged to it (see `model.grain_costs`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import NDArray

from aviary.horizon.edges import FloatImage
from aviary.horizon.model import (
    RidgeModel,
    band_grain_ratio,
    colour_scores,
    edge_scores,
    grain_costs,
    prepare,
)
from aviary.horizon.viterbi import RowArray, banded_viterbi

Point = tuple[int, int]  # (row, col), 0-based
Decoder = Callable[[FloatImage, FloatImage], tuple[RowArray, float]]
FORBIDDEN = -1e9  # a pinned column's other rows: finite, so a path always exists


@dataclass(frozen=True)
class Ridges:
    """One row per column for each estimator (`human` is None without points)."""

    simple: RowArray
    map: RowArray
    human: RowArray | None


@dataclass(frozen=True)
class Decoding:
    rows: RowArray
    emit: FloatImage
    score: float


def pin(emit: FloatImage, points: Sequence[Point]) -> FloatImage:
    """A copy of `emit` in which each point's column may only use the point's row."""
    if not points:
        return emit
    pinned = emit.copy()
    for row, col in points:
        keep = pinned[row, col]
        pinned[:, col] = FORBIDDEN
        pinned[row, col] = keep
    return pinned


def decode(
    pixels: FloatImage,
    edges: FloatImage,
    model: RidgeModel,
    points: Sequence[Point] = (),
    decoder: Decoder = banded_viterbi,
    start: RowArray | None = None,
) -> Decoding:
    """Viterbi on the edges alone (or the line `start`), then alternate colour fits and
    Viterbi."""
    log_trans = model.log_transitions(pixels.shape[0])
    if start is None:
        rows, score = decoder(pin(edges, points), log_trans)
    else:
        rows, score = start, -np.inf
    best = Decoding(rows, edges, score)
    for _ in range(model.colour_rounds):
        colour = colour_scores(pixels, best.rows, model)
        if colour is None:
            break
        emit = edges + colour
        rows, score = decoder(pin(emit, points), log_trans)
        settled = bool(np.array_equal(rows, best.rows))
        best = Decoding(rows, emit, score)
        if settled:  # the colours would be refit to the same line: converged
            break
    return best


def find_ridges(
    rgb: NDArray[np.generic],
    points: Sequence[Point] = (),
    model: RidgeModel | None = None,
    decoder: Decoder = banded_viterbi,
) -> Ridges:
    """All three estimators for one photo (H x W x 3 array, or H x W grayscale).

    `decoder` is the Viterbi to use; the speed benchmark swaps in the full-transition one.
    """
    model = model or RidgeModel()
    pixels = prepare(rgb)
    height, width = pixels.shape[:2]
    for row, col in points:
        if not (0 <= row < height and 0 <= col < width):
            raise ValueError(f"point ({row}, {col}) is outside the {height}x{width} image")
    edges = edge_scores(pixels, model)
    grain = None
    if model.texture_penalty > 0:  # where is the sky? a quick first line (1 colour round)
        probe = decode(pixels, edges, replace(model, colour_rounds=model.grain_probe_rounds),
                       (), decoder)
        grain = grain_costs(pixels, probe.rows, model)
    # the full decoding, from scratch: starting from the first line would let its
    # colour models confirm it again
    emission = edges if grain is None else edges - grain
    best = decode(pixels, emission, model, (), decoder)
    if model.upper_start:  # a far layer the colour rounds took for sky?
        best = _try_higher_start(pixels, emission, model, decoder, best)
    simple_rows = np.argmax(edges, axis=0).astype(np.int64)  # emission alone: no Viterbi
    human_rows = None
    if points:  # map's own model, constrained: away from the points it can only agree
        human_rows, _ = decoder(pin(best.emit, points), model.log_transitions(height))
    return Ridges(simple=simple_rows, map=best.rows, human=human_rows)


def _try_higher_start(
    pixels: FloatImage, emission: FloatImage, model: RidgeModel, decoder: Decoder,
    best: Decoding,
) -> Decoding:
    """A second start above `best`, for a far layer the colour rounds swallowed as sky.

    The colour rounds only climb to a local optimum: fitted to a line on a nearer
    layer, the sky model learns a hazy far layer as sky and keeps the line there.
    So take the best edge line lying wholly above `best`; if the band between it
    and `best` is grainier than the sky above it (a layer, not sky), run the
    colour rounds again from it, and keep where they end when that is a
    different line. Otherwise `best` stands.
    """
    height = pixels.shape[0]
    gap = max(2, round(height * model.upper_start_gap))
    if int(best.rows.min()) < gap + height // 16:
        return best
    above = emission.copy()
    above[np.arange(height)[:, None] > (best.rows - gap)[None, :]] = FORBIDDEN
    upper, _ = decoder(above, model.log_transitions(height))
    if band_grain_ratio(pixels, upper, best.rows, model) < model.layer_grain_ratio:
        return best  # the band is as smooth as the sky above it: sky, not a layer
    other = decode(pixels, emission, model, (), decoder, start=upper)
    return other if float(np.abs(other.rows - best.rows).mean()) >= 1.0 else best


def warmup() -> None:
    """Compile (or load from cache) every horizon kernel: both Viterbi forms and the pipeline."""
    banded_viterbi(np.zeros((3, 3)), np.zeros(3))
    banded_viterbi(np.zeros((3, 3)), np.array([-1.0, 0.0, -1.0]))
    find_ridges(np.zeros((12, 12, 3), np.uint8), [(3, 3)])
