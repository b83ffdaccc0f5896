"""Where a cold course command's time goes before its engine's first answer (issue 53).

Runs `aviary GAME ...` on the start position `--runs` times with no warm server
(`AVIARY_NO_WARM=1`, no memory) and `AVIARY_COURSE_TRACE=1`, whose lines on stderr say
when the command forked its engine child (after its own start-up: the interpreter
and aviary's modules), when the child began, numpy's import, then either the engine on
the search compiled ahead of time (`aviary warmup` builds it where a C compiler is
present: its extension found and loaded, no numba) or numba's import and the JIT
engine's construction (the game's kernel modules: numba's compiler loaded, cached
kernels bound), its depth-1 search, and when the first engine answer arrived.
Prints each run and the median of each step, in seconds after the command's start
(the child's own times shifted by when it started), with the CPU seconds each
process had used by then and the load beside it. `--jit` measures numba's engine
even where the compiled one is built (`AVIARY_NO_COMPILED=1`).

    python benchmarks/course_cold_start.py --game pikachu --runs 5 [--jit]
"""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import sys

from aviary.errors import ArgumentParser
from aviary.games import registry
from script import run_main

STEPS = [  # (label, the trace line's pattern): the child's lines give its own age and CPU
    ("child started", r"^engine child started at ([\d.]+) s \(command's CPU ([\d.]+) s"),
    ("child forked", r"^engine child: forked at ([\d.]+) s \(CPU ([\d.]+) s"),
    ("numpy imported", r"^engine child: numpy imported at ([\d.]+) s \(CPU ([\d.]+) s"),
    ("numba imported", r"^engine child: numba imported at ([\d.]+) s \(CPU ([\d.]+) s"),
    ("engine built", r"^engine child: engine built .* at ([\d.]+) s \(CPU ([\d.]+) s"),
    ("depth 1 searched", r"^engine child: depth [01] searched.* at ([\d.]+) s \(CPU ([\d.]+) s"),
    ("first engine answer", r"^engine answer at ([\d.]+) s"),
]


def one_run(name: str, seconds: float, jit: bool) -> tuple[dict[str, float], dict[str, float]]:
    """The steps of one command, in seconds after its start, and the CPU time each step's
    process had used by then (the command's before the fork, the child's after)."""
    game = registry.make(name)
    env = dict(os.environ, AVIARY_NO_WARM="1", AVIARY_NO_MEMORY="1", AVIARY_COURSE_TRACE="1")
    if jit:
        env["AVIARY_NO_COMPILED"] = "1"
    arguments = game.command_args(game.start(), seconds)
    result = subprocess.run([sys.executable, "-m", "aviary", name, *arguments], env=env,
                            capture_output=True, text=True, timeout=seconds + 60)
    found: dict[str, float] = {}
    cpu: dict[str, float] = {}
    for label, pattern in STEPS:
        for line in result.stderr.splitlines():
            match = re.match(pattern, line)
            if match:
                found[label] = float(match[1])
                if match.lastindex == 2:
                    cpu[label] = float(match[2])
                break
    started = found.get("child started", 0.0)
    for label in ("child forked", "numpy imported", "numba imported", "engine built",
                  "depth 1 searched"):
        if label in found:
            found[label] += started  # the child's own age, from its start
    return found, cpu


def main() -> None:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="pikachu", choices=[spec.name for spec in
                                                              registry.board_games()])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--jit", action="store_true",
                        help="numba's engine even where the compiled one is built")
    args = parser.parse_args()
    print(f"load {os.getloadavg()[0]:.1f} at the start; {args.game}, start position, "
          f"SECONDS={args.seconds:g}, no warm server"
          + (", numba's engine (AVIARY_NO_COMPILED=1)" if args.jit else ""))
    runs, cpus = [], []
    for number in range(args.runs):
        found, cpu = one_run(args.game, args.seconds, args.jit)
        runs.append(found)
        cpus.append(cpu)
        print(f"run {number + 1}: " + ", ".join(f"{label} {found[label]:.3f}"
                                                for label, _ in STEPS if label in found))
    print("median, seconds after the command's start; CPU: the process's own CPU seconds "
          "by then (the command's, then the child's from its fork)")
    for label, _ in STEPS:
        values = [found[label] for found in runs if label in found]
        used = [cpu[label] for cpu in cpus if label in cpu]
        if values:
            spent = f"  CPU {statistics.median(used):.3f}" if used else ""
            print(f"  {label:<26}{statistics.median(values):.3f}{spent}  ({len(values)} runs)")
    print(f"load {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    run_main(main)
