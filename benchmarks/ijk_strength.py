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

A full 1 s run is hours long, so it can be played in parts, on several cores or in
several sittings: `--first-pair K` plays pairs K.. (the same openings and tiles as
in one long run) and `--log FILE` appends one JSON line per game: its result,
the settings and a fingerprint of the aviary code that played it. `--summarize
FILE...` adds the parts up; it refuses parts with other settings or other code,
and a pair played twice.

    python benchmarks/ijk_strength.py --mode det --pairs 10 --log a.jsonl
    python benchmarks/ijk_strength.py --mode det --pairs 10 --first-pair 10 --log b.jsonl
    python benchmarks/ijk_strength.py --summarize a.jsonl b.jsonl
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from typing import Any

from aviary.games.engine import Engine
from aviary.games.ijk import baseline, engine, rules
from aviary.games.ijk.rules import IJK
from strength_stats import LogError, append_record, code_fingerprint, elo_interval, read_logs


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


def summarize(games: list[dict[str, Any]]) -> str:
    """The match's line: score, Elo with its 95% interval, lengths and slowest moves."""
    results = [game["result"] for game in games]
    count, score = len(results), sum(results)
    rating, low, high = elo_interval(results)
    shown = (f"Elo > {low:+.0f} (95%; every game won)" if score == count else
             f"Elo {rating:+.0f} [{low:+.0f}, {high:+.0f}] (95%)")
    lengths = [game["moves"] for game in games]
    settings = games[0]["settings"]
    return (f"{settings['variant']} {settings['mode']}, {settings['seconds']:g} s a move, "
            f"{count} games: engine {score:.1f}/{count} = {100 * score / count:.1f}% "
            f"(+{results.count(1.0)} ={results.count(0.5)} -{results.count(0.0)}), {shown}, "
            f"moves per game {min(lengths)}-{max(lengths)} (median "
            f"{statistics.median(lengths):g}), {sum(g['minutes'] for g in games):.1f} min "
            f"of play; slowest move: engine {max(g['engine_slowest'] for g in games):.3f} s "
            f"({sum(g['engine_over'] for g in games)} over the limit), "
            f"{settings['opponent']} {max(g['opponent_slowest'] for g in games):.3f} s; "
            f"load {min(g['load'] for g in games):.1f}-{max(g['load'] for g in games):.1f}")


def summarize_logs(paths: list[str]) -> int:
    """`--summarize`: one match from the logs of its parts, or one line saying why not."""
    try:
        games = read_logs(paths, lambda game: (game["pair"] + 1, game["engine_side"]))
    except LogError as error:
        print(f"ijk_strength: {error}", file=sys.stderr)
        return 2
    pairs = sorted({game["pair"] for game in games})
    print(f"{len(paths)} log(s), code {games[0]['code']}, pairs {pairs[0] + 1}-{pairs[-1] + 1}"
          f" ({len(pairs)} pairs), settings {games[0]['settings']}")
    print(summarize(games))
    return 0


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
    parser.add_argument("--first-pair", type=int, default=0,
                        help="play pairs FIRST_PAIR.. (0-based; the openings of one long run)")
    parser.add_argument("--log", help="append one JSON line per game to this file")
    parser.add_argument("--summarize", nargs="+", metavar="LOG",
                        help="add up the games of these logs and play nothing")
    args = parser.parse_args()
    if args.summarize:
        return summarize_logs(args.summarize)
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
    settings = {"mode": args.mode, "variant": args.variant, "seconds": args.seconds,
                "seed": args.seed, "opening_plies": args.opening_plies,
                "max_moves": args.max_moves, "opponent": args.opponent,
                "weights": dict(ours_weights._asdict()),
                "opponent_weights": (dict(their_weights._asdict())
                                     if args.opponent == "engine" else None),
                "next_depth_share": ours.next_depth_share,
                "opponent_next_depth_share": getattr(textbook, "next_depth_share", None),
                "stops_when_decided": searcher.stop_when_decided}
    code = code_fingerprint()
    print(f"code {code}", flush=True)
    games: list[dict[str, Any]] = []
    for pair in range(args.first_pair, args.first_pair + args.pairs):
        seed = args.seed * 1000 + pair
        start = opening(game, seed, args.opening_plies + pair % 5)
        for engine_side in ("+", "-"):
            players: dict[str, Any] = {engine_side: ours, rules.opponent(engine_side): textbook}
            times = {"+": 0.0, "-": 0.0, "+ over": 0.0, "- over": 0.0}
            game_started = time.monotonic()
            plus_score, moves = play(game, players, start, args.seconds, seed, args.max_moves,
                                     times)
            them = rules.opponent(engine_side)
            record: dict[str, Any] = {
                "pair": pair, "engine_side": engine_side,
                "result": plus_score if engine_side == "+" else 1 - plus_score,
                "moves": moves, "minutes": (time.monotonic() - game_started) / 60,
                "engine_slowest": times[engine_side],
                "engine_over": int(times[engine_side + " over"]),
                "opponent_slowest": times[them], "load": os.getloadavg()[0],
                "settings": settings, "code": code}
            games.append(record)
            if args.log:
                append_record(args.log, record)
            score = sum(g["result"] for g in games)
            print(f"pair {pair + 1:>3} engine {engine_side}: {record['result']:.1f} in {moves} "
                  f"moves, {record['minutes'] * 60:.0f} s, slowest move "
                  f"{times[engine_side]:.3f} s ({record['engine_over']} over "
                  f"the limit), {args.opponent} {times[them]:.3f} s, load "
                  f"{record['load']:.1f} (running {score:.1f}/{len(games)})", flush=True)
    print()
    print(summarize(games))
    return 0


if __name__ == "__main__":
    sys.exit(main())
