"""The Betsy position of the fallback's issue, played out: does the course command capture
the Kingfisher within 20 plies at 1 s a move with no warm server and numba slowed?

Black (the course command, a fresh process per move, `AVIARY_NO_WARM=1`, numba's import
slowed by `--slow` seconds) against the in-process textbook opponent (the `baseline`
engine where that is not registered yet) at the same time a move. Prints each move with
the command's last stderr line (engine, table or fallback) and the result.

    python benchmarks/course_betsy_position.py --games 3 --slow 0.45
"""

from __future__ import annotations

import os
import subprocess
import sys

from aviary.errors import ArgumentParser
from aviary.games import registry
from aviary.games.match import Match
from course_answers import SLOW_MACHINE
from script import run_main

BOARD = "....K......R.....................q............b..n.....r......k."


def play(env: dict[str, str], seconds: float, plies: int, verbose: bool) -> tuple[int | None, str]:
    """(plies to the capture or None, the command's answers by kind) of one game."""
    spec = registry.spec("betsy")
    game = registry.make("betsy", kingfisher="diagonal")
    opponent = spec.engine("textbook" if "textbook" in spec.engines else "baseline", game)
    match = Match(game, game.parse(BOARD, "b"))
    kinds: dict[str, int] = {}
    while match.outcome is None and match.plies < plies:
        state = match.state
        if game.label(state) == "b":
            result = subprocess.run([sys.executable, "-m", "aviary", "betsy",
                                     *game.command_args(state, seconds)],
                                    capture_output=True, text=True, env=env)
            move = game.read_answer(state, result.stdout.splitlines()[-1])
            said = result.stderr.strip().splitlines()[-1]
            kinds[said.split()[0]] = kinds.get(said.split()[0], 0) + 1
        else:
            move = opponent.best_move(state, time=seconds)
            said = "opponent"
        if verbose:
            print(f"  {match.plies + 1:>2} {game.move_text(state, move)}  {said}")
        match.play(move)
    ended = match.outcome
    won = ended is not None and ended.winner == 1
    return (match.plies if won else None), ", ".join(f"{k} {n}" for k, n in sorted(kinds.items()))


def main() -> None:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--plies", type=int, default=20)
    parser.add_argument("--slow", type=float, default=0.45)
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    env = dict(os.environ, AVIARY_NO_WARM="1", AVIARY_SLOW_NUMBA=str(args.slow),
               PYTHONPATH=str(SLOW_MACHINE))
    for number in range(args.games):
        load = os.getloadavg()[0]
        plies, kinds = play(env, args.seconds, args.plies, args.verbose)
        outcome = f"Kingfisher captured at ply {plies}" if plies else "not won"
        print(f"game {number + 1}: {outcome}; the command's answers: {kinds} "
              f"(load {load:.1f} at the start)")


if __name__ == "__main__":
    run_main(main)
