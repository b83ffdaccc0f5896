"""What the board games' speed benchmarks measure alike, written once.

- `perft_ratio`: leaves/s of the kernels' perft against rules.py's pure-Python perft,
  the same positions and depths, leaf counts checked equal;
- `engine_rate`: the engine's search nodes/s to a fixed depth, each position cold;
- `compare`: the textbook alpha-beta compiled against the same search in pure
  Python, like for like: the same positions, the same depth, the same plain
  evaluation, and the scores checked equal, so the ratio measures only the compiling.

Times are the CPU seconds of this thread (`timed`), so other processes competing for
the cores do not dilute the rates; wall-clock rates are printed beside them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from aviary.search.alphabeta import MATE
from aviary.search.clock import Limit


def timed(function, *args):  # type: ignore[no-untyped-def]
    """The result and the CPU seconds this thread spent computing it."""
    started = time.thread_time()
    result = function(*args)
    return result, time.thread_time() - started


def perft_ratio(rules_perft: Callable[[Any, int], int], kernel_perft: Callable[[Any, int], int],
                positions: Sequence[Any], depth: int, repeats: int) -> float:
    """Print both perfts' leaves and leaves/s and their ratio (the bar: at least 20x)."""
    rules_leaves = kernel_leaves = 0
    rules_seconds = kernel_seconds = 0.0
    for position in positions:
        leaves, seconds = timed(rules_perft, position, depth)
        rules_leaves += leaves
        rules_seconds += seconds
        for _ in range(repeats):  # same depth as rules.py, repeated to be measurable
            leaves_k, seconds_k = timed(kernel_perft, position, depth)
            assert leaves_k == leaves, (position, leaves, leaves_k)
            kernel_leaves += leaves_k
            kernel_seconds += seconds_k
    rules_rate, kernel_rate = rules_leaves / rules_seconds, kernel_leaves / kernel_seconds
    print(f"perft rules.py: {rules_leaves:>10,} leaves  {rules_rate:>12,.0f} leaves/s")
    print(f"perft kernels : {kernel_leaves:>10,} leaves  {kernel_rate:>12,.0f} leaves/s")
    print(f"perft ratio   : {kernel_rate / rules_rate:.1f}x  (bar: >= 20x)")
    return kernel_rate / rules_rate


def engine_rate(player: Any, positions: Sequence[Any], depth: int) -> tuple[int, float, float]:
    """The engine's nodes, CPU seconds and wall seconds searching each position to
    `depth`, every position with a cleared table."""
    nodes = 0
    seconds = wall = 0.0
    for position in positions:
        player.workspace(position).tt[:] = 0  # every position starts cold
        reports, spent = timed(list, player.think(position, Limit(depth=depth)))
        nodes += reports[-1].nodes
        seconds += spent
        wall += reports[-1].seconds
    return nodes, seconds, wall


def compare(textbook: Any, positions: Sequence[Any], depth: int, repeats: int,
            python_alphabeta: Callable[..., int]) -> None:
    """Print nodes, nodes/s and CPU seconds of both searches to `depth`, and their ratio."""
    textbook.warmup()
    plain = {"compiled": [0.0, 0.0], "python": [0.0, 0.0]}  # nodes, CPU seconds
    for position in positions:
        for _ in range(repeats):  # repeated to be measurable
            reports, spent = timed(list, textbook.think(position, Limit(depth=depth)))
            plain["compiled"][0] += reports[-1].nodes / repeats
            plain["compiled"][1] += spent / repeats
        counter = [0]
        score, spent = timed(python_alphabeta, position, depth, 0, -2 * MATE, 2 * MATE,
                             counter)
        assert score == reports[-1].score, (position, score, reports[-1].score)
        plain["python"][0] += counter[0]
        plain["python"][1] += spent
    for name, (count, spent) in plain.items():
        print(f"plain {name:<8}: {count:>10,.0f} nodes   {count / spent:>12,.0f} nodes/s  "
              f"{spent:.3f} s  (textbook alpha-beta, depth {depth}, same scores)")
    (compiled_nodes, compiled_s), (python_nodes, python_s) = plain["compiled"], plain["python"]
    print(f"plain ratio   : {python_s / compiled_s:.0f}x the speed to the same depth, "
          f"{compiled_nodes / compiled_s / (python_nodes / python_s):.0f}x the nodes/s")
