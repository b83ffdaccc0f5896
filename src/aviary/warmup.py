"""`aviary warmup`: compile every numba kernel ahead of time, so commands answer at full speed.

numba caches compiled code on disk (`cache=True`); the first use of a kernel
otherwise compiles it, which takes seconds a course command line does not have.
Each tool lists its module here; the module exposes `warmup() -> None`, which
runs its kernels once on a small input.
"""

from __future__ import annotations

import importlib
import time

from aviary.errors import ArgumentParser

WARMUP_MODULES: list[str] = [
    "aviary.games.pikachu.engine",
    "aviary.games.pikachu.baseline",
    "aviary.games.pikachu.endgame",
    "aviary.sebastian.solver",
    "aviary.horizon.viterbi",
]


def main(argv: list[str]) -> int:
    parser = ArgumentParser(prog="aviary warmup", description=__doc__.splitlines()[0])
    parser.add_argument("--quiet", "-q", action="store_true", help="print nothing")
    args = parser.parse_args(argv)
    for name in WARMUP_MODULES:
        started = time.monotonic()
        importlib.import_module(name).warmup()
        if not args.quiet:
            print(f"{name}: ready in {time.monotonic() - started:.1f} s", flush=True)
    return 0
