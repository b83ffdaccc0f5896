"""Betsy speed: kernel perft vs rules.py perft, and search nodes/s on middle-game positions.

Both comparisons are measured in this run on this machine, so the ratios hold even
when the machine is busy. Rates are per second of this thread's CPU time
(`time.thread_time`), so other processes competing for the cores do not dilute them;
wall-clock rates are printed too.

1. perft leaves/s of the numba kernels against rules.py's pure-Python perft,
   on the same positions and depths (the bar: at least 20x);
2. the engine's search nodes/s at a fixed depth over seeded middle-game positions
   (bar: at least 1 M nodes/s, single-threaded);
3. like against like: the same plain alpha-beta (the textbook opponent's: no
   ordering, no table, the plain evaluation) to the same depth on the same
   positions, compiled over the kernels (`aviary.search.textbook`) and in pure
   Python over rules.py. Both find the same scores (checked); the ratio is of their
   seconds to finish the depth, and of their nodes/s (move orders differ a little,
   so node counts do too).

    python benchmarks/betsy_speed.py [--positions 12] [--depth 8] [--plain-depth 4]
                                     [--kingfisher diagonal]
"""

from __future__ import annotations

from aviary.errors import ArgumentParser
from aviary.games.betsy import engine, rules
from aviary.games.betsy.tables import PST
from aviary.search.alphabeta import MATE
from measure import compare, engine_rate, perft_ratio, python_alphabeta, random_positions
from script import run_main

REPEATS = 5
VALUE = {"P": 100, "N": 320, "B": 330, "R": 500, "Q": 900, "K": 0}
KIND = {"P": 1, "N": 2, "B": 3, "R": 4, "Q": 5, "K": 6}


def middle_games(count: int, diagonal: bool, seed: int = 11) -> list[rules.Position]:
    """Positions 16-30 random plies from the start with every piece kind still around."""
    return random_positions(lambda _: rules.start_position(diagonal), rules.legal_moves,
                            rules.play, lambda position: rules.winner(position) is None
                            and sum(p != "." for p in position.board) >= 24,
                            count, (16, 30), seed)


def plain_evaluate(position: rules.Position) -> int:
    """The textbook evaluation (`kernels.plain_evaluate`) in Python: material and PSTs."""
    white = 0
    for square, char in enumerate(position.board):
        if char != ".":
            kind = char.upper()
            if char.isupper():
                white += VALUE[kind] + int(PST[KIND[kind], square])
            else:
                white -= VALUE[kind] + int(PST[KIND[kind], square ^ 56])
    return white if position.player == "w" else -white


def decided(position: rules.Position, ply: int) -> int | None:
    """A side without its Kingfisher has lost."""
    white, black = rules.kingfishers(position)
    if white and black:
        return None
    mine = white if position.player == "w" else black
    return MATE - ply if mine else -MATE + ply


def main() -> int:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=12)
    parser.add_argument("--depth", type=int, default=8, help="engine search depth")
    parser.add_argument("--perft-depth", type=int, default=3)
    parser.add_argument("--plain-depth", type=int, default=4,
                        help="depth of the plain alpha-beta, compiled and in Python")
    parser.add_argument("--kingfisher", choices=("orthogonal", "diagonal"), default="orthogonal")
    args = parser.parse_args()
    diagonal = args.kingfisher == "diagonal"
    engine.warmup()
    player = engine.make_engine(rules.Betsy(kingfisher=args.kingfisher))
    positions = middle_games(args.positions, diagonal)

    perft_ratio(rules.Betsy().perft, engine.BetsySearcher().perft,
                [rules.start_position(diagonal), *positions], args.perft_depth, REPEATS)
    nodes, seconds, wall = engine_rate(player, positions, args.depth)
    print(f"search engine : {nodes:>10,} nodes   {nodes / seconds:>12,.0f} nodes/s "
          f"(depth {args.depth}, {len(positions)} middle games, Kingfisher {args.kingfisher}; "
          f"bar: >= 1,000,000; wall clock: {nodes / wall:,.0f} nodes/s)")

    compare(engine.make_textbook(rules.Betsy(kingfisher=args.kingfisher)), positions,
            args.plain_depth, REPEATS, python_alphabeta(rules, decided, plain_evaluate))
    return 0


if __name__ == "__main__":
    run_main(main)
