"""What a grade's 95% interval is worth: against model players of known strength, and
between two real grades of the same programs.

`simulate` grades model players (`aviary.arena.grade.simulate`: each game won with the
ladder's logistic chance) at every level's Elo of a game's packaged ladder, twice each,
and prints how often the first interval holds the true Elo (its coverage: 95% when the
intervals are right), how often the second grade's Elo lands inside the first interval
(less often, since both grades carry their own error), and from that the chance that a
second grade of K such programs lands inside for all K at once.

    python benchmarks/grade_intervals.py simulate --game pikachu --option n=8 --budget 12

`reruns DIR...` reads folders of `benchmarks/grade_programs.py` (DIR/run1/grades.json
and DIR/run2/grades.json) and prints, for every program graded in both runs, the two
Elos and z = their difference over its standard error (each run's from its interval, a
quarter of the width over 0.98): the mean of z^2 is about 1 when the intervals are
right about reruns. Above 1, the extra spread between runs (tau, Elo) that would make it 1.
Then it asks why: with P(win) = logistic(s (Elo - level's Elo)), it profiles the
likelihood of a common slope s, once with each program's Elo free in each run and once
with one Elo a program across both runs of a folder. s near 1 within runs but below 1
across them says the programs' strength moved between runs (a clock-bound program on a
loaded machine), not that the ladder's scale misfits them (that would flatten s within
a run too).

    python benchmarks/grade_intervals.py reruns /tmp/grade-bar-1 /tmp/grade-bar-2
"""

from __future__ import annotations

import json
import math
import random
import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from aviary.arena import grade, ladder
from aviary.arena.command import parse_options
from aviary.arena.games import make_game
from aviary.arena.ratings import Z95, softplus
from aviary.errors import ArgumentParser, UsageError
from script import run_main

K = math.log(10) / 400
SLOPES = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.4)


def simulate(args: Any) -> None:
    game = make_game(args.game, parse_options(args.option, None))
    shown = ladder.load(game)
    rng = random.Random(args.seed)
    print(f"{shown.game} {ladder.key(game)}: "
          f"{args.grades} pairs of grades a level, budget {args.budget}, target "
          f"+-{args.target:g}")
    covered = inside = placed = 0
    for level in shown.levels:
        hits = lands = count = 0
        for _ in range(args.grades):
            first, second = (grade.simulate(shown, level.elo, rng, args.budget, args.target)
                             for _ in range(2))
            if first.elo is None or first.low is None or first.high is None \
                    or second.elo is None:
                continue  # won or lost every game: a bound, not an interval
            count += 1
            hits += first.low <= level.elo <= first.high
            lands += first.low <= second.elo <= first.high
        covered, inside, placed = covered + hits, inside + lands, placed + count
        if count:
            print(f"  {level.name} ({level.elo:+.0f}): interval holds the Elo in "
                  f"{hits / count:.0%}, second grade inside the first in {lands / count:.0%}"
                  f" ({count} placed)")
    if not placed:
        raise UsageError("no simulated grade gave an interval")
    rate = inside / placed
    print(f"all levels: coverage {covered / placed:.1%}, second grade inside the first "
          f"{rate:.1%} ({placed} pairs)")
    for programs in (1, 4, 5, 6):
        print(f"  chance that all of {programs} programs' second grades land inside: "
              f"{rate ** programs:.0%}")


def _runs(folder: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    try:
        first, second = (json.loads((folder / f"run{n}" / "grades.json").read_text())
                         for n in (1, 2))
    except (OSError, ValueError) as error:
        raise UsageError(f"{folder}: no run1/grades.json and run2/grades.json of "
                         f"grade_programs.py ({error})") from None
    return first, second


def _tally(player: dict[str, Any], elo: dict[str, float]) -> list[tuple[float, float, float]]:
    """(level's Elo, points, games) for every level the player met."""
    return [(elo[level], points, games) for level, (points, games) in player["scores"].items()]


def _best_loglik(rows: Sequence[tuple[float, float, float]], slope: float) -> float:
    """The log likelihood at the best Elo, with every Elo difference scaled by `slope`."""
    def loglik(x: float) -> float:
        return sum(-points * softplus(slope * K * (opponent - x))
                   - (games - points) * softplus(slope * K * (x - opponent))
                   for opponent, points, games in rows)

    def rising(x: float) -> bool:
        return sum(points - games / (1 + math.exp(slope * K * (opponent - x)))
                   for opponent, points, games in rows) > 0

    left = min(opponent for opponent, _, _ in rows) - 4000
    right = max(opponent for opponent, _, _ in rows) + 4000
    for _ in range(80):
        middle = (left + right) / 2
        left, right = (middle, right) if rising(middle) else (left, middle)
    return loglik((left + right) / 2)


def reruns(args: Any) -> None:
    zs: list[float] = []
    gaps: list[float] = []
    within: list[list[tuple[float, float, float]]] = []
    across: list[list[tuple[float, float, float]]] = []
    for folder in args.folders:
        first, second = _runs(folder)
        elo = {level["name"]: level["elo"] for level in first["ladder"]["levels"]}
        later = {player["name"]: player for player in second["players"]}
        print(f"{folder}: {first.get('game')} {first.get('options') or ''}".rstrip())
        for one in first["players"]:
            two = later.get(one["name"])
            if two is None or None in (one["elo"], one["low"], one["high"], two["elo"],
                                       two["low"], two["high"]):
                continue
            errors = [(player["high"] - player["low"]) / (2 * Z95) for player in (one, two)]
            z = (one["elo"] - two["elo"]) / math.hypot(*errors)
            zs.append(z)
            gaps.append(((one["elo"] - two["elo"]) ** 2 - sum(e * e for e in errors)) / 2)
            print(f"  {one['name']:>12}: {one['elo']:+.0f} [{one['low']:+.0f}, "
                  f"{one['high']:+.0f}] then {two['elo']:+.0f} [{two['low']:+.0f}, "
                  f"{two['high']:+.0f}]  z {z:+.2f}")
            rows = [_tally(one, elo), _tally(two, elo)]
            within += rows
            across.append(rows[0] + rows[1])
    if not zs:
        raise UsageError("no program was placed with an interval in both runs of any folder")
    mean_z2 = statistics.mean(z * z for z in zs)
    tau = math.sqrt(max(0.0, statistics.mean(gaps)))
    print(f"{len(zs)} programs graded twice: mean z^2 {mean_z2:.2f} (1 if the intervals "
          f"were right about reruns); the spread between runs beyond the games' is about "
          f"{tau:.0f} Elo")
    for label, groups in (("Elo free in each run", within),
                          ("one Elo a program across its two runs", across)):
        profile = {slope: sum(_best_loglik(rows, slope) for rows in groups)
                   for slope in SLOPES}
        best = max(profile.values())
        likely = [slope for slope, value in profile.items() if best - value <= Z95**2 / 2]
        print(f"  slope s, {label}: best {max(profile, key=profile.__getitem__):g}, "
              f"95% {min(likely):g}-{max(likely):g}; s = 1 is "
              f"{best - profile[1.0]:.1f} log units below the best")


def main() -> int:
    parser = ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    simulated = commands.add_parser("simulate", help="model players of known Elo")
    simulated.add_argument("--game", required=True)
    simulated.add_argument("--option", action="append", default=[])
    simulated.add_argument("--budget", type=int, default=grade.BUDGET)
    simulated.add_argument("--target", type=float, default=grade.TARGET)
    simulated.add_argument("--grades", type=int, default=100,
                           help="pairs of grades at each level (100)")
    simulated.add_argument("--seed", type=int, default=1)
    real = commands.add_parser("reruns", help="two real grades of the same programs")
    real.add_argument("folders", type=Path, nargs="+", help="grade_programs.py's --out")
    args = parser.parse_args()
    if args.command == "simulate":
        if args.budget < 2 or args.grades < 1 or args.target <= 0:
            raise UsageError("--budget must be at least 2, --grades at least 1, "
                             "--target above 0")
        simulate(args)
    else:
        reruns(args)
    return 0


if __name__ == "__main__":
    run_main(main)
