"""How fast the exact Sebastian solver and the optimal player are.

    .venv/bin/python benchmarks/sebastian_solve.py [--decisions 2000] [--skip-cold]
        [--skip-reference]

1. Cold full solve (mean, SD, bonus and quintuplicatam rates) in a fresh
   process whose numba cache is an empty temporary directory, so compilation
   is included: the bar is 15 s.
2. The expected-value recursion, compiled (already warm) against the
   straightforward vectorised-numpy version of the same recursion
   (`aviary.games.sebastian.reference`), both over every reachable state, in this
   run, one thread against one: the compiled solve on one worker thread,
   numpy in a child process with its BLAS (OpenBLAS matrix products) held
   to one thread. Prints both times, the ratio, the largest difference, and
   for reference the compiled solve on all cores (not part of the ratio).
3. Decision latency of the player, table loaded: each call of first_roll /
   second_roll / third_roll on random reachable scorecards, both for a
   scorecard met for the first time in the turn (one compiled turn
   evaluation) and for the second and third decisions of a turn (cached).

Timings on a shared machine are noisy and pessimistic.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

import numpy as np

from aviary.errors import ArgumentParser
from script import run_main

COLD_SOLVE = """
import time
started = time.perf_counter()
from aviary.games.sebastian.solver import solve
solution = solve()
print(time.perf_counter() - started, solution.mean)
"""


def cold_solve_seconds() -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        out = subprocess.run([sys.executable, "-c", COLD_SOLVE], env=env, check=True,
                             capture_output=True, text=True).stdout.split()
    return float(out[0]), float(out[1])


NUMPY_ONE_THREAD = """
import sys, time
import numpy as np
from aviary.games.sebastian.reference import solve_reference
started = time.perf_counter()
values = solve_reference()
print(time.perf_counter() - started)
np.save(sys.argv[1], values)
"""
ONE_THREAD_ENV = {name: "1" for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
                                         "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")}


def compiled_vs_numpy() -> None:
    from aviary.games.sebastian.solver import MEAN, solve, warmup

    warmup()
    started = time.perf_counter()
    compiled = solve(statistics=False, threads=1)
    compiled_seconds = time.perf_counter() - started
    cores = os.cpu_count() or 1
    started = time.perf_counter()
    solve(statistics=False, threads=cores)
    all_cores_seconds = time.perf_counter() - started
    with tempfile.TemporaryDirectory() as scratch:
        saved = os.path.join(scratch, "reference.npy")
        out = subprocess.run([sys.executable, "-c", NUMPY_ONE_THREAD, saved], check=True,
                             env=dict(os.environ, **ONE_THREAD_ENV), capture_output=True,
                             text=True).stdout
        reference_seconds = float(out.split()[0])
        reference = np.load(saved)
    difference = np.abs(reference - compiled.values[:, MEAN]).max()
    print(f"expected-value recursion, compiled (numba), 1 thread: {compiled_seconds:8.2f} s")
    print(f"expected-value recursion, numpy reference, 1 thread:  {reference_seconds:8.2f} s")
    print(f"ratio, one thread against one: {reference_seconds / compiled_seconds:.1f}x   "
          f"largest difference: {difference:.1e}   mean: {compiled.mean:.4f}")
    print(f"(compiled on all {cores} cores: {all_cores_seconds:.2f} s; not part of the ratio)")


def decision_latency(decisions: int) -> None:
    from aviary.games.sebastian.cache import load_solution
    from aviary.games.sebastian.player import SebastianAutoPlayer
    from aviary.games.sebastian.rules import CATEGORIES, possible_upper_totals

    auto = SebastianAutoPlayer(load_solution())
    auto.first_roll([1, 2, 3, 4, 5], {})  # loads the compiled kernel from numba's cache
    rng = np.random.default_rng(0)
    first, later = [], []
    for _ in range(decisions):
        filled_mask = int(rng.integers(0, 2**13 - 1))
        filled = [c for i, c in enumerate(CATEGORIES) if filled_mask >> i & 1]
        numbers = {c for c in filled if c in CATEGORIES[:6]}
        upper = int(rng.choice(sorted(possible_upper_totals(numbers))))
        card = {c: 0 for c in filled}
        if numbers:
            card[sorted(numbers)[0]] = upper  # only the total matters to the player
        dice = [int(d) for d in rng.integers(1, 7, size=5)]
        auto.player._turns.clear()
        started = time.perf_counter()
        auto.first_roll(dice, card)
        first.append(time.perf_counter() - started)
        started = time.perf_counter()
        auto.second_roll(dice, card)
        auto.third_roll(dice, card)
        later.append((time.perf_counter() - started) / 2)
    for name, times in (("first decision of a turn", first), ("later decisions", later)):
        us = np.array(times) * 1e6
        print(f"decision latency, {name}: median {np.median(us):6.0f} us, "
              f"99th percentile {np.percentile(us, 99):6.0f} us, max {us.max():6.0f} us")


def main() -> int:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=2000)
    parser.add_argument("--skip-cold", action="store_true", help="skip the cold-compile solve")
    parser.add_argument("--skip-reference", action="store_true",
                        help="skip the numpy comparison (minutes)")
    args = parser.parse_args()
    if not args.skip_cold:
        seconds, mean = cold_solve_seconds()
        print(f"full solve with statistics, compiling from scratch: {seconds:.2f} s "
              f"(bar 15 s), mean {mean:.4f}")
    if not args.skip_reference:
        compiled_vs_numpy()
    decision_latency(args.decisions)
    return 0


if __name__ == "__main__":
    run_main(main)
