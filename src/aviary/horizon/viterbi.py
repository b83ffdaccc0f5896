"""Viterbi decoding of a ridge line: rows are states, columns are time.

A path picks one row per column; its score is the sum of the emission scores
of its pixels plus a transition score for each step between neighbouring
columns. Transitions are *banded*: a step of d rows scores `log_trans[d + K]`
for |d| <= K and is impossible beyond, so one column costs O(rows * (2K+1))
instead of O(rows**2) and a photo of 256 columns decodes in about a
millisecond; the model's own transitions (-slope * |d|) have an even faster
kernel (`kernels.laplace_viterbi_kernel`, O(rows) per column whatever K).
Everything is in log space (sums, never products).

`viterbi_full_reference` is the textbook full-transition version in plain
numpy, kept as the baseline the speed benchmark compares against and as a
cross-check in the tests.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray

from aviary.horizon.kernels import backtrack, laplace_viterbi_kernel

FloatArray = NDArray[np.float64]
RowArray = NDArray[np.int64]

NEG_INF = -np.inf


@njit(cache=True, nogil=True)
def _banded_viterbi_kernel(emit_by_column, log_trans):  # pragma: no cover - compiled
    """emit_by_column is (W, H) C-contiguous; returns (best rows, best score)."""
    width, height = emit_by_column.shape
    band = (log_trans.shape[0] - 1) // 2
    score = emit_by_column[0].copy()
    fresh = np.empty(height)
    back = np.empty((width, height), np.int32)
    for c in range(1, width):
        for r in range(height):
            lo = max(0, r - band)
            hi = min(height - 1, r + band)
            best = -np.inf
            arg = lo
            for p in range(lo, hi + 1):
                s = score[p] + log_trans[r - p + band]
                if s > best:
                    best = s
                    arg = p
            fresh[r] = best + emit_by_column[c, r]
            back[c, r] = arg
        score, fresh = fresh, score
    return backtrack(score, back)


def banded_viterbi(emit: FloatArray, log_trans: FloatArray) -> tuple[RowArray, float]:
    """Best path through `emit` (rows x columns) under banded transitions.

    `log_trans` has odd length 2K+1: entry K + d scores a step of d rows.
    Returns (row per column, total log score). Ties go to the lower row index.
    """
    if emit.ndim != 2 or emit.shape[0] == 0 or emit.shape[1] == 0:
        raise ValueError("emission scores must be a non-empty rows x columns array")
    if log_trans.ndim != 1 or log_trans.shape[0] % 2 == 0:
        raise ValueError("log_trans must have odd length 2K+1")
    band = (log_trans.shape[0] - 1) // 2
    slope = laplace_slope(log_trans)
    if slope is not None:
        rows, total = laplace_viterbi_kernel(np.asarray(emit, dtype=np.float64), slope, band)
    else:
        by_column = np.ascontiguousarray(emit.T, dtype=np.float64)
        rows, total = _banded_viterbi_kernel(by_column, np.ascontiguousarray(log_trans, np.float64))
    return rows, float(total)


def laplace_slope(log_trans: FloatArray) -> float | None:
    """a if log_trans is exactly -a * |d| over the band (the model's shape), else None.

    That shape has an O(rows)-per-column kernel whatever the band's width.
    """
    band = (log_trans.shape[0] - 1) // 2
    if band == 0:
        return None
    slope = float(-log_trans[band + 1])
    steps = np.abs(np.arange(-band, band + 1, dtype=np.float64))
    return slope if np.array_equal(log_trans, -slope * steps) else None


def full_transition_matrix(height: int, log_trans: FloatArray) -> FloatArray:
    """The (previous row, next row) log-transition matrix the band stands for."""
    band = (log_trans.shape[0] - 1) // 2
    step = np.arange(height)[None, :] - np.arange(height)[:, None]
    matrix = np.full((height, height), NEG_INF)
    inside = np.abs(step) <= band
    matrix[inside] = log_trans[step[inside] + band]
    return matrix


def viterbi_full_reference(emit: FloatArray, log_trans: FloatArray) -> tuple[RowArray, float]:
    """Textbook Viterbi with a full rows x rows transition matrix, vectorised numpy."""
    height, width = emit.shape
    matrix = full_transition_matrix(height, log_trans)
    score = emit[:, 0].copy()
    back = np.empty((width, height), np.int64)
    for c in range(1, width):
        candidates = score[:, None] + matrix
        back[c] = np.argmax(candidates, axis=0)
        score = candidates[back[c], np.arange(height)] + emit[:, c]
    rows = np.empty(width, np.int64)
    rows[-1] = int(np.argmax(score))
    for c in range(width - 1, 0, -1):
        rows[c - 1] = back[c, rows[c]]
    return rows, float(score[rows[-1]])

