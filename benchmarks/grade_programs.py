"""Grade a set of programs twice on the game's ladder and say whether the grades hold.

The programs are a folder of submissions (FOLDER/NAME/PROGRAM, as a course collects
them: each graded by its folder's name) plus the course command and the random mover.
The course's skeleton reads SECONDS with `int()`, so below 1 s its programs crash on
every move; `--round-seconds-up` calls each program through a short shell script that
hands it SECONDS (its last argument) rounded up. The arena still cuts it off at SECONDS
plus the grace and takes the last line it printed by then, so such a program thinks
until the cut-off. The course command is called as course staff would call it, with
SECONDS as given, and exits `exit_margin` before them: the rounding favours the public
programs, never the course command. (Handed 1 s and cut off at 0.75 s, the course
command would be killed on every move and, on a busy machine, sometimes before its
first line: tried on 2026-12-06, 5 of its 12 games lost on time.) It runs `aviary
warmup` first, as the README's setup does: without the search it builds for the current
sources, the course command's engine loads numba inside the move's 0.5 s and rarely
answers (on 2026-12-07 a stale build left every answer to the rules-only fallback), so
the record counts where the course command's answers came from (`course_answers`).
Each run is one `aviary grade` (in the sandbox, as course staff run it), into its own
folder; the two runs use different openings (`--seed`). Printed, and written to
`--record` as JSON with the date, commit, machine and load: each program's Elo and
interval in both runs, its wall-clock share, and the checks:

- every program has an Elo (or a one-sided bound) with its interval;
- the course command is placed above every other program but the engines, random lowest;
- the second run places every program inside its first interval.

    python benchmarks/grade_programs.py FOLDER --game pikachu --option n=8 --time 0.5 \\
        --jobs 2 --out /tmp/grade-bar --record benchmarks/results/grade-pikachu-n8.json
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from aviary.arena import provenance
from aviary.arena.store import Store
from aviary.course import runner
from aviary.errors import ArgumentParser, UsageError
from script import run_main


def grade(players: list[str], args: Any, out: Path, seed: int) -> tuple[dict[str, Any], float]:
    options = [word for option in args.option for word in ("--option", option)]
    command = [sys.executable, "-m", "aviary", "grade", "--game", args.game, *options,
               "--time", f"{args.time:g}", "--jobs", str(args.jobs), "--out", str(out),
               "--seed", str(seed), "--budget", str(args.budget), *players]
    start = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True)
    took = time.monotonic() - start
    if done.returncode != 0:
        raise UsageError(f"aviary grade failed ({done.returncode}): "
                         f"{done.stderr.strip().splitlines()[-1:]}")
    print(done.stdout.split("\n\n")[-1] if done.stdout else "", flush=True)
    return json.loads((out / "grades.json").read_text()), took


WRAPPER = """#!/bin/sh
# the course skeleton reads SECONDS with int(): hand the program SECONDS (its last
# argument) rounded up
count=$#
for word in "$@"; do last=$word; done
up=$(awk -v s="$last" 'BEGIN {{ print (s == int(s)) ? s : int(s) + 1 }}')
index=0
for word in "$@"; do
    index=$((index + 1))
    if [ "$index" -lt "$count" ]; then set -- "$@" "$word"; else set -- "$@" "$up"; fi
done
shift "$count"
exec {command} "$@"
"""


def course_answers(out: Path) -> dict[str, int]:
    """How many of the course command's moves each source gave in the run in `out` (the
    stderr line it said, read by `runner.source_of`: engine, table, fallback, none)."""
    sources: Counter[str] = Counter()
    with Store(out / "grade.sqlite", read_only=True) as store:
        for game in store.games():
            seats = [seat for seat, name in enumerate((game.first, game.second))
                     if name == "course"]
            sources.update(runner.source_of(move.note or "")
                           for move in store.moves(game.id) if move.mover in seats)
    return dict(sources)


def wrapped(programs: list[Path], out: Path) -> list[str]:
    """Each program copied with its folder under `out`, called through `WRAPPER`."""
    players = []
    for program in programs:
        folder = out / program.parent.name
        if folder.exists():
            shutil.rmtree(folder)
        shutil.copytree(program.parent, folder)
        players.append(f"{program.parent.name}="
                       + script(folder, f'"{sys.executable}" "$(dirname "$0")/{program.name}"'))
    return players


def script(folder: Path, command: str) -> str:
    """`folder/run.sh`: `command` called through `WRAPPER`."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "run.sh"
    path.write_text(WRAPPER.format(command=command))
    path.chmod(0o755)
    return str(path)


def inside(value: float | None, low: float | None, high: float | None) -> bool:
    """Whether a second run's Elo (or bound) lies inside the first run's interval."""
    if value is None:
        return False
    return (low is None or value >= low) and (high is None or value <= high)


def standing(player: dict[str, Any]) -> float:
    for key in ("elo", "low", "high"):
        if player.get(key) is not None:
            return float(player[key])
    return float("-inf")


def main() -> int:
    parser = ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="FOLDER/NAME/PROGRAM, one a submission")
    parser.add_argument("--program", default="*.py", help="the program's file name (*.py)")
    parser.add_argument("--game", required=True)
    parser.add_argument("--option", action="append", default=[])
    parser.add_argument("--time", type=float, default=0.5)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--budget", type=int, default=40, help="games a program at most (40)")
    parser.add_argument("--out", type=Path, required=True, help="run1/ and run2/ go here")
    parser.add_argument("--record", type=Path, help="write the figures here as JSON")
    parser.add_argument("--round-seconds-up", action="store_true",
                        help="call each program with SECONDS rounded up (see above)")
    args = parser.parse_args()
    programs = sorted(args.folder.glob(f"*/{args.program}"))
    if not programs:
        raise UsageError(f"no {args.program} in the folders of {args.folder}")
    course = f"course={Path(sys.executable).parent / 'aviary'} {args.game}"
    submissions = (wrapped(programs, args.out / "programs") if args.round_seconds_up
                   else [str(program) for program in programs])
    players = [*submissions, course, "random=aviary:random"]
    warmed = subprocess.run([sys.executable, "-m", "aviary", "warmup", "--quiet"],
                            capture_output=True, text=True)
    if warmed.returncode != 0:
        said = warmed.stderr.strip().splitlines()
        raise UsageError(f"aviary warmup failed (exit {warmed.returncode}): "
                         f"{said[-1] if said else 'nothing on stderr'}")
    runs = []
    for number, seed in ((1, 1), (2, 2)):
        data, took = grade(players, args, args.out / f"run{number}", seed)
        runs.append({"players": data["players"], "seconds": round(took, 1),
                     "load": data.get("load"),
                     "course_answers": course_answers(args.out / f"run{number}")})
    first = {p["name"]: p for p in runs[0]["players"]}
    second = {p["name"]: p for p in runs[1]["players"]}
    public = [name for name in first if name not in ("course", "random")]
    checks = {
        "every program placed": all(p["games"] > 0 and p["problem"] is None
                                    for run in runs for p in run["players"]),
        "course above every public program": all(
            standing(run_["course"]) > standing(run_[name]) for run_ in (first, second)
            for name in public),
        "random lowest": all(min(run_, key=lambda name: standing(run_[name])) == "random"
                             for run_ in (first, second)),
        "second run inside the first interval": all(
            inside(standing(second[name]), first[name]["low"], first[name]["high"])
            for name in first),
        "at most 5 minutes a program": all(
            run["seconds"] / len(players) <= 300 for run in runs),
    }
    for name in first:
        print(f"{name:>12}: run 1 {first[name]['elo']} [{first[name]['low']}, "
              f"{first[name]['high']}], run 2 {second[name]['elo']} [{second[name]['low']}, "
              f"{second[name]['high']}], games {first[name]['games']}/{second[name]['games']},"
              f" forfeits {first[name]['forfeits']}/{second[name]['forfeits']}")
    for run in runs:
        print(f"run: {run['seconds']:.0f} s for {len(players)} programs "
              f"({run['seconds'] / len(players):.0f} s a program), load {run['load']}; "
              f"the course command's answers: {run['course_answers']}")
    for check, held in checks.items():
        print(f"{'holds' if held else 'FAILS'}: {check}")
    if args.record is not None:
        record = {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                  "commit": provenance.git_commit(), "machine": provenance.machine(),
                  "game": args.game, "options": args.option, "seconds": args.time,
                  "jobs": args.jobs, "programs": [str(p.relative_to(args.folder))
                                                  for p in programs],
                  "round_seconds_up": args.round_seconds_up,
                  "runs": runs, "checks": checks}
        args.record.write_text(json.dumps(record, indent=1) + "\n")
    return 0 if all(checks.values()) else 1


if __name__ == "__main__":
    run_main(main)
