"""OpenSpiel's own players for every aviary game: its MCTS and its generic alpha-beta.

Opponents nobody here wrote, searching through the adapter (`aviary.openspiel.games`),
or OpenSpiel's own game for `openspiel:NAME` (`aviary.openspiel.native`):

- `aviary:mcts`: OpenSpiel's `MCTSBot` with random rollouts (`RandomRolloutEvaluator`).
  Settings: `time=` seconds a move (it stops starting simulations when the clock
  would run out before the next one ends), or `sims=` simulations a move instead;
  `uct=` the exploration constant (2, as OpenSpiel's examples), `rollouts=` random
  games per leaf (1), `seed=`. With too little time for two simulations it answers
  a random move (see `ClockedMCTSBot`).
- `aviary:openspiel-ab`: OpenSpiel's `alpha_beta_search`, for games without chance
  (it is written for deterministic games). `depth=N` searches N plies; otherwise
  it deepens one ply at a time until the move's clock (`time=`, else the caller's
  seconds), keeping the last depth it finished. It knows no evaluation: a position
  where it stops counts as a draw, so it sees wins and losses within its depth and
  nothing else.

Each is made by `function(game, settings)` (the names in `registry.PLAYERS`), is an
`aviary.games.base.Player` (`best_move` by a deadline, `think` with one report per
finished search; no node limit) and answers the arena too (called as
`player(state, seconds, history)`, it returns the course's answer line). A search starts at the
given position with the adapter's ply count at 0: OpenSpiel's bound on a game's
length then only ends rollouts, never the real game early.
"""

from __future__ import annotations

import hashlib
import time as clock
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import mcts, minimax

from aviary.errors import UsageError
from aviary.games.base import Game, Report
from aviary.games.engine import DeepeningPlayer
from aviary.openspiel.games import load
from aviary.openspiel.native import SpielGame
from aviary.search.clock import (
    DEEPEN_TO_DEADLINE,
    Deadline,
    Limit,
    check_seconds,
)


class TimeUp(Exception):
    """The clock ran out inside a search: the search in progress is abandoned."""


class OpenSpielPlayer(DeepeningPlayer[Any, Any]):
    """What both players share: settings, the OpenSpiel game, the arena's calling form.

    `best_move` is every player's (`DeepeningPlayer`), deepening until the deadline
    (`DEEPEN_TO_DEADLINE`: each finished search is a report, the last one answers)."""

    name = ""
    depth_share = DEEPEN_TO_DEADLINE
    settings_known: tuple[str, ...] = ()
    note = ""  # one line about the last move (`fallback: ...` when it was not searched)
    counts_nodes = False  # OpenSpiel's searches count no nodes

    def __init__(self, game: Game[Any, Any], settings: Mapping[str, str]) -> None:
        unknown = sorted(set(settings) - set(self.settings_known))
        if unknown:
            known = ", ".join(f"{key}=" for key in self.settings_known)
            raise UsageError(f"aviary:{self.name} takes {known}, not {unknown[0]}=")
        self.game, self.settings = game, dict(settings)
        # OpenSpiel's own game (`openspiel:NAME`), or the adapter over an aviary game
        self.spiel: pyspiel.Game = game.spiel if isinstance(game, SpielGame) else load(game)
        self.time = self._seconds("time")

    def think(self, state: Any, limit: Limit, *, stop: np.ndarray | None = None,
              history: Sequence[Any] = ()) -> Iterator[Report[Any]]:
        """A `Report` per finished search until `limit` (without a time in it: the
        settings' `time=`) or `stop[0]`; nothing when no player is to move."""
        if limit.nodes is not None:
            raise ValueError(f"aviary:{self.name} takes no node limit (nodes=)")
        if self.game.outcome(state) is not None or not self.game.legal_moves(state):
            return
        if self.time is not None and limit.time is None and limit.deadline is None:
            limit = replace(limit, time=self.time)
        yield from self.search_reports(state, limit.from_now(), stop)

    def search_reports(self, state: Any, limit: Limit,
                       stop: np.ndarray | None) -> Iterator[Report[Any]]:
        raise NotImplementedError

    def best_move(self, state: Any, *, deadline: Deadline | None = None,
                  time: float | None = None, **limits: Any) -> Any:
        """The move for `state` by `deadline` (the settings' `time=` first, if they give
        one): every player's `best_move` (`DeepeningPlayer`) with that deadline."""
        if self.time is not None:
            deadline, time = Deadline.after(self.time), None
        return super().best_move(state, deadline=deadline, time=time, **limits)

    def new_game(self, seed: str | None = None) -> None:
        """Nothing is kept between games (each move builds its search afresh)."""

    def __call__(self, state: Any, seconds: float, history: Sequence[Any] = ()) -> str:
        """The arena's form: the course's answer line for the move in `state`."""
        move = self.best_move(state, deadline=Deadline.after(seconds), history=history)
        return self.game.answer(state, move)

    def report(self, state: Any, action: int, depth: int, value: float,
               started: float, summary: str = "") -> Report[Any]:
        """A finished search as a `Report` (its value, -1 to 1, as a score of +-1000)."""
        move = self.game.move_for_action(state, action)
        return Report(depth, round(1000 * value), move, self.game.answer(state, move), (move,),
                      0, 0.0, clock.monotonic() - started, summary=summary)

    def position(self, state: Any) -> pyspiel.State:
        """The pyspiel state to search (a copy: the search plays on it)."""
        if self.game.outcome(state) is not None or self.game.is_chance(state):
            raise ValueError("a player is asked to move only where a player is to move")
        if isinstance(self.game, SpielGame):
            return state.spiel.clone()
        return self.spiel.state_at(state)

    def _seconds(self, key: str) -> float | None:
        if key not in self.settings:
            return None
        try:
            return check_seconds(self.settings[key], f"{key}=")
        except ValueError as error:
            raise UsageError(f"aviary:{self.name}: {error}") from None

    def _count(self, key: str, default: int | None = None, minimum: int = 1) -> int | None:
        if key not in self.settings:
            return default
        text = self.settings[key]
        if not text.isdigit() or int(text) < minimum:
            raise UsageError(f"aviary:{self.name}: {key}= must be a whole number of at least "
                             f"{minimum}, got {text!r}")
        return int(text)


class ClockedMCTSBot(mcts.MCTSBot):
    """OpenSpiel's MCTSBot, unchanged, but for a deadline.

    After the first, no simulation starts when the longest one so far would end
    after the deadline. OpenSpiel's MCTS evaluates the root before it expands it, so
    a move is searched from the second simulation on: out of time before that, it
    answers a random move (`fallback` says so).
    """

    deadline: float | None = None
    stop: np.ndarray | None = None  # the caller's flag: set, no simulation starts
    simulations = 0
    fallback = False
    root: Any = None  # the last search's tree

    def mcts_search(self, state: pyspiel.State) -> Any:
        self._root: Any = None
        self._started: float | None = None
        self._longest = 0.0
        self.fallback = False
        try:
            root = super().mcts_search(state)
        except TimeUp:
            root = self._root
        if not root.children:  # no time for a second simulation: a random move
            self.fallback = True
            root.children = [mcts.SearchNode(action, state.current_player(), prior)
                             for action, prior in self.evaluator.prior(state)]
            self._random_state.shuffle(root.children)
        self.simulations = root.explore_count
        self.root = root
        return root

    def _apply_tree_policy(self, root: Any, state: pyspiel.State) -> Any:
        now = clock.monotonic()
        if self._started is not None:
            self._longest = max(self._longest, now - self._started)
        self._started, self._root = now, root
        if root.explore_count > 0 and (
                (self.deadline is not None and now + self._longest >= self.deadline)
                or (self.stop is not None and self.stop[0])):
            raise TimeUp
        return super()._apply_tree_policy(root, state)


class MCTSPlayer(OpenSpielPlayer):
    """OpenSpiel's MCTS with random rollouts (`aviary:mcts?time=1`, `?sims=1000`)."""

    name = "mcts"
    settings_known = ("time", "sims", "uct", "rollouts", "seed")

    def __init__(self, game: Game[Any, Any], settings: Mapping[str, str]) -> None:
        super().__init__(game, settings)
        self.sims = self._count("sims")
        if self.sims is not None and self.time is not None:
            raise UsageError(f"aviary:{self.name}: give time= or sims=, not both")
        try:
            uct = float(self.settings.get("uct", "2"))
        except ValueError:
            uct = float("nan")
        if not 0 <= uct < float("inf"):
            raise UsageError(f"aviary:{self.name}: uct= must be a number of at least 0, "
                             f"got {self.settings['uct']!r}")
        rollouts = self._count("rollouts", 1)
        self.seed = self._count("seed", minimum=0)
        self.rng = np.random.RandomState(self.seed)  # the rollouts' and the tree's draws
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=rollouts, random_state=self.rng)
        self.bot = ClockedMCTSBot(self.spiel, uct, self.sims or 10 ** 9, evaluator,
                                  solve=True, random_state=self.rng)

    def new_game(self, seed: str | None = None) -> None:
        """Draw this game's simulations from the game's seed (mixed with `seed=`, so two
        players of one game draw apart): with `sims=` the same arena `--seed` replays the
        game on any machine and worker. (Under a clock the number of simulations, and so
        the move, depends on the machine anyway.)"""
        if seed is not None:
            mixed = seed if self.seed is None else f"{self.seed}:{seed}"
            digest = hashlib.sha256(mixed.encode()).digest()
            self.rng.seed(int.from_bytes(digest[:4], "little"))  # in place: both draw from it

    def search_reports(self, state: Any, limit: Limit,
                       stop: np.ndarray | None) -> Iterator[Report[Any]]:
        """One report: the simulations' choice (by the deadline, or `sims=` of them)."""
        started = clock.monotonic()
        position = self.position(state)
        self.bot.deadline = None if self.sims is not None else limit.clock().at
        self.bot.stop = stop
        action = self.bot.step(position)
        if self.bot.fallback:
            self.note = "fallback: a random move, no simulation reached a move in time"
            yield self.report(state, action, 1, 0.0, started, self.note)
            return
        best = self.bot.root.best_child()
        value = (best.outcome[best.player] if best.outcome is not None else
                 best.total_reward / max(best.explore_count, 1))
        self.note = f"{self.bot.simulations} simulations"
        proven = "  proven" if best.outcome is not None else ""
        summary = (f"{self.bot.simulations} simulations  value {value:+.2f}{proven}  "
                   f"best {self.game.move_text(state, self.game.move_for_action(state, action))} "
                   f"({best.explore_count} visits)")
        yield self.report(state, action, 1, value, started, summary)


class AlphaBetaPlayer(OpenSpielPlayer):
    """OpenSpiel's generic alpha-beta (`aviary:openspiel-ab?depth=3`, or deepening to a clock)."""

    name = "openspiel-ab"
    settings_known = ("depth", "time")
    deepest = 100  # deepening stops here at the latest

    def __init__(self, game: Game[Any, Any], settings: Mapping[str, str]) -> None:
        super().__init__(game, settings)
        if self.spiel.get_type().chance_mode != pyspiel.GameType.ChanceMode.DETERMINISTIC:
            shown = ", ".join(f"{key}={value}" for key, value in game.settings.items())
            raise UsageError(f"aviary:{self.name} is OpenSpiel's alpha-beta, for games without "
                             f"chance; {game.name} ({shown}) has chance nodes")
        if self.spiel.get_type().utility != pyspiel.GameType.Utility.ZERO_SUM:
            raise UsageError(f"aviary:{self.name} is OpenSpiel's alpha-beta, for zero-sum "
                             f"games; {game.name} is not zero-sum")
        self.depth = self._count("depth")
        self.reached = 0  # the depth the last move's search finished

    def search_reports(self, state: Any, limit: Limit,
                       stop: np.ndarray | None) -> Iterator[Report[Any]]:
        """A report per finished depth: `depth=` plies at once (the settings' without
        their `time=`, or the limit's without a clock), else deepening one ply at a time
        to the deadline."""
        started = clock.monotonic()
        position = self.position(state)
        fixed = self.depth or limit.depth
        own_depth = self.depth is not None and self.time is None  # `depth=` alone: no clock
        if fixed is not None and (limit.deadline is None or own_depth):
            value, chosen, _ = self.search(position, fixed, None, stop)
            self.reached = fixed
            self.note = f"depth {fixed}"
            yield self.report(state, chosen, fixed, value, started)
            return
        deadline = limit.clock().at
        found = False
        for plies in range(1, (fixed or self.deepest) + 1):
            try:  # the first depth always ends: a move is always found
                value, action, cut = self.search(position, plies,
                                                 deadline if found else None,
                                                 stop if found else None)
            except TimeUp:
                break
            found = True
            self.reached = plies
            self.note = f"depth {self.reached}"
            yield self.report(state, action, plies, value, started)
            if abs(value) == 1 or not cut:  # a proven result, or the whole tree seen
                break

    def search(self, position: pyspiel.State, plies: int, deadline: float | None,
               stop: np.ndarray | None = None) -> tuple[float, int, bool]:
        """(value, action, whether any line was cut at `plies`) of one alpha-beta search."""
        cuts = 0

        def draw_unless_out_of_time(_: pyspiel.State) -> float:
            nonlocal cuts
            cuts += 1
            if deadline is not None and clock.monotonic() >= deadline:
                raise TimeUp
            if stop is not None and stop[0]:
                raise TimeUp
            return 0.0

        value, action = minimax.alpha_beta_search(
            self.spiel, state=position, value_function=draw_unless_out_of_time,
            maximum_depth=plies)
        return value, action, cuts > 0


def mcts_player(game: Game[Any, Any], settings: Mapping[str, str]) -> MCTSPlayer:
    return MCTSPlayer(game, settings)


def default_mcts(game: Game[Any, Any]) -> MCTSPlayer:
    """The main engine of an OpenSpiel game (`openspiel:NAME`): MCTS at the caller's clock."""
    return MCTSPlayer(game, {})


def alpha_beta_player(game: Game[Any, Any], settings: Mapping[str, str]) -> AlphaBetaPlayer:
    return AlphaBetaPlayer(game, settings)
