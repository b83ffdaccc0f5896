"""A ladder's fit, head against a base commit: the seconds a calibration spends fitting its
levels and their intervals, and the same numbers.

A calibration refits its ladder (a Bradley-Terry fit and thousands of resamples of its
pairs) at each checkpoint, in the process that hands games to the workers: while it
fits, a worker that finished its game waits. This fits the same simulated calibrations
(eleven levels 180 Elo apart, each against the two on either side, colour-swapped pairs,
draws included) with the code of two commits: base (checked out in a temporary worktree)
and head (this tree), each in a process of its own, in turn, at the same resample count.
Both must give the same Elos (to 1e-6) and resamples that spread alike: each level's
standard deviation within 15% of base's (a resample's draws are random, so two codes may
draw them differently; at 1,000 resamples 15% is some four and a half standard errors of
their ratio). The script checks both and fails otherwise. Times are the best of
`--rounds` runs.

    python benchmarks/ladder_fit.py [--base main] [--rounds 3] [--pairs 1000 15000]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from aviary.errors import ArgumentParser, UsageError
from script import run_main
from strength import base_worktree, commit_of, head_against_base

ROOT = Path(__file__).resolve().parent.parent
LEVELS = 11
STEP = 180.0
SPREAD_TOLERANCE = 0.15
RESAMPLES = 1000  # the same on both sides (base may be slow at a calibration's own)

# what each side runs, in its own process with its own tree's `aviary` first on the path
FITTER = """
import json, math, random, sys, time
import numpy as np
from aviary.arena.ratings import anchored_fits
pairs_wanted, levels, step, resamples, rounds = json.loads(sys.argv[1])
rng = random.Random(7)
names = [f"L{i}" for i in range(levels)]
pairings = [(i, j) for i in range(levels) for j in (i + 1, i + 2) if j < levels]
def score(a, b):  # a's score against b: a draw a tenth of the time
    if rng.random() < 0.1:
        return 0.5
    return float(rng.random() < 1 / (1 + 10 ** ((b - a) * step / 400)))
pairs = []
for k in range(pairs_wanted):
    i, j = pairings[k % len(pairings)]
    pairs.append([(names[i], names[j], score(i, j)), (names[j], names[i], score(j, i))])
best = math.inf
for _ in range(rounds):
    started = time.perf_counter()
    centre, draws = anchored_fits(names, pairs, "L0", resamples)
    best = min(best, time.perf_counter() - started)
print(json.dumps({"seconds": best, "centre": centre.tolist(), "draws": draws.tolist()}))
"""


def side(tree: Path, pairs: int, rounds: int) -> dict[str, object]:
    """One side's fits of one simulated calibration, in a process of its own."""
    env = dict(os.environ, PYTHONPATH=str(tree / "src"))
    result = subprocess.run(
        [sys.executable, "-c", FITTER, json.dumps([pairs, LEVELS, STEP, RESAMPLES, rounds])],
        capture_output=True, text=True, env=env, cwd=tree, timeout=3600)
    if result.returncode != 0:
        raise RuntimeError(f"{tree}: {result.stderr.strip().splitlines()[-1:]}")
    return dict(json.loads(result.stdout.strip().splitlines()[-1]))


def differences(base: dict[str, object], head: dict[str, object]) -> tuple[float, float]:
    """(the largest difference of the two sides' Elos, the largest relative difference of
    a level's spread over the resamples; the anchor, whose spread is 0, left out)."""
    import numpy as np
    centre = float(np.max(np.abs(np.array(base["centre"]) - np.array(head["centre"]))))
    spread_base = np.array(base["draws"]).std(axis=0)[1:]
    spread_head = np.array(head["draws"]).std(axis=0)[1:]
    return centre, float(np.max(np.abs(spread_head / spread_base - 1)))


def main() -> int:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="main", help="the commit to compare with (main)")
    parser.add_argument("--rounds", type=int, default=3, help="fits timed on each side (3)")
    parser.add_argument("--pairs", type=int, nargs="+", default=[1000, 5000, 15000],
                        help="the simulated calibrations' colour-swapped pairs")
    args = parser.parse_args()
    if args.rounds < 1:
        raise UsageError(f"--rounds must be at least 1, got {args.rounds}")
    if min(args.pairs) < 1:
        raise UsageError(f"--pairs must be at least 1, got {min(args.pairs)}")
    commit = commit_of(args.base, "ladder_fit: --base")
    print(f"a ladder's fit ({LEVELS} levels, {RESAMPLES} resamples): "
          + head_against_base(args.base, commit))
    failed = False
    with base_worktree(commit) as base_tree:
        for pairs in args.pairs:
            base = side(base_tree, pairs, args.rounds)
            head = side(ROOT, pairs, args.rounds)
            centre, spread = differences(base, head)
            same = centre < 1e-6 and spread < SPREAD_TOLERANCE
            failed |= not same
            base_s, head_s = float(base["seconds"]), float(head["seconds"])  # type: ignore[arg-type]
            print(f"  {pairs:6} pairs ({2 * pairs:6} games)  base {base_s:7.3f} s  "
                  f"head {head_s:7.3f} s  ratio {base_s / head_s:6.1f}x  "
                  + (f"same Elos, spreads within {spread:.1%}" if same else
                     f"NUMBERS DIFFER: Elos by {centre:.2g}, spreads by {spread:.1%}"))
    return 1 if failed else 0


if __name__ == "__main__":
    run_main(main)
