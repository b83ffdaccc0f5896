"""The three course estimators over one model: simple, map (Viterbi) and human.

- `simple`: per column, the row with the best emission score, ignoring its
  neighbours (the course's first Bayes net).
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
) -> Decoding:
    """Viterbi on the edges alone, then alternate colour fits and Viterbi."""
    log_trans = model.log_transitions(pixels.shape[0])
    rows, score = decoder(pin(edges, points), log_trans)
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
    best = decode(pixels, edges if grain is None else edges - grain, model, (), decoder)
    simple_rows = np.argmax(best.emit, axis=0).astype(np.int64)
    human_rows = None
    if points:  # map's own model, constrained: away from the points it can only agree
        human_rows, _ = decoder(pin(best.emit, points), model.log_transitions(height))
    return Ridges(simple=simple_rows, map=best.rows, human=human_rows)


def warmup() -> None:
    """Compile (or load from cache) every horizon kernel: both Viterbi forms and the pipeline."""
    banded_viterbi(np.zeros((3, 3)), np.zeros(3))
    banded_viterbi(np.zeros((3, 3)), np.array([-1.0, 0.0, -1.0]))
    find_ridges(np.zeros((12, 12, 3), np.uint8), [(3, 3)])
