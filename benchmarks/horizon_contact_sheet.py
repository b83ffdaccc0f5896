"""Draw the three ridge lines on every course photo into one contact-sheet PNG.

    .venv/bin/python benchmarks/horizon_contact_sheet.py [--data DIR] [--out out/horizon_sheet.png]
        [--texture-penalty 0] [--colour-em-steps 0] [--earlier]

Blue = simple, green = human, red = map (drawn last, on top). The human point
for each photo comes from `horizon_course_points.json` beside this script
(one point per photo, picked by a person looking at the photo: that is what
the human estimator is for); photos without a point show no green line. No
ground truth ships with the photos, so this sheet is for a person to judge.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from aviary.errors import ArgumentParser, UsageError
from aviary.horizon import find_ridges
from aviary.horizon.draw import BLUE, GREEN, RED, draw_line
from aviary.horizon.model import RidgeModel
from script import run_main

HERE = Path(__file__).resolve().parent
DEFAULT_DATA = HERE.parents[1] / "shared" / "data" / "mountains"
SCALE = 2


def panel(path: Path, points: list[tuple[int, int]], model: RidgeModel) -> Image.Image:
    rgb = np.asarray(Image.open(path).convert("RGB"))
    ridges = find_ridges(rgb, points, model)
    big = np.asarray(Image.fromarray(rgb).resize((rgb.shape[1] * SCALE, rgb.shape[0] * SCALE)))
    cols = np.arange(rgb.shape[1] * SCALE) // SCALE
    lines = [(ridges.simple, BLUE), (ridges.human, GREEN), (ridges.map, RED)]
    for rows, colour in lines:
        if rows is not None:
            big = draw_line(big, rows[cols] * SCALE + SCALE // 2, colour, thickness=3)
    image = Image.fromarray(big)
    label = path.name + "".join(f"  pin {r},{c}" for r, c in points)
    ImageDraw.Draw(image).text((4, 4), label, fill=(255, 255, 0))
    for row, col in points:
        x, y = col * SCALE, row * SCALE
        ImageDraw.Draw(image).ellipse((x - 5, y - 5, x + 5, y + 5), outline=(255, 255, 0))
    return image


def main() -> None:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--out", type=Path, default=Path("out/horizon_sheet.png"))
    parser.add_argument("--texture-penalty", type=float, default=RidgeModel.texture_penalty,
                        help="grain-above penalty of the model (0: off)")
    parser.add_argument("--colour-em-steps", type=int, default=RidgeModel.colour_em_steps,
                        help="EM steps of each colour fit (0: brightness halves only, no EM)")
    parser.add_argument("--earlier", action="store_true",
                        help="the earlier model (6 colour rounds, grain ratio 3)")
    args = parser.parse_args()
    model = RidgeModel(texture_penalty=args.texture_penalty, colour_em_steps=args.colour_em_steps)
    if args.earlier:
        model = model.earlier()
    photos = sorted(args.data.glob("*.jpg"))
    if not photos:
        raise UsageError(f"horizon_contact_sheet.py: no .jpg photos in {args.data}")
    pins = json.loads((HERE / "horizon_course_points.json").read_text())
    panels = [panel(p, [tuple(pt) for pt in pins.get(p.name, [])], model) for p in photos]
    cell_w = max(p.width for p in panels)
    cell_h = max(p.height for p in panels)
    columns = 3
    rows = -(-len(panels) // columns)
    sheet = Image.new("RGB", (columns * cell_w, rows * cell_h), "white")
    for k, image in enumerate(panels):
        sheet.paste(image, ((k % columns) * cell_w, (k // columns) * cell_h))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    sheet.save(args.out)
    print(f"wrote {args.out} ({len(panels)} photos)")


if __name__ == "__main__":
    run_main(main)
