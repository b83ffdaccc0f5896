"""The textbook alpha-beta compiled against the same search in pure Python, like for like.

Shared by the Betsy and Fox-Geese speed benchmarks: the same positions, the same depth,
the same plain evaluation, and the scores checked equal, so the ratio measures only the
compiling. Times are the CPU seconds of this thread (`timed`).
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
