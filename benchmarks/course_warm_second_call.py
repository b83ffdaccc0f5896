"""Issue 53's warm bar: does a second course call, 1.5 s after the first, get the engine?

As a user runs it with the warm server allowed: no server at first; the first Betsy
course call (SECONDS 1, start position) finds none and starts one, which loads Betsy's
engine first; a second call starts 1.5 s after the first. numba's import is slowed by
`--slow` seconds (`slow_machine/sitecustomize.py`, as in `course_answers.py`), in the
commands and in the server they start. Each trial uses a fresh private AVIARY_WARM_DIR
and stops its server. Prints each trial's two last stderr lines, when the server had
loaded Betsy (its `warm.log`), and how many second calls the engine answered.

    python benchmarks/course_warm_second_call.py --trials 10 --slow 0.45
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from aviary.errors import ArgumentParser
from aviary.games import registry
from script import run_main

SLOW_MACHINE = Path(__file__).resolve().parent / "slow_machine"


def last_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def trial(board: str, seconds: float, gap: float, env: dict[str, str]) -> tuple[str, str, str]:
    """(first call's last stderr line, second call's, the server's load line)."""
    command = [sys.executable, "-m", "aviary", "betsy", "w", board, f"{seconds:g}"]
    started = time.monotonic()
    first = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
    time.sleep(max(0.0, started + gap - time.monotonic()))
    second = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)
    _, first_err = first.communicate(timeout=60)
    log = Path(env["AVIARY_WARM_DIR"]) / "warm.log"
    time.sleep(0.2)
    loaded = next((line.split(": ", 1)[1] for line in
                   (log.read_text().splitlines() if log.exists() else [])
                   if re.search(r": loaded betsy", line)), "not loaded yet")
    return last_line(first_err), last_line(second.stderr), loaded


def stop(env: dict[str, str]) -> None:
    """Stop the trial's server and wait until its process has gone."""
    status = subprocess.run([sys.executable, "-m", "aviary", "warm", "status"], env=env,
                            capture_output=True, text=True, timeout=60)
    subprocess.run([sys.executable, "-m", "aviary", "warm", "stop"], env=env,
                   capture_output=True, timeout=60)
    match = re.search(r'"pid": (\d+)', status.stdout)
    given_up = time.monotonic() + 30
    while match and Path(f"/proc/{match[1]}").exists() and time.monotonic() < given_up:
        time.sleep(0.1)


def main() -> None:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--gap", type=float, default=1.5,
                        help="seconds between the two calls' starts")
    parser.add_argument("--slow", type=float, default=0.45,
                        help="seconds added to numba's import (0: as this machine is)")
    args = parser.parse_args()
    game = registry.make("betsy")
    board = game.format(game.start())
    base = dict(os.environ, AVIARY_SLOW_NUMBA=str(args.slow), PYTHONPATH=os.pathsep.join(
        [str(SLOW_MACHINE), *filter(None, [os.environ.get("PYTHONPATH")])]))
    base.pop("AVIARY_NO_WARM", None)
    print(f"load {os.getloadavg()[0]:.1f} at the start; SECONDS={args.seconds:g}, "
          f"second call {args.gap:g} s after the first, numba's import slowed by {args.slow:g} s")
    engine = 0
    for number in range(args.trials):
        with tempfile.TemporaryDirectory(prefix="aviary-bench-") as folder:
            env = dict(base, AVIARY_WARM_DIR=str(Path(folder) / "warm"))
            try:
                first, second, loaded = trial(board, args.seconds, args.gap, env)
            finally:
                stop(env)
            engine += second.startswith("engine")
            print(f"{number + 1:>3}  first: {first:<44} second: {second:<52} server: {loaded}")
    print(f"{engine} of {args.trials} second calls answered by the engine; "
          f"load {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    run_main(main)
