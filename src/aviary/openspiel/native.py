"""OpenSpiel's own games as aviary games: `--game openspiel:connect_four` in the arena and `play`.

The other direction of `aviary.openspiel.games`: an aviary `Game` over a pyspiel
game, so the referee, the arena's statistics and records, `aviary play` and
OpenSpiel's players (`aviary:mcts`, `aviary:openspiel-ab`) take any OpenSpiel game
that fits the arena: sequential, two players, perfect information, chance (if any)
as explicit chance nodes. The registry reaches it by the prefix `openspiel:`
(`registry.FAMILIES`); the game's parameters are its options (`--option rows=5`),
each with OpenSpiel's default, floats written as text.

A state is the game's history of action ids (what identifies it, what the arena
stores: `encode` is `[3, 3, 4]`, the form of OpenSpiel's `state.history()`) with
the pyspiel state it leads to, never changed (`play` clones). A move is an action
id; its notation is OpenSpiel's `action_to_string`.

External programs (`COMMAND` in the arena) are called once a move as
`COMMAND GAME HISTORY SECONDS`: OpenSpiel's game string (`connect_four()`,
`connect_four(rows=5)`), the history as above, the seconds for the move. They print
the move, its action string (`x3`) or its action id (`3`), as their last line.
Replaying the history from `pyspiel.load_game(GAME).new_initial_state()` gives the
position in every game, whether or not it implements serialization.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import pyspiel

from aviary.games.base import (
    CHANCE,
    Board,
    Game,
    IllegalMove,
    Option,
    OptionError,
    Outcome,
    format_seconds,
)
from aviary.games.registry import GameSpec

PREFIX = "openspiel:"
_TYPE = pyspiel.GameType


@dataclass(frozen=True)
class SpielState:
    """A position: the action ids from the start (its identity) and the pyspiel state."""

    history: tuple[int, ...]
    spiel: Any = field(compare=False, repr=False)


def fits_the_arena(kind: pyspiel.GameType) -> str | None:
    """Why an OpenSpiel game type cannot be played here, or None when it can."""
    if kind.dynamics != _TYPE.Dynamics.SEQUENTIAL:
        return "its players move simultaneously"
    if kind.information != _TYPE.Information.PERFECT_INFORMATION:
        return "it has hidden information (a program would be told the whole history)"
    if kind.chance_mode == _TYPE.ChanceMode.SAMPLED_STOCHASTIC:
        return "its chance events are sampled inside the state, not chance nodes"
    if not kind.min_num_players <= 2 <= kind.max_num_players:
        return f"it is for {kind.min_num_players} to {kind.max_num_players} players, not 2"
    return None


def game_types() -> dict[str, pyspiel.GameType]:
    return {kind.short_name: kind for kind in pyspiel.registered_games()}


def playable() -> list[str]:
    """The registered OpenSpiel games the arena can play."""
    return sorted(name for name, kind in game_types().items() if fits_the_arena(kind) is None)


def _option(name: str, default: Any) -> Option:
    value = str(default) if isinstance(default, float) else default
    return Option(name, value, f"OpenSpiel parameter {name}")


class SpielGame(Game[SpielState, int]):
    """One OpenSpiel game, its parameters fixed (`game_class` makes a subclass per game)."""

    spiel_name: ClassVar[str] = ""
    floats: ClassVar[frozenset[str]] = frozenset()  # float parameters, given as text
    labels = ("0", "1")  # OpenSpiel's player ids
    course_words = "GAME HISTORY SECONDS"

    def __init__(self, **settings: Any) -> None:
        super().__init__(**settings)
        given: dict[str, Any] = {}
        for option in self.options:
            value = self.settings[option.name]
            if value == option.default:
                continue
            given[option.name] = value
            if option.name in self.floats:
                try:
                    given[option.name] = float(str(value))
                except ValueError:
                    raise OptionError(f"option {option.name} must be a number, "
                                      f"got {value!r}") from None
        try:
            self.spiel = pyspiel.load_game(self.spiel_name, given)
        except (pyspiel.SpielError, RuntimeError, ValueError) as error:
            raise OptionError(f"{self.name}: {error}") from None
        if self.spiel.num_players() != 2:
            raise OptionError(f"{self.name} is set for {self.spiel.num_players()} players; "
                              "the arena plays two")
        self._start = SpielState((), self.spiel.new_initial_state())

    @property
    def game_string(self) -> str:
        """OpenSpiel's name of the game with its parameters: `connect_four(rows=5)`."""
        return str(self.spiel)

    def start(self) -> SpielState:
        return self._start

    def to_move(self, state: SpielState) -> int:
        player = state.spiel.current_player()
        if player == int(pyspiel.PlayerId.CHANCE):
            return CHANCE
        return player if player >= 0 else len(state.history) % 2  # over: nobody, say the next

    def legal_moves(self, state: SpielState) -> list[int]:
        spiel = state.spiel
        if spiel.is_terminal():
            return []
        if spiel.is_chance_node():
            return [action for action, _ in spiel.chance_outcomes()]
        return list(spiel.legal_actions())

    def chance_outcomes(self, state: SpielState) -> list[tuple[int, float]]:
        return list(state.spiel.chance_outcomes()) if state.spiel.is_chance_node() else []

    def play(self, state: SpielState, move: int) -> SpielState:
        after = state.spiel.clone()
        after.apply_action(move)
        return SpielState((*state.history, move), after)

    def outcome(self, state: SpielState) -> Outcome | None:
        """The player with the higher return wins; equal returns are a draw."""
        if not state.spiel.is_terminal():
            return None
        first, second = state.spiel.returns()
        reason = f"returns {first:g},{second:g}"
        return Outcome(None if first == second else int(second > first), reason)

    def move_text(self, state: SpielState, move: int) -> str:
        return str(state.spiel.action_to_string(state.spiel.current_player(), move))

    def parse_move(self, state: SpielState, text: str) -> int:
        """The legal move whose action string is `text`, or whose action id it is."""
        try:
            return super().parse_move(state, text)
        except IllegalMove:
            word = text.strip()
            if word.isdigit() and int(word) in self.legal_moves(state):
                return int(word)
            raise

    def answer(self, state: SpielState, move: int) -> str:
        """A program prints the move's action string (its id is taken too: `read_answer`)."""
        return self.move_text(state, move)

    def read_answer(self, state: SpielState, line: str) -> int:
        return self.parse_move(state, line)

    def action_count(self) -> int:
        return int(self.spiel.num_distinct_actions())

    def chance_count(self) -> int:
        return int(self.spiel.max_chance_outcomes())

    def action(self, move: int) -> int:
        return move

    def move_for_action(self, state: SpielState, action: int) -> int:
        if action not in self.legal_moves(state):
            raise IllegalMove(f"action {action} is not a legal move here")
        return action

    def max_plies(self) -> int | None:
        return int(self.spiel.max_game_length())

    def encode(self, state: SpielState) -> str:
        """`[3, 3, 4]`: the action ids from the start."""
        return "[" + ", ".join(map(str, state.history)) + "]"

    def decode(self, text: str) -> SpielState:
        """The position after the action ids `[3, 3, 4]`; ValueError if one is illegal."""
        body = text.strip()
        if not (body.startswith("[") and body.endswith("]")):
            raise ValueError(f"a history is written [3, 3, 4], got {text!r}")
        state = self.start()
        for word in body[1:-1].replace(",", " ").split():
            if not word.isdigit() or int(word) not in self.legal_moves(state):
                raise ValueError(f"{word!r} is not a legal action after "
                                 f"{self.encode(state)} in {self.game_string}")
            state = self.play(state, int(word))
        return state

    def format(self, state: SpielState) -> str:
        return self.encode(state)

    def parse(self, board: str, player: str) -> SpielState:
        """The position after a history (`--board '[3, 3]'`); `player` must be the mover's id."""
        state = self.decode(board)
        if player != self.label(state):
            raise ValueError(f"after {self.encode(state)} player {self.label(state)} moves, "
                             f"not {player!r}")
        return state

    def render(self, state: SpielState) -> str:
        return str(state.spiel).rstrip("\n")

    def board(self) -> Board:
        """No grid of cells: `render` (OpenSpiel's picture of the state) shows a position."""
        return Board(0, 0)

    def command_args(self, state: SpielState, seconds: float) -> list[str]:
        """`GAME HISTORY SECONDS` (the module's docstring)."""
        return [self.game_string, self.encode(state), format_seconds(seconds)]

    @classmethod
    def parse_course(cls, argv: Sequence[str]) -> tuple[Game[SpielState, int], SpielState,
                                                          float]:
        raise ValueError(f"{cls.name} has no course command: programs are called with "
                         f"{cls.course_words}")


@functools.cache
def game_class(short_name: str) -> type[SpielGame]:
    """The aviary `Game` class of OpenSpiel game `short_name`; OptionError if there is none
    or the arena cannot play it."""
    kinds = game_types()
    if short_name not in kinds:
        known = ", ".join(playable())
        raise OptionError(f"OpenSpiel has no game {short_name!r}; games the arena plays: "
                          f"{known}")
    kind = kinds[short_name]
    why = fits_the_arena(kind)
    if why is not None:
        raise OptionError(f"{PREFIX}{short_name} cannot be played here: {why}")
    defaults = dict(kind.parameter_specification)
    name = f"SpielGame_{short_name}"
    return type(name, (SpielGame,), {
        "name": PREFIX + short_name, "title": kind.long_name, "spiel_name": short_name,
        "options": tuple(_option(key, value) for key, value in defaults.items()),
        "floats": frozenset(key for key, value in defaults.items() if isinstance(value, float)),
        "__module__": __name__, "__qualname__": name})


def __getattr__(short_name: str) -> type[SpielGame]:
    """`aviary.openspiel.native:connect_four`, the registry's address of a game's class."""
    if short_name.startswith("__"):
        raise AttributeError(short_name)
    try:
        return game_class(short_name)
    except OptionError as error:
        raise AttributeError(str(error)) from None


@functools.cache
def game_spec(short_name: str) -> GameSpec:
    """The registry's entry for `openspiel:SHORT_NAME` (`registry.FAMILIES`)."""
    if "(" in short_name:
        raise OptionError(f"give OpenSpiel's parameters as options: --game {PREFIX}"
                          f"{short_name.partition('(')[0]} --option NAME=VALUE, not "
                          f"{short_name!r}")
    rules = game_class(short_name)
    return GameSpec(name=rules.name, summary=f"{rules.title} (OpenSpiel)",
                    game=f"{__name__}:{short_name}",
                    engines={"mcts": "aviary.openspiel.players:default_mcts"},
                    docs="docs/openspiel.md")
