"""Every game aviary knows, in one place: the cli, warmup, arena, `play` and the web read this.

Adding a game is one folder under `aviary/games/` plus one `GameSpec` here
(`board_game(...)`). Specs name their modules as strings and load them on first use,
so reading the registry costs nothing: `aviary pikachu` must answer before numba has
loaded. `GAMES` holds the board games (a `Game`: the arena, `play`, the web's board
page, OpenSpiel); `TOOLS` the commands that are no board game (Sebastian's dice
game), each a `ToolSpec`: its `command`, `warmup`, `docs` and `web` page, and no
board game's field.

A game's pieces, each optional except the game:
- `game`: the `aviary.games.base.Game` subclass (`module:Class`);
- `engines`: in-process players by name (`module:function`, each
  `function(game) -> Player`, `aviary.games.base.Player`); `GameSpec.engine` builds
  one per game settings and keeps it (its tables survive across moves); the
  first is the game's main engine, `aviary:NAME` in the arena; every board game
  has `textbook`, the opponent strength is measured against, `aviary.games.textbook`);
- `quick`: a rules-only `function(state) -> move` answering in milliseconds
  (the course command's first answer, before numba has loaded);
- `evaluation`: a rules-only `function(state) -> float`, the position's value for
  player 0, which the generic fallback search (`aviary.games.fallback`) deepens with
  until the engine answers;
- `tables`: the solved endgame tables' probe, `function(state, use) -> Verdict | None`,
  loading no numpy or numba (the course command asks it before its engine loads);
- `command`: a `Command` of the game's own, `aviary NAME ...` (its module's
  `main(argv)`, its summary, and the word after which the shared course runner takes
  over: `aviary NAME WORD [course arguments]`); without one, the shared course runner
  (`aviary.course.runner`) with the game's own argument form (`aviary --help` shows
  it, derived from the game's declared options);
- `warmup`: modules with a `warmup()` that compiles their numba kernels (a board
  game's `engine` module may have none: `aviary warmup` then warms the game's engines
  through `Player.warmup`);
- `compiled`: `function(game) -> Player | None`, the main engine on its search compiled
  ahead of time (`aviary.search.compiled`; None where that is not built): a cold course
  command's engine child takes it first, since it answers without loading numba;
- `deep_warmup`: modules with a `deep_warmup()` that builds a table too slow for
  `aviary warmup` (minutes): `aviary warmup --deep` runs them;
- `docs`: its page under docs/.

A tool's `web` (board games get the generic page) is the module behind its browser
page: `PAGE` (its HTML file), `ACTIONS` (name -> `function(body: dict) -> dict`,
ValueError for a bad request) and optionally `warmup()`.
"""

from __future__ import annotations

import importlib
import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aviary.errors import UsageError
from aviary.games.base import Game, OptionError, Player

_players: dict[tuple[str, str, str], Player[Any, Any]] = {}  # (game, engine, settings) -> player
_players_lock = threading.Lock()


@dataclass(frozen=True)
class Command:
    """`aviary NAME ...` when it is a command of its own: `module`'s `main(argv)`; `summary`
    for `aviary --help`; `course_subcommand`, the word after which the shared course runner
    takes over (a board game with command forms of its own: IJK's `move`)."""

    module: str
    summary: str = ""
    course_subcommand: str = ""


@dataclass(frozen=True)
class GameSpec:
    """A board game: its `Game`, its players, and what its course command needs."""

    name: str
    summary: str
    game: str
    engines: Mapping[str, str] = field(default_factory=dict)
    quick: str | None = None
    evaluation: str | None = None
    tables: str | None = None
    compiled: str | None = None
    command: Command | None = None
    warmup: tuple[str, ...] = ()
    deep_warmup: tuple[str, ...] = ()
    docs: str = ""

    def game_class(self) -> type[Game[Any, Any]]:
        loaded: type[Game[Any, Any]] = load(self.game)
        return loaded

    def make(self, **settings: Any) -> Game[Any, Any]:
        return self.game_class()(**settings)

    def engine(self, name: str, game: Game[Any, Any]) -> Player[Any, Any]:
        """The in-process player `name` for `game`'s settings, built once and kept: one
        player, one set of search tables, for every caller of this process (UsageError-free:
        KeyError if unknown)."""
        key = (self.name, name, json.dumps(game.settings, sort_keys=True))
        with _players_lock:
            if key not in _players:
                _players[key] = self.own_engine(name, game)
            return _players[key]

    def own_engine(self, name: str, game: Game[Any, Any]) -> Player[Any, Any]:
        """A new player `name` for `game` with search tables of its own: the arena's
        players, two of which may be the same engine at different settings in one game,
        each search alone (KeyError if unknown)."""
        built: Player[Any, Any] = load(self.engines[name])(game)
        return built

    def compiled_engine(self, game: Game[Any, Any]) -> Player[Any, Any] | None:
        """The main engine on the game's search compiled ahead of time (`compiled`), built
        once per settings and kept; None where the game has none or it is not built for the
        current sources (then `engine(main_engine, game)`, numba's, answers)."""
        if self.compiled is None:
            return None
        key = (self.name, "(compiled)", json.dumps(game.settings, sort_keys=True))
        with _players_lock:
            if key not in _players:
                built = load(self.compiled)(game)
                if built is None:
                    return None
                _players[key] = built
            return _players[key]

    @property
    def main_engine(self) -> str:
        return next(iter(self.engines))

    @property
    def command_module(self) -> str:
        return self.command.module if self.command else "aviary.course.runner"

    @property
    def command_summary(self) -> str:
        return self.command.summary if self.command else ""

    @property
    def course_subcommand(self) -> str:
        return self.command.course_subcommand if self.command else ""

    def command_line(self) -> str:
        """What `aviary --help` says of `aviary NAME`: the command's own summary, and the
        course command line (the game's `course_usage`, from its declared options)."""
        course = f"{self.course_subcommand} " if self.course_subcommand else ""
        course += self.game_class().course_usage()
        if self.command_summary:
            return f"{self.command_summary}, or {course}"
        return f"course command line: {course}"


@dataclass(frozen=True)
class ToolSpec:
    """A command that is no board game (Sebastian's dice game): `aviary NAME ...`, what
    `aviary warmup` compiles for it, its docs and its browser page (`web`)."""

    name: str
    summary: str
    command: Command
    warmup: tuple[str, ...] = ()
    deep_warmup: tuple[str, ...] = ()
    docs: str = ""
    web: str | None = None

    @property
    def command_module(self) -> str:
        return self.command.module

    @property
    def command_summary(self) -> str:
        return self.command.summary

    def command_line(self) -> str:
        """What `aviary --help` says of `aviary NAME`."""
        return self.command.summary


def board_game(name: str, game_class: str, summary: str, *,
               engines: Mapping[str, str] | None = None, warmup: tuple[str, ...] = (),
               **pieces: Any) -> GameSpec:
    """The spec of a board game laid out like every other (docs/architecture.md, "Adding a
    game"): `rules.py` with the `Game` and `engine.py` with `make_engine` and
    `make_textbook`, which `aviary warmup` warms (by the module's `warmup()` if it has
    one, else through each engine's `Player.warmup`); if the folder has a `quick.py`, its
    `best_move` and `evaluate` are the course command's quick player and fallback
    evaluation. `engines` and `warmup` add to those, `pieces` are the rest of the spec's
    fields. Reading the folder is one file check: no module is imported."""
    folder = f"aviary.games.{name}"
    quick = (Path(__file__).with_name(name) / "quick.py").is_file()
    return GameSpec(
        name=name, summary=summary, game=f"{folder}.rules:{game_class}",
        engines={"engine": f"{folder}.engine:make_engine",
                 "textbook": f"{folder}.engine:make_textbook", **(engines or {})},
        quick=f"{folder}.quick:best_move" if quick else None,
        evaluation=f"{folder}.quick:evaluate" if quick else None,
        warmup=(f"{folder}.engine", *warmup), docs=f"docs/games/{name}.md", **pieces)


GAMES: dict[str, GameSpec] = {
    spec.name: spec
    for spec in (
        board_game(
            "pikachu", "Pikachu",
            "Pikachu: Pichus and Pikachus jump and capture on an n x n board",
            tables="aviary.games.pikachu.endgame:probe",
            compiled="aviary.games.pikachu.compiled:make_engine",
            warmup=("aviary.games.pikachu.endgame", "aviary.games.pikachu.compiled"),
        ),
        board_game(
            "betsy", "Betsy", "Betsy: bird chess, won by capturing the Kingfisher",
            compiled="aviary.games.betsy.compiled:make_engine",
            warmup=("aviary.games.betsy.compiled",),
        ),
        board_game(
            "foxgeese", "FoxGeese",
            "Fox, Geese and Elephants: foxes jump geese on the 33-point cross",
            engines={"depth2": "aviary.games.foxgeese.depth2:make_engine"},
            tables="aviary.games.foxgeese.odds:probe",
            compiled="aviary.games.foxgeese.compiled:make_engine",
            warmup=("aviary.games.foxgeese.depth2", "aviary.games.foxgeese.endgame",
                    "aviary.games.foxgeese.odds", "aviary.games.foxgeese.compiled"),
            deep_warmup=("aviary.games.foxgeese.odds",),
        ),
        board_game(
            "ijk", "IJK",
            "IJK: two-player 2048 with letters, deterministic or with random tiles",
            command=Command("aviary.games.ijk.command",
                            "a game like the course driver (UPPER LOWER MODE)",
                            course_subcommand="move"),
        ),
    )
}

TOOLS: dict[str, ToolSpec] = {
    spec.name: spec
    for spec in (
        ToolSpec(
            name="sebastian",
            summary="Sebastian: the solitaire dice game, played by its exact optimum",
            command=Command("aviary.games.sebastian.command",
                            "the optimal Sebastian player: play, advise, solve"),
            warmup=("aviary.games.sebastian.solver",),
            docs="docs/games/sebastian.md",
            web="aviary.games.sebastian.page",
        ),
    )
}


# Players for every game, written for none of them (`aviary:NAME` in the arena, `--engine
# NAME` in `aviary play`): `module:function`, each `function(game, settings)` -> a `Player`
# that, called as `player(state, seconds, history)`, also returns the course's answer line
# (an arena engine). `settings` are the texts
# of `aviary:NAME?key=value`.
PLAYERS: dict[str, str] = {
    "mcts": "aviary.openspiel.players:mcts_player",
    "openspiel-ab": "aviary.openspiel.players:alpha_beta_player",
}


# Families of games reached by a prefix, `--game PREFIX:NAME` (`openspiel:connect_four`):
# prefix -> `module:function`, `function(NAME)` -> the `GameSpec` of that game (OptionError
# when there is none); `pip install 'aviary[PREFIX]'` brings what the module needs.
FAMILIES: dict[str, str] = {
    "openspiel": "aviary.openspiel.native:game_spec",
}


def player(name: str, game: Game[Any, Any], settings: Mapping[str, str]) -> Any:
    """Game-independent player `name` for `game` (a `Player` and an arena engine); UsageError
    if its optional package is missing or a setting is wrong."""
    try:
        make = load(PLAYERS[name])
    except ImportError as error:
        raise UsageError(f"aviary:{name} is not available ({error}): "
                         f"pip install 'aviary[openspiel]'") from None
    return make(game, settings)


def load(target: str) -> Any:
    """The object `module:attribute` names, imported on demand."""
    module, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module), attribute)


def spec(name: str) -> GameSpec:
    """The spec of board game `name`, or of `PREFIX:NAME` in a family of games
    (`FAMILIES`); OptionError for a tool (no board game) and, listing the known games,
    for anything else."""
    if name in GAMES:
        return GAMES[name]
    if name in TOOLS:
        raise OptionError(f"{name} is not a board game; try `aviary {name} --help`")
    prefix, colon, rest = name.partition(":")
    if colon and prefix in FAMILIES:
        try:
            family = load(FAMILIES[prefix])
        except ImportError as error:
            raise OptionError(f"{prefix}: games are not available ({error}): "
                              f"pip install 'aviary[{prefix}]'") from None
        found: GameSpec = family(rest)
        return found
    families = ", ".join(f"{prefix}:NAME" for prefix in FAMILIES)
    raise OptionError(f"unknown game {name!r}; known games: {', '.join(sorted(GAMES))}, "
                      f"{families}")


def board_games() -> list[GameSpec]:
    """The registered board games (playable in the arena, `play`, the web and OpenSpiel)."""
    return list(GAMES.values())


def commands() -> list[GameSpec | ToolSpec]:
    """Everything with a command `aviary NAME`: the board games, then the tools."""
    return [*GAMES.values(), *TOOLS.values()]


def make(name: str, **settings: Any) -> Game[Any, Any]:
    """Game `name` configured by `settings`; OptionError for an unknown game or option."""
    return spec(name).make(**settings)
