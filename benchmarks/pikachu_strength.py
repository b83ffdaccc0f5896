"""Engine vs the textbook baseline at equal time per move: W/D/L, score, Elo +- 95%.

Colour-swapped pairs: each opening (a few random plies from the start) is played
twice, once with the engine as white and once as black. Every move is checked
with rules.py (an illegal move would abort the run) and timed; a game longer
than --max-plies is a draw.

    python benchmarks/pikachu_strength.py --pairs 20 --time 1.0 --n 8
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable

from aviary.games.pikachu import baseline, engine, rules
from strength_stats import elo_interval

Player = Callable[[rules.Position, float], rules.Move]


def engine_player(position: rules.Position, seconds: float) -> rules.Move:
    return engine.best_move(position, time=seconds)


def baseline_player(position: rules.Position, seconds: float) -> rules.Move:
    return baseline.best_move(position, time=seconds)


def opening(n: int, plies: int, seed: int) -> rules.Position:
    chooser = random.Random(seed)
    position = rules.start_position(n)
    for _ in range(plies):
        moves = rules.legal_moves(position)
        if not moves:
            break
        position = rules.play(position, chooser.choice(moves))
    return position


def play_game(
    start: rules.Position, white: Player, black: Player, seconds: float, max_plies: int
) -> tuple[float, int, dict[str, float]]:
    """White's score (1, 0.5, 0), plies played, and each colour's slowest move in seconds."""
    position, slowest = start, {"w": 0.0, "b": 0.0}
    for ply in range(max_plies):
        won = rules.winner(position)
        if won is not None:
            return (1.0 if won == "w" else 0.0), ply, slowest
        mover = white if position.player == "w" else black
        started = time.monotonic()
        move = mover(position, seconds)
        slowest[position.player] = max(slowest[position.player], time.monotonic() - started)
        if move not in rules.legal_moves(position):
            raise SystemExit(f"illegal move {move} in {position}")
        position = rules.play(position, move)
    rows = [position.board[r * position.n : (r + 1) * position.n] for r in range(position.n)]
    print("drawn by the ply limit; final position:", *rows, sep="\n    ", flush=True)
    return 0.5, max_plies, slowest


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=20)
    parser.add_argument("--time", type=float, default=1.0, help="seconds per move, both sides")
    parser.add_argument("--n", type=int, default=8)
    parser.add_argument("--max-plies", type=int, default=300)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()

    engine.warmup()
    baseline.warmup()
    results: list[float] = []
    overruns = 0
    for pair in range(args.pairs):
        start = opening(args.n, 2 + pair % 5, args.seed + pair)
        for engine_white in (True, False):
            players = (engine_player, baseline_player)
            white, black = players if engine_white else players[::-1]
            white_score, plies, slowest = play_game(start, white, black, args.time, args.max_plies)
            score = white_score if engine_white else 1 - white_score
            mine, theirs = ("w", "b") if engine_white else ("b", "w")
            overruns += slowest[mine] > args.time
            results.append(score)
            print(
                f"pair {pair + 1:2d} engine {'white' if engine_white else 'black'}: "
                f"{score:.1f} in {plies} plies (slowest move: engine {slowest[mine]:.2f} s, "
                f"baseline {slowest[theirs]:.2f} s)",
                flush=True,
            )
    wins, draws = results.count(1.0), results.count(0.5)
    losses = len(results) - wins - draws
    mean = sum(results) / len(results)
    rating, low, high = elo_interval(results)
    if mean == 1.0:
        rated = f"Elo above {low:+.0f} (95% lower bound; every game won)"
    else:
        rated = f"Elo {rating:+.0f} (95% {low:+.0f} .. {high:+.0f})"
    print(
        f"engine vs textbook baseline, n={args.n}, {args.time} s/move, {len(results)} games: "
        f"W/D/L {wins}/{draws}/{losses}, score {100 * mean:.1f}%, "
        f"{rated}, "
        f"engine moves over the limit: {overruns}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
