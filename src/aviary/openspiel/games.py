"""The adapter: an OpenSpiel Python game for each board game, generated from the registry.

Every rule comes from the game's `aviary.games.base.Game`: the start, the legal
moves, what a move does, the outcome, the chance outcomes and their
probabilities, the notation of moves (`move_text`, `parse_move`) and their
stable numbering (`action`, `action_count`, `chance_count`). The adapter adds
only what OpenSpiel asks of every game and aviary leaves to the caller: a bound
on a game's length. The parameter `max_plies` ends a game that reaches it in a
draw, as the arena's `--max-plies` does; its default, 0, stands for the rules'
own bound (`Game.max_plies`) where they set one, else 1000.

Returns are +1 and -1 for a win and a loss, 0 for a draw. The observation
tensor is one plane per board symbol (`Game.symbols`, one-hot cells), two
planes for the player to move (both 0 at a chance node or the end) and one
plane holding the share of `max_plies` played.
"""

from __future__ import annotations

import sys
from typing import Any, ClassVar

import numpy as np
import pyspiel
from open_spiel.python.observation import IIGObserverForPublicInfoGame

from aviary.games import registry
from aviary.games.base import Game, IllegalMove, OptionError, Outcome

GAME_PREFIX = "aviary_"
PLIES = "max_plies"  # the adapter's own parameter, beside the game's options
DEFAULT_MAX_PLIES = 1000
MOVE_LIMIT = Outcome(None, "move-limit")


def game_type(name: str, title: str, parameters: dict[str, Any],
              chance: bool) -> pyspiel.GameType:
    """Sequential, two players, perfect information, zero-sum, rewards at the end."""
    kind = pyspiel.GameType
    return kind(
        short_name=GAME_PREFIX + name, long_name=f"aviary {title}",
        dynamics=kind.Dynamics.SEQUENTIAL,
        chance_mode=(kind.ChanceMode.EXPLICIT_STOCHASTIC if chance
                     else kind.ChanceMode.DETERMINISTIC),
        information=kind.Information.PERFECT_INFORMATION,
        utility=kind.Utility.ZERO_SUM, reward_model=kind.RewardModel.TERMINAL,
        max_num_players=2, min_num_players=2,
        provides_information_state_string=True, provides_information_state_tensor=False,
        provides_observation_string=True, provides_observation_tensor=True,
        parameter_specification=parameters)


def plies_allowed(rules: Game[Any, Any], wanted: int = 0) -> int:
    """The length bound: `wanted` (0: 1000), never beyond the rules' own bound."""
    bound = rules.max_plies()
    if not wanted:
        return DEFAULT_MAX_PLIES if bound is None else bound
    return wanted if bound is None else min(wanted, bound)


def parameter_specification(rules_class: type[Game[Any, Any]]) -> dict[str, Any]:
    """The game's options with their defaults, and `max_plies` (0: the rules' bound or 1000)."""
    return {**{option.name: option.default for option in rules_class.options}, PLIES: 0}


class AviaryGame(pyspiel.Game):
    """One registered aviary game under OpenSpiel; `rules` is the aviary `Game`."""

    rules_class: ClassVar[type[Game[Any, Any]]]

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        settings = dict(params or {})
        wanted = settings.pop(PLIES, 0)
        try:
            self.rules = self.rules_class(**settings)
        except OptionError as error:
            raise ValueError(str(error)) from None
        if isinstance(wanted, bool) or not isinstance(wanted, int) or wanted < 0:
            raise ValueError(f"{PLIES} must be a whole number, 0 for the default, "
                             f"got {wanted!r}")
        self.max_plies = plies_allowed(self.rules, wanted)
        rows, cols = self.rules.board().rows, self.rules.board().cols
        if len(self.rules.format(self.rules.start())) != rows * cols:
            raise ValueError(f"{self.rules.name}: board text is not {rows} x {cols}")
        info = pyspiel.GameInfo(
            num_distinct_actions=self.rules.action_count(),
            max_chance_outcomes=self.rules.chance_count(),
            num_players=2, min_utility=-1.0, max_utility=1.0, utility_sum=0.0,
            max_game_length=self.max_plies)
        kind = game_type(self.rules.name, self.rules.title,
                         parameter_specification(self.rules_class), self.rules.chance_count() > 0)
        super().__init__(kind, info, {**self.rules.settings, PLIES: self.max_plies})

    def new_initial_state(self, start: Any = None) -> AviaryState:
        """The start, or the position `start` written as the arena stores it (`Game.encode`:
        `w BOARD` for most games); ValueError says what is wrong with the text."""
        if start is None:
            return AviaryState(self)
        if not isinstance(start, str):
            raise ValueError(f"a position is given as text (Game.encode), not {start!r}")
        try:
            return AviaryState(self, self.rules.decode(start))
        except ValueError as error:
            raise ValueError(f"{self.rules.name}: {start!r} is not a position as "
                             f"Game.encode writes it ({error})") from None

    def state_at(self, state: Any, plies: int = 0) -> AviaryState:
        """The OpenSpiel state of aviary state `state`, `plies` moves into the game
        (its OpenSpiel history is empty: it starts there)."""
        return AviaryState(self, state, plies)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> Any:
        if iig_obs_type is None or (iig_obs_type.public_info
                                    and not iig_obs_type.perfect_recall):
            return BoardObserver(self, params)
        if iig_obs_type.perfect_recall and iig_obs_type.public_info:
            return HistoryObserver(params)
        return IIGObserverForPublicInfoGame(iig_obs_type, params)


class Now:
    """An aviary state with the moves played so far, its legal moves by action id and its
    outcome (worked out once). Immutable, as the rules' states are, so a clone shares it."""

    __slots__ = ("rules", "state", "plies", "limit", "_moves", "_outcome", "_judged")

    def __init__(self, rules: Game[Any, Any], state: Any, plies: int, limit: int) -> None:
        self.rules, self.state, self.plies, self.limit = rules, state, plies, limit
        self._moves: dict[int, Any] | None = None
        self._outcome: Outcome | None = None
        self._judged = False

    def __deepcopy__(self, memo: dict[int, Any]) -> Now:
        return self

    def __getstate__(self) -> tuple[Any, ...]:
        return self.rules, self.state, self.plies, self.limit

    def __setstate__(self, saved: tuple[Any, ...]) -> None:
        self.__init__(*saved)  # type: ignore[misc]

    def outcome(self) -> Outcome | None:
        if not self._judged:
            ended = self.rules.outcome(self.state)
            self._outcome = MOVE_LIMIT if ended is None and self.plies >= self.limit else ended
            self._judged = True
        return self._outcome

    def moves(self) -> dict[int, Any]:
        """Action id -> legal move (or chance outcome)."""
        if self._moves is None:
            rules = self.rules
            self._moves = ({} if self.outcome() is not None else
                           {rules.action(move): move for move in rules.legal_moves(self.state)})
        return self._moves


class AviaryState(pyspiel.State):
    """An OpenSpiel state over an aviary state (`aviary_state`)."""

    def __init__(self, game: AviaryGame, state: Any = None, plies: int = 0) -> None:
        super().__init__(game)
        rules = game.rules
        self._now = Now(rules, rules.start() if state is None else state, plies, game.max_plies)
        # where the game started when not at the start (its history counts from there)
        self._origin = None if state is None else rules.encode(state)

    @property
    def aviary_state(self) -> Any:
        return self._now.state

    @property
    def plies(self) -> int:
        """Moves played (chance outcomes not counted)."""
        return self._now.plies

    def outcome(self) -> Outcome | None:
        return self._now.outcome()

    def current_player(self) -> int:
        now = self._now
        if now.outcome() is not None:
            return int(pyspiel.PlayerId.TERMINAL)
        if now.rules.is_chance(now.state):
            return int(pyspiel.PlayerId.CHANCE)
        return now.rules.to_move(now.state)

    def _legal_actions(self, player: int) -> list[int]:
        if player != self.current_player():
            return []
        return sorted(self._now.moves())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        now = self._now
        return sorted((now.rules.action(move), probability)
                      for move, probability in now.rules.chance_outcomes(now.state))

    def _apply_action(self, action: int) -> None:
        now = self._now
        move = now.moves().get(action)
        if move is None:
            raise ValueError(f"action {action} is not legal here")
        counted = 0 if now.rules.is_chance(now.state) else 1
        self._now = Now(now.rules, now.rules.play(now.state, move), now.plies + counted,
                        now.limit)

    def _action_to_string(self, player: int, action: int) -> str:
        now = self._now
        move = now.moves().get(action) if player == self.current_player() else None
        if move is not None:
            return now.rules.move_text(now.state, move)
        named = now.rules.action_text(action, player == int(pyspiel.PlayerId.CHANCE))
        return f"action {action}" if named is None else named

    def string_to_action(self, *player_and_text: Any) -> int:
        """The action of the legal move written in the game's notation (`e2e4`, `U`)."""
        now = self._now
        try:
            return now.rules.action(now.rules.parse_move(now.state, str(player_and_text[-1])))
        except IllegalMove as error:
            raise ValueError(str(error)) from None

    def is_terminal(self) -> bool:
        return self._now.outcome() is not None

    def returns(self) -> list[float]:
        ended = self._now.outcome()
        if ended is None or ended.winner is None:
            return [0.0, 0.0]
        return [1.0, -1.0] if ended.winner == 0 else [-1.0, 1.0]

    def __str__(self) -> str:
        now = self._now
        return f"{now.rules.render(now.state)}\n{now.rules.encode(now.state)} ply {now.plies}"


class BoardObserver:
    """The observation: one-hot board symbols, the player to move, the share of plies played."""

    def __init__(self, game: AviaryGame, params: Any) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        rules = game.rules
        shape = rules.board()
        self.index = {symbol: plane for plane, symbol in enumerate(rules.symbols)}
        self.planes = len(rules.symbols) + 3
        self.tensor = np.zeros(self.planes * shape.rows * shape.cols, np.float32)
        self.dict = {"observation": self.tensor.reshape(self.planes, shape.rows, shape.cols)}

    def set_from(self, state: AviaryState, player: int) -> None:
        now = state._now
        cells = self.tensor.reshape(self.planes, -1)
        cells.fill(0)
        text = now.rules.format(now.state)
        cells[[self.index[symbol] for symbol in text], range(len(text))] = 1
        mover = state.current_player()
        if mover >= 0:
            cells[len(self.index) + mover] = 1
        cells[-1] = now.plies / now.limit

    def string_from(self, state: AviaryState, player: int) -> str:
        return str(state)


class HistoryObserver:
    """The information state (perfect recall): where the game started and its actions
    since, as a string. No tensor, as the game type says
    (`provides_information_state_tensor=False`): in a game of perfect information the
    observation tensor already holds the whole position."""

    def __init__(self, params: Any) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported, got {params}")
        self.tensor = None
        self.dict: dict[str, Any] = {}

    def set_from(self, state: AviaryState, player: int) -> None:
        raise ValueError("aviary games give no information_state_tensor "
                         "(provides_information_state_tensor is False); the "
                         "observation_tensor holds the whole position")

    def string_from(self, state: AviaryState, player: int) -> str:
        history = state.history_str()
        return history if state._origin is None else f"{state._origin}; {history}"


def register_all() -> None:
    """Register `aviary_NAME` for every board game in the registry (once per process)."""
    known = set(pyspiel.registered_names())
    module = sys.modules[__name__]
    for spec in registry.board_games():
        rules_class = spec.game_class()
        if PLIES in {option.name for option in rules_class.options}:
            raise ValueError(f"{spec.name} has an option named {PLIES}, the adapter's own")
        name = f"{rules_class.__name__}Game"
        game_class = type(name, (AviaryGame,), {"rules_class": rules_class,
                                                "__module__": __name__, "__qualname__": name})
        setattr(module, name, game_class)
        if GAME_PREFIX + spec.name in known:
            continue
        # registered with the default setting's chance mode; a loaded game's own type
        # (`game.get_type()`) says whether its setting has chance nodes
        pyspiel.register_game(game_type(spec.name, rules_class.title,
                                        parameter_specification(rules_class),
                                        rules_class().chance_count() > 0), game_class)


def load(rules: Game[Any, Any], max_plies: int | None = None) -> AviaryGame:
    """The OpenSpiel game of an aviary game, with its settings (and `max_plies`, if given)."""
    parameters: dict[str, Any] = dict(rules.settings)
    if max_plies is not None:
        parameters[PLIES] = max_plies
    game = pyspiel.load_game(GAME_PREFIX + rules.name, parameters)
    assert isinstance(game, AviaryGame)
    return game
