"""Tic-tac-toe under the game protocol: X (first, `X` on the board) and o place marks.

Board text: nine characters, row by row from a1 (`.` empty). Three in a row, a
column or a diagonal wins; a full board without one is a draw. A move is the cell
(0-8) the mover marks, written as its square name (`a1` .. `c3`).
"""

from __future__ import annotations

from dataclasses import dataclass

from aviary.games.base import Game, Outcome, square_name

SIDE = 3
EMPTY = "."
MARKS = ("X", "o")  # player 0's mark, player 1's
LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


@dataclass(frozen=True)
class Position:
    board: str  # nine of `.`, `X`, `o`
    player: int  # 0 (X) or 1 (o) to move


def line_winner(board: str) -> int | None:
    """The player with three marks in a line, else None."""
    for a, b, c in LINES:
        if board[a] != EMPTY and board[a] == board[b] == board[c]:
            return MARKS.index(board[a])
    return None


class TicTacToe(Game[Position, int]):
    name = "toy"
    title = "Tic-tac-toe"
    labels = ("x", "o")
    symbols = EMPTY + "".join(MARKS)
    how_to_play = ("Players take turns marking an empty square.\n"
                   "Three marks in a row, column or diagonal win.\n"
                   "A full board without three in a row is a draw.")
    piece_names = {"X": "X's mark", "o": "o's mark"}

    def start(self) -> Position:
        return Position(EMPTY * SIDE * SIDE, 0)

    def parse(self, board: str, player: str) -> Position:
        if len(board) != SIDE * SIDE:
            raise ValueError(f"BOARD must be {SIDE * SIDE} characters, got {len(board)}")
        wrong = sorted(set(board) - set(self.symbols))
        if wrong:
            raise ValueError(f"BOARD may hold only {self.symbols!r}, got {wrong[0]!r}")
        if player not in self.labels:
            raise ValueError(f"PLAYER must be one of {', '.join(self.labels)}, got {player!r}")
        mover = self.labels.index(player)
        if board.count(MARKS[0]) - board.count(MARKS[1]) != mover:
            raise ValueError(f"{player} is not to move on this board (X moves first)")
        return Position(board, mover)

    def format(self, state: Position) -> str:
        return state.board

    def to_move(self, state: Position) -> int:
        return state.player

    def legal_moves(self, state: Position) -> list[int]:
        if self.outcome(state) is not None:
            return []
        return [cell for cell, mark in enumerate(state.board) if mark == EMPTY]

    def play(self, state: Position, move: int) -> Position:
        board = state.board[:move] + MARKS[state.player] + state.board[move + 1:]
        return Position(board, 1 - state.player)

    def outcome(self, state: Position) -> Outcome | None:
        winner = line_winner(state.board)
        if winner is not None:
            return Outcome(winner, "three-in-a-row")
        if EMPTY not in state.board:
            return Outcome(None, "full-board")
        return None

    def move_text(self, state: Position, move: int) -> str:
        return square_name(*divmod(move, SIDE))

    def action_count(self) -> int:
        return SIDE * SIDE

    def action(self, move: int) -> int:
        return move

    def max_plies(self) -> int:
        return SIDE * SIDE
