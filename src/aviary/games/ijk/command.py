"""`aviary ijk`: a game like the course driver, or one move for the arena.

    aviary ijk UPPER LOWER MODE [--variant V] [--seconds S] [--seed N]
        plays a game: UPPER and LOWER are `ai` or `human`, MODE `det` or
        `nondet`; prints `+ played: U` and the board after every move and
        `Winner was: X` (`+`, `-` or `tie`) at the end, like the course's ijk.py.
        A human types a move letter, or q to quit.
    aviary ijk move PLAYER BOARD MODE SECONDS [--variant V]
        the arena's contract for IJK programs: prints better and better move
        letters, the last line counts, and exits before SECONDS have passed
        (the shared course runner, reached through the registry's `course_subcommand`).
"""

from __future__ import annotations

import random
import sys
from collections.abc import Sequence
from functools import partial

from aviary.errors import ArgumentParser, UsageError, refused_as_usage
from aviary.games import registry
from aviary.games.base import IllegalMove
from aviary.games.engine import interruptible
from aviary.games.ijk import rules
from aviary.games.match import Match
from aviary.search.clock import check_seconds


def _parser() -> ArgumentParser:
    parser = ArgumentParser(
        prog="aviary ijk", description=__doc__.split("\n\n")[0],
        usage="aviary ijk UPPER LOWER MODE [--variant V] [--seconds S] [--seed N] "
              "[--max-moves M]\n       aviary ijk move PLAYER BOARD MODE SECONDS [--variant V]",
        epilog="`aviary ijk move ...` plays one move for a course grader or the arena: it "
               "prints better and better move letters (the last line counts) and exits "
               "before SECONDS have passed.")
    parser.add_argument("upper", choices=("ai", "human"), help="who plays + (upper case)")
    parser.add_argument("lower", choices=("ai", "human"), help="who plays - (lower case)")
    parser.add_argument("mode", choices=("det", "nondet"), help="where the new tile goes")
    parser.add_argument("--variant", choices=("course", "handout"), default="course")
    parser.add_argument("--seconds", default="1",
                        help="thinking time of an ai per move (default 1, at most 86400)")
    parser.add_argument("--seed", type=int, default=None,
                        help="seed of the new tiles' cells in nondet mode (default: random)")
    parser.add_argument("--max-moves", type=int, default=100_000,
                        help="stop a game that has not ended after this many moves")
    return parser


def show(game: rules.IJK, position: rules.Position) -> str:
    n = position.n
    return "\n".join(" ".join(position.board[r * n:(r + 1) * n]) for r in range(n))


QUIT = ("q", "quit")


def human_move(game: rules.IJK, position: rules.Position) -> rules.Move | None:
    """The move a person types, or None when they type `q` (quit)."""
    letters = "/".join(str(move) for move in game.legal_moves(position))
    while True:
        print(f"{position.player} to move ({letters}, q to quit): ", end="", flush=True)
        line = sys.stdin.readline()
        if not line:
            raise UsageError("input ended before the game did (type q to quit)")
        if line.strip().lower() in QUIT:
            return None
        try:
            return game.parse_move(position, line)
        except IllegalMove as error:
            print(error, flush=True)


def play_game(argv: Sequence[str]) -> int:
    args = _parser().parse_args(list(argv))
    with refused_as_usage():
        args.seconds = check_seconds(args.seconds, "--seconds")
    if args.max_moves < 1:
        raise UsageError(f"--max-moves must be at least 1, got {args.max_moves}")
    game = rules.IJK(variant=args.variant, mode=args.mode)
    rng = random.Random(args.seed)
    players = {"+": args.upper, "-": args.lower}
    engine = None
    if "ai" in players.values():
        spec = registry.spec(game.name)
        engine = spec.engine(spec.main_engine, game)
    match = Match(game)
    print(show(game, match.state), flush=True)
    match.play_chances(rng)
    while match.outcome is None and match.decisions < args.max_moves:
        position = match.state
        mover = position.player
        if players[mover] == "human":
            typed = human_move(game, position)
            if typed is None:
                print(f"{mover} quit", flush=True)
                return 0
            move = typed
        else:
            assert engine is not None
            move = interruptible(partial(engine.best_move, position,
                                         time=args.seconds))
        match.play(move)
        match.play_chances(rng)  # the new tile, shown with the move
        print(f"{mover} played: {move}", flush=True)
        print(show(game, match.state), flush=True)
    result = match.outcome
    winner = "none (move limit)" if result is None else (
        "tie" if result.winner is None else game.labels[result.winner])
    print(f"Winner was: {winner}", flush=True)
    return 0


def main(argv: Sequence[str]) -> int:
    """`aviary ijk UPPER LOWER MODE ...` (`aviary ijk move ...` is the shared course
    runner's: the registry's `course_subcommand`)."""
    return play_game(argv)
