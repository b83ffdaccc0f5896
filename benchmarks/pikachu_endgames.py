"""Solved Pikachu endings: which are won, and does the engine convert every won one?

For each material balance in the tables (Pikachus of the side to move v the other
side's, n = 8), prints how many positions are won / drawn / lost for the side to
move and how long the wins are. Then, from `--positions` random table-won
positions of each balance (either colour to move), the engine (`Engine.best_move`
at `--time` seconds a move, the real path: it answers from the tables) plays the
winning side against the table's best defence (the longest resistance); a game is
converted when the engine wins within twice the table's distance. The baseline, in
the same run on the first `--baseline-positions` of the same positions: the same
engine with the tables switched off (search alone), as before the tables existed.

    python benchmarks/pikachu_endgames.py --positions 100 --time 0.5
    python benchmarks/pikachu_endgames.py --min-distance 3      # only wins that need a plan
"""

from __future__ import annotations

import random
import time

import numpy as np

from aviary.errors import ArgumentParser
from aviary.games import registry
from aviary.games.match import Match
from aviary.games.pikachu import endgame, rules
from script import run_main


def won_positions(mover: int, other: int, count: int, seed: int,
                  min_distance: int = 1) -> list[rules.Position]:
    """`count` random positions (all, if fewer exist) won for the side to move in at least
    `min_distance` plies."""
    group = endgame.group_of(mover, other)
    table = np.asarray(endgame.load(group))
    start = endgame.part_offset(mover, other)
    part = table[start : start + endgame.part_size(mover, other)]
    won = np.flatnonzero(((part & 3) - 1 == endgame.WIN) & (part >> 2 >= min_distance))
    chooser = random.Random(seed)
    picks = chooser.sample(range(len(won)), min(count, len(won)))
    return [endgame.position_at(group, start + int(won[i]), player=chooser.choice("wb"))
            for i in picks]


def play_out(start: rules.Position, seconds: float, tables: endgame.Use | None,
             max_plies: int) -> tuple[bool, int, float]:
    """(engine won, plies played, slowest engine move) against the table's best defence."""
    match = Match(rules.Pikachu(n=start.n), start)
    slowest = 0.0
    while match.outcome is None and match.plies < max_plies:
        position = match.state
        if position.player == start.player:
            started = time.monotonic()
            player = registry.spec("pikachu").engine("engine", rules.Pikachu(n=position.n))
            move = player.best_move(position, time=seconds, tables=tables)
            slowest = max(slowest, time.monotonic() - started)
        else:
            verdict = endgame.probe(position)
            assert verdict is not None and verdict.move is not None
            move = verdict.move
        match.play(move)  # IllegalMove if the engine or the table is wrong
    ended = match.outcome
    won = ended is not None and ended.winner == match.game.to_move(start)
    return won, match.plies, slowest


def main() -> None:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=100, help="won positions per balance")
    parser.add_argument("--time", type=float, default=0.5, help="engine seconds per move")
    parser.add_argument("--baseline-positions", type=int, default=10,
                        help="of those, how many the search-only engine also plays")
    parser.add_argument("--max-plies", type=int, default=60, help="a longer game is not won")
    parser.add_argument("--min-distance", type=int, default=1,
                        help="only positions won in at least this many plies (3: needs a plan)")
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--pieces", type=int, default=endgame.MAX_PIECES,
                        help="tables up to this many pieces (5: builds 229 M positions, "
                             "minutes and 460 MB, for this measurement only)")
    args = parser.parse_args()
    endgame.MAX_PIECES = args.pieces

    started = time.monotonic()
    counts = endgame.tally()
    print(f"tables: n = 8, up to {endgame.MAX_PIECES} Pikachus, "
          f"{sum(sum(c[k] for k in ('win', 'draw', 'loss')) for c in counts.values()):,} "
          f"positions, loaded or built in {time.monotonic() - started:.1f} s\n")
    print("| to move v other | positions | won | drawn | lost | wins by distance (plies: count) |")
    print("|---|---|---|---|---|---|")
    for (mover, other), c in counts.items():
        total = c["win"] + c["draw"] + c["loss"]
        spread = ", ".join(f"{d}: {k:,}" for d, k in c["wins_by_distance"].items())
        print(f"| {mover} v {other} | {total:,} | {c['win']:,} ({c['win'] / total:.1%}) | "
              f"{c['draw']:,} | {c['loss']:,} | {spread or '-'} |")

    print(f"\nengine at {args.time} s a move, winning side, against the table's best defence "
          f"(a win counts within twice the table's distance; at most {args.max_plies} plies), "
          f"positions won in >= {args.min_distance} plies\n")
    print("| to move v other | engine + tables: converted | plies / table distance "
          "| search alone: converted | won at all |")
    print("|---|---|---|---|---|")
    totals = {"tables": [0, 0], "search": [0, 0]}
    slowest = 0.0
    for (mover, other), c in counts.items():
        if not c["win"]:
            continue
        positions = won_positions(mover, other, args.positions, args.seed + 10 * mover + other,
                                  args.min_distance)
        if not positions:
            continue
        converted, ratios = 0, []
        for position in positions:
            verdict = endgame.probe(position)
            assert verdict is not None and verdict.result == endgame.WIN
            won, plies, slow = play_out(position, args.time, None, args.max_plies)
            slowest = max(slowest, slow)
            converted += won and plies <= 2 * verdict.distance
            ratios.append(plies / verdict.distance)
        base_converted = base_won = 0
        sample = positions[: args.baseline_positions]
        for position in sample:
            verdict = endgame.probe(position)
            assert verdict is not None
            won, plies, _ = play_out(position, args.time, "off", args.max_plies)
            base_converted += won and plies <= 2 * verdict.distance
            base_won += won
        totals["tables"][0] += converted
        totals["tables"][1] += len(positions)
        totals["search"][0] += base_converted
        totals["search"][1] += len(sample)
        print(f"| {mover} v {other} | {converted}/{len(positions)} | "
              f"mean {np.mean(ratios):.2f}, max {max(ratios):.2f} | "
              f"{base_converted}/{len(sample)} | {base_won}/{len(sample)} |", flush=True)
    table_rate = totals["tables"][0] / max(totals["tables"][1], 1)
    search_rate = totals["search"][0] / max(totals["search"][1], 1)
    ratio = f"{table_rate / search_rate:.2f}x" if search_rate else "inf (search alone: 0)"
    print(f"\nconverted: engine + tables {totals['tables'][0]}/{totals['tables'][1]} "
          f"({table_rate:.1%}), search alone {totals['search'][0]}/{totals['search'][1]} "
          f"({search_rate:.1%}); ratio {ratio}; slowest engine move {slowest:.2f} s; "
          f"total {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    run_main(main)
