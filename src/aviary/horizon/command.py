"""`aviary horizon IMAGE [ROW COL]`: the course command line for ridge finding.

Writes, each on a fresh copy of the photo, `output_simple.jpg` (blue),
`output_map.jpg` (red) and, given a point, `output_human.jpg` (green), lines
5 pixels thick; also `edges.jpg` (the edge strength). Extras: `--out DIR`,
repeatable `--point ROW,COL`, `--json` (print the row lists), `--overlay`
(all lines on one image, `output_overlay.jpg`).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
from numpy.typing import NDArray
from PIL import Image, UnidentifiedImageError

from aviary.errors import ArgumentParser, UsageError
from aviary.horizon.draw import BLUE, GREEN, RED, draw_line
from aviary.horizon.edges import edge_image, edge_strength
from aviary.horizon.estimators import Point, find_ridges

THICKNESS = 5


def load_rgb(path: Path) -> NDArray[np.uint8]:
    """The photo as an H x W x 3 uint8 array, or a UsageError naming what is wrong."""
    try:
        with Image.open(path) as image:
            return np.asarray(image.convert("RGB"))
    except FileNotFoundError:
        raise UsageError(f"aviary horizon: no such file: {path}") from None
    except IsADirectoryError:
        raise UsageError(f"aviary horizon: {path} is a directory, not an image") from None
    except PermissionError:
        raise UsageError(f"aviary horizon: cannot read {path}: permission denied") from None
    except (UnidentifiedImageError, OSError, ValueError) as error:
        raise UsageError(f"aviary horizon: {path} is not a readable image ({error})") from None


def parse_point(text: str) -> Point:
    parts = text.replace(" ", "").split(",")
    if len(parts) != 2 or not all(p.lstrip("-").isdigit() for p in parts):
        raise UsageError(f"aviary horizon: --point wants ROW,COL (two integers), got {text!r}")
    return int(parts[0]), int(parts[1])


def build_parser() -> ArgumentParser:
    parser = ArgumentParser(
        prog="aviary horizon",
        description="Find the ridge line in a mountain photo (simple, Viterbi map, human).",
    )
    parser.add_argument("image", type=Path, help="the photo")
    parser.add_argument("row", nargs="?", type=int, help="row of a pixel on the ridge (0-based)")
    parser.add_argument("col", nargs="?", type=int, help="column of that pixel (0-based)")
    parser.add_argument("--point", action="append", default=[], metavar="ROW,COL",
                        help="another pixel on the ridge for the human line (repeatable)")
    parser.add_argument("--out", type=Path, default=Path("."), help="output folder (default .)")
    parser.add_argument("--json", action="store_true", help="print the row lists as JSON")
    parser.add_argument("--overlay", action="store_true",
                        help="also write output_overlay.jpg with all lines on one image")
    return parser


def main(argv: list[str]) -> int:
    args = build_parser().parse_args(argv)
    if (args.row is None) != (args.col is None):
        raise UsageError("aviary horizon: give both ROW and COL, or neither")
    points: list[Point] = [] if args.row is None else [(args.row, args.col)]
    points += [parse_point(text) for text in args.point]
    rgb = load_rgb(args.image)
    height, width = rgb.shape[:2]
    for row, col in points:
        if not (0 <= row < height and 0 <= col < width):
            raise UsageError(
                f"aviary horizon: point ({row}, {col}) is outside the image "
                f"(rows 0..{height - 1}, columns 0..{width - 1})"
            )
    if args.out.exists() and not args.out.is_dir():
        raise UsageError(f"aviary horizon: --out {args.out} exists and is not a folder")
    ridges = find_ridges(rgb, points)
    lines = [("simple", ridges.simple, BLUE), ("map", ridges.map, RED)]
    if ridges.human is not None:
        lines.append(("human", ridges.human, GREEN))

    try:
        args.out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        message = f"aviary horizon: cannot create --out {args.out}: {error.strerror}"
        raise UsageError(message) from None
    outputs = {args.out / f"output_{name}.jpg" for name, _, _ in lines} | {args.out / "edges.jpg"}
    if args.image.resolve() in {path.resolve() for path in outputs}:
        raise UsageError(f"aviary horizon: refusing to overwrite the input {args.image}")
    for name, rows, colour in lines:
        save(draw_line(rgb, rows, colour, THICKNESS), args.out / f"output_{name}.jpg")
    save(edge_image(edge_strength(rgb)), args.out / "edges.jpg")
    if args.overlay:
        overlay = rgb
        for _, rows, colour in lines:
            overlay = draw_line(overlay, rows, colour, THICKNESS)
        save(overlay, args.out / "output_overlay.jpg")
    if args.json:
        print(json.dumps({name: rows.tolist() for name, rows, _ in lines}))
    else:
        written = ", ".join(f"output_{name}.jpg" for name, _, _ in lines)
        print(f"wrote {written}, edges.jpg to {args.out}", file=sys.stderr)
    return 0


def save(pixels: NDArray[np.uint8], path: Path) -> None:
    try:
        Image.fromarray(pixels).save(path, quality=95)
    except OSError as error:
        raise UsageError(f"aviary horizon: cannot write {path}: {error}") from None
