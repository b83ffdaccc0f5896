"""Fox, Geese and Elephants speed: kernel perft vs rules.py perft, and search nodes/s.

Both comparisons are measured in this run on this machine. Rates are per second of
this thread's CPU time (`time.thread_time`), so other processes competing for the
cores do not dilute them; wall-clock rates are printed too.

1. perft leaves/s of the numba kernels against rules.py's pure-Python perft on the
   same positions and depths, both variants, with the shrinking board (the bar: at
   least 20x);
2. the engine's search nodes/s at a fixed depth over seeded middle-game positions
   of both variants;
3. like against like: the same plain alpha-beta (the textbook opponent's: no
   ordering, no table, the plain evaluation) to the same depth on the same
   positions, compiled over the kernels (`aviary.search.textbook`) and in pure
   Python over rules.py. Both find the same scores (checked); the ratio is of their
   seconds to finish the depth, and of their nodes/s (move orders differ a little,
   so node counts do too).

    python benchmarks/foxgeese_speed.py [--positions 8] [--depth 10] [--plain-depth 6]
"""

from __future__ import annotations

from aviary.errors import ArgumentParser
from aviary.games.foxgeese import engine, rules
from aviary.search.alphabeta import MATE
from measure import compare, engine_rate, perft_ratio, python_alphabeta, random_positions
from script import run_main

REPEATS = 20


def middle_games(count: int, seed: int = 11) -> list[rules.Position]:
    """Positions 10-40 random plies into either variant (shrinking board on) still going."""
    return random_positions(
        lambda found: rules.start_position(rules.VARIANTS[found % 2], shrink=True),
        rules.legal_moves, rules.play, lambda position: rules.outcome(position) is None,
        count, (10, 40), seed)


def plain_evaluate(position: rules.Position) -> int:
    """The textbook evaluation (`engine.plain_evaluate`) in Python: material, fox mobility."""
    board = position.board
    fox_moves = sum(len(rules.piece_moves(board, point))
                    for point, piece in enumerate(board) if piece == rules.FOX)
    foxes = (500 * board.count(rules.FOX) - 100 * board.count(rules.GOOSE)
             - 300 * board.count(rules.ELEPHANT) + 10 * fox_moves)
    return foxes if position.player == "f" else -foxes


def decided(position: rules.Position, ply: int) -> int | None:
    """The piece-count result, or the move limit's draw."""
    result = rules.result(position)
    if result is not None:
        won = result[0]
        return 0 if won is None else MATE - ply if won == position.player else -MATE + ply
    return 0 if position.ply >= rules.MOVE_LIMIT else None


def main() -> int:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=8)
    parser.add_argument("--depth", type=int, default=10, help="engine search depth")
    parser.add_argument("--perft-depth", type=int, default=4)
    parser.add_argument("--plain-depth", type=int, default=6,
                        help="depth of the plain alpha-beta, compiled and in Python")
    args = parser.parse_args()
    engine.warmup()
    player = engine.make_engine(rules.FoxGeese())
    positions = middle_games(args.positions)
    starts = [rules.start_position(variant, shrink=True) for variant in rules.VARIANTS]

    perft_ratio(rules.FoxGeese().perft, engine.FoxGeeseSearcher().perft,
                [*starts, *positions], args.perft_depth, REPEATS)
    nodes, seconds, wall = engine_rate(player, positions, args.depth)
    print(f"search engine : {nodes:>10,} nodes   {nodes / seconds:>12,.0f} nodes/s "
          f"(depth {args.depth}, {len(positions)} middle games; "
          f"wall clock: {nodes / wall:,.0f} nodes/s)")

    compare(engine.make_textbook(rules.FoxGeese()), positions, args.plain_depth, REPEATS,
            python_alphabeta(rules, decided, plain_evaluate))
    return 0


if __name__ == "__main__":
    run_main(main)
