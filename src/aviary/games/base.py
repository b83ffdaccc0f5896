"""The game protocol: what every game gives, and what the arena, `play` and the web rely on.

A game is a `Game` subclass on top of its `rules.py`. States and moves are the
game's own small immutable values (hashable, so they can key tables); callers
never look inside them, they go through the game:

    game = registry.make(name, **options)       # options are validated (`Option`)
    state = game.start()
    while game.outcome(state) is None:
        if game.is_chance(state):                # a random tile, a dice roll
            move = rng.choices(*zip(*game.chance_outcomes(state)))[0]
        else:
            move = game.parse_move(state, input())   # IllegalMove lists the legal moves
        state = game.play(state, move)
    print(game.outcome(state))                   # Outcome(winner=0, reason="captured-all")

Players are numbered 0 (moves first) and 1; `labels` are their names on the
course's command line (`w`/`b`, `+`/`-`). At a chance node `to_move` is
`CHANCE`; randomness belongs to the caller (a seeded `random.Random`), never to
the game. The course's text forms are the only ones a user sees: `parse` /
`format` for boards, `move_text` / `parse_move` for moves, `answer` /
`read_answer` for what a course program prints for its move.

A player is anything that makes moves in-process (`Player`): a game's engine,
its textbook opponent, a fixed-depth player, OpenSpiel's players. Every front
end hands it a `Deadline` (`aviary.search.clock`) and nothing else about time.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import (
    TYPE_CHECKING,
    Any,
    ClassVar,
    Generic,
    Literal,
    Protocol,
    TypeVar,
    runtime_checkable,
)

from aviary.search.clock import Deadline, Limit, check_seconds
from aviary.search.report import Report  # the one report type, every player's

if TYPE_CHECKING:  # numpy is not imported at run time: command lines must start fast
    import numpy as np

State = TypeVar("State")
Move = TypeVar("Move")
Position = TypeVar("Position", contravariant=True)  # a `Player`'s states: it is only handed them
OptionValue = int | str | bool

CHANCE = -1  # `to_move` at a chance node


class IllegalMove(ValueError):
    """A move (typed, clicked or printed by a program) that the rules refuse; says why."""


class OptionError(ValueError):
    """A game option with a wrong name or value; the message names the option."""


@dataclass(frozen=True)
class Option:
    """One declared game option, in the spirit of OpenSpiel's parameter specs.

    The type is the default's type. `choices` limits a text option; `minimum` and
    `maximum` bound a whole-number one.
    """

    name: str
    default: OptionValue
    help: str
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None

    @property
    def kind(self) -> type:
        return type(self.default)

    def usage(self) -> str:
        """The option as a usage line shows it: `[--shrink]`, `[--variant classic|elephants]`."""
        if self.kind is bool:
            return f"[--{self.name}]"
        value = "|".join(self.choices) or self.name.upper()
        return f"[--{self.name} {value}]"

    def parse(self, text: str) -> OptionValue:
        """The value written as `text` on a command line or in a URL, validated."""
        if self.kind is bool:
            lowered = text.strip().lower()
            if lowered in ("1", "true", "yes", "on", ""):
                return self.validate(True)
            if lowered in ("0", "false", "no", "off"):
                return self.validate(False)
            raise OptionError(f"option {self.name} is yes or no, got {text!r}")
        if self.kind is int:
            if not text.strip():  # an empty field in a form or a link: say so, echo nothing
                raise OptionError(f"option {self.name} is empty: give a whole number")
            try:
                number = int(text)
            except ValueError:
                raise OptionError(
                    f"option {self.name} must be a whole number, got {text!r}") from None
            return self.validate(number)
        return self.validate(text)

    def validate(self, value: Any) -> OptionValue:
        """`value` if it is allowed, else OptionError naming the option and the rule."""
        if self.kind is bool:
            if not isinstance(value, bool):
                raise OptionError(f"option {self.name} is yes or no, got {value!r}")
            return value
        if self.kind is int:
            if isinstance(value, bool) or not isinstance(value, int):
                raise OptionError(f"option {self.name} must be a whole number, got {value!r}")
            if self.minimum is not None and value < self.minimum:
                raise OptionError(f"option {self.name} must be at least {self.minimum}, "
                                  f"got {value}")
            if self.maximum is not None and value > self.maximum:
                raise OptionError(f"option {self.name} must be at most {self.maximum}, "
                                  f"got {value}")
            return value
        if not isinstance(value, str):
            raise OptionError(f"option {self.name} must be text, got {value!r}")
        if self.choices and not value:
            raise OptionError(f"option {self.name} is empty: give one of "
                              f"{', '.join(self.choices)}")
        if self.choices and value not in self.choices:
            raise OptionError(f"option {self.name} must be one of {', '.join(self.choices)}, "
                              f"got {value!r}")
        return value


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended: `winner` is 0, 1 or None (a draw or tie), and why."""

    winner: int | None
    reason: str

    @property
    def is_draw(self) -> bool:
        return self.winner is None

    def score(self, player: int) -> float:
        """1, 0.5 or 0: what the game is worth to `player`."""
        return 0.5 if self.winner is None else float(self.winner == player)


TableUse = Literal["build", "cached", "off"]  # build missing tables, read cached ones, none
WIN, DRAW, LOSS = 1, 0, -1


@dataclass(frozen=True)
class Verdict(Generic[Move]):
    """A solved endgame table's value of a position for the side to move, and its best move."""

    result: int  # WIN, DRAW or LOSS
    distance: int  # plies to the end with best play (0 for a draw)
    move: Move | None  # None only when the side to move has no legal move

    def describe(self) -> str:
        """`win in 7`, `loss in 4`, `draw` (distances in plies)."""
        word = {WIN: "win", DRAW: "draw", LOSS: "loss"}[self.result]
        return word if self.result == DRAW else f"{word} in {self.distance}"


@runtime_checkable
class Player(Protocol[Position, Move]):
    """What every in-process player offers; callers never ask a player what it has.

    `counts_nodes`: whether `best_move` keeps a `nodes=` limit (a player that
    cannot refuses one with ValueError rather than ignore it).
    """

    counts_nodes: bool

    def warmup(self) -> None:
        """Compile (or load from numba's cache) what the first move would otherwise wait for."""

    def new_game(self) -> None:
        """Forget what earlier games left in the search's tables (as UCI's `ucinewgame`):
        a move then depends on its own game alone, not on the games this player happened
        to play before it (a ladder level's strength, a replayed game)."""

    def think(self, state: Position, limit: Limit, *, stop: np.ndarray | None = None,
              history: Sequence[Position] = ()) -> Iterator[Report[Move]]:
        """A `Report` after each completed depth until `limit` or `stop[0]` is set;
        nothing when the game is over or the mover has no move."""
        ...

    def best_move(self, state: Position, *, deadline: Deadline | None = None,
                  time: float | None = None, depth: int | None = None,
                  nodes: int | None = None, stop: np.ndarray | None = None,
                  history: Sequence[Position] = (),
                  on_report: Callable[[Report[Move]], object] | None = None) -> Move:
        """The move by `deadline` (or within `time` seconds of the call), to `depth`
        plies and/or `nodes` nodes; each completed depth goes to `on_report`.
        `history` is the game's positions before `state` (repetitions are draws)."""
        ...


@dataclass(frozen=True)
class Board:
    """The board's shape, for drawing it: rows x cols cells, `holes` not part of the board.

    0 x 0 for a game without a grid of cells (an OpenSpiel game): `Game.render` shows it."""

    rows: int
    cols: int
    holes: frozenset[int] = field(default_factory=frozenset)


class Game(ABC, Generic[State, Move]):
    """A game, options fixed. Subclasses declare `name`, `labels`, `options`, `symbols`."""

    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    labels: ClassVar[tuple[str, str]] = ("1", "2")
    options: ClassVar[tuple[Option, ...]] = ()
    # the course command line's positional words; an option named by one of them (`N` for
    # option `n`) is given there, every other option as a flag (see `course_usage`)
    course_words: ClassVar[str] = "PLAYER BOARD SECONDS"
    symbols: ClassVar[str] = ""  # every character a board text may hold (a learner's planes)
    # for people (the web page, `aviary play`): the rules in a few lines, one rule a line,
    # and what each board character stands for
    how_to_play: ClassVar[str] = ""
    piece_names: ClassVar[dict[str, str]] = {}

    def __init__(self, **settings: Any) -> None:
        for name in sorted(settings):
            self.option(name)
        self.settings: dict[str, OptionValue] = {
            option.name: option.validate(settings.get(option.name, option.default))
            for option in self.options
        }

    @classmethod
    def option(cls, name: str) -> Option:
        """The declared option `name`, else OptionError listing the game's options."""
        for option in cls.options:
            if option.name == name:
                return option
        offered = ", ".join(option.name for option in cls.options) or "none"
        raise OptionError(f"{cls.name} has no option {name!r} (options: {offered})")

    @classmethod
    def course_usage(cls) -> str:
        """The course command line's form, `PLAYER BOARD SECONDS [--shrink]`: the positional
        words, then a flag for every declared option not among them."""
        words = cls.course_words.split()
        flags = [option.usage() for option in cls.options if option.name.upper() not in words]
        return " ".join([*words, *flags])

    @classmethod
    def from_text(cls, settings: Mapping[str, str]) -> Game[State, Move]:
        """The game configured from option texts (`--option n=8`, a URL's query)."""
        return cls(**{name: cls.option(name).parse(text) for name, text in settings.items()})

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={value!r}" for name, value in self.settings.items())
        return f"{type(self).__name__}({shown})"

    # --- what every game must give -------------------------------------------------

    @abstractmethod
    def start(self) -> State:
        """The initial position."""

    @abstractmethod
    def parse(self, board: str, player: str) -> State:
        """The state from the course's board text and player label; ValueError says why not."""

    @abstractmethod
    def format(self, state: State) -> str:
        """The course's board text of `state`."""

    @abstractmethod
    def to_move(self, state: State) -> int:
        """0 or 1, whose turn it is; CHANCE at a chance node."""

    @abstractmethod
    def legal_moves(self, state: State) -> list[Move]:
        """Every legal move of the player to move (the chance outcomes at a chance node)."""

    @abstractmethod
    def play(self, state: State, move: Move) -> State:
        """The state after `move` (which must be legal)."""

    @abstractmethod
    def outcome(self, state: State) -> Outcome | None:
        """The result if the game is over, else None."""

    @abstractmethod
    def move_text(self, state: State, move: Move) -> str:
        """`move` in the game's notation (what a person types in `aviary play`)."""

    # --- numbered moves (OpenSpiel's actions, a learner's output layer) ----------------

    @abstractmethod
    def action_count(self) -> int:
        """How many action ids the players' moves use: every `action` is below it."""

    @abstractmethod
    def action(self, move: Move) -> int:
        """The stable id of `move`: the same move has the same id in every position.

        Distinct legal moves of one position have distinct ids. Chance outcomes
        are numbered on their own, below `chance_count()`.
        """

    def chance_count(self) -> int:
        """How many action ids chance outcomes use; 0 for a game without chance."""
        return 0

    def action_text(self, action: int, chance: bool = False) -> str | None:
        """Action id `action` in the game's notation without a position (a chance outcome's
        if `chance`), where the id alone says which move it is; None where it does not
        (the default) or the id is out of range. OpenSpiel names every move of a game's
        history by it, legal now or not."""
        return None

    def move_for_action(self, state: State, action: int) -> Move:
        """The legal move (or chance outcome) of `state` numbered `action`, else IllegalMove."""
        for move in self.legal_moves(state):
            if self.action(move) == action:
                return move
        raise IllegalMove(f"action {action} is not a legal move here")

    def perft(self, state: State, depth: int) -> int:
        """How many move sequences of length `depth` the rules allow from `state` (chance
        outcomes count as moves): the check number of a game's move generation.

        A game that ends early stops counting (no legal move: no sequence through it).
        The kernels' perft (`aviary.games.engine.Searcher.perft`) must give the same.
        """
        if depth == 0:
            return 1
        moves = self.legal_moves(state)
        if depth == 1:
            return len(moves)
        return sum(self.perft(self.play(state, move), depth - 1) for move in moves)

    def max_plies(self) -> int | None:
        """The most moves a game can last by its rules, chance outcomes not counted.

        None where the rules set no bound (a caller that needs one adds its own
        limit, as the arena's `--max-plies` does).
        """
        return None

    # --- chance -------------------------------------------------------------------------

    def is_chance(self, state: State) -> bool:
        return self.to_move(state) == CHANCE

    def chance_outcomes(self, state: State) -> list[tuple[Move, float]]:
        """At a chance node, each outcome with its probability (they sum to 1)."""
        return []

    def sample_chance(self, state: State, rng: random.Random) -> Move:
        outcomes, weights = zip(*self.chance_outcomes(state), strict=True)
        return rng.choices(outcomes, weights)[0]

    # --- built on the above; a game overrides what it can do better --------------------

    def label(self, state: State) -> str:
        """The course's name of the player to move (`w`, `+`, ...)."""
        return self.labels[self.to_move(state)]

    def parse_move(self, state: State, text: str) -> Move:
        """The legal move written `text` (case and spaces ignored), else IllegalMove."""
        wanted = "".join(text.split()).lower()
        moves = self.legal_moves(state)
        for move in moves:
            if "".join(self.move_text(state, move).split()).lower() == wanted:
                return move
        shown = [self.move_text(state, move) for move in moves]
        listing = ", ".join(shown[:40]) + (f" ... ({len(shown)} in all)" if len(shown) > 40 else "")
        typed = text.strip()
        typed = typed if len(typed) <= 40 else f"{typed[:40]}... ({len(typed)} characters)"
        raise IllegalMove(f"{typed!r} is not a legal move here; legal: {listing or 'none'}")

    def answer(self, state: State, move: Move) -> str:
        """The line a course program prints for `move`: by default the board after it."""
        return self.format(self.play(state, move))

    def answers(self, state: State) -> dict[str, Move]:
        """Answer line -> move, for every legal move."""
        return {self.answer(state, move): move for move in self.legal_moves(state)}

    def read_answer(self, state: State, line: str) -> Move:
        """The move a program's answer line stands for, else IllegalMove saying why."""
        moves = self.answers(state)
        text = line.strip()
        if text not in moves:
            raise IllegalMove("not a legal move from the position")
        return moves[text]

    def successors(self, state: State) -> dict[str, State]:
        """Answer line -> next state, for every legal move."""
        return {line: self.play(state, move) for line, move in self.answers(state).items()}

    def render(self, state: State) -> str:
        """A plain-text picture of `state`, one line per board row."""
        shape = self.board()
        text = self.format(state)
        rows = []
        for r in range(shape.rows):
            cells = text[r * shape.cols:(r + 1) * shape.cols]
            rows.append(f"{r + 1:>3} {' '.join(cells)}")
        return "\n".join(rows)

    def board(self) -> Board:
        """The board's geometry. By default a square whose side is the board text's square
        root; a game whose board text is not a square's cells says its own `Board`."""
        cells = len(self.format(self.start()))
        side = round(cells ** 0.5)
        if side * side != cells:
            raise NotImplementedError(
                f"{type(self).__name__}'s board text is {cells} characters, not a square "
                f"board's: the game must say its shape (override Game.board)")
        return Board(side, side)

    def kernels_reach(self, state: State) -> bool:
        """False where the game's compiled engine cannot search `state` (too large a board).

        Asked without loading numba: the course runner then lets the quick player answer.
        """
        return True

    def command_args(self, state: State, seconds: float) -> list[str]:
        """What a course program is called with for one move (inverse: `parse_course`)."""
        args = [self.label(state), self.format(state), format_seconds(seconds)]
        for option in self.options:
            value = self.settings[option.name]
            if value == option.default:
                continue
            if isinstance(value, bool):
                args.append(f"--{option.name}")
            else:
                args += [f"--{option.name}", str(value)]
        return args

    @classmethod
    def parse_course(cls, argv: Sequence[str]) -> tuple[Game[State, Move], State, float]:
        """The game, position and seconds from a course command line; ValueError says why.

        Default form `PLAYER BOARD SECONDS [--option VALUE | --flag]...`.
        """
        positional, settings = _split_flags(cls, argv)
        if len(positional) != 3:
            raise ValueError(f"usage: aviary {cls.name} {cls.course_usage()} "
                             f"(got {len(positional)} arguments)")
        player, board, limit = positional
        game = cls.from_text(settings)
        return game, game.parse(board, player), parse_seconds(limit)

    def encode(self, state: State) -> str:
        """One line that `decode` turns back into `state` (what databases store)."""
        return f"{self.label(state)} {self.format(state)}"

    def decode(self, text: str) -> State:
        player, board = text.split()
        return self.parse(board, player)

    def opening(self, rng: random.Random, plies: int) -> State:
        """A `random_walk` of `plies` that reaches an unfinished position (up to 100 tries),
        else the start."""
        for _ in range(100):
            state = self.random_walk(rng, plies)
            if self.outcome(state) is None:
                return state
        return self.start()

    def random_walk(self, rng: random.Random, plies: int) -> State:
        """Where `plies` random steps from the start lead (a chance event counts as one; a
        move is picked among the sorted answer lines), or the end of the game if sooner."""
        state = self.start()
        for _ in range(plies):
            if self.is_chance(state):
                state = self.play(state, self.sample_chance(state, rng))
                continue
            lines = self.answers(state)
            if not lines:
                break
            state = self.play(state, lines[rng.choice(sorted(lines))])
            if self.outcome(state) is not None:
                break
        return state

    # --- optional: tactics for a rules-only search ----------------------------------

    def forcing(self, state: State) -> Forcing[Move] | None:
        """The moves a search should still try past its depth, or None (the default)
        when the game cannot tell them: the fallback search then stops at its depth.

        A game that gives them (captures and promotions, say) lets the fallback end
        its lines where nothing hangs, instead of where the depth runs out.
        """
        return None


@dataclass(frozen=True)
class Forcing(Generic[Move]):
    """What `Game.forcing` tells a search about a position past its depth.

    `moves`: the forcing moves of the player to move (captures, ...), best first.
    `threatened`: the opponent would win at once if the player to move passed (a king
    under attack, in a game won by taking it): no standing on the static value, every
    move is tried.
    """

    moves: list[Move]
    threatened: bool


def check_cells(board: str, allowed: str, shown: str = "") -> None:
    """ValueError naming the characters of `board` not in `allowed` (described as `shown`,
    by default `allowed` itself): what a position's board text may hold."""
    bad = sorted(set(board) - set(allowed))
    if bad:
        raise ValueError(f"board may contain only {shown or repr(allowed)}, "
                         f"found {''.join(bad)!r}")


def check_player(player: str, labels: tuple[str, str]) -> None:
    """ValueError unless `player` is one of the two `labels` (`w`/`b`, `+`/`-`)."""
    if not player:
        raise ValueError(f"player is empty: give {labels[0]!r} or {labels[1]!r}")
    if player not in labels:
        raise ValueError(f"player must be {labels[0]!r} or {labels[1]!r}, got {player!r}")


def option_pairs(pairs: Sequence[str]) -> dict[str, str]:
    """`NAME=VALUE` texts (`--option n=8`, repeated) as a name -> text mapping."""
    settings: dict[str, str] = {}
    for pair in pairs:
        name, equals, value = pair.partition("=")
        if not equals or not name.strip():
            raise OptionError(f"--option {pair!r}: expected NAME=VALUE")
        settings[name.strip()] = value.strip()
    return settings


def square_name(row: int, col: int) -> str:
    """`a1`-style name of a 0-based (row, col): column letters from `a`, rows from 1."""
    letters = ""
    col += 1
    while col:
        col, rest = divmod(col - 1, 26)
        letters = chr(ord("a") + rest) + letters
    return f"{letters}{row + 1}"


def format_seconds(seconds: float) -> str:
    """SECONDS as a program expects it: `2` rather than `2.0`, `0.5` as is."""
    return str(int(seconds)) if float(seconds).is_integer() else f"{seconds:g}"


def parse_seconds(text: str) -> float:
    """A course command's SECONDS (`aviary.search.clock.check_seconds`), else ValueError."""
    return check_seconds(text, "SECONDS")


def _split_flags(
    game: type[Game[Any, Any]], argv: Sequence[str]
) -> tuple[list[str], dict[str, str]]:
    """Positional arguments and `--option VALUE` / `--flag` settings of a course command line."""
    known = {option.name: option for option in game.options}
    positional: list[str] = []
    settings: dict[str, str] = {}
    words = list(argv)
    while words:
        word = words.pop(0)
        if not word.startswith("--"):
            positional.append(word)
            continue
        name, has_value, value = word[2:].partition("=")
        if name not in known:
            offered = ", ".join(f"--{o}" for o in known) or "none"
            raise ValueError(f"unknown option {word!r} (options: {offered})")
        if known[name].kind is bool and not has_value:
            settings[name] = "yes"
        elif has_value:
            settings[name] = value
        elif words:
            settings[name] = words.pop(0)
        else:
            raise ValueError(f"option --{name} needs a value")
    return positional, settings
