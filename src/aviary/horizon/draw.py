"""Drawing ridge lines: a fresh copy of the photo per line, thickness 5 by default."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

Colour = tuple[int, int, int]
BLUE: Colour = (0, 0, 255)
RED: Colour = (255, 0, 0)
GREEN: Colour = (0, 255, 0)


def draw_line(
    rgb: NDArray[np.uint8], rows: NDArray[np.int64], colour: Colour, thickness: int = 5
) -> NDArray[np.uint8]:
    """A copy of `rgb` with `rows` painted: each column gets `thickness` pixels centred on
    its row, and steep steps are filled so the line stays connected."""
    canvas = np.array(rgb, dtype=np.uint8, copy=True)
    height = canvas.shape[0]
    half = thickness // 2
    for col, row in enumerate(rows):
        top = bottom = int(row)
        if col > 0:
            previous = int(rows[col - 1])
            top, bottom = min(top, previous), max(bottom, previous)
        lo = max(0, top - half)
        hi = min(height, bottom + thickness - half)
        canvas[lo:hi, col] = colour
        canvas[lo:hi, max(0, col - half) : col + thickness - half] = colour
    return canvas
