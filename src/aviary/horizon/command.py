"""`aviary horizon IMAGE [ROW COL]`: the course command line for ridge finding.

Writes, each on a fresh copy of the photo, `output_simple.jpg` (blue),
`output_map.jpg` (red) and, given a point, `output_human.jpg` (green), lines
5 pixels thick; also `edges.jpg` (the edge strength). Extras: `--out DIR`,
repeatable `--point ROW,COL`, `--json` (print the row lists), `--overlay`
(all lines on one image, `output_overlay.jpg`). What it wrote and replaced is said on
stderr; without a point, an `output_human.jpg` of an earlier run stops the command
(it would no longer match the new lines) unless `--force` removes it.

Photos above `photo.MAX_MEGAPIXELS` are refused from their header, before decoding
(a 20000x20000 PNG is a decompression bomb; the web page has the same limit);
photos above `LARGE_MEGAPIXELS` get a line on stderr per stage, since they take a
while. Every output path is
checked before any is written (see `aviary.outputs`).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
from numpy.typing import NDArray
from PIL import Image

from aviary.errors import ArgumentParser, UsageError
from aviary.horizon.draw import BLUE, GREEN, RED, draw_line
from aviary.horizon.edges import edge_image, edge_strength
from aviary.horizon.estimators import Point, find_ridges
from aviary.horizon.photo import PhotoTooLarge, PhotoUnreadable, read_rgb
from aviary.outputs import check_output, write_atomically

THICKNESS = 5
LARGE_MEGAPIXELS = 4  # from here on, say what is being done


def load_rgb(path: Path) -> NDArray[np.uint8]:
    """The photo as an H x W x 3 uint8 array, or a UsageError naming what is wrong."""
    if path.exists() and not path.is_dir() and not path.is_file():  # a FIFO would block
        raise UsageError(f"aviary horizon: {path} is not a regular file")
    try:
        return read_rgb(str(path), str(path), on_large=(LARGE_MEGAPIXELS, progress))
    except (PhotoTooLarge, PhotoUnreadable) as error:
        raise UsageError(f"aviary horizon: {error}") from None
    except FileNotFoundError:
        raise UsageError(f"aviary horizon: no such file: {path}") from None
    except IsADirectoryError:
        raise UsageError(f"aviary horizon: {path} is a directory, not an image") from None
    except PermissionError:
        raise UsageError(f"aviary horizon: cannot read {path}: permission denied") from None
    except OSError as error:
        raise UsageError(f"aviary horizon: {path} is not a readable image ({error})") from None


def progress(message: str) -> None:
    print(f"aviary horizon: {message}", file=sys.stderr, flush=True)


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
    parser.add_argument("--force", action="store_true",
                        help="without a point, remove an output_human.jpg an earlier run left "
                             "(else the command refuses: it would no longer match the others)")
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
    columns: dict[int, int] = {}
    for row, col in points:
        if columns.setdefault(col, row) != row:
            raise UsageError(f"aviary horizon: points ({columns[col]}, {col}) and ({row}, {col}) "
                             f"share column {col}; a ridge line has one row per column")
    if args.out.exists() and not args.out.is_dir():
        raise UsageError(f"aviary horizon: --out {args.out} exists and is not a folder")
    names = ["simple", "map", *(["human"] if points else [])]
    outputs = [args.out / f"output_{name}.jpg" for name in names] + [args.out / "edges.jpg"]
    if args.overlay:
        outputs.append(args.out / "output_overlay.jpg")
    if args.image.resolve() in {path.resolve() for path in outputs}:
        raise UsageError(f"aviary horizon: refusing to overwrite the input {args.image}")
    stale = args.out / "output_human.jpg"
    stale_found = not points and (stale.exists() or stale.is_symlink())
    if stale_found and not args.force:
        raise UsageError(f"aviary horizon: {stale} is from an earlier run with a point and "
                         "would no longer match the new lines; give a point, remove it, or "
                         "add --force to remove it")
    if args.out.is_dir():  # every output checked before any is written (again after mkdir)
        check_outputs(outputs + ([stale] if stale_found else []))
    replaced = [path.name for path in outputs if path.exists()]
    large = height * width / 1e6 > LARGE_MEGAPIXELS
    if large:
        progress("finding the ridge lines...")
    ridges = find_ridges(rgb, points)
    if ridges.human is not None:
        missed = [(row, col) for row, col in points if ridges.human[col] != row]
        if missed:
            raise UsageError(f"aviary horizon: no ridge line passes through every point: "
                             f"({missed[0][0]}, {missed[0][1]}) cannot be joined to the others "
                             "(a line climbs only a few rows per column); nothing written")
    lines = [("simple", ridges.simple, BLUE), ("map", ridges.map, RED)]
    if ridges.human is not None:
        lines.append(("human", ridges.human, GREEN))

    try:
        args.out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        message = f"aviary horizon: cannot create --out {args.out}: {error.strerror}"
        raise UsageError(message) from None
    check_outputs(outputs)
    if large:
        progress("writing the images...")
    for name, rows, colour in lines:
        save(draw_line(rgb, rows, colour, THICKNESS), args.out / f"output_{name}.jpg")
    save(edge_image(edge_strength(rgb)), args.out / "edges.jpg")
    if args.overlay:
        overlay = rgb
        for _, rows, colour in lines:
            overlay = draw_line(overlay, rows, colour, THICKNESS)
        save(overlay, args.out / "output_overlay.jpg")
    if stale_found:
        stale.unlink()
    if args.json:
        print(json.dumps({name: rows.tolist() for name, rows, _ in lines}))
    # on stderr, --json or not: which files were replaced or removed is never silent
    said = f"wrote {', '.join(path.name for path in outputs)} to {args.out}"
    if replaced:
        said += f" (replacing the earlier {', '.join(replaced)})"
    if stale_found:
        said += "; removed the earlier run's output_human.jpg (--force)"
    print(said, file=sys.stderr)
    return 0


def check_outputs(paths: list[Path]) -> None:
    """The course's outputs are rewritten on every run: a regular file may be replaced."""
    for path in paths:
        try:
            check_output(path, replace=True)
        except UsageError as error:
            raise UsageError(f"aviary horizon: {error}") from None


def save(pixels: NDArray[np.uint8], path: Path) -> None:
    try:
        write_atomically(path, lambda temporary: Image.fromarray(pixels).save(
            temporary, format="JPEG", quality=95))
    except UsageError as error:
        raise UsageError(f"aviary horizon: {error}") from None
