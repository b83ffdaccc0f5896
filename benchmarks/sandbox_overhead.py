"""What the arena's sandbox adds to a move: the same moves run with and without it.

Each round runs one move of a program through the arena's own runner
(`aviary.arena.sandbox.run_program`), once in the sandbox the arena would build for
it (bubblewrap, its jail, its cgroup) and once unisolated, in alternating order, with
the same limits and no warm server either way. Two programs: the course command
(`python -m aviary GAME ...` at SECONDS a move), and a program that prints its move at
once (Python starting, the sandbox's whole cost shows). Reported per setting: the
median time from start to the first complete line, and to the end of the move, and
the differences (sandbox minus none), which are the overhead.

    python benchmarks/sandbox_overhead.py --rounds 10 --seconds 1
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
from pathlib import Path

from aviary.arena import isolation
from aviary.arena.sandbox import Limits, RunResult, clean_environment, run_program
from aviary.errors import ArgumentParser, UsageError
from aviary.games import registry
from script import run_main

QUICK = "import sys\nprint(sys.argv[3], flush=True)\n"  # the board as given: only timed


def measure(argv: list[str], arguments: list[str], seconds: float, rounds: int,
            jail: isolation.Jail, own_copy: str | None = None) -> dict[str, list[RunResult]]:
    limits = Limits(seconds=seconds, grace=0.5, memory_mb=2048)
    results: dict[str, list[RunResult]] = {"sandbox": [], "none": []}
    for number in range(rounds):
        order = ("sandbox", "none") if number % 2 == 0 else ("none", "sandbox")
        for setting in order:
            jailed = setting == "sandbox"
            env = clean_environment({"AVIARY_NO_WARM": "1"}, jailed=jailed)
            results[setting].append(run_program(argv, arguments, limits, env,
                                                jail if jailed else None, own_copy))
    return results


def report(label: str, results: dict[str, list[RunResult]]) -> None:
    medians = {}
    for setting, runs in results.items():
        first = [run.first_line_time for run in runs if run.first_line_time is not None]
        walls = [run.wall for run in runs]
        if not first:
            raise UsageError(f"{label} printed no line {setting}: "
                             f"{runs[0].stderr_tail.strip()[-200:]!r}")
        medians[setting] = (statistics.median(first), statistics.median(walls))
        print(f"  {setting:<8} first line {medians[setting][0] * 1000:7.1f} ms   "
              f"move over {medians[setting][1] * 1000:7.1f} ms   ({len(runs)} moves)")
    first = (medians["sandbox"][0] - medians["none"][0]) * 1000
    wall = (medians["sandbox"][1] - medians["none"][1]) * 1000
    ratio = medians["sandbox"][0] / medians["none"][0]
    print(f"  overhead: first line {first:+.1f} ms (x{ratio:.2f}), move over {wall:+.1f} ms")


def main() -> int:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default=registry.board_games()[0].name)
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=1.0)
    args = parser.parse_args()
    if args.rounds < 1 or not 0 < args.seconds <= 60:
        raise UsageError("--rounds must be at least 1 and --seconds in (0, 60]")
    try:
        isolation.check_available()
    except isolation.SandboxUnavailable as error:
        raise UsageError(str(error)) from None
    game = registry.make(args.game)
    arguments = game.command_args(game.start(), args.seconds)
    course = [sys.executable, "-m", "aviary", args.game]
    with tempfile.TemporaryDirectory() as folder:
        quick = Path(folder) / "quick" / "player.py"
        quick.parent.mkdir()
        quick.write_text(QUICK)
        programs = [isolation.Program("course", tuple(course)),
                    isolation.Program("quick", (sys.executable, str(quick)))]
        jails = isolation.arena_jails(programs, Path(folder) / "results.sqlite", 128, 2048)
        print(f"{args.game}, {args.rounds} moves each, {args.seconds:g} s a move, "
              f"load {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores; "
              f"{isolation.describe()}")
        print(f"the course command ({' '.join(course[1:])}):")
        report("the course command", measure(course, arguments, args.seconds, args.rounds,
                                             jails["course"]))
        print("a program that answers at once (Python's start):")
        copy = isolation.copy_folder(jails["quick"], str(Path(folder) / "copy"))
        report("the quick program", measure([sys.executable, str(quick)], arguments,
                                            args.seconds, args.rounds, jails["quick"], copy))
    return 0


if __name__ == "__main__":
    run_main(main)
