"""One game being played: the positions so far, the moves with who made them, undo.

Why it exists: the referee, `aviary play`, the web page's sessions, a game's
own command and the benchmarks all walk a game the same way (play a checked move,
draw the chance events, keep the positions before the current one for the
engines' repetition rules, take moves back), and each used to keep its own list
of states. A `Match` is that bookkeeping once, over any `Game`, in the shape of
python-chess's `Board` move stack (`push`/`pop`, `outcome()`) and OpenSpiel's
state (`current_player`, `history`, `apply_action`):

    match = Match(game)                       # or Match(game, start=position)
    while match.outcome is None:
        if match.is_chance:
            match.play_chance(rng)            # the caller's seeded random.Random
        else:
            match.play(choose(match.state, match.history))
    match.undo(2)                             # or match.back_to_turn({0}): the last time 0 moved

What a caller shows or records beside a move (notation, times, scores) it keeps
in its own list, as long as `match.moves`: undo shortens that, and the caller
cuts its list to `len(match.moves)`.
"""

from __future__ import annotations

import random
from collections.abc import Collection
from dataclasses import dataclass
from typing import Generic

from aviary.games.base import CHANCE, Game, IllegalMove, Move, Outcome, State


@dataclass(frozen=True)
class Played(Generic[Move]):
    """One ply: the move and who made it (0, 1, or `CHANCE` for a chance event)."""

    mover: int
    move: Move

    @property
    def is_chance(self) -> bool:
        return self.mover == CHANCE


class Match(Generic[State, Move]):
    """A game from `start` (default the game's start): `states[i + 1]` is `states[i]` after
    `moves[i]`; every move is checked against the rules before it is played."""

    def __init__(self, game: Game[State, Move], start: State | None = None) -> None:
        self.game = game
        self.states: list[State] = [game.start() if start is None else start]
        self.moves: list[Played[Move]] = []
        self._decisions = 0

    @property
    def state(self) -> State:
        """The current position."""
        return self.states[-1]

    @property
    def start(self) -> State:
        return self.states[0]

    @property
    def history(self) -> list[State]:
        """The positions before the current one, oldest first (the engines' repetitions)."""
        return self.states[:-1]

    @property
    def plies(self) -> int:
        """Moves played so far, chance events included."""
        return len(self.moves)

    @property
    def decisions(self) -> int:
        """Moves the players made (chance events not counted)."""
        return self._decisions

    @property
    def to_move(self) -> int:
        """0 or 1, or `CHANCE` at a chance node."""
        return self.game.to_move(self.state)

    @property
    def is_chance(self) -> bool:
        return self.game.is_chance(self.state)

    @property
    def outcome(self) -> Outcome | None:
        """How the game ended by its rules, None while it goes on."""
        return self.game.outcome(self.state)

    # --- moving ------------------------------------------------------------------------

    def play(self, move: Move) -> State:
        """Play `move` (a chance outcome at a chance node); IllegalMove, the match unchanged,
        if the game is over or the rules refuse it. Returns the new position."""
        state = self.state
        if self.game.outcome(state) is not None:
            raise IllegalMove("the game is over")
        if move not in self.game.legal_moves(state):
            raise IllegalMove(f"{move!r} is not a legal move here")
        mover = self.game.to_move(state)
        after = self.game.play(state, move)
        self.states.append(after)
        self.moves.append(Played(mover, move))
        self._decisions += mover != CHANCE
        return after

    def play_chance(self, rng: random.Random) -> Move:
        """Draw the chance event of a chance node from `rng` and play it; the outcome drawn."""
        if not self.is_chance:
            raise IllegalMove("no chance event here: a player is to move")
        outcome = self.game.sample_chance(self.state, rng)
        self.play(outcome)
        return outcome

    def play_chances(self, rng: random.Random) -> int:
        """Draw chance events until a player is to move or the game is over; how many."""
        drawn = 0
        while self.outcome is None and self.is_chance:
            self.play_chance(rng)
            drawn += 1
        return drawn

    # --- taking back --------------------------------------------------------------------

    def undo(self, plies: int = 1) -> None:
        """Take back the last `plies` moves, chance events counted; ValueError if fewer."""
        if not 0 <= plies <= len(self.moves):
            raise ValueError(f"cannot undo {plies} plies: {len(self.moves)} played")
        kept = len(self.moves) - plies
        self._decisions -= sum(1 for played in self.moves[kept:] if not played.is_chance)
        del self.states[kept + 1:]
        del self.moves[kept:]

    def back_to_turn(self, players: Collection[int], times: int = 1) -> bool:
        """Back to the `times`-th earlier position where one of `players` was to move (chance
        events in between are taken back too); False, the match unchanged, if there is none."""
        found = 0
        for index in range(len(self.moves) - 1, -1, -1):
            if self.moves[index].mover in players:
                found += 1
                if found == times:
                    self.undo(len(self.moves) - index)
                    return True
        return False

    def restart(self, start: State | None = None) -> None:
        """Begin again from `start` (default the game's start), every move forgotten."""
        self.states = [self.game.start() if start is None else start]
        self.moves = []
        self._decisions = 0
