"""Games per minute against games at once: the same match at --jobs 1, 2, 4, ... (the
baseline is --jobs 1, in the same run), locally or on Ray.

Each run is a fresh `aviary arena run` of the same planned games (Pikachu n=7, both
players in-process engines at a short time a move, so the clock, not the start-up of
programs, sets the pace); the printed ratio is games per minute over the --jobs 1 run's.
More jobs than cores is allowed here on purpose, to show where it stops paying (and the
arena warns about it: games that share a core lose time).

    python benchmarks/arena_scaling.py [--jobs 1,2,4] [--games 8] [--time 0.05] [--backend ray]
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from aviary.errors import ArgumentParser
from script import run_main


def games_per_minute(jobs: int, games: int, seconds: float, backend: str) -> float:
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "scaling.sqlite"
        started = time.monotonic()
        subprocess.run([sys.executable, "-m", "aviary", "arena", "run", "--game", "pikachu",
                        "--n", "7", "--time", str(seconds), "--games", str(games),
                        "--max-plies", "60", "--jobs", str(jobs), "--backend", backend,
                        "--db", str(db), "aviary:engine", "aviary:textbook"],
                       check=True, capture_output=True, text=True)
        return games / (time.monotonic() - started) * 60


def main() -> int:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", default="1,2,4", help="comma-separated games at once")
    parser.add_argument("--games", type=int, default=8)
    parser.add_argument("--time", type=float, default=0.05, help="seconds a move")
    parser.add_argument("--backend", choices=("local", "ray"), default="local")
    args = parser.parse_args()
    counts = [int(part) for part in args.jobs.split(",")]
    print(f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}; {args.games} games of "
          f"Pikachu n=7 at {args.time:g} s a move, {args.backend}")
    base = None
    for jobs in counts:
        rate = games_per_minute(jobs, args.games, args.time, args.backend)
        base = base or rate
        print(f"--jobs {jobs:>2}: {rate:6.1f} games/min  ({rate / base:.2f}x --jobs "
              f"{counts[0]}), load after {os.getloadavg()[0]:.1f}", flush=True)
    return 0


if __name__ == "__main__":
    run_main(main)
