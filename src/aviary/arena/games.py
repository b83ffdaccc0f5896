"""The arena's view of the games, chosen through the registry: games and in-process engines.

The referee, schedulers, storage and players are game-agnostic: any game in
`aviary.games.registry` can be played, with its options given as text
(`--option n=8`). States are the game's own values; the arena stores them as
text (`Game.encode` / `decode`) and shows them with `Game.display`. An
in-process engine (`Engine`) is a callable (state, seconds for this move, the
game's positions before it) -> the answer line a course program would print; the
positions let a search score a repetition of the game as a draw.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from aviary.errors import UsageError
from aviary.games import registry
from aviary.games.base import Game, OptionError, Player
from aviary.search.clock import Deadline


class Engine(Protocol):
    """An in-process player as the arena calls it. `new_game(seed)` comes before each
    game: the player forgets its earlier games (its search tables) and draws what it draws
    at random from `seed` (None: from its own settings or the OS). So a level plays each
    game the same whichever games its worker played before, and a tournament's `--seed`
    replays the games of players that draw nothing else."""

    def __call__(self, state: Any, seconds: float, history: Sequence[Any] = ()) -> str: ...

    def new_game(self, seed: str | None = None) -> None: ...


class SearchEngine:
    """A game's `Player` as an `Engine`, its search bounded by `depth` and `nodes` too."""

    def __init__(self, game: Game[Any, Any], player: Player[Any, Any], depth: int | None,
                 nodes: int | None) -> None:
        self.game, self.player, self.depth, self.nodes = game, player, depth, nodes

    def __call__(self, state: Any, seconds: float, history: Sequence[Any] = ()) -> str:
        move = self.player.best_move(state, deadline=Deadline.after(seconds), depth=self.depth,
                                     nodes=self.nodes, history=history)
        return str(self.game.answer(state, move))

    def new_game(self, seed: str | None = None) -> None:
        self.player.new_game()  # a search draws nothing: the seed is not its


def make_game(name: str, options: Mapping[str, str] | None = None) -> Game[Any, Any]:
    """Game `name` configured from option texts; UsageError names what is wrong."""
    try:
        return registry.spec(name).game_class().from_text(dict(options or {}))
    except OptionError as error:
        raise UsageError(str(error)) from None


def engine_names(game: Game[Any, Any]) -> list[str]:
    """The game's in-process engines, its main one first (`aviary:NAME` in the arena)."""
    return list(registry.spec(game.name).engines)


def make_engine(game: Game[Any, Any], name: str, depth: int | None,
                nodes: int | None = None, *, warm: bool = True) -> Engine:
    """In-process engine `name` as an arena Engine; compiled before the first move's clock
    (`warm`: the arena's check of a player spec, in the parent, compiles nothing: only the
    workers that play the moves warm their players).

    Each move's seconds become the player's deadline, counted from the referee's call
    (the player's own clock keeps the margin that returns the move in time); `depth` and
    `nodes` bound its search as well, never in place of the deadline: a deep setting
    answers in time with what it has searched, like any player."""
    spec = registry.spec(game.name)
    try:
        player = spec.own_engine(name, game)  # its tables its own, whoever else plays
    except ImportError as error:
        raise UsageError(f"engine {name} of {game.name} is not available: {error}") from None
    if nodes is not None and not player.counts_nodes:
        raise UsageError(f"engine {name} of {game.name} takes no node budget (nodes=)")
    if warm:
        player.warmup()
    return SearchEngine(game, player, depth, nodes)
