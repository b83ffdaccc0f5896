"""Game adapters: everything the arena needs to know about one game, and nothing more.

The referee, schedulers, storage and players are game-agnostic; a game plugs in
by subclassing `Game` on top of its own rules.py (Betsy, Fox-Geese and IJK add
an adapter here, not a rewrite). States are the game's own immutable values;
the arena only ever stores them as text (`encode`/`decode`) and shows them
with `display`.

Players are numbered 0 (moves first) and 1; `labels` gives their names on the
game's command line (Pikachu: `w`, `b`).
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aviary.errors import UsageError

State = Any
# An in-process engine: (state, seconds for this move) -> the answer line it would print.
Engine = Callable[[State, float], str]


class IllegalAnswer(Exception):
    """The answer is not a legal move from the position; the message says why."""


@dataclass(frozen=True)
class Outcome:
    """How a finished position ended: `winner` is 0, 1 or None (draw)."""

    winner: int | None
    reason: str


class Game(ABC):
    """One game as the arena sees it. Subclasses are configured by keyword options."""

    name: str = ""
    labels: tuple[str, str] = ("1", "2")

    @abstractmethod
    def start(self) -> State:
        """The initial position."""

    @abstractmethod
    def to_move(self, state: State) -> int:
        """0 or 1: which player must answer in `state`."""

    @abstractmethod
    def successors(self, state: State) -> dict[str, State]:
        """Answer line -> next state, for every legal move (used for openings and random play)."""

    @abstractmethod
    def read_answer(self, state: State, line: str) -> State:
        """The next state if `line` is a legal answer in `state`, else raise IllegalAnswer."""

    @abstractmethod
    def outcome(self, state: State) -> Outcome | None:
        """The result if the game is over in `state`, else None."""

    @abstractmethod
    def command_args(self, state: State, seconds: float) -> list[str]:
        """Arguments appended to an external program's command for one move."""

    @abstractmethod
    def encode(self, state: State) -> str:
        """One-line text that `decode` turns back into `state` (what the database stores)."""

    @abstractmethod
    def decode(self, text: str) -> State:
        """Inverse of `encode`."""

    @abstractmethod
    def display(self, state: State) -> str:
        """A human-readable, possibly multi-line picture of `state`."""

    def engines(self) -> dict[str, Callable[[dict[str, str]], Engine]]:
        """Named in-process engines: name -> factory(params) -> Engine. Random is generic."""
        return {}

    def opening(self, rng: random.Random, plies: int) -> State:
        """`plies` random legal moves from the start, never reaching a finished position."""
        for _ in range(100):
            state = self.start()
            for _ in range(plies):
                after = self.successors(state)
                if not after:
                    break
                state = after[rng.choice(sorted(after))]
                if self.outcome(state) is not None:
                    break
            if self.outcome(state) is None:
                return state
        return self.start()


def format_seconds(seconds: float) -> str:
    """SECONDS as a program expects it: `2` rather than `2.0`, `0.5` as is."""
    return str(int(seconds)) if float(seconds).is_integer() else f"{seconds:g}"


class PikachuGame(Game):
    """Pikachu on an n x n board; the answer line is the board after the move."""

    name = "pikachu"
    labels = ("w", "b")

    def __init__(self, n: int = 8) -> None:
        from aviary.games.pikachu import rules

        if n < rules.MIN_N:
            raise UsageError(f"pikachu needs --n of at least {rules.MIN_N}, got {n}")
        self.n = n
        self.rules = rules

    def start(self) -> State:
        return self.rules.start_position(self.n)

    def to_move(self, state: State) -> int:
        return 0 if state.player == "w" else 1

    def successors(self, state: State) -> dict[str, State]:
        after = (self.rules.play(state, move) for move in self.rules.legal_moves(state))
        return {self.rules.format_board(next_state): next_state for next_state in after}

    def read_answer(self, state: State, line: str) -> State:
        board = line.strip()
        if len(board) != self.n * self.n or set(board) - set("wbWB."):
            raise IllegalAnswer(f"not a {self.n}x{self.n} board")
        moves = self.rules.successors(state)
        if board not in moves:
            raise IllegalAnswer("not a legal move from the position")
        return self.rules.play(state, moves[board])

    def outcome(self, state: State) -> Outcome | None:
        winner = self.rules.winner(state)
        if winner is None:
            return None
        loser_has_pieces = self.rules.pieces(state, self.rules.opponent(winner)) > 0
        return Outcome(0 if winner == "w" else 1, "no-move" if loser_has_pieces else "captured-all")

    def command_args(self, state: State, seconds: float) -> list[str]:
        return [str(self.n), state.player, self.rules.format_board(state), format_seconds(seconds)]

    def encode(self, state: State) -> str:
        return f"{state.player} {self.rules.format_board(state)}"

    def decode(self, text: str) -> State:
        player, board = text.split()
        return self.rules.parse(self.n, board, player)

    def display(self, state: State) -> str:
        n, board = self.n, self.rules.format_board(state)
        rows = [f"{r + 1:>3} {' '.join(board[r * n:(r + 1) * n])}" for r in range(n)]
        return "\n".join(rows)

    def engines(self) -> dict[str, Callable[[dict[str, str]], Engine]]:
        return {"pikachu": self._engine("engine"), "baseline": self._engine("baseline")}

    def _engine(self, module_name: str) -> Callable[[dict[str, str]], Engine]:
        def factory(params: dict[str, str]) -> Engine:
            import importlib

            try:
                module = importlib.import_module(f"aviary.games.pikachu.{module_name}")
            except ImportError as error:
                raise UsageError(
                    f"aviary.games.pikachu.{module_name} is not available: {error}") from None
            if hasattr(module, "warmup"):  # compile before the first move's clock starts
                module.warmup()
            depth = _int_param(params, "depth")
            fixed_time = _float_param(params, "time")
            rules = self.rules

            def engine(state: State, seconds: float) -> str:
                budget = fixed_time
                if budget is None and depth is None:
                    budget = max(0.05, 0.8 * seconds - 0.05)
                move = module.best_move(state, depth=depth, time=budget)
                return str(rules.format_board(rules.play(state, move)))

            return engine

        return factory


def _int_param(params: dict[str, str], key: str) -> int | None:
    if key not in params:
        return None
    try:
        value = int(params[key])
    except ValueError:
        raise UsageError(f"{key}={params[key]!r} must be a whole number") from None
    if value < 1:
        raise UsageError(f"{key} must be at least 1, got {value}")
    return value


def _float_param(params: dict[str, str], key: str) -> float | None:
    if key not in params:
        return None
    try:
        value = float(params[key])
    except ValueError:
        raise UsageError(f"{key}={params[key]!r} must be a number of seconds") from None
    if not value > 0:
        raise UsageError(f"{key} must be positive, got {params[key]}")
    return value


# game name -> adapter class, configured by keyword options (pikachu: n)
GAMES: dict[str, Callable[..., Game]] = {"pikachu": PikachuGame}


def make_game(name: str, **options: Any) -> Game:
    """The adapter for `name`, configured; UsageError names the known games otherwise."""
    if name not in GAMES:
        raise UsageError(f"unknown game {name!r}; known games: {', '.join(sorted(GAMES))}")
    return GAMES[name](**options)
