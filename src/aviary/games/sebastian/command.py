"""`aviary sebastian play | advise | solve`: the optimal player from the command line.

play    plays like the course's `sebastian.py` (default 100 games) and ends with
        its line `Min/max/mean scores: MIN MAX MEAN`.
advise  the best choices for a position, with expected final scores, to learn from.
solve   builds (or loads) the solved table and prints the exact figures.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Sequence

from aviary.errors import ArgumentParser, UsageError
from aviary.games.sebastian.rules import (
    BONUS_POINTS,
    BONUS_THRESHOLD,
    CATEGORIES,
    NUMBERS,
    TURNS,
    possible_upper_totals,
)

PROGRESS_MIN_GAMES = 200


def _parser() -> ArgumentParser:
    parser = ArgumentParser(prog="aviary sebastian", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="action", required=True, parser_class=ArgumentParser)
    play = sub.add_parser("play", help="play games like the course driver")
    play.add_argument("--games", type=int, default=100, help="number of games (default 100)")
    play.add_argument("--seed", type=int, default=None, help="dice seed (default: random)")
    play.add_argument("--verbose", action="store_true", help="print every roll and scorecard")
    advise = sub.add_parser("advise", help="the best choices for a position")
    advise.add_argument("--dice", type=int, nargs="+", required=True, metavar="D",
                        help="the five dice, e.g. --dice 1 3 3 4 6")
    advise.add_argument("--roll", type=int, required=True, help="which roll of the turn: 1, 2, 3")
    advise.add_argument("--filled", default="", help="filled categories, comma-separated")
    advise.add_argument("--upper", type=int, default=0,
                        help="points in the number categories so far (default 0)")
    advise.add_argument("--score", type=int, default=None,
                        help="the scorecard's total so far, bonus included: shows expected final "
                             "scores (without it: expected points still to come)")
    advise.add_argument("--top", type=int, default=5, help="how many choices to show (default 5)")
    solve = sub.add_parser("solve", help="build the solved table now and print the exact figures")
    solve.add_argument("--force", action="store_true", help="solve again even if cached")
    return parser


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    if args.action == "play":
        return _play(args.games, args.seed, args.verbose)
    if args.action == "advise":
        return _advise(args.dice, args.roll, args.filled, args.upper, args.score, args.top)
    return _solve(args.force)


def _play(games: int, seed: int | None, verbose: bool) -> int:
    if games < 1:
        raise UsageError("aviary sebastian play: --games must be at least 1")
    if seed is not None and not 0 <= seed < 2**32:
        raise UsageError(f"aviary sebastian play: --seed must be from 0 to {2**32 - 1}, got {seed}")
    from aviary.games.sebastian.driver import SlotDice, mean_with_ci, play_game
    from aviary.games.sebastian.player import SebastianAutoPlayer

    seed = random.randrange(2**31) if seed is None else seed
    player = SebastianAutoPlayer()
    scores: list[int] = []
    bonuses = 0
    out = sys.stdout if verbose else None
    show_bar = not verbose and games >= PROGRESS_MIN_GAMES and sys.stderr.isatty()
    bar = None
    if show_bar:
        from rich.console import Console
        from rich.progress import Progress

        bar = Progress(transient=True, console=Console(stderr=True))
        task = bar.add_task("playing", total=games)
        bar.start()
    try:
        for game in range(games):
            card = play_game(player, SlotDice(seed, game), out)
            scores.append(card.totalscore)
            bonuses += card.bonusscore > 0
            if bar is not None:
                bar.advance(task)
    finally:
        if bar is not None:
            bar.stop()
    mean, half = mean_with_ci(scores)
    print(f"Games: {games}  seed: {seed}")
    if games > 1:
        print(f"Mean 95% confidence interval: {mean:.2f} +/- {half:.2f}")
    else:  # one game has no spread to estimate an interval from
        print(f"Mean: {mean:.2f} (one game: no confidence interval; play --games 2 or more)")
    print(f"Bonus rate: {100 * bonuses / games:.1f}%")
    print(f"Min/max/mean scores: {min(scores)} {max(scores)} {sum(scores) / games}")
    return 0


def _parse_filled(text: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    for name in names:
        if name not in CATEGORIES:
            raise UsageError(f"aviary sebastian advise: unknown category {name!r}; "
                             f"one of: {', '.join(CATEGORIES)}")
    repeated = sorted({n for n in names if names.count(n) > 1})
    if repeated:
        raise UsageError(f"aviary sebastian advise: category listed twice: {', '.join(repeated)}")
    if len(names) == TURNS:
        raise UsageError("aviary sebastian advise: every category is filled; the game is over")
    return names


def _advise(dice: Sequence[int], roll: int, filled_text: str, upper: int, score: int | None,
            top: int) -> int:
    if len(dice) != 5 or not all(1 <= d <= 6 for d in dice):
        raise UsageError("aviary sebastian advise: --dice needs exactly five values from 1 to 6")
    if roll not in (1, 2, 3):
        raise UsageError("aviary sebastian advise: --roll must be 1, 2 or 3")
    filled = _parse_filled(filled_text)
    numbers = {n for n in filled if n in NUMBERS}
    if upper not in possible_upper_totals(numbers):
        which = ", ".join(sorted(numbers, key=NUMBERS.__getitem__)) or "no number categories"
        raise UsageError(f"aviary sebastian advise: an upper total of {upper} is impossible "
                         f"with {which} filled")
    if score is not None and score < upper:
        raise UsageError("aviary sebastian advise: --score cannot be below --upper")
    if top < 1:
        raise UsageError("aviary sebastian advise: --top must be at least 1")
    # the course adds the bonus to the total as soon as the six number categories are filled
    if len(numbers) == len(NUMBERS) and upper >= BONUS_THRESHOLD:
        base = -BONUS_POINTS if score is None else score - BONUS_POINTS
    else:
        base = 0 if score is None else score
    column = "expected to come" if score is None else "expected final"
    from aviary.games.sebastian.player import OptimalPlayer, State, reroll_indices

    player = OptimalPlayer()
    state = State.from_filled(filled, upper)
    print(f"dice {' '.join(map(str, dice))}, roll {roll}; open: {', '.join(state.open_categories)}")
    print(f"{column} before this turn: {base + player.expected_from(state):.2f}")
    if roll == 3:
        print(f"{'':>3}  {'category':<15} {'points':>6}  {column:>16}")
        for rank, option in enumerate(player.category_options(dice, state)[:top], 1):
            print(f"{rank:>3}. {option.category:<15} {option.points:>6}  "
                  f"{base + option.expected:>16.2f}")
        return 0
    print(f"{'':>3}  {'keep':<11} {'reroll positions (0-based)':<27} {column:>16}")
    for rank, keep_option in enumerate(player.keep_options(dice, roll, state)[:top], 1):
        kept = " ".join(map(str, keep_option.keep)) or "nothing"
        positions = " ".join(map(str, reroll_indices(dice, keep_option.keep))) or "none"
        print(f"{rank:>3}. {kept:<11} {positions:<27} {base + keep_option.expected:>16.2f}")
    return 0


def _solve(force: bool) -> int:
    from aviary.games.sebastian.cache import load_solution, table_path

    path = table_path()
    cached = path.exists() and not force
    start = time.perf_counter()
    solution = load_solution(rebuild=force)
    seconds = time.perf_counter() - start
    how = "loaded from" if cached else f"solved in {seconds:.1f} s, saved to"
    print(f"table {how} {path}")
    print(f"expected score:           {solution.mean:.4f}")
    print(f"standard deviation:       {solution.sd:.1f}")
    print(f"upper bonus rate:         {100 * solution.bonus_rate:.1f}%")
    print(f"quintuplicatam (50) rate: {100 * solution.quintuplicatam_rate:.1f}%")
    return 0
