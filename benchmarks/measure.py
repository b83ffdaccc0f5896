"""What the board games' speed benchmarks measure alike, written once.

- `random_positions`: seeded positions some random plies into a game, for the others;
- `perft_ratio`: leaves/s of the kernels' perft against rules.py's pure-Python perft,
  the same positions and depths, leaf counts checked equal;
- `engine_rate`: the engine's search nodes/s to a fixed depth, each position cold;
- `compare`: the textbook alpha-beta compiled against the same search in pure
  Python (`python_alphabeta` writes it over a game's rules.py), like for like: the
  same positions, the same depth, the same plain evaluation, and the scores checked
  equal, so the ratio measures only the compiling.

Times are the CPU seconds of this thread (`timed`), so other processes competing for
the cores do not dilute the rates; wall-clock rates are printed beside them.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from aviary.search.alphabeta import MATE
from aviary.search.clock import Limit

Position = TypeVar("Position")


def timed(function, *args):  # type: ignore[no-untyped-def]
    """The result and the CPU seconds this thread spent computing it."""
    started = time.thread_time()
    result = function(*args)
    return result, time.thread_time() - started


def random_positions(start: Callable[[int], Position],
                     legal_moves: Callable[[Position], Sequence[Any]],
                     play: Callable[[Position, Any], Position], keep: Callable[[Position], bool],
                     count: int, plies: tuple[int, int], seed: int) -> list[Position]:
    """`count` positions, each a random number of plies in `plies` of random moves from
    `start(how many found so far)`, kept only if `keep` says so (the same every run)."""
    chooser = random.Random(seed)
    found: list[Position] = []
    while len(found) < count:
        position = start(len(found))
        for _ in range(chooser.randint(*plies)):
            moves = legal_moves(position)
            if not moves:
                break
            position = play(position, chooser.choice(moves))
        if keep(position):
            found.append(position)
    return found


def python_alphabeta(rules: Any, decided: Callable[[Any, int], int | None],
                     evaluate: Callable[[Any], int]) -> Callable[..., int]:
    """The textbook opponent's search in pure Python over a game's rules.py: negamax
    alpha-beta, moves in rules.py's order, `decided(position, ply)` for a finished
    game's score, `evaluate` at depth 0, and a mover with no move lost."""

    def search(position: Any, depth: int, ply: int, alpha: int, beta: int,
               counter: list[int]) -> int:
        counter[0] += 1
        score = decided(position, ply)
        if score is not None:
            return score
        if depth == 0:
            return evaluate(position)
        moves = rules.legal_moves(position)
        if not moves:
            return -MATE + ply
        best = -2 * MATE
        for move in moves:
            score = -search(rules.play(position, move), depth - 1, ply + 1, -beta, -alpha,
                            counter)
            if score > best:
                best = score
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        break
        return best

    return search


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
