"""IJK speed: kernel moves/s against rules.py, search nodes/s, and what the chance pruning buys.

Everything is measured in this run on this machine; rates are per second of this
thread's CPU time (`time.thread_time`), so other processes competing for the
cores do not dilute them.

1. random playouts (move list, random choice, play, end test per move) through
   the numba kernels against the same through rules.py (the bar: at least 20x);
2. the engine's search nodes/s at a fixed depth over seeded middle-game
   positions, deterministic mode (alpha-beta);
3. non-deterministic mode (expectiminimax) at a fixed depth, the same positions
   searched with no chance pruning, Star1 and Star2, and with a transposition
   table of 2 entries instead of 2**20: nodes and CPU seconds of each.

    python benchmarks/ijk_speed.py [--positions 8] [--det-depth 10] [--nondet-depth 3]
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from typing import Any

from aviary.errors import ArgumentParser
from aviary.games.ijk import engine, kernels, rules
from aviary.games.ijk.rules import IJK
from aviary.search import expectimax
from aviary.search.alphabeta import Workspace
from aviary.search.clock import Limit
from aviary.search.deepening import iterate
from script import run_main


def timed(function: Callable[..., Any], *args: Any) -> tuple[Any, float]:
    started = time.thread_time()
    result = function(*args)
    return result, time.thread_time() - started


def rules_playouts(game: IJK, moves: int, seed: int) -> int:
    """Random games through rules.py until `moves` moves were made."""
    rng = random.Random(seed)
    made = 0
    while made < moves:
        position = game.start()
        while made < moves:
            legal = game.legal_moves(position)
            if not legal:
                break
            position = game.play(position, rng.choice(legal))
            made += 1
    return made


def kernel_playouts(game: IJK, moves: int, seed: int) -> int:
    made = 0
    while made < moves:
        state = kernels.state_from_position(game.start(), game.variant, game.deterministic)
        made += kernels.random_playout(state, moves - made, seed + made)
    return made


def middle_games(game: IJK, count: int, seed: int = 5) -> list[rules.Position]:
    rng = random.Random(seed)
    found: list[rules.Position] = []
    while len(found) < count:
        position = game.start()
        for _ in range(rng.randint(60, 400)):
            if game.outcome(position) is not None:
                break
            if game.is_chance(position):
                position = game.play(position, game.sample_chance(position, rng))
            else:
                position = game.play(position, rng.choice(game.legal_moves(position)))
        if game.is_chance(position):
            position = game.play(position, game.sample_chance(position, rng))
        if game.outcome(position) is None:
            found.append(position)
    return found


def search(game: IJK, positions: list[rules.Position], depth: int, tt_bits: int = 20,
           run: Callable[..., Any] = iterate, **options: Any) -> tuple[int, float, list[int]]:
    """Total nodes, CPU seconds and root scores of fixed-depth searches of `positions`."""
    searcher = engine.IJKSearcher(game)
    nodes = 0
    seconds = 0.0
    scores: list[int] = []
    for position in positions:
        workspace = Workspace(kernels.CELLS, tt_bits=tt_bits)
        state = searcher.state_array(position)
        started = time.thread_time()
        reports = list(run(state, searcher.kernels, workspace, Limit(depth=depth), **options))
        spent = time.thread_time() - started
        nodes += reports[-1].nodes
        seconds += spent
        scores.append(reports[-1].score)
    return nodes, seconds, scores


def main() -> int:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=8)
    parser.add_argument("--moves", type=int, default=20_000, help="playout moves per side")
    parser.add_argument("--det-depth", type=int, default=10)
    parser.add_argument("--nondet-depth", type=int, default=3)
    args = parser.parse_args()
    engine.warmup()
    det, nondet = IJK(mode="det"), IJK(mode="nondet")

    print("1. random playouts, course variant, det mode")
    kernel_playouts(det, 1000, 0)  # compiled before timing
    slow, slow_seconds = timed(rules_playouts, det, args.moves // 10, 1)
    fast, fast_seconds = timed(kernel_playouts, det, args.moves * 10, 1)
    slow_rate, fast_rate = slow / slow_seconds, fast / fast_seconds
    print(f"   rules.py  {slow_rate:>12,.0f} moves/s")
    print(f"   kernels   {fast_rate:>12,.0f} moves/s   ratio {fast_rate / slow_rate:,.0f}x")

    print(f"2. det alpha-beta, depth {args.det_depth}, {args.positions} middle games")
    nodes, seconds, _ = search(det, middle_games(det, args.positions), args.det_depth)
    print(f"   {nodes:,} nodes in {seconds:.2f} s CPU = {nodes / seconds:,.0f} nodes/s")

    print(f"3. nondet expectiminimax, depth {args.nondet_depth}, {args.positions} middle games")
    positions = middle_games(nondet, args.positions)
    bounds = (-engine.WIN, engine.WIN)
    rows = [
        ("no pruning", {}, 20),
        ("Star1", {"bounds": bounds, "star2": False, "run": expectimax.iterate}, 20),
        ("Star2", {"bounds": bounds}, 20),
        ("Star2, TT of 2", {"bounds": bounds}, 1),
    ]
    plain_nodes = plain_seconds = 0.0
    expected: list[int] | None = None
    for name, options, bits in rows:
        nodes, seconds, scores = search(nondet, positions, args.nondet_depth, bits, **options)
        if expected is None:
            expected, plain_nodes, plain_seconds = scores, nodes, seconds
        same = "same scores" if scores == expected else "SCORES DIFFER"
        print(f"   {name:<16} {nodes:>12,} nodes {seconds:>7.2f} s CPU  "
              f"{plain_nodes / nodes:5.2f}x fewer nodes, {plain_seconds / seconds:5.2f}x faster "
              f"({same}, {nodes / seconds:,.0f} nodes/s)")
    return 0


if __name__ == "__main__":
    run_main(main)
