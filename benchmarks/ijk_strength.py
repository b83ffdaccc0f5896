"""IJK strength: the engine against the textbook baseline, colour-swapped, with Elo.

Deterministic mode: `--pairs` pairs of games from varied openings (a few seeded
random moves from the start), each opening played once with the engine as `+`
and once as `-`. Non-deterministic mode: pairs as well, and both games of a pair
draw the new tiles' cells from the same seed, so both colours see the same luck.
Each side gets `--seconds` a move (the baseline: its textbook depth, 5 det / 3
nondet, or less if the time runs out). The bars in the issue are 40 det games
(>= 90%) and 100 nondet games (>= 80%) at 1 s a move; IJK games last hundreds to
thousands of moves, so on a shared machine run it smaller and say what you ran.

    python benchmarks/ijk_strength.py --mode det --pairs 20 --seconds 1
    python benchmarks/ijk_strength.py --mode nondet --pairs 50 --seconds 1
"""

from __future__ import annotations

import argparse
import math
import os
import random
import statistics
import sys
import time
from typing import Any

from aviary.games.engine import Engine
from aviary.games.ijk import baseline, engine, rules
from aviary.games.ijk.rules import IJK


def opening(game: IJK, seed: int, plies: int) -> rules.Position:
    """`plies` random moves (and placements) from the start, seeded."""
    rng = random.Random(seed)
    position = game.start()
    for _ in range(plies):
        if game.is_chance(position):
            position = game.play(position, game.sample_chance(position, rng))
        else:
            position = game.play(position, rng.choice(game.legal_moves(position)))
    if game.is_chance(position):
        position = game.play(position, game.sample_chance(position, rng))
    return position


def play(game: IJK, players: dict[str, Any], start: rules.Position, seconds: float,
         chance_seed: int, max_moves: int, slowest: dict[str, float]) -> tuple[float, int]:
    """The score of the `+` player (1, 0.5, 0) and the number of moves played.

    `slowest[side]` keeps the longest time a move of that side took and
    `slowest[side + " over"]` counts its moves over `seconds` (overruns).
    """
    rng = random.Random(chance_seed)
    position = start
    moves = 0
    while game.outcome(position) is None and moves < max_moves:
        if game.is_chance(position):
            position = game.play(position, game.sample_chance(position, rng))
            continue
        asked = time.monotonic()
        move = players[position.player].best_move(position, time=seconds)
        took = time.monotonic() - asked
        slowest[position.player] = max(slowest[position.player], took)
        slowest[position.player + " over"] += took > seconds
        position = game.play(position, move)
        moves += 1
    result = game.outcome(position)
    if result is None or result.winner is None:
        return 0.5, moves
    return float(result.winner == 0), moves


def weights(text: str) -> dict[str, int]:
    """`fill=16,merge=2` -> the weights to change from the engine's defaults for the mode."""
    changes: dict[str, int] = {}
    for part in filter(None, text.split(",")):
        name, _, value = part.partition("=")
        if name not in engine.Weights._fields or not value.lstrip("-").isdigit():
            raise argparse.ArgumentTypeError(
                f"{part!r}: expected NAME=INTEGER, NAME one of {', '.join(engine.Weights._fields)}")
        changes[name] = int(value)
    return changes


def elo(score: float, games: int) -> tuple[float, float, float]:
    """Elo difference with a 95% interval (normal approximation on the score)."""
    def rating(p: float) -> float:
        p = min(max(p, 0.5 / games), 1 - 0.5 / games)  # all wins: a finite lower figure
        return -400 * math.log10(1 / p - 1)

    p = score / games
    spread = 1.96 * math.sqrt(max(p * (1 - p), 0.25 / games) / games)
    return rating(p), rating(p - spread), rating(p + spread)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=("det", "nondet"), default="det")
    parser.add_argument("--variant", choices=("course", "handout"), default="course")
    parser.add_argument("--pairs", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--opening-plies", type=int, default=8)
    parser.add_argument("--max-moves", type=int, default=5000,
                        help="a game still going after this many moves counts as a draw")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--weights", type=weights, default={},
                        help="the engine's evaluation weights changed, e.g. fill=16,merge=2")
    parser.add_argument("--opponent", choices=("baseline", "engine"), default="baseline",
                        help="the textbook baseline, or the engine with --opponent-weights")
    parser.add_argument("--opponent-weights", type=weights, default={})
    parser.add_argument("--next-depth-share", type=float, default=None,
                        help="the engine starts no new depth after this share of its time "
                        "(default: the engine's own; 1.0 searches to the deadline)")
    parser.add_argument("--opponent-next-depth-share", type=float, default=None,
                        help="the same for --opponent engine")
    parser.add_argument("--search-decided", action="store_true",
                        help="the engine searches on after its root score is a certain win")
    args = parser.parse_args()
    game = IJK(variant=args.variant, mode=args.mode)
    defaults = engine.default_weights(game.deterministic)
    ours_weights = defaults._replace(**args.weights)
    their_weights = defaults._replace(**args.opponent_weights)
    ours = engine.make_engine(game, ours_weights)
    textbook = (baseline.make_engine(game) if args.opponent == "baseline" else
                engine.make_engine(game, their_weights))
    if args.next_depth_share is not None:
        ours.next_depth_share = args.next_depth_share
    if args.opponent_next_depth_share is not None and isinstance(textbook, Engine):
        textbook.next_depth_share = args.opponent_next_depth_share
    searcher = ours.searcher
    assert isinstance(searcher, engine.IJKSearcher)
    searcher.stop_when_decided = not args.search_decided
    ours.warmup()
    textbook.warmup()
    print(f"engine {dict(ours_weights._asdict())} (next depth within "
          f"{ours.next_depth_share:g} of the time, stops when decided: "
          f"{searcher.stop_when_decided}) against {args.opponent}"
          + (f" {dict(their_weights._asdict())} (next depth within "
             f"{textbook.next_depth_share:g})" if isinstance(textbook, Engine) else ""),
          flush=True)
    slowest = {"engine": 0.0, "opponent": 0.0}
    overruns = 0
    score = 0.0
    games = 0
    lengths = []
    wins = draws = losses = 0
    started = time.monotonic()
    for pair in range(args.pairs):
        seed = args.seed * 1000 + pair
        start = opening(game, seed, args.opening_plies + pair % 5)
        for engine_side in ("+", "-"):
            players: dict[str, Any] = {engine_side: ours, rules.opponent(engine_side): textbook}
            times = {"+": 0.0, "-": 0.0, "+ over": 0.0, "- over": 0.0}
            game_started = time.monotonic()
            plus_score, moves = play(game, players, start, args.seconds, seed, args.max_moves,
                                     times)
            slowest["engine"] = max(slowest["engine"], times[engine_side])
            overruns += int(times[engine_side + " over"])
            slowest["opponent"] = max(slowest["opponent"], times[rules.opponent(engine_side)])
            result = plus_score if engine_side == "+" else 1 - plus_score
            score += result
            games += 1
            lengths.append(moves)
            wins += result == 1
            draws += result == 0.5
            losses += result == 0
            print(f"pair {pair + 1:>3} engine {engine_side}: {result:.1f} in {moves} moves, "
                  f"{time.monotonic() - game_started:.0f} s, slowest move "
                  f"{times[engine_side]:.3f} s ({times[engine_side + ' over']:.0f} over "
                  f"the limit), {args.opponent} {times[rules.opponent(engine_side)]:.3f} s, load "
                  f"{os.getloadavg()[0]:.1f} (running {score:.1f}/{games})", flush=True)
    rating, low, high = elo(score, games)
    shown = (f"Elo > {low:+.0f} (95%; every game won)" if score == games else
             f"Elo {rating:+.0f} [{low:+.0f}, {high:+.0f}] (95%)")
    print(f"\n{args.variant} {args.mode}, {args.seconds:g} s a move, {games} games: engine "
          f"{score:.1f}/{games} = {100 * score / games:.1f}% (+{wins} ={draws} -{losses}), "
          f"{shown}, "
          f"moves per game {min(lengths)}-{max(lengths)} (median "
          f"{statistics.median(lengths):g}), {(time.monotonic() - started) / 60:.1f} min; "
          f"slowest move: engine {slowest['engine']:.3f} s ({overruns} over the limit), "
          f"{args.opponent} {slowest['opponent']:.3f} s; load {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
