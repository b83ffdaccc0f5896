"""Connect Four under the game protocol: X (first, `X` on the board) and o drop discs.

Board text: 42 characters, the 6 rows of 7 cells from the top row (row 1) down to the
bottom row (row 6), `.` empty. A move is a column (0-6), written as its letter (`a` to
`g`): the disc falls to the lowest empty cell of that column. Four in a row, a column or
a diagonal wins; a full board without one is a draw.
"""

from __future__ import annotations

from dataclasses import dataclass

from aviary.games.base import Board, Game, Outcome, square_name

ROWS, COLS, CONNECT = 6, 7, 4
EMPTY = "."
MARKS = ("X", "o")  # player 0's disc, player 1's


def _lines() -> tuple[tuple[int, ...], ...]:
    """Every four cells in a line (row, column or diagonal), as board-text indices."""
    found = []
    for row in range(ROWS):
        for col in range(COLS):
            for d_row, d_col in ((0, 1), (1, 0), (1, 1), (1, -1)):
                cells = [(row + d_row * i, col + d_col * i) for i in range(CONNECT)]
                if all(0 <= r < ROWS and 0 <= c < COLS for r, c in cells):
                    found.append(tuple(r * COLS + c for r, c in cells))
    return tuple(found)


LINES = _lines()


@dataclass(frozen=True)
class Position:
    board: str  # 42 of `.`, `X`, `o`, the top row first
    player: int  # 0 (X) or 1 (o) to move


def line_winner(board: str) -> int | None:
    """The player with four discs in a line, else None."""
    for a, b, c, d in LINES:
        if board[a] != EMPTY and board[a] == board[b] == board[c] == board[d]:
            return MARKS.index(board[a])
    return None


def landing_row(board: str, col: int) -> int | None:
    """The row a disc dropped into `col` lands on (None: the column is full)."""
    for row in range(ROWS - 1, -1, -1):
        if board[row * COLS + col] == EMPTY:
            return row
    return None


class ConnectFour(Game[Position, int]):
    name = "toy"
    title = "Connect Four"
    labels = ("x", "o")
    symbols = EMPTY + "".join(MARKS)
    how_to_play = ("Players take turns dropping a disc into a column; it falls to the "
                   "lowest empty cell.\n"
                   "Four discs in a row, column or diagonal win.\n"
                   "A full board without four in a row is a draw.")
    piece_names = {"X": "X's disc", "o": "o's disc"}

    def start(self) -> Position:
        return Position(EMPTY * ROWS * COLS, 0)

    def parse(self, board: str, player: str) -> Position:
        if len(board) != ROWS * COLS:
            raise ValueError(f"BOARD must be {ROWS * COLS} characters, got {len(board)}")
        wrong = sorted(set(board) - set(self.symbols))
        if wrong:
            raise ValueError(f"BOARD may hold only {self.symbols!r}, got {wrong[0]!r}")
        if player not in self.labels:
            raise ValueError(f"PLAYER must be one of {', '.join(self.labels)}, got {player!r}")
        for cell in range(COLS, ROWS * COLS):
            if board[cell] == EMPTY and board[cell - COLS] != EMPTY:
                raise ValueError(f"BOARD has a disc above an empty cell "
                                 f"({square_name(*divmod(cell, COLS))})")
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
        return [col for col in range(COLS) if state.board[col] == EMPTY]

    def play(self, state: Position, move: int) -> Position:
        row = landing_row(state.board, move)
        assert row is not None, f"column {move} is full"
        cell = row * COLS + move
        board = state.board[:cell] + MARKS[state.player] + state.board[cell + 1:]
        return Position(board, 1 - state.player)

    def outcome(self, state: Position) -> Outcome | None:
        winner = line_winner(state.board)
        if winner is not None:
            return Outcome(winner, "four-in-a-row")
        if EMPTY not in state.board:
            return Outcome(None, "full-board")
        return None

    def move_text(self, state: Position, move: int) -> str:
        return "abcdefg"[move]

    def action_text(self, action: int, chance: bool = False) -> str | None:
        return None if chance or not 0 <= action < COLS else "abcdefg"[action]

    def board(self) -> Board:
        return Board(ROWS, COLS)  # not square: the default would take the square root

    def action_count(self) -> int:
        return COLS

    def action(self, move: int) -> int:
        return move

    def max_plies(self) -> int:
        return ROWS * COLS
