"""`aviary warmup`: compile every numba kernel ahead of time, so commands answer at full speed.

numba caches compiled code on disk (`cache=True`); the first use of a kernel
otherwise compiles it, which takes seconds a course command line does not have.
It first compiles aviary's own modules to bytecode (`byte_compile`).
The games list their modules in the registry, the other tools here; each
module exposes `warmup() -> None`, which runs its kernels once on a small input.
A board game's `engine` module may have none (a game without kernels has nothing to
compile): its registered engines are then warmed through `Player.warmup`.
"""

from __future__ import annotations

import compileall
import importlib
import py_compile
import time
from pathlib import Path

import aviary
from aviary.errors import ArgumentParser
from aviary.games import registry

WARMUP_MODULES: list[str] = [
    *(module for spec in registry.commands() for module in spec.warmup),
    "aviary.horizon.estimators",
]
DEEP_WARMUP_MODULES: list[str] = [
    module for spec in registry.commands() for module in spec.deep_warmup]


def warm(name: str) -> None:
    """Run module `name`'s `warmup()`; for a board game's engine module without one, each
    of the game's registered engines' `warmup()` (AttributeError for any other module)."""
    module = importlib.import_module(name)
    hook = getattr(module, "warmup", None)
    if hook is not None:
        hook()
        return
    games = [spec for spec in registry.board_games()
             if any(target.partition(":")[0] == name for target in spec.engines.values())]
    if not games:
        raise AttributeError(f"{name} has no warmup() and makes no game's engine")
    for spec in games:
        game = spec.make()
        for engine in spec.engines:
            spec.engine(engine, game).warmup()


def byte_compile() -> bool:
    """Write the bytecode of aviary's modules beside them (`__pycache__`) where it is missing
    or stale; False where it is and cannot be written (pip compiles an install's bytecode
    as it installs it; an editable install's is written here).

    Python compiles a module it finds no bytecode for at every start where it may not
    write it: under PYTHONDONTWRITEBYTECODE, and in the arena's sandbox, which mounts
    the install read-only. Bytecode written here is read in both. A cold course command
    in the sandbox forked its engine child at 0.115 s (median of 8) without it, at 0.07 s
    with it (2026-12-06).
    """
    # checked by timestamp, as Python writes it itself (SOURCE_DATE_EPOCH would make
    # compileall hash every source file at every import instead)
    return bool(compileall.compile_dir(
        str(Path(aviary.__file__).parent), quiet=2,
        invalidation_mode=py_compile.PycInvalidationMode.TIMESTAMP))


def main(argv: list[str]) -> int:
    parser = ArgumentParser(prog="aviary warmup", description=__doc__.splitlines()[0])
    parser.add_argument("--quiet", "-q", action="store_true", help="print nothing")
    parser.add_argument("--deep", action="store_true",
                        help="also build the tables that take minutes (the registry's "
                        "deep_warmup modules; each game's docs say what they buy)")
    args = parser.parse_args(argv)
    if byte_compile() and not args.quiet:
        print("aviary's modules: byte-compiled", flush=True)
    for name in WARMUP_MODULES:
        started = time.monotonic()
        warm(name)
        if not args.quiet:
            print(f"{name}: ready in {time.monotonic() - started:.1f} s", flush=True)
    for name in DEEP_WARMUP_MODULES if args.deep else []:
        started = time.monotonic()
        importlib.import_module(name).deep_warmup()
        if not args.quiet:
            print(f"{name}: deep tables ready in {time.monotonic() - started:.1f} s",
                  flush=True)
    return 0
