"""Fox, Geese and Elephants speed: kernel perft vs rules.py perft, and search nodes/s.

Both comparisons are measured in this run on this machine. Rates are per second of
this thread's CPU time (`time.thread_time`), so other processes competing for the
cores do not dilute them; wall-clock rates are printed too.

1. perft leaves/s of the numba kernels against rules.py's pure-Python perft on the
   same positions and depths, both variants, with the shrinking board (the bar: at
   least 20x);
2. the engine's search nodes/s at a fixed depth over seeded middle-game positions
   of both variants, against a plain pure-Python alpha-beta over rules.py (with the
   quick player's evaluation) on the same positions.

    python benchmarks/foxgeese_speed.py [--positions 8] [--depth 10]
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from aviary.games.foxgeese import engine, kernels, quick, rules
from aviary.search.clock import Limit

REPEATS = 20


def middle_games(count: int, seed: int = 11) -> list[rules.Position]:
    """Positions 10-40 random plies into either variant (shrinking board on) still going."""
    chooser = random.Random(seed)
    found: list[rules.Position] = []
    while len(found) < count:
        position = rules.start_position(rules.VARIANTS[len(found) % 2], shrink=True)
        for _ in range(chooser.randint(10, 40)):
            moves = rules.legal_moves(position)
            if not moves:
                break
            position = rules.play(position, chooser.choice(moves))
        if rules.outcome(position) is None:
            found.append(position)
    return found


def python_alphabeta(position: rules.Position, depth: int, alpha: float, beta: float,
                     counter: list[int]) -> float:
    """The reference: textbook negamax alpha-beta in pure Python over rules.py."""
    counter[0] += 1
    moves = rules.legal_moves(position)
    if not moves:
        return -1e9
    if depth == 0:
        return quick.value(position) * (1 if position.player == "f" else -1)
    for move in moves:
        score = -python_alphabeta(rules.play(position, move), depth - 1, -beta, -alpha, counter)
        if score > alpha:
            alpha = score
            if alpha >= beta:
                break
    return alpha


def timed(function, *args):  # type: ignore[no-untyped-def]
    """The result and the CPU seconds this thread spent computing it."""
    started = time.thread_time()
    result = function(*args)
    return result, time.thread_time() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=8)
    parser.add_argument("--depth", type=int, default=10, help="engine search depth")
    parser.add_argument("--perft-depth", type=int, default=4)
    args = parser.parse_args()
    engine.warmup()
    positions = middle_games(args.positions)
    starts = [rules.start_position(variant, shrink=True) for variant in rules.VARIANTS]

    rules_leaves = kernel_leaves = 0
    rules_seconds = kernel_seconds = 0.0
    for position in [*starts, *positions]:
        leaves, seconds = timed(rules.perft, position, args.perft_depth)
        rules_leaves += leaves
        rules_seconds += seconds
        for _ in range(REPEATS):  # same depth as rules.py, repeated to be measurable
            leaves_k, seconds_k = timed(kernels.kernel_perft, position, args.perft_depth)
            assert leaves_k == leaves
            kernel_leaves += leaves_k
            kernel_seconds += seconds_k
    rules_rate, kernel_rate = rules_leaves / rules_seconds, kernel_leaves / kernel_seconds
    print(f"perft rules.py: {rules_leaves:>10,} leaves  {rules_rate:>12,.0f} leaves/s")
    print(f"perft kernels : {kernel_leaves:>10,} leaves  {kernel_rate:>12,.0f} leaves/s")
    print(f"perft ratio   : {kernel_rate / rules_rate:.1f}x  (bar: >= 20x)")

    nodes = 0
    seconds = wall = 0.0
    python_nodes = 0
    python_seconds = 0.0
    for position in positions:
        engine.workspace(position.player).tt[:] = 0  # every position starts cold
        reports, spent = timed(list, engine.think(position, Limit(depth=args.depth)))
        nodes += reports[-1].nodes
        seconds += spent
        wall += reports[-1].seconds
        counter = [0]
        _, spent = timed(python_alphabeta, position, 3, -2e9, 2e9, counter)
        python_nodes += counter[0]
        python_seconds += spent
    search_rate, python_rate = nodes / seconds, python_nodes / python_seconds
    print(f"search engine : {nodes:>10,} nodes   {search_rate:>12,.0f} nodes/s "
          f"(depth {args.depth}, {len(positions)} middle games; "
          f"wall clock: {nodes / wall:,.0f} nodes/s)")
    print(f"search python : {python_nodes:>10,} nodes   {python_rate:>12,.0f} nodes/s "
          "(pure-Python alpha-beta over rules.py, depth 3)")
    print(f"search ratio  : {search_rate / python_rate:.0f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
