"""`aviary play GAME`: play any registered game in the terminal against its engine, or watch.

The board is drawn with rich after every move; the human types moves in the
game's notation (`Game.move_text`, shown by `moves`), and a wrong move lists
the legal ones. Between moves: `undo` takes back the last move of each side
(back to the human's previous turn), `new` starts again, `moves` lists the
legal moves, `hint` asks the engine, `quit` ends. The engine shows its search
as it deepens (depth, score, nodes). Chance events (a random tile, dice) are
drawn from a generator seeded by `--seed`, so a game can be replayed exactly.
"""

from __future__ import annotations

import argparse
import random
import sys
from typing import Any
from urllib.parse import parse_qsl

import numpy as np
from rich.console import Console
from rich.table import Table
from rich.text import Text

from aviary.errors import ArgumentParser, UsageError, refused_as_usage
from aviary.games import registry
from aviary.games.base import (
    Game,
    IllegalMove,
    OptionError,
    Player,
    option_pairs,
    square_name,
)
from aviary.games.engine import interruptible
from aviary.games.match import Match
from aviary.search.clock import check_seconds

SIDES = ("first", "second", "both", "none")
HELP = "type a move, or: moves, hint, undo, new, quit"


def _parser() -> ArgumentParser:
    names = [spec.name for spec in registry.board_games()]
    families = ", ".join(f"{prefix}:NAME" for prefix in registry.FAMILIES)
    parser = ArgumentParser(
        prog="aviary play", description=__doc__.splitlines()[0],
        epilog=f"games: {', '.join(names)}, or a game of a family: {families} "
               "(docs/openspiel.md); options per game: see docs/games/",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game", metavar="GAME",
                        help=f"one of: {', '.join(names)}, {families}")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="a game option, e.g. --option n=10 (repeatable)")
    parser.add_argument("--human", choices=SIDES, default="first",
                        help="which side you play: first (default), second, both, or none "
                             "(watch the engine play itself)")
    parser.add_argument("--time", default="1",
                        help="engine seconds per move (default 1, at most 86400)")
    parser.add_argument("--engine", help="which registered engine plays (default: the main "
                        "one), or a player for every game: mcts?time=2, openspiel-ab?depth=3")
    parser.add_argument("--board", help="start from this course board text instead")
    parser.add_argument("--player", help="who moves first from --board (the course's label)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the chance events (0)")
    parser.add_argument("--max-plies", type=int, default=1000,
                        help="stop watching after this many plies (default 1000)")
    return parser


class Session:
    """One terminal game: the match so far, who is human, and the engine."""

    def __init__(self, game: Game[Any, Any], engine: Player[Any, Any], humans: set[int],
                 seconds: float, start: Any, seed: int, console: Console) -> None:
        self.game, self.engine, self.humans = game, engine, humans
        self.seconds, self.seed = seconds, seed
        self.console = console
        self.rng = random.Random(seed)
        self.match: Match[Any, Any] = Match(game, start)

    @property
    def state(self) -> Any:
        return self.match.state

    def draw(self) -> None:
        game, state = self.game, self.state
        shape = game.board()
        if not shape.rows:  # no grid of cells (an OpenSpiel game): the game's own picture
            self.console.print(game.render(state), highlight=False)
            return
        text = game.format(state)
        table = Table(show_header=True, box=None, pad_edge=False, padding=(0, 1))
        table.add_column("")
        for col in range(shape.cols):
            table.add_column(square_name(0, col)[:-1], justify="center")
        for row in range(shape.rows):
            cells: list[Text | str] = [str(row + 1)]
            for col in range(shape.cols):
                index = row * shape.cols + col
                char = text[index] if index < len(text) else " "
                style = "bold yellow" if char.isupper() else "bold cyan"
                if char in ".#":
                    style = "dim"
                if index in shape.holes:
                    char, style = " ", ""
                cells.append(Text(char, style=style))
            table.add_row(*cells)
        self.console.print(table)
        self.console.print(f"board: {text}", style="dim", highlight=False)

    def status(self) -> str:
        game, state = self.game, self.state
        ended = game.outcome(state)
        if ended is not None:
            who = "draw" if ended.winner is None else f"{game.labels[ended.winner]} wins"
            return f"game over: {who} ({ended.reason})"
        return f"{game.label(state)} to move"

    def engine_move(self) -> Any:
        """The engine's move; Ctrl-C while it thinks stops it at once (`interruptible`)."""
        return interruptible(self._search)

    def _search(self, *, stop: np.ndarray) -> Any:
        """The engine's move by this move's deadline, each finished depth printed."""
        return self.engine.best_move(
            self.state, time=self.seconds, stop=stop,
            history=self.match.history,
            on_report=lambda report: self.console.print(
                f"  {report.describe()}", style="dim", highlight=False))

    def play(self, move: Any, who: str) -> None:
        """Play `who`'s (the engine's, the human's) move and say so."""
        game = self.game
        self.console.print(f"{who} ({game.label(self.state)}) played "
                           f"{game.move_text(self.state, move)}", highlight=False)
        self.match.play(move)

    def undo(self) -> bool:
        """Back to the human's previous turn; False when there is nothing to take back."""
        return self.match.back_to_turn(self.humans)

    def run(self, max_plies: int) -> int:
        game = self.game
        self.draw()
        plies = 0
        while True:
            state = self.state
            if game.outcome(state) is not None:
                self.console.print(self.status(), style="bold", highlight=False)
                if not self.humans:
                    return 0
                if not self.ask_after_end():
                    return 0
                continue
            if game.is_chance(state):
                self.match.play_chance(self.rng)
                continue
            if game.to_move(state) not in self.humans:
                if plies >= max_plies:
                    self.console.print(f"stopped after {max_plies} plies", highlight=False)
                    return 0
                self.play(self.engine_move(), "engine")
                plies += 1
                self.draw()
                continue
            self.console.print(self.status(), highlight=False)
            command = self.read("move> ")
            if command is None or command == "quit":
                return 0
            if not self.obey(command):
                continue
            self.draw()

    def ask_after_end(self) -> bool:
        while True:
            command = self.read("new, undo or quit> ")
            if command in (None, "quit"):
                return False
            if command == "new":
                self.match.restart(self.match.start)
                self.draw()
                return True
            if command == "undo":
                if self.undo():
                    self.draw()
                    return True
                self.console.print("nothing to undo")

    def obey(self, command: str) -> bool:
        """Carry out one typed line; True when the board changed."""
        game, state = self.game, self.state
        if command in ("", "help", "?"):
            self.console.print(HELP)
            return False
        if command == "moves":
            moves = ", ".join(game.move_text(state, move) for move in game.legal_moves(state))
            self.console.print(f"legal: {moves}", highlight=False)
            return False
        if command == "hint":
            move = self.engine_move()
            self.console.print(f"hint: {game.move_text(state, move)}", highlight=False)
            return False
        if command == "undo":
            if not self.undo():
                self.console.print("nothing to undo")
                return False
            return True
        if command == "new":
            self.match.restart(self.match.start)
            return True
        try:
            move = game.parse_move(state, command)
        except IllegalMove as error:
            self.console.print(str(error), style="red", highlight=False)
            return False
        self.play(move, "you")
        return True

    def read(self, prompt: str) -> str | None:
        try:
            return self.console.input(prompt).strip().lower()
        except EOFError:
            return None


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    board_games = [spec.name for spec in registry.board_games()]
    families = [f"{prefix}:NAME" for prefix in registry.FAMILIES]
    if args.game in registry.TOOLS:
        raise UsageError(f"{args.game} is not a board game; try `aviary {args.game} --help`")
    if args.game not in registry.GAMES and args.game.partition(":")[0] not in registry.FAMILIES:
        raise UsageError(f"unknown game {args.game!r}; board games: {', '.join(board_games)}, "
                         f"or {', '.join(families)}")
    try:
        spec = registry.spec(args.game)
        game = spec.game_class().from_text(option_pairs(args.option))
    except OptionError as error:
        raise UsageError(str(error)) from None
    with refused_as_usage():
        args.time = check_seconds(args.time, "--time")
    if args.max_plies < 1:
        raise UsageError(f"--max-plies must be at least 1, got {args.max_plies}")
    start = game.start()
    if args.board is not None or args.player is not None:
        if args.board is None or args.player is None:
            raise UsageError("--board and --player go together")
        try:
            start = game.parse(args.board, args.player)
        except ValueError as error:
            raise UsageError(f"--board: {error}") from None
    engine_name = args.engine or spec.main_engine
    generic, _, query = engine_name.partition("?")  # a player for every game: mcts?time=2
    engine: Player[Any, Any]
    if generic in registry.PLAYERS:  # built first: a wrong setting is refused before play
        engine = registry.player(generic, game, dict(parse_qsl(query, keep_blank_values=True)))
    elif engine_name in spec.engines:
        engine = spec.engine(engine_name, game)
    else:
        raise UsageError(f"unknown engine {engine_name!r} for {game.name}; "
                         f"known: {', '.join([*spec.engines, *registry.PLAYERS])}")
    humans = {"first": {0}, "second": {1}, "both": {0, 1}, "none": set()}[args.human]
    console = Console(highlight=False)
    console.print(f"{game.title} {', '.join(f'{k}={v}' for k, v in game.settings.items())}"
                  f" - you play {args.human}; {HELP}", highlight=False)
    session = Session(game, engine, humans, args.time, start, args.seed, console)
    return session.run(args.max_plies)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
