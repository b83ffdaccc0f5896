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

The full run is most of a day, so it can be played in parts: `--first-pair K` plays
pairs K.. (the openings of one long run), `--log FILE` appends one JSON line per
game (result, settings, a fingerprint of the aviary code), and `--summarize
FILE...` adds the parts up, refusing other settings, other code or a game twice.

    python benchmarks/foxgeese_strength.py --pairs 10 --config classic --log a.jsonl
    python benchmarks/foxgeese_strength.py --pairs 10 --first-pair 10 --config classic --log b.jsonl
    python benchmarks/foxgeese_strength.py --summarize a.jsonl b.jsonl
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections.abc import Callable
from typing import Any

from aviary.games.foxgeese import baseline, engine, odds, rules
from aviary.search.clock import Limit
from strength_stats import LogError, append_record, code_fingerprint, read_logs

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
    """The winner ('f', 'g' or None), why, plies played, each side's slowest move
    (and under "f over" / "g over" how many of its moves took more than `seconds`)."""
    position, slowest = start, {"f": 0.0, "g": 0.0, "f over": 0.0, "g over": 0.0}
    history: list[rules.Position] = []
    while True:
        ended = rules.outcome(position)
        if ended is not None:
            return ended[0], ended[1], position.ply, slowest
        mover = fox if position.player == "f" else geese
        started = time.monotonic()
        move = mover(position, seconds, history)
        took = time.monotonic() - started
        slowest[position.player] = max(slowest[position.player], took)
        slowest[position.player + " over"] += took > seconds
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
              f"{max(slowest['f'], slowest['g']):.2f} s)", flush=True)
    print(f"engine vs itself, classic, {seconds} s/move, {games} games: "
          + ", ".join(f"{label} {count}" for label, count in sorted(tally.items())))
    return 0


def report(games: list[dict[str, Any]]) -> str:
    """The engine's score per configuration and side, game lengths, overruns."""
    lines = []
    for name in CONFIGS:
        for side, label in (("f", "foxes"), ("g", "geese")):
            mine = [game for game in games if game["config"] == name and game["side"] == side]
            if not mine:
                continue
            results = [game["result"] for game in mine]
            wins, draws = results.count(1.0), results.count(0.5)
            lines.append(f"{name:17s} engine as {label}: {100 * sum(results) / len(mine):5.1f}%"
                         f"  W/D/L {wins}/{draws}/{len(mine) - wins - draws}"
                         f"  mean {sum(g['plies'] for g in mine) / len(mine):.0f} plies,"
                         f" {sum(g['seconds'] for g in mine) / len(mine):.0f} s a game")
    settings = games[0]["settings"]
    control = (f"engine {settings['nodes']} nodes/move" if settings["nodes"]
               else f"{settings['time']} s/move")
    pairs = sorted({game["pair"] for game in games})
    return "\n".join([
        f"engine vs textbook baseline, {control}, pairs {pairs[0] + 1}-{pairs[-1] + 1}"
        f" ({len(games)} games):", *lines,
        f"illegal moves: 0 (checked); engine moves over the limit: "
        f"{sum(g['engine_over'] for g in games)} (slowest "
        f"{max(g['engine_slowest'] for g in games):.2f} s); load "
        f"{min(g['load'] for g in games):.1f}-{max(g['load'] for g in games):.1f}"])


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
    parser.add_argument("--first-pair", type=int, default=0,
                        help="play pairs FIRST_PAIR.. (0-based; the openings of one long run)")
    parser.add_argument("--log", help="append one JSON line per game to this file")
    parser.add_argument("--summarize", nargs="+", metavar="LOG",
                        help="add up the games of these logs and play nothing")
    parser.add_argument("--no-odds", action="store_true",
                        help="the classic fox plays its drawn endings without its odds against"
                        " a depth-2 defender (built here first unless given)")
    args = parser.parse_args()
    if args.summarize:
        try:
            games = read_logs(args.summarize,
                              lambda g: (g["config"], g["pair"] + 1, g["side"]))
        except LogError as error:
            print(f"foxgeese_strength: {error}", file=sys.stderr)
            return 2
        print(f"{len(args.summarize)} log(s), code {games[0]['code']}")
        print(report(games))
        return 0

    if args.nodes:
        NODES.append(args.nodes)
    engine.warmup()
    baseline.warmup()
    if args.no_odds:
        odds.disable()
    elif args.self_play or any(CONFIGS[name][0] == "classic" for name in
                               args.config or CONFIGS) and "f" in (args.side or ("f",)):
        odds.deep_warmup()  # the classic fox's (minutes, once: cached)
    with_odds = odds.built()
    if args.self_play:
        return self_play(args.self_play, args.time, args.seed)
    settings = {"time": args.time, "nodes": args.nodes, "seed": args.seed, "odds": with_odds}
    code = code_fingerprint()
    games: list[dict[str, Any]] = []
    for name in args.config or list(CONFIGS):
        variant, shrink = CONFIGS[name]
        sides = [side for side in ("f", "g") if side in (args.side or ("f", "g"))]
        for pair in range(args.first_pair, args.first_pair + args.pairs):
            start = opening(variant, shrink, 2 + 2 * (pair % 4), args.seed + pair)
            for side in sides:
                fox, geese = ((engine_player, baseline_player) if side == "f"
                              else (baseline_player, engine_player))
                started = time.monotonic()
                winner, why, plies, slowest = play_game(start, fox, geese, args.time)
                record: dict[str, Any] = {
                    "config": name, "pair": pair, "side": side,
                    "result": 0.5 if winner is None else float(winner == side),
                    "why": why, "plies": plies, "seconds": time.monotonic() - started,
                    "engine_slowest": slowest[side],
                    "engine_over": 0 if args.nodes else int(slowest[side + " over"]),
                    "load": os.getloadavg()[0], "settings": settings, "code": code}
                games.append(record)
                if args.log:
                    append_record(args.log, record)
                print(f"{name} pair {pair + 1:2d} engine as {'foxes' if side == 'f' else 'geese'}:"
                      f" {record['result']:.1f} ({why}, {plies} plies, {record['seconds']:.0f} s;"
                      f" slowest move engine {slowest[side]:.2f} s)", flush=True)
    print(report(games))
    return 0


if __name__ == "__main__":
    sys.exit(main())
