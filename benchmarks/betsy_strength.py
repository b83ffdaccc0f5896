"""Betsy engine vs the textbook baseline at equal time per move: W/D/L, score, Elo +- 95%.

Colour-swapped pairs: each opening (2-6 random plies from the start) is played
twice, once with each player as white. Every move is checked with rules.py (an
illegal move aborts the run) and timed (a move over --time counts as an overrun,
no grace); a game longer than --max-plies is a draw.
Both Kingfisher variants by default.

Players: `baseline`, or `engine` with switches to measure what a part buys:
`engine-safety` (no Kingfisher safety), `engine-taper` (middle-game values
throughout), `engine+mobility`, `engine-quiesce` (no quiescence search),
`engine-tt` (a two-entry transposition table), `engine+null` / `engine-null` (with or
without null-move pruning, whatever the default), combinable: `engine-safety-taper`.

    python benchmarks/betsy_strength.py --pairs 20 --time 1.0
    python benchmarks/betsy_strength.py --player engine+mobility --opponent engine --time 0.2
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import time
from collections.abc import Callable
from typing import Any

from aviary.games.betsy import baseline, engine, kernels, rules
from aviary.games.engine import Engine
from aviary.search.alphabeta import Workspace
from strength_stats import elo_interval

Player = Callable[[rules.Position, float], rules.Move]
EVALUATION = {"safety": engine.SAFETY, "taper": engine.TAPER, "mobility": engine.MOBILITY}
SEARCH = ("quiesce", "tt", "null")


class SwitchedEngine(Engine[rules.Position, rules.Move]):
    """The engine with search parts switched off (for measuring what they buy)."""

    def __init__(
        self, game: rules.Betsy, features: int, quiesce: bool, tt: bool, null: bool
    ) -> None:
        super().__init__(game, engine.BetsySearcher(features, null), None)
        self.quiesce, self.tt = quiesce, tt

    def workspace(self, state: rules.Position) -> Workspace:
        cache = self._workspaces.__dict__.setdefault("by_shape", {})
        if "one" not in cache:
            cache["one"] = Workspace(kernels.MAX_MOVES, tt_bits=20 if self.tt else 1)
        workspace: Workspace = cache["one"]
        return workspace

    def _search_options(self, stop: Any, keys: tuple[int, ...]) -> dict[str, Any]:
        return {**super()._search_options(stop, keys), "quiesce": self.quiesce}


def make_player(spec: str, game: rules.Betsy) -> Player:
    """A player from its name: `baseline`, or `engine` followed by +part / -part switches."""
    if spec == "baseline":
        return lambda position, seconds: baseline.best_move(position, time=seconds)
    if not spec.startswith("engine"):
        raise SystemExit(f"unknown player {spec!r}")
    features, search = engine.DEFAULT_FEATURES, dict.fromkeys(SEARCH, True)
    search["null"] = engine.NULL_MOVE
    for sign, part in re.findall(r"([+-])([a-z]+)", spec[len("engine"):]):
        if part in EVALUATION:
            features = features | EVALUATION[part] if sign == "+" else features & ~EVALUATION[part]
        elif part in search:
            search[part] = sign == "+"
        else:
            raise SystemExit(f"unknown engine part {part!r} in {spec!r}")
    player = SwitchedEngine(game, features, search["quiesce"], search["tt"], search["null"])
    return lambda position, seconds: player.best_move(position, time=seconds)


def opening(diagonal: bool, plies: int, seed: int) -> rules.Position:
    chooser = random.Random(seed)
    position = rules.start_position(diagonal)
    for _ in range(plies):
        position = rules.play(position, chooser.choice(rules.legal_moves(position)))
    return position


def play_game(
    start: rules.Position, white: Player, black: Player, seconds: float, max_plies: int
) -> tuple[float, int, dict[str, float], str]:
    """White's score (1, 0.5, 0), plies, each colour's slowest move in seconds, how it ended."""
    position, slowest = start, {"w": 0.0, "b": 0.0}
    for ply in range(max_plies):
        won = rules.winner(position)
        if won is not None:
            how = "no move" if all(rules.kingfishers(position)) else "Kingfisher taken"
            return (1.0 if won == "w" else 0.0), ply, slowest, how
        mover = white if position.player == "w" else black
        started = time.monotonic()
        move = mover(position, seconds)
        slowest[position.player] = max(slowest[position.player], time.monotonic() - started)
        if move not in rules.legal_moves(position):
            raise SystemExit(f"illegal move {move} in {position}")
        position = rules.play(position, move)
    return 0.5, max_plies, slowest, "ply limit"


def match(args: argparse.Namespace, diagonal: bool) -> None:
    game = rules.Betsy(kingfisher="diagonal" if diagonal else "orthogonal")
    first, second = make_player(args.player, game), make_player(args.opponent, game)
    results: list[float] = []
    overruns = 0
    for pair in range(args.pairs):
        start = opening(diagonal, 2 + pair % 5, args.seed + pair)
        for first_white in (True, False):
            white, black = (first, second) if first_white else (second, first)
            white_score, plies, slowest, how = play_game(
                start, white, black, args.time, args.max_plies)
            score = white_score if first_white else 1 - white_score
            mine, theirs = ("w", "b") if first_white else ("b", "w")
            overruns += slowest[mine] > args.time
            results.append(score)
            print(f"pair {pair + 1:2d} {args.player} {'white' if first_white else 'black'}: "
                  f"{score:.1f} in {plies} plies ({how}; slowest move: {args.player} "
                  f"{slowest[mine]:.2f} s, {args.opponent} {slowest[theirs]:.2f} s)", flush=True)
    wins, draws = results.count(1.0), results.count(0.5)
    losses = len(results) - wins - draws
    mean = sum(results) / len(results)
    rating, low, high = elo_interval(results)
    if mean == 1.0:
        rated = f"Elo above {low:+.0f} (95% lower bound; every game won)"
    else:
        rated = f"Elo {rating:+.0f} (95% {low:+.0f} .. {high:+.0f})"
    print(f"{args.player} vs {args.opponent}, Kingfisher {game.settings['kingfisher']}, "
          f"{args.time} s/move, {len(results)} games: W/D/L {wins}/{draws}/{losses}, "
          f"score {100 * mean:.1f}%, {rated}, {args.player} moves over the limit: "
          f"{overruns}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=20)
    parser.add_argument("--time", type=float, default=1.0, help="seconds per move, both sides")
    parser.add_argument("--kingfisher", choices=("orthogonal", "diagonal", "both"), default="both")
    parser.add_argument("--player", default="engine")
    parser.add_argument("--opponent", default="baseline")
    parser.add_argument("--max-plies", type=int, default=300)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    engine.warmup()
    baseline.warmup()
    variants = {"orthogonal": [False], "diagonal": [True], "both": [False, True]}
    for diagonal in variants[args.kingfisher]:
        match(args, diagonal)
    return 0


if __name__ == "__main__":
    sys.exit(main())
