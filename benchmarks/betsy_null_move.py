"""Betsy null-move pruning: nodes and CPU time to a fixed depth, and depth reached in a
fixed time, with it against without, on the same middle-game positions in the same run.

Each position is searched by both engines in turn (interleaved, each from a cold
transposition table), so machine load falls on both alike; times are this thread's
CPU seconds (`time.thread_time`). Node counts at a fixed depth do not depend on the
load at all. Also printed: how often the two pick the same move at that depth (null
move changes the tree, so not always). Whether it wins games is a question for an
arena match, not for this speed benchmark.

    python benchmarks/betsy_null_move.py [--positions 12] [--depth 9] [--time 0.2]
"""

from __future__ import annotations

import statistics
import time

from aviary.errors import ArgumentParser
from aviary.games.betsy import engine, rules
from aviary.games.engine import Engine
from aviary.search.clock import Limit
from betsy_speed import middle_games
from script import run_main


def cold_search(player: Engine[rules.Position, rules.Move], position: rules.Position,
                limit: Limit) -> tuple[int, int, float, rules.Move]:
    """(deepest completed depth, nodes, CPU seconds, move) of one search from a cold table."""
    player.workspace(position).tt[:] = 0
    started = time.thread_time()
    reports = list(player.think(position, limit))
    return reports[-1].depth, reports[-1].nodes, time.thread_time() - started, reports[-1].move


def main() -> int:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=12)
    parser.add_argument("--depth", type=int, default=9, help="the fixed depth")
    parser.add_argument("--time", type=float, default=0.2, help="the fixed seconds a search")
    parser.add_argument("--kingfisher", choices=("orthogonal", "diagonal"), default="orthogonal")
    args = parser.parse_args()
    game = rules.Betsy(kingfisher=args.kingfisher)
    engine.warmup()
    players = {"without": engine.make_engine(game, null_move=False),
               "with": engine.make_engine(game, null_move=True)}
    positions = middle_games(args.positions, args.kingfisher == "diagonal")
    for player in players.values():  # compile both settings before timing
        for _ in player.think(positions[0], Limit(depth=3)):
            pass

    nodes = dict.fromkeys(players, 0)
    seconds = dict.fromkeys(players, 0.0)
    depths: dict[str, list[int]] = {name: [] for name in players}
    same = 0
    for position in positions:
        moves = {}
        for name, player in players.items():
            _, counted, spent, moves[name] = cold_search(player, position, Limit(depth=args.depth))
            nodes[name] += counted
            seconds[name] += spent
        same += moves["with"] == moves["without"]
        for name, player in players.items():
            depths[name].append(cold_search(player, position, Limit(time=args.time))[0])

    print(f"{len(positions)} middle games, Kingfisher {args.kingfisher}")
    for name in players:
        print(f"{name:>7} null move: depth {args.depth} in {nodes[name]:>11,} nodes, "
              f"{seconds[name]:6.2f} s CPU; in {args.time} s: depth "
              f"{statistics.mean(depths[name]):.2f} on average "
              f"({min(depths[name])}-{max(depths[name])})")
    print(f"ratio (without / with): nodes {nodes['without'] / nodes['with']:.2f}x, "
          f"CPU time {seconds['without'] / seconds['with']:.2f}x; depth in {args.time} s "
          f"{statistics.mean(depths['with']) - statistics.mean(depths['without']):+.2f} plies; "
          f"same move at depth {args.depth}: {same}/{len(positions)}")
    return 0


if __name__ == "__main__":
    run_main(main)
