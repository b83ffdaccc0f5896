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
                fixed_time: float | None) -> Engine:
    """In-process engine `name` as an arena Engine; compiled before the first move's clock."""
    spec = registry.spec(game.name)
    try:
        player = spec.engine(name, game)
    except ImportError as error:
        raise UsageError(f"engine {name} of {game.name} is not available: {error}") from None
    warmup = getattr(player, "warmup", None)
    if warmup is not None:
        warmup()

    def engine(state: State, seconds: float, history: Sequence[State] = ()) -> str:
        budget = fixed_time
        if budget is None and depth is None:
            budget = max(0.05, 0.8 * seconds - 0.05)
        move = player.best_move(state, depth=depth, time=budget, history=history)
        return str(game.answer(state, move))

    return engine
