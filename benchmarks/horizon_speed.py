"""Speed of the three horizon estimators against a full-transition numpy Viterbi, same run.

    .venv/bin/python benchmarks/horizon_speed.py [--repeats 7] [--photos 40]

Times `find_ridges` with one human point (simple + map + human, everything
from the pixel array to the three row lists; no file I/O) on a 256x192 and a
1920x1080 synthetic photo, with the banded numba Viterbi and with the
textbook full-transition numpy Viterbi (`viterbi_full_reference`) swapped in.
At both sizes one decode of the same emission is also timed both ways (at
1920x1080 the full reference would take about a minute for the whole
pipeline, so only the single decode is compared there). Prints best-of-N wall
times and the ratios, and the mean time over 40 small photos (seeds 0..39:
seed 0 alone never settles its colour rounds, so it pays for all of them).
The earlier model (`RidgeModel().earlier()`: at most 6 colour rounds and grain
ratio 3, as before they became 12 and 2.5) is timed in the same run at both
sizes and on the 40 photos, to show what the longer colour search costs.
Kernels are compiled (or loaded from the numba cache) before timing.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from aviary.errors import ArgumentParser
from aviary.horizon import find_ridges
from aviary.horizon.estimators import decode, warmup
from aviary.horizon.model import RidgeModel, edge_scores, prepare
from aviary.horizon.synthetic import generate
from aviary.horizon.viterbi import banded_viterbi, viterbi_full_reference
from script import run_main


def best_time(run: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return min(times)


def mean_time(
    photos: list[np.ndarray], point: list[tuple[int, int]], model: RidgeModel, repeats: int
) -> float:
    """Mean over the photos of each one's best-of-`repeats` time for all three estimators."""
    return float(np.mean([
        best_time(lambda rgb=rgb: find_ridges(rgb, point, model), repeats) for rgb in photos
    ]))


def final_emission(rgb: np.ndarray, model: RidgeModel) -> tuple[np.ndarray, np.ndarray]:
    """The emission map's last Viterbi decodes, and the transition band."""
    pixels = prepare(rgb)
    edges = edge_scores(pixels, model)
    return decode(pixels, edges, model).emit, model.log_transitions(rgb.shape[0])


def main() -> None:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--photos", type=int, default=40,
                        help="photos for the mean time at 256x192 (seed 0 alone is a slow one)")
    args = parser.parse_args()
    warmup()

    small = generate(0, 192, 256).rgb
    point = [(96, 128)]
    banded = best_time(lambda: find_ridges(small, point), args.repeats)
    earlier = RidgeModel().earlier()
    banded_earlier = best_time(lambda: find_ridges(small, point, earlier), args.repeats)
    full = best_time(
        lambda: find_ridges(small, point, decoder=viterbi_full_reference), max(1, args.repeats // 3)
    )
    model = RidgeModel()
    emit, log_trans = final_emission(small, model)
    one_banded_small = best_time(lambda: banded_viterbi(emit, log_trans), args.repeats)
    one_full_small = best_time(lambda: viterbi_full_reference(emit, log_trans), args.repeats)
    print("256x192, all three estimators (simple + map + human), no file I/O:")
    print(f"  with banded numba Viterbi {banded * 1000:8.1f} ms")
    print(f"  earlier model             {banded_earlier * 1000:8.1f} ms")
    print(f"  with full-transition numpy{full * 1000:8.1f} ms")
    print(f"  ratio (whole pipeline)    {full / banded:8.1f}x faster")
    print(f"  one decode, banded        {one_banded_small * 1000:8.2f} ms")
    print(f"  one decode, full numpy    {one_full_small * 1000:8.2f} ms")
    print(f"  ratio (one decode)        {one_full_small / one_banded_small:8.1f}x faster")

    photos = [generate(seed, 192, 256).rgb for seed in range(args.photos)]
    mean_now = mean_time(photos, point, RidgeModel(), args.repeats // 3 or 1)
    mean_earlier = mean_time(photos, point, earlier, args.repeats // 3 or 1)
    print(f"256x192, mean over seeds 0..{args.photos - 1} (best of {args.repeats // 3 or 1} each):")
    print(f"  this model                {mean_now * 1000:8.1f} ms")
    print(f"  earlier model             {mean_earlier * 1000:8.1f} ms")

    large = generate(0, 1080, 1920).rgb
    large_point = [(540, 960)]
    banded_large = best_time(lambda: find_ridges(large, large_point), max(1, args.repeats // 2))
    earlier_large = best_time(lambda: find_ridges(large, large_point, earlier),
                              max(1, args.repeats // 2))
    emit, log_trans = final_emission(large, model)
    one_banded = best_time(lambda: banded_viterbi(emit, log_trans), 3)
    one_full = best_time(lambda: viterbi_full_reference(emit, log_trans), 1)
    rows_banded, _ = banded_viterbi(emit, log_trans)
    rows_full, _ = viterbi_full_reference(emit, log_trans)
    print("1920x1080:")
    print(f"  all three estimators      {banded_large * 1000:8.1f} ms")
    print(f"  earlier model             {earlier_large * 1000:8.1f} ms")
    print(f"  one decode, banded        {one_banded * 1000:8.1f} ms")
    print(f"  one decode, full numpy    {one_full * 1000:8.1f} ms")
    print(f"  ratio (one decode)        {one_full / one_banded:8.1f}x faster")
    print(f"  same path: {bool(np.array_equal(rows_banded, rows_full))}")


if __name__ == "__main__":
    run_main(main)
