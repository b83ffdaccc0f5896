"""`aviary ijk`: a game like the course driver, or one move for the arena.

    aviary ijk UPPER LOWER MODE [--variant V] [--seconds S] [--seed N]
        plays a game: UPPER and LOWER are `ai` or `human`, MODE `det` or
        `nondet`; prints `+ played: U` and the board after every move and
        `Winner was: X` (`+`, `-` or `tie`) at the end, like the course's ijk.py.
    aviary ijk move PLAYER BOARD MODE SECONDS [--variant V]
        the arena's contract for IJK programs: prints better and better move
        letters, the last line counts, and exits before SECONDS have passed
        (the shared course runner, reached through the registry's `course_subcommand`).
"""

from __future__ import annotations

import random
import sys
from collections.abc import Sequence

from aviary.errors import ArgumentParser, UsageError
from aviary.games.base import IllegalMove
from aviary.games.ijk import rules


def _parser() -> ArgumentParser:
    parser = ArgumentParser(prog="aviary ijk", description=__doc__.split("\n\n")[0])
    parser.add_argument("upper", choices=("ai", "human"), help="who plays + (upper case)")
    parser.add_argument("lower", choices=("ai", "human"), help="who plays - (lower case)")
    parser.add_argument("mode", choices=("det", "nondet"), help="where the new tile goes")
    parser.add_argument("--variant", choices=("course", "handout"), default="course")
    parser.add_argument("--seconds", type=float, default=1.0,
                        help="thinking time of an ai per move (default 1)")
    parser.add_argument("--seed", type=int, default=None,
                        help="seed of the new tiles' cells in nondet mode (default: random)")
    parser.add_argument("--max-moves", type=int, default=100_000,
                        help="stop a game that has not ended after this many moves")
    return parser


def show(game: rules.IJK, position: rules.Position) -> str:
    n = position.n
    return "\n".join(" ".join(position.board[r * n:(r + 1) * n]) for r in range(n))


def human_move(game: rules.IJK, position: rules.Position) -> rules.Move:
    letters = "/".join(str(move) for move in game.legal_moves(position))
    while True:
        print(f"{position.player} to move ({letters}): ", end="", flush=True)
        line = sys.stdin.readline()
        if not line:
            raise UsageError("input ended before the game did")
        try:
            return game.parse_move(position, line)
        except IllegalMove as error:
            print(error, flush=True)


def play_game(argv: Sequence[str]) -> int:
    args = _parser().parse_args(list(argv))
    if not args.seconds > 0:
        raise UsageError(f"--seconds must be positive, got {args.seconds}")
    game = rules.IJK(variant=args.variant, mode=args.mode)
    rng = random.Random(args.seed)
    players = {"+": args.upper, "-": args.lower}
    engine = None
    if "ai" in players.values():
        from aviary.games.ijk.engine import make_engine

        engine = make_engine(game)
    position = game.start()
    print(show(game, position), flush=True)
    moves = 0
    while game.outcome(position) is None and moves < args.max_moves:
        if game.is_chance(position):
            position = game.play(position, game.sample_chance(position, rng))
            continue
        mover = position.player
        if players[mover] == "human":
            move = human_move(game, position)
        else:
            assert engine is not None
            move = engine.best_move(position, time=args.seconds)
        position = game.play(position, move)
        if game.is_chance(position):
            position = game.play(position, game.sample_chance(position, rng))
        moves += 1
        print(f"{mover} played: {move}", flush=True)
        print(show(game, position), flush=True)
    result = game.outcome(position)
    winner = "none (move limit)" if result is None else (
        "tie" if result.winner is None else game.labels[result.winner])
    print(f"Winner was: {winner}", flush=True)
    return 0


def main(argv: Sequence[str]) -> int:
    """`aviary ijk UPPER LOWER MODE ...` (`aviary ijk move ...` is the shared course
    runner's: the registry's `course_subcommand`)."""
    return play_game(argv)
