"""Engine vs the textbook baseline, as the foxes and as the geese, in every variant.

For each configuration (classic / elephants, with and without the shrinking board)
each opening (a few random plies from the start) is played twice: once with the
engine as the foxes, once as the geese (a colour-swapped pair). Every move is
checked with rules.py (an illegal move aborts the run) and timed against the
limit. Reports the engine's score per side and configuration (win 1, draw 0.5),
and how long the games ran (plies, wall-clock seconds): a game that reaches the
move limit costs 600 plies, which is what makes the full bar slow.

    python benchmarks/foxgeese_strength.py --pairs 20 --time 1.0
    python benchmarks/foxgeese_strength.py --pairs 4 --time 0.3 --config elephants-shrink
    python benchmarks/foxgeese_strength.py --pairs 20 --time 1.0 --config classic --side f
    python benchmarks/foxgeese_strength.py --pairs 8 --nodes 40000 --config elephants --side g
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections.abc import Callable

from aviary.games.foxgeese import baseline, engine, rules
from aviary.search.clock import Limit

Player = Callable[[rules.Position, float, list[rules.Position]], rules.Move]
CONFIGS = {
    "classic": ("classic", False),
    "classic-shrink": ("classic", True),
    "elephants": ("elephants", False),
    "elephants-shrink": ("elephants", True),
}


NODES: list[int] = []  # set by --nodes: the engine searches that many nodes a move instead


def engine_player(position: rules.Position, seconds: float,
                  history: list[rules.Position]) -> rules.Move:
    """The engine, told the game so far (so the search can see repetitions)."""
    if not NODES:
        return engine.best_move(position, time=seconds, history=history)
    moves = rules.legal_moves(position)
    move = moves[0]
    if len(moves) > 1:  # the deepest depth completed within the node count
        for report in engine.think(position, Limit(nodes=NODES[0]), history=history):
            move = report.move
    return move


def baseline_player(position: rules.Position, seconds: float,
                    history: list[rules.Position]) -> rules.Move:
    return baseline.best_move(position, time=seconds)


def opening(variant: str, shrink: bool, plies: int, seed: int) -> rules.Position:
    """`plies` random moves from the start (no capture, so both sides keep their material)."""
    chooser = random.Random(seed)
    position = rules.start_position(variant, shrink)
    for _ in range(plies):
        moves = [m for m in rules.legal_moves(position) if not m.is_capture]
        if not moves:
            break
        after = rules.play(position, chooser.choice(moves))
        if rules.outcome(after) is not None:
            break
        position = after
    return position


def play_game(start: rules.Position, fox: Player, geese: Player,
              seconds: float) -> tuple[str | None, str, int, dict[str, float]]:
    """The winner ('f', 'g' or None), why, plies played, each side's slowest move."""
    position, slowest = start, {"f": 0.0, "g": 0.0}
    history: list[rules.Position] = []
    while True:
        ended = rules.outcome(position)
        if ended is not None:
            return ended[0], ended[1], position.ply, slowest
        mover = fox if position.player == "f" else geese
        started = time.monotonic()
        move = mover(position, seconds, history)
        slowest[position.player] = max(slowest[position.player], time.monotonic() - started)
        if move not in rules.legal_moves(position):
            raise SystemExit(f"illegal move {move} in {position}")
        history.append(position)
        position = rules.play(position, move)


def self_play(games: int, seconds: float, seed: int) -> int:
    """The engine against itself in the classic game from varied openings: who wins, how."""
    tally: dict[str, int] = {}
    for game in range(games):
        start = opening("classic", False, 2 + 2 * (game % 4), seed + game)
        winner, why, plies, slowest = play_game(start, engine_player, engine_player, seconds)
        label = {"f": "foxes", "g": "geese", None: "draw"}[winner]
        tally[label] = tally.get(label, 0) + 1
        print(f"self-play game {game + 1}: {label} ({why}, {plies} plies; slowest move "
              f"{max(slowest.values()):.2f} s)", flush=True)
    print(f"engine vs itself, classic, {seconds} s/move, {games} games: "
          + ", ".join(f"{label} {count}" for label, count in sorted(tally.items())))
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=20, help="colour-swapped pairs per config")
    parser.add_argument("--time", type=float, default=1.0, help="seconds per move, both sides")
    parser.add_argument("--config", choices=sorted(CONFIGS), action="append",
                        help="configurations to play (default: all four)")
    parser.add_argument("--side", choices=("f", "g"), action="append",
                        help="the engine's side(s) to play (default: both, colour-swapped)")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--nodes", type=int, metavar="N",
                        help="the engine searches N nodes a move instead of --time: the games"
                        " are then deterministic, for paired comparisons of two versions")
    parser.add_argument("--self-play", type=int, default=0, metavar="GAMES",
                        help="instead: the engine against itself in the classic game")
    args = parser.parse_args()

    if args.nodes:
        NODES.append(args.nodes)
    engine.warmup()
    baseline.warmup()
    if args.self_play:
        return self_play(args.self_play, args.time, args.seed)
    overruns, slowest_move = 0, 0.0
    summary = []
    for name in args.config or list(CONFIGS):
        variant, shrink = CONFIGS[name]
        sides = [side for side in ("f", "g") if side in (args.side or ("f", "g"))]
        scores: dict[str, list[float]] = {side: [] for side in sides}
        lengths: dict[str, list[int]] = {side: [] for side in sides}
        seconds: dict[str, list[float]] = {side: [] for side in sides}
        for pair in range(args.pairs):
            start = opening(variant, shrink, 2 + 2 * (pair % 4), args.seed + pair)
            for side in sides:
                fox, geese = ((engine_player, baseline_player) if side == "f"
                              else (baseline_player, engine_player))
                started = time.monotonic()
                winner, why, plies, slowest = play_game(start, fox, geese, args.time)
                seconds[side].append(time.monotonic() - started)
                score = 0.5 if winner is None else float(winner == side)
                scores[side].append(score)
                lengths[side].append(plies)
                overruns += slowest[side] > args.time
                slowest_move = max(slowest_move, slowest[side])
                print(f"{name} pair {pair + 1:2d} engine as {'foxes' if side == 'f' else 'geese'}:"
                      f" {score:.1f} ({why}, {plies} plies, {seconds[side][-1]:.0f} s; slowest"
                      f" move engine {slowest[side]:.2f} s)", flush=True)
        for side in sides:
            label = "foxes" if side == "f" else "geese"
            results = scores[side]
            wins, draws = results.count(1.0), results.count(0.5)
            percent = 100 * sum(results) / len(results)
            summary.append(f"{name:17s} engine as {label}: {percent:5.1f}%"
                           f"  W/D/L {wins}/{draws}/{len(results) - wins - draws}"
                           f"  mean {sum(lengths[side]) / len(results):.0f} plies,"
                           f" {sum(seconds[side]) / len(results):.0f} s a game")
    control = f"engine {args.nodes} nodes/move" if args.nodes else f"{args.time} s/move"
    print(f"engine vs textbook baseline, {control}, {args.pairs} games per side "
          f"and configuration:")
    print("\n".join(summary))
    print(f"illegal moves: 0 (checked); engine moves over the limit: {overruns}"
          f" (slowest {slowest_move:.2f} s); load average {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
