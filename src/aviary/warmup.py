"""`aviary warmup`: compile every numba kernel ahead of time, so commands answer at full speed.

numba caches compiled code on disk (`cache=True`); the first use of a kernel
otherwise compiles it, which takes seconds a course command line does not have.
The games list their modules in the registry, the other tools here; each
module exposes `warmup() -> None`, which runs its kernels once on a small input.
"""

from __future__ import annotations

import importlib
import time

from aviary.errors import ArgumentParser
from aviary.games import registry

WARMUP_MODULES: list[str] = [
    *(module for spec in registry.GAMES.values() for module in spec.warmup),
    "aviary.horizon.estimators",
]
DEEP_WARMUP_MODULES: list[str] = [
    module for spec in registry.GAMES.values() for module in spec.deep_warmup]


def main(argv: list[str]) -> int:
    parser = ArgumentParser(prog="aviary warmup", description=__doc__.splitlines()[0])
    parser.add_argument("--quiet", "-q", action="store_true", help="print nothing")
    parser.add_argument("--deep", action="store_true",
                        help="also build the tables that take minutes (the registry's "
                        "deep_warmup modules; each game's docs say what they buy)")
    args = parser.parse_args(argv)
    for name in WARMUP_MODULES:
        started = time.monotonic()
        importlib.import_module(name).warmup()
        if not args.quiet:
            print(f"{name}: ready in {time.monotonic() - started:.1f} s", flush=True)
    for name in DEEP_WARMUP_MODULES if args.deep else []:
        started = time.monotonic()
        importlib.import_module(name).deep_warmup()
        if not args.quiet:
            print(f"{name}: deep tables ready in {time.monotonic() - started:.1f} s",
                  flush=True)
    return 0
