"""What answers the course command at SECONDS: the engine, a table, or the fallback search.

A grader runs a fresh process per move; on a slow machine (numba's import taking
0.7 s instead of 0.26 s) a one-second move can end before the compiled engine has
loaded. This runs every board game's course command on a handful of middle-game
positions, with numba's import slowed by `--slow` seconds (`slow_machine/sitecustomize.py`
on PYTHONPATH sleeps before `import numba`; used only by benchmarks), three times:

- cold: no warm server (`AVIARY_NO_WARM=1`): the engine loads in a child process;
- warm: with a warm server started beforehand in a private folder (and stopped after);
- auto: as a user runs it: no server at first, the first command starts one at its
  start, as its engine (in a private folder; stopped after), the later ones find it.

It counts the word in each command's last stderr line (`engine`, `table`, `fallback`)
and prints the share of engine-or-table answers per game and setting, with the load.

    python benchmarks/course_answers.py --seconds 1 --positions 6 --slow 0.45
"""

from __future__ import annotations

import collections
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from aviary.course import runner
from aviary.errors import ArgumentParser
from aviary.games import registry
from script import run_main

# numba's import slowed by AVIARY_SLOW_NUMBA seconds: `sitecustomize.py` in this folder
SLOW_MACHINE = Path(__file__).resolve().parent / "slow_machine"

# (registry name, command words before the course arguments, game settings, who moves)
CASES = [
    ("pikachu", [], {}, None),
    ("betsy", [], {}, None),
    ("foxgeese", [], {}, "f"),
    ("foxgeese", [], {}, "g"),
    ("ijk", ["move"], {"mode": "det"}, None),
]


def positions(name: str, settings: dict[str, object], mover: str | None, count: int,
              seed: int, seconds: float) -> list[list[str]]:
    """Course arguments of `count` middle-game positions."""
    game = registry.make(name, **settings)
    rng = random.Random(seed)
    found: list[list[str]] = []
    while len(found) < count:
        state = game.opening(rng, rng.randrange(8, 30))
        if game.outcome(state) is not None or game.is_chance(state):
            continue
        if not game.legal_moves(state) or (mover and game.label(state) != mover):
            continue
        found.append(game.command_args(state, seconds))
    return found


def answered_by(name: str, words: list[str], arguments: list[str], seconds: float,
                env: dict[str, str]) -> tuple[str, float]:
    """(engine, table, fallback or `none`, seconds to exit) of one course command."""
    started = time.monotonic()
    result = subprocess.run([sys.executable, "-m", "aviary", name, *words, *arguments],
                            capture_output=True, text=True, env=env, timeout=seconds + 30)
    took = time.monotonic() - started
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    last = lines[-1] if lines else ""
    return runner.source_of(last), took


def main() -> None:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--positions", type=int, default=6)
    parser.add_argument("--slow", type=float, default=0.45,
                        help="seconds added to numba's import (0: as this machine is)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="aviary-bench-") as folder:
        (Path(folder) / "warm").mkdir(mode=0o700)
        base = dict(os.environ, AVIARY_SLOW_NUMBA=str(args.slow), PYTHONPATH=os.pathsep.join(
            [str(SLOW_MACHINE), *filter(None, [os.environ.get("PYTHONPATH")])]))
        cold = dict(base, AVIARY_NO_WARM="1")
        warm = dict(base, AVIARY_NO_WARM="1", AVIARY_WARM_DIR=str(Path(folder) / "warm"))
        auto = {key: value for key, value in warm.items() if key != "AVIARY_NO_WARM"}
        auto["AVIARY_WARM_DIR"] = str(Path(folder) / "auto")
        print(f"load {os.getloadavg()[0]:.1f} at the start; SECONDS={args.seconds:g}, "
              f"numba's import slowed by {args.slow:g} s")
        tallies: dict[tuple[str, str], collections.Counter[str]] = {}
        slowest: dict[tuple[str, str], float] = {}
        cases = [(case, positions(case[0], case[2], case[3], args.positions, args.seed,
                                       args.seconds))
                 for case in CASES]
        for setting, env in (("cold", cold), ("warm", warm), ("auto", auto)):
            if setting == "warm":
                subprocess.run([sys.executable, "-m", "aviary", "warm", "start", "--idle", "10"],
                               check=True, capture_output=True, env=env)
            try:
                for (name, words, _, mover), arguments in cases:
                    label = name + (f" ({mover})" if mover else "")
                    tally = tallies.setdefault((label, setting), collections.Counter())
                    for case in arguments:
                        word, took = answered_by(name, words, case, args.seconds, env)
                        tally[word] += 1
                        slowest[label, setting] = max(slowest.get((label, setting), 0.0), took)
            finally:
                if setting != "cold":
                    subprocess.run([sys.executable, "-m", "aviary", "warm", "stop"],
                                   capture_output=True, env=env)
        print(f"{'game':<16}{'setting':<8}{'engine or table':>16}  {'answers':<36}slowest exit")
        for (label, setting), tally in tallies.items():
            total = sum(tally.values())
            share = (tally["engine"] + tally["table"]) / total
            counts = ", ".join(f"{word} {count}" for word, count in sorted(tally.items()))
            print(f"{label:<16}{setting:<8}{share:>15.0%}  {counts:<36}"
                  f"{slowest[label, setting]:.2f} s")
        print(f"load {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    run_main(main)
