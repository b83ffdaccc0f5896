"""Edge strength as the course defines it: |vertical Sobel| of the grayscale image."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from scipy import ndimage

FloatImage = NDArray[np.float64]
GREY_WEIGHTS = np.array([0.299, 0.587, 0.114])  # ITU-R 601 luma, what PIL's "L" mode uses


def grayscale(rgb: NDArray[np.generic]) -> FloatImage:
    """ITU-R 601 luma (what PIL's "L" mode uses), as float64 in 0..255."""
    pixels = np.asarray(rgb, dtype=np.float64)
    if pixels.ndim == 2:
        return pixels
    return pixels[..., :3] @ GREY_WEIGHTS


def vertical_gradient(gray: FloatImage) -> FloatImage:
    """Signed Sobel derivative down the rows: positive where the image gets brighter below."""
    return np.asarray(ndimage.sobel(gray, axis=0, mode="nearest"), dtype=np.float64)


def edge_strength(rgb: NDArray[np.generic]) -> FloatImage:
    """|vertical Sobel| of the grayscale image: large where brightness changes going down."""
    return np.abs(vertical_gradient(grayscale(rgb)))


def edge_image(strength: FloatImage) -> NDArray[np.uint8]:
    """Edge strength scaled to 0..255 for `edges.jpg`."""
    top = float(strength.max())
    scale = 255.0 / top if top > 0 else 0.0
    return np.clip(strength * scale, 0, 255).astype(np.uint8)
