"""The arena's view of the games: the shared protocol, chosen through the registry.

The referee, schedulers, storage and players are game-agnostic: any game in
`aviary.games.registry` can be played, with its options given as text
(`--option n=8`). States are the game's own values; the arena stores them as
text (`Game.encode` / `decode`) and shows them with `Game.display`. An
in-process engine is a callable (state, seconds for this move, the game's
positions before it) -> the answer line a course program would print; the
positions let a search score a repetition of the game as a draw.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from aviary.errors import UsageError
from aviary.games import registry
from aviary.games.base import Game, IllegalMove, OptionError, Outcome, format_seconds

State = Any
Engine = Callable[[State, float, Sequence[State]], str]
IllegalAnswer = IllegalMove

__all__ = ["Engine", "Game", "IllegalAnswer", "Outcome", "State", "format_seconds", "make_game",
           "engine_names", "make_engine"]


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
                nodes: int | None = None) -> Engine:
    """In-process engine `name` as an arena Engine; compiled before the first move's clock.

    The engine is handed the move's seconds as they are (its own clock keeps the margin
    that returns the move in time: `aviary.search.clock.budget`), unless `depth` or
    `nodes` bounds its search instead; the referee's limit holds either way."""
    spec = registry.spec(game.name)
    try:
        player = spec.engine(name, game)
    except ImportError as error:
        raise UsageError(f"engine {name} of {game.name} is not available: {error}") from None
    if nodes is not None and "nodes" not in inspect.signature(player.best_move).parameters:
        raise UsageError(f"engine {name} of {game.name} takes no node budget (nodes=)")
    warmup = getattr(player, "warmup", None)
    if warmup is not None:
        warmup()
    bounded = depth is not None or nodes is not None

    def engine(state: State, seconds: float, history: Sequence[State] = ()) -> str:
        limits: dict[str, Any] = {"depth": depth, "time": None if bounded else seconds}
        if nodes is not None:
            limits["nodes"] = nodes
        move = player.best_move(state, history=history, **limits)
        return str(game.answer(state, move))

    return engine
