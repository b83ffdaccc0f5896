"""Expectimax pruning: nodes and time with and without Star1/Star2 (and the TT), same run.

On the dice race of tests/search/toy_games.py (chance after every move), seeded
positions are searched to the same depth four ways:

- plain: alpha-beta at player nodes only, no chance-node pruning, and a
  transposition table too small to help (1 slot);
- Star1: chance nodes cut on the game's bounds;
- Star2: every outcome probed with one move first (lower bounds), then Star1;
- each of the three again with a 2**16-slot table (+TT).

Every way must return the same score at every position (checked here too); the
ratios are nodes and CPU seconds (`time.thread_time`): Star1, Star2 and TT against
plain, Star1+TT and Star2+TT against TT.
Both scorings of the race are measured: "margin" (bounded scores, +-(goal + 3))
and "wins" (wins and losses by distance: bounds +-MATE, so Star1 has little room).

    python benchmarks/search_expectimax.py [--depth 7] [--positions 12]
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "search"))

import toy_games as toy  # noqa: E402

from aviary.errors import ArgumentParser
from aviary.search import expectimax  # noqa: E402
from aviary.search.alphabeta import Workspace  # noqa: E402
from aviary.search.clock import Limit  # noqa: E402
from script import run_main

WAYS = {  # name: (tt_bits, pruning)
    "plain": (0, None),
    "Star1": (0, "star1"),
    "Star2": (0, "star2"),
    "TT": (16, None),
    "Star1+TT": (16, "star1"),
    "Star2+TT": (16, "star2"),
}


def positions(count: int, goal: int, turns: int, mode: int, seed: int = 3) -> list[toy.RaceState]:
    """Player nodes a few random turns into a race, the game still on."""
    chooser = random.Random(seed)
    found: list[toy.RaceState] = []
    while len(found) < count:
        state = toy.race_start(goal, turns, mode)
        for _ in range(chooser.randint(0, 6)):
            if toy.race_result(state) is not None:
                break
            outcomes = toy.race_outcomes(state)
            if outcomes:
                advances = [a for a, w in outcomes for _ in range(w)]
                state = toy.race_play(state, chooser.choice(advances))
            else:
                state = toy.race_play(state, chooser.choice(toy.race_moves(state)))
        if toy.race_result(state) is None and not toy.race_outcomes(state):
            found.append(state)
    return found


def measure(way: str, position: toy.RaceState, depth: int) -> tuple[int, int, float]:
    tt_bits, pruning = WAYS[way]
    workspace = Workspace(8, tt_bits=tt_bits)
    bounds = None if pruning is None else toy.race_bounds(position[5], position[6])
    state = toy.race_array(position)
    started = time.thread_time()
    reports = list(
        expectimax.iterate(
            state, toy.RACE_KERNELS, workspace, Limit(depth=depth), bounds=bounds,
            star2=pruning == "star2",
        )
    )
    seconds = time.thread_time() - started
    return reports[-1].score, reports[-1].nodes, seconds


def main() -> int:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=7, help="player moves searched")
    parser.add_argument("--positions", type=int, default=12)
    parser.add_argument("--goal", type=int, default=12)
    parser.add_argument("--turns", type=int, default=30)
    args = parser.parse_args()
    warm = toy.race_start(args.goal, args.turns)
    for way in WAYS:  # compile or load from the cache before timing
        measure(way, warm, 2)
    for mode, name in ((toy.MARGIN, "margin"), (toy.WINS, "wins")):
        chosen = positions(args.positions, args.goal, args.turns, mode)
        nodes = dict.fromkeys(WAYS, 0)
        seconds = dict.fromkeys(WAYS, 0.0)
        for position in chosen:
            scores = set()
            for way in WAYS:
                score, count, spent = measure(way, position, args.depth)
                scores.add(score)
                nodes[way] += count
                seconds[way] += spent
            if len(scores) != 1:
                print(f"MISMATCH at {position}: {scores}")
                return 1
        print(f"{name} scoring, depth {args.depth}, {len(chosen)} positions "
              f"(goal {args.goal}, {args.turns} turns); same score every way")
        for way in WAYS:
            base = "TT" if way.endswith("+TT") else "plain"
            print(f"  {way:<9} {nodes[way]:>12,} nodes  {seconds[way]:7.2f} s   "
                  f"vs {base:<5}: nodes / {nodes[base] / nodes[way]:6.2f}, "
                  f"time / {seconds[base] / seconds[way]:6.2f}")
    return 0


if __name__ == "__main__":
    run_main(main)
