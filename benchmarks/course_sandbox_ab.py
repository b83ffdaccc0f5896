"""How often a cold course command's engine answers in the arena's sandbox: this code
against another checkout, on the same moves, in the same run.

At short time limits in the arena's sandbox, every move is a fresh process with no warm
server (`aviary grade` at 0.5 s a move: the command exits 0.235 s after it started), so
whether the engine or the rules-only fallback gives the move is decided by how soon the
engine child has imported numpy and loaded its search. Each move runs through the
arena's own runner (`aviary.arena.sandbox.run_program`) in the jail the arena builds,
once with this checkout's aviary (or `--head`'s) and once with `--base`'s (`DIR/src`
first on the path), in alternating order. `--busy N` keeps N processes spinning, each in its own
session, as the other games of `aviary grade --jobs 2` do. Both checkouts are
byte-compiled first (`aviary warmup` does it for an install). Prints, per checkout, the
moves whose last answer was the engine's, the median time of its first answer after the
process started, and head's share against base's.

    git worktree add /tmp/base BASE_COMMIT
    python benchmarks/course_sandbox_ab.py --base /tmp/base --game pikachu \\
        --seconds 0.5 --moves 30 --busy 1
"""

from __future__ import annotations

import compileall
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import aviary
from aviary.arena import isolation
from aviary.arena.sandbox import Limits, clean_environment, run_program
from aviary.errors import ArgumentParser, UsageError
from aviary.games import registry
from course_startup import positions
from script import run_main

ANSWER = re.compile(r"^engine answer at ([\d.]+) s", re.MULTILINE)
SPIN = "while True:\n    pass\n"


def main() -> int:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, required=True,
                        help="a checkout of the code to compare with (its src/ is used)")
    parser.add_argument("--head", type=Path, default=None,
                        help="the checkout to measure (default: this one)")
    parser.add_argument("--game", default="pikachu",
                        choices=[spec.name for spec in registry.board_games()])
    parser.add_argument("--seconds", type=float, default=0.5)
    parser.add_argument("--moves", type=int, default=30)
    parser.add_argument("--busy", type=int, default=0, help="spinning processes beside")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    base_src = args.base.resolve() / "src"
    if not (base_src / "aviary" / "__init__.py").is_file():
        raise UsageError(f"--base {args.base}: no src/aviary/ in it")
    if args.moves < 1 or not 0 < args.seconds <= 10 or not 0 <= args.busy <= 8:
        raise UsageError("--moves must be at least 1, --seconds in (0, 10], --busy 0-8")
    try:
        isolation.check_available()
    except isolation.SandboxUnavailable as error:
        raise UsageError(str(error)) from None
    head_src = (args.head.resolve() / "src" if args.head
                else Path(aviary.__file__).resolve().parent.parent)
    if not (head_src / "aviary" / "__init__.py").is_file():
        raise UsageError(f"--head {args.head}: no src/aviary/ in it")
    for src in (head_src, base_src):
        compileall.compile_dir(str(src / "aviary"), quiet=2)
    course = [sys.executable, "-m", "aviary", args.game]
    sides = {"base": {"PYTHONPATH": str(base_src)}, "head": {"PYTHONPATH": str(head_src)}}
    moves = positions(args.game, args.moves, args.seed)
    spinners = [subprocess.Popen([sys.executable, "-c", SPIN], start_new_session=True)
                for _ in range(args.busy)]
    engine: dict[str, list[bool]] = {side: [] for side in sides}
    first: dict[str, list[float]] = {side: [] for side in sides}
    try:
        with tempfile.TemporaryDirectory() as folder:
            jail = isolation.arena_jails([isolation.Program("course", tuple(course))],
                                         Path(folder) / "results.sqlite", 128, 2048)["course"]
            limits = Limits(seconds=args.seconds, grace=0.25, memory_mb=2048)
            loads = [os.getloadavg()[0]]
            for number, arguments in enumerate(moves):
                order = list(sides) if number % 2 == 0 else list(reversed(sides))
                for side in order:
                    env = clean_environment({**sides[side], "AVIARY_COURSE_TRACE": "1",
                                             "AVIARY_NO_MEMORY": "1"}, jailed=True)
                    result = run_program(course, [*arguments, f"{args.seconds:g}"], limits,
                                         env, jail, None)
                    lines = result.stderr_tail.strip().splitlines()
                    engine[side].append(bool(lines) and lines[-1].startswith("engine"))
                    answered = ANSWER.search(result.stderr_tail)
                    if answered:
                        first[side].append(float(answered[1]))
                loads.append(os.getloadavg()[0])
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()
    print(f"{args.game}, {len(moves)} moves at {args.seconds:g} s in the arena's sandbox, "
          f"{args.busy} busy process(es) beside, load {min(loads):.1f}-{max(loads):.1f} "
          f"on {os.cpu_count()} cores; base {args.base}, head {head_src.parent}")
    for side in sides:
        times = first[side]
        median = f"{statistics.median(times):.3f} s" if times else "never"
        print(f"  {side}: the engine gave {sum(engine[side])} of {len(moves)} moves; its first "
              f"answer (median of {len(times)}) at {median} after the process started")
    base_share, head_share = (sum(engine[side]) / len(moves) for side in ("base", "head"))
    ratio = f"x{head_share / base_share:.2f}" if base_share else "base none"
    print(f"  engine's moves, head against base: {head_share:.0%} against {base_share:.0%} "
          f"({ratio})")
    return 0


if __name__ == "__main__":
    run_main(main)
