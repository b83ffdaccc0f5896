"""What a page needs to draw and play any registered board game (the web app's pages, the
arena's leaderboard), read from the protocol alone.

The page never knows which game it shows. Geometry comes from `Game.board()`;
the pieces are the characters of `Game.format(state)` (`.` empty, `#` closed);
the squares a move starts and ends on come from the move's notation (square
names like `a1`, as `games.base.square_name` writes them) or, failing that,
from the difference between the boards before and after it; which side a
piece character belongs to is learnt from which side moves it in a few
playouts. Games whose moves are directions (`U`, `D`, `L`, `R`) get arrow keys.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from aviary.games.base import Board, Game, Outcome

EMPTY = "."
CLOSED = "#"
SQUARE_NAME = re.compile(r"([a-z]+)([0-9]+)")
# move text -> the key that plays it
DIRECTION_KEYS = {"U": "ArrowUp", "D": "ArrowDown", "L": "ArrowLeft", "R": "ArrowRight"}


@dataclass(frozen=True)
class MoveView:
    """One legal move as the page sees it: its notation and the squares it joins (or None)."""

    text: str
    start: int | None
    end: int | None


def square_index(name: str, shape: Board) -> int | None:
    """The board-text index of square `name` (`a1` = row 0, column 0), None if off the board."""
    match = SQUARE_NAME.fullmatch(name)
    if match is None:
        return None
    col = 0
    for letter in match.group(1):
        col = col * 26 + ord(letter) - ord("a") + 1
    row, col = int(match.group(2)) - 1, col - 1
    if not (0 <= row < shape.rows and 0 <= col < shape.cols):
        return None
    return row * shape.cols + col


def move_squares(game: Game[Any, Any], state: Any, move: Any, text: str,
                 shape: Board) -> tuple[int | None, int | None]:
    """(start, end) squares of `move`: from its notation, else from the boards' difference."""
    names = SQUARE_NAME.findall(text.lower())
    cells = [square_index(letters + digits, shape) for letters, digits in names]
    if len(cells) >= 2 and all(cell is not None for cell in cells):
        return cells[0], cells[-1]
    if len(cells) == 1 and cells[0] is not None:
        return None, cells[0]  # a placement: one square
    before, after = game.format(state), game.format(game.play(state, move))
    if len(before) != shape.rows * shape.cols or len(after) != len(before):
        return None, None
    changed = [i for i in range(len(before)) if before[i] != after[i]]
    emptied = [i for i in changed if after[i] == EMPTY and before[i] != EMPTY]
    filled = [i for i in changed if after[i] not in (EMPTY, CLOSED)]
    if len(emptied) == 1 and len(filled) == 1:
        return emptied[0], filled[0]
    if not emptied and len(filled) == 1:
        return None, filled[0]  # a placement (a dropped disc): one square
    return None, None


def keyboard(texts: list[str]) -> dict[str, str]:
    """Key -> move text for the direction moves among `texts` (empty for other games)."""
    return {DIRECTION_KEYS[text.upper()]: text for text in texts if text.upper() in DIRECTION_KEYS}


@lru_cache(maxsize=64)
def piece_owners(game_class: type[Game[Any, Any]], settings: tuple[tuple[str, Any], ...],
                 playouts: int = 3, plies: int = 40) -> dict[str, int]:
    """Piece character -> the player (0 or 1) whose moves start on it in a few seeded
    random playouts (characters never seen moving are left to `owner_of`)."""
    game = game_class(**dict(settings))
    shape = game.board()
    rng = random.Random(0)
    owners: dict[str, int] = {}
    for _ in range(playouts):
        state = game.start()
        for _ in range(plies):
            if game.outcome(state) is not None:
                break
            board = game.format(state)
            if game.is_chance(state):
                state = game.play(state, game.sample_chance(state, rng))
                continue
            mover = game.to_move(state)
            moves = game.legal_moves(state)
            if not moves:
                break
            for move in moves:
                start, _ = move_squares(game, state, move, game.move_text(state, move), shape)
                if start is not None and board[start] not in (EMPTY, CLOSED):
                    owners.setdefault(board[start], mover)
            state = game.play(state, rng.choice(moves))
    return owners


def owner_of(char: str, learnt: dict[str, int]) -> int | None:
    """The player piece `char` belongs to: as learnt, else like its other-case twin
    (`W` like `w`), else like the other learnt characters of its case, else upper
    case is the first player (as in most of the course's boards); None for no piece."""
    if char in (EMPTY, CLOSED):
        return None
    if char in learnt:
        return learnt[char]
    twin = char.swapcase()
    if twin != char and twin in learnt:
        return learnt[twin]
    same_case = {side for known, side in learnt.items()
                 if known.isalpha() and known.isupper() == char.isupper()}
    if len(same_case) == 1:
        return same_case.pop()
    if char.isalpha():
        return 0 if char.isupper() else 1
    return None


def outcome_text(game: Game[Any, Any], outcome: Outcome) -> str:
    """`w wins (captured-all)` / `draw (move-limit)`: the result as the page shows it."""
    if outcome.winner is None:
        return f"draw ({outcome.reason})"
    return f"{game.labels[outcome.winner]} wins ({outcome.reason})"
