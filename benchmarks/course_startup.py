"""How soon the course command's engine answers, with and without a warm engine server.

Runs `aviary GAME ...` on the start position (and a few middle positions) at SECONDS,
as a grader would (a fresh process per move), once with the engine in a child process
(the default) and once with `aviary warm start` running, in the same run. Reports per
setting how many moves the engine answered (not only the rules-only quick player),
and when its first answer arrived after process start.

    python benchmarks/course_startup.py --game pikachu --seconds 1 --moves 12
"""

from __future__ import annotations

import os
import random
import statistics
import subprocess
import sys
import time

from aviary.errors import ArgumentParser
from aviary.games import registry
from script import run_main


def positions(game_name: str, count: int, seed: int) -> list[list[str]]:
    """Course arguments (without SECONDS) of `count` positions from random short games."""
    game = registry.make(game_name)
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        state = game.opening(rng, rng.randrange(0, 20))
        if game.outcome(state) is None and game.legal_moves(state):
            found.append(game.command_args(state, 1)[:-1])
    return found


def run(game_name: str, arguments: list[str], seconds: float) -> tuple[float | None, float]:
    """(first engine answer after process start or None, exit time) of one command."""
    env = dict(os.environ, AVIARY_COURSE_TRACE="1")
    start = time.monotonic()
    result = subprocess.run([sys.executable, "-m", "aviary", game_name, *arguments,
                             f"{seconds:g}"], capture_output=True, text=True, env=env)
    ended = time.monotonic() - start
    times = [float(line.split()[3]) for line in result.stderr.splitlines()
             if line.startswith("engine answer at")]
    return (times[0] if times else None), ended


def summary(label: str, results: list[tuple[float | None, float]]) -> str:
    answered = [first for first, _ in results if first is not None]
    exits = [ended for _, ended in results]
    first = f"first at median {statistics.median(answered):.2f} s" if answered else "never"
    return (f"{label:<22} engine answered {len(answered)}/{len(results)} moves ({first}); "
            f"exit at most {max(exits):.2f} s")


def main() -> None:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="pikachu")
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--moves", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}; {args.game} at SECONDS={args.seconds:g}")
    cases = positions(args.game, args.moves, args.seed)
    subprocess.run([sys.executable, "-m", "aviary", "warm", "stop"], capture_output=True)
    cold = [run(args.game, case, args.seconds) for case in cases]
    subprocess.run([sys.executable, "-m", "aviary", "warm", "start", "--idle", "10"],
                   check=True, capture_output=True)
    try:
        warm = [run(args.game, case, args.seconds) for case in cases]
    finally:
        subprocess.run([sys.executable, "-m", "aviary", "warm", "stop"], capture_output=True)
    print(summary("engine child process", cold))
    print(summary("warm engine server", warm))


if __name__ == "__main__":
    run_main(main)
