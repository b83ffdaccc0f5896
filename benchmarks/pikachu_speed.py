"""Pikachu speed: kernel perft vs rules.py perft, and search nodes/s on n=8 middle games.

Both comparisons are measured in this run on this machine, so the ratios hold even
when the machine is busy. Rates are per second of this thread's CPU time
(`time.thread_time`), so other processes competing for the cores do not dilute them;
wall-clock rates are printed too.

1. perft leaves/s of the numba kernels against rules.py's pure-Python perft,
   on the same positions and depths (the bar: at least 20x);
2. the engine's search nodes/s at a fixed depth over seeded n=8 middle-game
   positions (bar: at least 1 M nodes/s, single-threaded). No ratio against a
   pure-Python search is printed: at depth 9 the engine's nodes are mostly
   quiescence nodes and table hits, far cheaper than a full-width node, so
   nodes/s of the two are not like for like (perft, in 1., is).

    python benchmarks/pikachu_speed.py [--positions 12] [--depth 9]
"""

from __future__ import annotations

from aviary.errors import ArgumentParser
from aviary.games.pikachu import engine, rules
from measure import engine_rate, perft_ratio, random_positions
from script import run_main

REPEATS = 20


def middle_games(count: int, n: int = 8, seed: int = 11) -> list[rules.Position]:
    """Positions 14-30 random plies from the start in which the game is still on."""
    return random_positions(lambda _: rules.start_position(n), rules.legal_moves, rules.play,
                            lambda position: rules.winner(position) is None,
                            count, (14, 30), seed)


def main() -> int:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=12)
    parser.add_argument("--depth", type=int, default=9, help="engine search depth")
    parser.add_argument("--perft-depth", type=int, default=3)
    args = parser.parse_args()
    engine.warmup()
    player = engine.make_engine(rules.Pikachu(n=8))
    positions = middle_games(args.positions)

    perft_ratio(rules.Pikachu().perft, engine.PikachuSearcher().perft,
                [rules.start_position(8), *positions], args.perft_depth, REPEATS)
    nodes, seconds, wall = engine_rate(player, positions, args.depth)
    search_rate = nodes / seconds
    print(f"search engine : {nodes:>10,} nodes   {search_rate:>12,.0f} nodes/s "
          f"(depth {args.depth}, {len(positions)} n=8 middle games; bar: >= 1,000,000; "
          f"wall clock: {nodes / wall:,.0f} nodes/s)")
    return 0


if __name__ == "__main__":
    run_main(main)
