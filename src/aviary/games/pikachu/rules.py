"""Pikachu rules in readable pure Python: the truth the kernels are tested against.

The board is the course's string, row-major, row 1 first; square `r * n + c`
is row `r + 1`, column `c + 1`. White's forward is toward row n (increasing r),
black's toward row 1. `.` empty, `w`/`b` Pichu, `W`/`B` Pikachu.

Used by the arena referee, the web UI, input validation and as the command
line's answer before the numba kernels are compiled, so it must stay short,
obvious and dependency-free.

>>> start = start_position(8)
>>> len(legal_moves(start))
8
>>> format_board(play(start, legal_moves(start)[0]))[:32]
'........wwwwwwww.wwwwwwww.......'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, NamedTuple

from aviary.games.base import (
    Game,
    Option,
    OptionError,
    Outcome,
    check_cells,
    check_player,
    format_seconds,
    parse_seconds,
    square_name,
)

Player = Literal["w", "b"]
Square = int

EMPTY = "."
PIECES = "wbWB"
MIN_N = 7
# The largest board every front end handles (the terminal, a browser page, the arena, a course
# command line whose BOARD is N*N characters): a 64x64 game starts in well under a second in
# each, and boards beyond KERNEL_MAX_N are played by the rules-only quick player.
MAX_N = 64
KERNEL_MAX_N = 32  # the compiled kernels' limit (kernels.py); larger boards: rules only
# the board size, bounds checked here only: by a game's settings and by every Position
SIZE = Option("n", 8, "board size n x n", minimum=MIN_N, maximum=MAX_N)

# (row step, column step): forward is resolved per player, then left/right, then back.
_SIDEWAYS = ((0, -1), (0, 1))


class Move(NamedTuple):
    """A move from one square to another, capturing the piece on `captured` if any."""

    start: Square
    end: Square
    captured: Square | None = None

    @property
    def is_capture(self) -> bool:
        return self.captured is not None


@dataclass(frozen=True)
class Position:
    """An immutable, hashable position: board size, board string, player to move."""

    n: int
    board: str
    player: Player

    def __post_init__(self) -> None:
        SIZE.validate(self.n)
        if len(self.board) != self.n * self.n:
            raise ValueError(
                f"board must have n*n = {self.n * self.n} characters for n={self.n}, "
                f"got {len(self.board)}"
            )
        check_cells(self.board, EMPTY + PIECES)
        check_player(self.player, ("w", "b"))


def opponent(player: Player) -> Player:
    return "b" if player == "w" else "w"


def owner(piece: str) -> Player | None:
    """The player a square's piece belongs to, or None for an empty square."""
    return None if piece == EMPTY else ("w" if piece.lower() == "w" else "b")


def forward(player: Player) -> int:
    """Row step of `player`'s forward direction."""
    return 1 if player == "w" else -1


def far_row(n: int, player: Player) -> int:
    """The 0-based row where `player`'s Pichus become Pikachus."""
    return n - 1 if player == "w" else 0


def kernels_reach(position: Position) -> bool:
    """True when the compiled kernels take `position`'s board (a square in 10 bits of a move
    code): the one test, asked by the course runner, the engine and the kernels."""
    return position.n <= KERNEL_MAX_N


def start_position(n: int) -> Position:
    """White Pichus on rows 2-3, black Pichus on rows n-2 and n-1, white to move."""
    rows = ["." * n] + ["w" * n] * 2 + ["." * n] * (n - 6) + ["b" * n] * 2 + ["." * n]
    return Position(n, "".join(rows), "w")


def parse(n: int, board: str, player: str) -> Position:
    """A Position from the course's command-line pieces; ValueError names what is wrong."""
    check_player(player, ("w", "b"))
    return Position(n, board, player)  # type: ignore[arg-type]


def format_board(position: Position) -> str:
    """The course board string (the only form a user or grader ever sees)."""
    return position.board


def _pichu_moves(position: Position, square: Square) -> list[Move]:
    n, board, me = position.n, position.board, position.player
    row, col = divmod(square, n)
    moves = []
    for drow, dcol in ((forward(me), 0), *_SIDEWAYS):
        r1, c1 = row + drow, col + dcol
        if not (0 <= r1 < n and 0 <= c1 < n):
            continue
        next_square = r1 * n + c1
        if board[next_square] == EMPTY:
            moves.append(Move(square, next_square))
        elif owner(board[next_square]) == opponent(me):
            r2, c2 = r1 + drow, c1 + dcol
            if 0 <= r2 < n and 0 <= c2 < n and board[r2 * n + c2] == EMPTY:
                moves.append(Move(square, r2 * n + c2, next_square))
    return moves


def _pikachu_moves(position: Position, square: Square) -> list[Move]:
    n, board, me = position.n, position.board, position.player
    row, col = divmod(square, n)
    moves = []
    for drow, dcol in ((1, 0), (-1, 0), *_SIDEWAYS):
        r, c = row + drow, col + dcol
        captured: Square | None = None
        while 0 <= r < n and 0 <= c < n:
            here = r * n + c
            piece = board[here]
            if piece == EMPTY:
                moves.append(Move(square, here, captured))
            elif captured is None and owner(piece) == opponent(me):
                captured = here
            else:
                break
            r, c = r + drow, c + dcol
    return moves


def legal_moves(position: Position) -> list[Move]:
    """Every legal move of the player to move, in board order. Captures are never forced."""
    moves: list[Move] = []
    for square, piece in enumerate(position.board):
        if owner(piece) != position.player:
            continue
        if piece.islower():
            moves += _pichu_moves(position, square)
        else:
            moves += _pikachu_moves(position, square)
    return moves


def play(position: Position, move: Move) -> Position:
    """The position after `move` (assumed legal), with the other player to move."""
    n = position.n
    cells = list(position.board)
    piece = cells[move.start]
    cells[move.start] = EMPTY
    if move.captured is not None:
        cells[move.captured] = EMPTY
    if piece.islower() and move.end // n == far_row(n, position.player):
        piece = piece.upper()
    cells[move.end] = piece
    return Position(n, "".join(cells), opponent(position.player))


def successors(position: Position) -> dict[str, Move]:
    """Board string after each legal move -> that move (distinct moves give distinct boards)."""
    return {format_board(play(position, move)): move for move in legal_moves(position)}


def is_legal_successor(position: Position, board: str) -> bool:
    """True when `board` is what one legal move of the player to move produces."""
    return board in successors(position)


def pieces(position: Position, player: Player) -> int:
    return sum(1 for piece in position.board if owner(piece) == player)


def winner(position: Position) -> Player | None:
    """The winner if the game is over: the player to move loses with no pieces or no move."""
    if pieces(position, position.player) == 0 or not legal_moves(position):
        return opponent(position.player)
    if pieces(position, opponent(position.player)) == 0:
        return position.player
    return None


class Pikachu(Game[Position, Move]):
    """Pikachu under the game protocol (option `n`, the board size)."""

    name = "pikachu"
    title = "Pikachu"
    labels = ("w", "b")
    how_to_play = (
        "White (w) moves first, from the top rows toward the last row; black (b) moves up.\n"
        "A Pichu (w, b) steps one square forward, left or right onto an empty square, or "
        "jumps an adjacent opposing piece in one of those directions, removing it.\n"
        "A Pikachu (W, B) slides any distance forward, back, left or right; it captures by "
        "jumping one opposing piece on its line, landing on any empty square beyond.\n"
        "A Pichu reaching the far row becomes a Pikachu. One jump per move; capturing is "
        "never forced; no diagonal moves.\n"
        "Capture every opposing piece to win; a player with no legal move loses.")
    piece_names = {"w": "white Pichu", "W": "white Pikachu", "b": "black Pichu",
                   "B": "black Pikachu"}
    options = (SIZE,)
    course_words = "N PLAYER BOARD SECONDS"
    symbols = EMPTY + PIECES

    @property
    def n(self) -> int:
        return int(self.settings["n"])

    def start(self) -> Position:
        return start_position(self.n)

    def parse(self, board: str, player: str) -> Position:
        return parse(self.n, board, player)

    def format(self, state: Position) -> str:
        return format_board(state)

    def to_move(self, state: Position) -> int:
        return 0 if state.player == "w" else 1

    def legal_moves(self, state: Position) -> list[Move]:
        return legal_moves(state)

    def play(self, state: Position, move: Move) -> Position:
        return play(state, move)

    def outcome(self, state: Position) -> Outcome | None:
        won = winner(state)
        if won is None:
            return None
        loser_has_pieces = pieces(state, opponent(won)) > 0
        return Outcome(0 if won == "w" else 1, "no-move" if loser_has_pieces else "captured-all")

    def move_text(self, state: Position, move: Move) -> str:
        n = state.n
        return f"{square_name(*divmod(move.start, n))}-{square_name(*divmod(move.end, n))}"

    def answers(self, state: Position) -> dict[str, Move]:
        return successors(state)

    def action_count(self) -> int:
        return self.n ** 4

    def action(self, move: Move) -> int:
        """From-square times the n*n squares plus to-square (a capture is implied by them)."""
        return move.start * self.n * self.n + move.end

    def action_text(self, action: int, chance: bool = False) -> str | None:
        """`c3-c4` from the id alone (it holds both squares)."""
        squares = self.n * self.n
        if chance or not 0 <= action < squares * squares:
            return None
        start, end = divmod(action, squares)
        return f"{square_name(*divmod(start, self.n))}-{square_name(*divmod(end, self.n))}"

    def kernels_reach(self, state: Position) -> bool:
        return kernels_reach(state)

    def command_args(self, state: Position, seconds: float) -> list[str]:
        return [str(self.n), state.player, format_board(state), format_seconds(seconds)]

    @classmethod
    def parse_course(cls, argv: Sequence[str]) -> tuple[Pikachu, Position, float]:
        """`N PLAYER BOARD SECONDS`, the course's order."""
        if len(argv) != 4:
            raise ValueError(f"usage: aviary {cls.name} {cls.course_usage()} "
                             f"(got {len(argv)} arguments)")
        size, player, board, limit = argv
        try:
            game = cls(n=SIZE.parse(size))
        except OptionError:
            raise ValueError(f"N must be an integer from {SIZE.minimum} to {SIZE.maximum}, "
                             f"got {size}") from None
        n = game.n
        if len(board) != n * n:
            raise ValueError(f"BOARD must have N*N = {n * n} characters, got {len(board)}")
        return game, game.parse(board, player), parse_seconds(limit)
