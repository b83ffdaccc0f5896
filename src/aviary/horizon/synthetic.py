"""Seeded synthetic mountain photos with known ridge lines, for measuring accuracy.

A photo is painted back to front: a sky with a vertical colour gradient and
soft clouds; two to four mountain layers, the far ones hazier (blended toward
the sky colour, so the true ridge is often the faintest edge in the picture,
though never fainter than MIN_CONTRAST: a person can always see it)
and the near ones textured; a dark foreground object (a tree or a rock) whose
crisp edges sit below the ridge; then sensor noise and JPEG compression. The
truth is the sky/mountain boundary: for each column, the first row that is not
sky (the top of the highest layer there).
"""

from __future__ import annotations

import argparse
import io
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray
from PIL import Image
from scipy import ndimage

from aviary.errors import ArgumentParser, UsageError
from aviary.horizon.viterbi import RowArray

MIN_CONTRAST = 20.0  # mean |RGB difference| between a hazed layer and the horizon sky


@dataclass(frozen=True)
class SyntheticPhoto:
    rgb: NDArray[np.uint8]
    ridge: RowArray  # true first non-sky row per column
    seed: int


def ridge_profile(rng: np.random.Generator, width: int, base: float, amplitude: float) -> NDArray:
    """A ridge: a few random sinusoids plus some sharp peaks, rows as floats."""
    x = np.arange(width, dtype=np.float64)
    profile = np.full(width, base)
    for octave in range(4):
        wavelength = width / rng.uniform(0.5, 2.0) / 2**octave
        profile += amplitude / 2**octave * np.sin(2 * np.pi * x / wavelength + rng.uniform(0, 6.3))
    for _ in range(rng.integers(0, 3)):
        centre, half_width = rng.uniform(0, width), rng.uniform(width / 12, width / 4)
        height = rng.uniform(0.5, 1.5) * amplitude
        profile -= height * np.clip(1 - np.abs(x - centre) / half_width, 0, None)
    return profile


def _texture(rng: np.random.Generator, shape: tuple[int, int], sigma: float) -> NDArray:
    noise = ndimage.gaussian_filter(rng.normal(size=shape), sigma)
    return noise / (noise.std() or 1.0)


def generate(seed: int, height: int = 192, width: int = 256) -> SyntheticPhoto:
    """One labelled photo; the same seed always gives the same photo."""
    rng = np.random.default_rng(seed)
    rows = np.arange(height, dtype=np.float64)[:, None]
    cols = np.arange(width)

    blueness = rng.uniform(0, 1)  # 0: overcast grey, 1: clear blue
    grey = rng.uniform(110, 230) * np.ones(3)
    top_sky = grey * (1 - blueness) + rng.uniform([40, 90, 170], [110, 160, 250]) * blueness
    low_sky = np.clip(top_sky + rng.uniform(10, 60), 0, 250)
    mix = (rows / height)[..., None]
    image = top_sky * (1 - mix) + low_sky * mix
    image = np.broadcast_to(image, (height, width, 3)).copy()

    clouds = np.clip(_texture(rng, (height, width), rng.uniform(4, 10)) - 0.3, 0, None)
    cloud_colour = rng.uniform(150, 255) * np.ones(3)
    cover = np.clip(clouds * rng.uniform(0.2, 0.9), 0, 1)[..., None]
    image = image * (1 - cover) + cloud_colour * cover

    layers = int(rng.integers(2, 5))
    base_rows = np.sort(rng.uniform(0.25, 0.7, size=layers)) * height
    top = np.full(width, np.inf)
    for k, base in enumerate(base_rows):
        nearness = k / max(layers - 1, 1)  # 0 = farthest
        profile = ridge_profile(rng, width, base, rng.uniform(0.03, 0.12) * height)
        profile = np.clip(profile, 0.08 * height, 0.9 * height)
        top = np.minimum(top, profile)
        colour = rng.uniform(40, 140) + rng.uniform(-20, 20, size=3)
        haze = rng.uniform(0.35, 0.65) * (1 - nearness)
        # keep every layer visible against the sky: at least MIN_CONTRAST grey levels apart
        distance = float(np.abs(colour - low_sky).mean())
        haze = min(haze, max(0.0, 1 - MIN_CONTRAST / max(distance, 1e-9)))
        texture = _texture(rng, (height, width), rng.uniform(0.7, 2.0))
        paint = colour * (1 - haze) + low_sky * haze + (5 + 15 * nearness) * texture[..., None]
        coverage = np.clip(rows - profile[None, :] + 0.5, 0, 1)[..., None]  # anti-aliased edge
        image = image * (1 - coverage) + paint * coverage
    truth = np.ceil(top - 0.5).astype(np.int64)

    _paint_foreground(rng, image, truth)
    image += rng.normal(0, rng.uniform(1, 6), size=image.shape)
    pixels = np.clip(image, 0, 255).astype(np.uint8)
    buffer = io.BytesIO()
    Image.fromarray(pixels).save(buffer, format="JPEG", quality=int(rng.integers(55, 92)))
    jpeg = np.asarray(Image.open(buffer).convert("RGB"))
    return SyntheticPhoto(rgb=jpeg, ridge=truth[cols], seed=seed)


def _paint_foreground(rng: np.random.Generator, image: NDArray, truth: RowArray) -> None:
    """A dark tree (triangle on a trunk) or rock (half ellipse) standing on the bottom edge,
    its top kept at least 6 rows below the ridge so the truth stays the sky boundary."""
    height, width, _ = image.shape
    rows = np.arange(height)[:, None]
    cols = np.arange(width)[None, :]
    centre = int(rng.integers(width // 8, width - width // 8))
    half = int(rng.integers(width // 16, width // 6))
    span = slice(max(0, centre - half), min(width, centre + half))
    lowest_ridge = int(truth[span].max())
    peak = int(rng.integers(lowest_ridge + 6, max(lowest_ridge + 7, height - height // 6)))
    if rng.random() < 0.5:
        slope = (height - peak) / half
        shape = rows >= peak + np.abs(cols - centre) * slope
    else:
        shape = ((cols - centre) / half) ** 2 + ((rows - height) / (height - peak)) ** 2 <= 1
    shape &= rows >= peak
    colour = rng.uniform([10, 20, 5], [70, 80, 60])
    image[shape] = colour + 10 * rng.normal(size=(int(shape.sum()), 3))


def main(argv: list[str] | None = None) -> int:
    """`python -m aviary.horizon.synthetic PHOTO [--seed N] [--width W] [--height H]`.

    Writes one generated photo, so `aviary horizon` can be tried without a photo
    of one's own, and prints where its true ridge is at a few columns (a point to
    give the human estimator).
    """
    parser = ArgumentParser(
        prog="python -m aviary.horizon.synthetic",
        description="write a generated mountain photo with a known ridge line")
    parser.add_argument("photo", type=Path, help="where to write it (.jpg, .png, ...)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--width", type=int, default=256)
    parser.add_argument("--height", type=int, default=192)
    try:
        return _write(parser.parse_args(argv), parser)
    except UsageError as error:  # one line, exit 2, as the aviary commands do
        print(error, file=sys.stderr)
        return 2


def _write(args: argparse.Namespace, parser: ArgumentParser) -> int:
    if not (32 <= args.width <= 4096 and 32 <= args.height <= 4096):
        parser.error("--width and --height must be 32..4096")
    if args.photo.exists():
        parser.error(f"{args.photo} exists; not replacing it")
    photo = generate(args.seed, args.height, args.width)
    try:
        Image.fromarray(photo.rgb).save(args.photo, quality=95)
    except (ValueError, OSError) as error:
        parser.error(f"cannot write {args.photo}: {error}")
    columns = np.linspace(0, args.width - 1, 5).astype(int)
    where = ", ".join(f"({int(photo.ridge[c])}, {c})" for c in columns)
    print(f"wrote {args.photo} ({args.width}x{args.height}, seed {args.seed}); "
          f"true ridge (row, col): {where}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
