"""A review of a game, for students: every ply graded by the evaluation it lost.

Every position of the game is searched to a fixed node budget (`REVIEW_NODES`), in one
engine process (`workers.run_review`), so a review costs the same on any machine's
clock and grades the same every time. A ply's loss is the mover's evaluation before it
(the best move's score) minus the mover's evaluation of the position it led to (the
next position where someone chooses, searched the same way; a finished game scores a
win, loss or draw). By that loss (in the engine's units: 100 is about a pawn or a
Pichu) a ply is best (the engine's own choice, or nothing lost), good, an inaccuracy, a
mistake or a blunder. A forced win is worth `WIN` less the plies to it, so throwing one
away is a blunder.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from aviary.games import views
from aviary.games.base import Game

REVIEW_NODES = 20_000  # per position: what a grade rests on
WIN = 100_000  # a forced win's worth, less the plies to it
GRADES = (("good", 50), ("inaccuracy", 100), ("mistake", 300), ("blunder", math.inf))
KEPT = 200  # reviews kept for their pages to read


@dataclass
class Review:
    """A review under way or done: `done` of `total` positions searched, then `plies`."""

    id: str
    total: int
    done: int = 0
    finished: bool = False
    error: str | None = None
    plies: list[dict[str, Any]] = field(default_factory=list)
    values: list[int | None] = field(default_factory=list)  # per position, first player's view

    def view(self) -> dict[str, Any]:
        return {"id": self.id, "total": self.total, "done": self.done,
                "finished": self.finished, "error": self.error, "plies": self.plies,
                "values": self.values}


def grade(loss: int) -> str:
    for name, most in GRADES:
        if loss < most:
            return name
    return GRADES[-1][0]


def worth(score: int, mate_in: int | None) -> int:
    """A search's score as one number for the side to move (a forced result as ±WIN less
    its plies)."""
    if mate_in is None:
        return score
    return WIN - abs(mate_in) if mate_in > 0 else -(WIN - abs(mate_in))


def position_values(game: Game[Any, Any], states: list[Any],
                    found: list[tuple[str, int, int | None] | None]) -> list[int | None]:
    """Each position's value for the first player: searched, or the finished game's
    result; None where chance moves."""
    values: list[int | None] = []
    for state, searched in zip(states, found, strict=True):
        if searched is not None:
            value = worth(searched[1], searched[2])
            values.append(value if game.to_move(state) == 0 else -value)
            continue
        outcome = game.outcome(state)
        if outcome is None:
            values.append(None)
        else:
            values.append(0 if outcome.winner is None else WIN if outcome.winner == 0 else -WIN)
    return values


def grade_plies(game: Game[Any, Any], states: list[Any], texts: list[str],
                chance: list[bool], found: list[tuple[str, int, int | None] | None]
                ) -> tuple[list[dict[str, Any]], list[int | None]]:
    """(one grade per ply of a person or engine, the positions' values): `states` has one
    more entry than `texts` (the position after each ply)."""
    values = position_values(game, states, found)
    shape = game.board()
    graded = []
    for index, text in enumerate(texts):
        searched = found[index]
        if chance[index] or searched is None:
            continue
        mover = game.to_move(states[index])
        after = next((value for value in values[index + 1:] if value is not None), None)
        before = values[index]
        if after is None or before is None:
            continue
        sign = 1 if mover == 0 else -1
        loss = max(0, sign * (before - after))
        best_text = searched[0]
        best_move = game.parse_move(states[index], best_text)
        start, end = views.move_squares(game, states[index], best_move, best_text, shape)
        graded.append({
            "ply": index, "text": text, "mover": mover, "loss": loss,
            "grade": "best" if text == best_text or loss == 0 else grade(loss),
            "best": best_text, "best_start": start, "best_end": end,
            "before": before, "after": after})
    return graded, values
