"""Betsy (the course's bird chess) in readable pure Python: the truth the kernels are tested on.

The board is the course's 64-character string, row-major; square `8 * r + c` is
row `r + 1`, column `c + 1` (`a1` is square 0). White (upper case) starts on rows
1-2 and moves toward row 8; black (lower case) starts on rows 7-8. Pieces:
Parakeet, Robin, Nighthawk, Blue jay, Quetzal, Kingfisher (`P R N B Q K`), moving
as the chess pawn, rook, knight, bishop and queen, and the Kingfisher one square
orthogonally (the handout's rule) or, in the `diagonal` variant most course
programs play, one square in any of the eight directions. A Parakeet steps one
square forward to an empty square, two from its start row through an empty square,
captures one square diagonally forward and becomes a Quetzal on the far row.
There is no check, castling or en passant: a player wins by capturing the opposing
Kingfisher, and a player with no legal move loses.

>>> start = start_position()
>>> len(legal_moves(start)), Betsy().perft(start, 2)
(20, 400)
>>> format_board(play(start, Move(12, 28)))[:32]
'RNBQKBNRPPPP.PPP............P...'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, NamedTuple

from aviary.games.base import (
    Forcing,
    Game,
    Option,
    Outcome,
    check_cells,
    check_player,
    square_name,
)

Player = Literal["w", "b"]
Square = int

SIZE = 8
EMPTY = "."
PIECES = "PRNBQKprnbqk"
START = "RNBQKBNRPPPPPPPP" + "." * 32 + "pppppppprnbqkbnr"

ORTHOGONAL = ((1, 0), (-1, 0), (0, 1), (0, -1))
DIAGONAL = ((1, 1), (1, -1), (-1, 1), (-1, -1))
KNIGHT = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))
SLIDES = {"R": ORTHOGONAL, "B": DIAGONAL, "Q": ORTHOGONAL + DIAGONAL}


class Move(NamedTuple):
    """A move from one square to another (a Parakeet reaching the far row promotes)."""

    start: Square
    end: Square


@dataclass(frozen=True)
class Position:
    """An immutable, hashable position: board string, player to move, Kingfisher variant."""

    board: str
    player: Player
    diagonal: bool = False  # True: the Kingfisher also steps diagonally

    def __post_init__(self) -> None:
        if len(self.board) != SIZE * SIZE:
            raise ValueError(f"board must have 64 characters, got {len(self.board)}")
        check_cells(self.board, EMPTY + PIECES)
        for kingfisher in "Kk":
            if self.board.count(kingfisher) > 1:
                raise ValueError(f"board has {self.board.count(kingfisher)} "
                                 f"{'white' if kingfisher == 'K' else 'black'} Kingfishers")
        check_player(self.player, ("w", "b"))


def opponent(player: Player) -> Player:
    return "b" if player == "w" else "w"


def owner(piece: str) -> Player | None:
    """The player a square's piece belongs to, or None for an empty square."""
    return None if piece == EMPTY else ("w" if piece.isupper() else "b")


def forward(player: Player) -> int:
    """Row step of `player`'s forward direction (white starts on row 1 and moves up)."""
    return 1 if player == "w" else -1


def start_row(player: Player) -> int:
    """The 0-based row a player's Parakeets start on (they may step two from there)."""
    return 1 if player == "w" else SIZE - 2


def far_row(player: Player) -> int:
    """The 0-based row where `player`'s Parakeets become Quetzals."""
    return SIZE - 1 if player == "w" else 0


def start_position(diagonal: bool = False) -> Position:
    return Position(START, "w", diagonal)


def parse(board: str, player: str, diagonal: bool = False) -> Position:
    """A Position from the course's command-line pieces; ValueError names what is wrong."""
    check_player(player, ("w", "b"))
    return Position(board, player, diagonal)  # type: ignore[arg-type]


def format_board(position: Position) -> str:
    """The course board string (the only form a user or grader ever sees)."""
    return position.board


def _on_board(row: int, col: int) -> bool:
    return 0 <= row < SIZE and 0 <= col < SIZE


def _parakeet_moves(position: Position, square: Square) -> list[Move]:
    board, me = position.board, position.player
    row, col = divmod(square, SIZE)
    step = forward(me)
    moves = []
    if _on_board(row + step, col) and board[(row + step) * SIZE + col] == EMPTY:
        moves.append(Move(square, (row + step) * SIZE + col))
        two = (row + 2 * step) * SIZE + col
        if row == start_row(me) and board[two] == EMPTY:
            moves.append(Move(square, two))
    for dcol in (-1, 1):
        if _on_board(row + step, col + dcol):
            target = (row + step) * SIZE + col + dcol
            if owner(board[target]) == opponent(me):
                moves.append(Move(square, target))
    return moves


def _piece_moves(position: Position, square: Square) -> list[Move]:
    """Moves of a Robin, Nighthawk, Blue jay, Quetzal or Kingfisher on `square`."""
    board, me = position.board, position.player
    kind = board[square].upper()
    row, col = divmod(square, SIZE)
    if kind in SLIDES:
        directions, reach = SLIDES[kind], SIZE
    elif kind == "N":
        directions, reach = KNIGHT, 1
    else:  # the Kingfisher
        directions, reach = (ORTHOGONAL + DIAGONAL if position.diagonal else ORTHOGONAL), 1
    moves = []
    for drow, dcol in directions:
        r, c = row + drow, col + dcol
        for _ in range(reach):
            if not _on_board(r, c):
                break
            there = owner(board[r * SIZE + c])
            if there == me:
                break
            moves.append(Move(square, r * SIZE + c))
            if there is not None:  # a capture ends the slide
                break
            r, c = r + drow, c + dcol
    return moves


def kingfishers(position: Position) -> tuple[bool, bool]:
    """Whether white's and black's Kingfishers are on the board."""
    return "K" in position.board, "k" in position.board


def _moves_from(position: Position, square: Square) -> list[Move]:
    if position.board[square].upper() == "P":
        return _parakeet_moves(position, square)
    return _piece_moves(position, square)


def _own_squares(position: Position) -> list[Square]:
    return [sq for sq, piece in enumerate(position.board) if owner(piece) == position.player]


def legal_moves(position: Position) -> list[Move]:
    """Every legal move of the player to move, in board order; none once a Kingfisher is gone."""
    if not all(kingfishers(position)):
        return []
    return [move for square in _own_squares(position) for move in _moves_from(position, square)]


def play(position: Position, move: Move) -> Position:
    """The position after `move` (assumed legal), with the other player to move."""
    cells = list(position.board)
    piece = cells[move.start]
    cells[move.start] = EMPTY
    if piece.upper() == "P" and move.end // SIZE == far_row(position.player):
        piece = "Q" if piece.isupper() else "q"
    cells[move.end] = piece
    return Position("".join(cells), opponent(position.player), position.diagonal)


def successors(position: Position) -> dict[str, Move]:
    """Board string after each legal move -> that move (distinct moves give distinct boards)."""
    return {format_board(play(position, move)): move for move in legal_moves(position)}


def is_legal_successor(position: Position, board: str) -> bool:
    """True when `board` is what one legal move of the player to move produces."""
    return board in successors(position)


def winner(position: Position) -> Player | None:
    """The winner if the game is over: a captured Kingfisher, else a mover with no move loses."""
    white, black = kingfishers(position)
    if not white or not black:
        mine = white if position.player == "w" else black
        return opponent(position.player) if not mine else position.player
    own = "PRNBQK" if position.player == "w" else "prnbqk"
    for square, piece in enumerate(position.board):  # piece by piece, to the first that moves
        if piece in own and _moves_from(position, square):
            return None
    return opponent(position.player)  # no legal move


class Betsy(Game[Position, Move]):
    """Betsy under the game protocol (option `kingfisher`: orthogonal, or diagonal too)."""

    name = "betsy"
    title = "Betsy"
    labels = ("w", "b")
    how_to_play = (
        "Chess pieces under bird names; white (upper case) moves first.\n"
        "P Parakeet: a pawn (no en passant); reaching the far row it becomes a Quetzal.\n"
        "R Robin: a rook. N Nighthawk: a knight. B Blue jay: a bishop. Q Quetzal: a queen.\n"
        "K Kingfisher: one square horizontally or vertically (any direction with the "
        "diagonal option).\n"
        "No check, no castling: capture the opposing Kingfisher to win; a player with no "
        "legal move loses.")
    piece_names = {**{c: f"white {n}" for c, n in zip(
        "PRNBQK", ("Parakeet", "Robin", "Nighthawk", "Blue jay", "Quetzal", "Kingfisher"),
        strict=True)}, **{c: f"black {n}" for c, n in zip(
        "prnbqk", ("Parakeet", "Robin", "Nighthawk", "Blue jay", "Quetzal", "Kingfisher"),
        strict=True)}}
    symbols = EMPTY + PIECES
    options = (
        Option(
            "kingfisher", "orthogonal",
            "how the Kingfisher steps: orthogonal (the handout) or diagonal (also diagonally)",
            choices=("orthogonal", "diagonal"),
        ),
    )

    @property
    def diagonal(self) -> bool:
        return self.settings["kingfisher"] == "diagonal"

    def start(self) -> Position:
        return start_position(self.diagonal)

    def parse(self, board: str, player: str) -> Position:
        return parse(board, player, self.diagonal)

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
        reason = "kingfisher-captured" if not all(kingfishers(state)) else "no-move"
        return Outcome(0 if won == "w" else 1, reason)

    def move_text(self, state: Position, move: Move) -> str:
        """`e2e4`: from-square and to-square, columns a-h, row 1 = white's back row."""
        return square_name(*divmod(move.start, SIZE)) + square_name(*divmod(move.end, SIZE))

    def answers(self, state: Position) -> dict[str, Move]:
        return successors(state)

    def action_count(self) -> int:
        return SIZE ** 4

    def action(self, move: Move) -> int:
        """From-square times 64 plus to-square (a promotion is always to a Quetzal)."""
        return move.start * SIZE * SIZE + move.end

    def action_text(self, action: int, chance: bool = False) -> str | None:
        """`e2e4` from the id alone (it holds both squares)."""
        if chance or not 0 <= action < SIZE ** 4:
            return None
        start, end = divmod(action, SIZE * SIZE)
        return square_name(*divmod(start, SIZE)) + square_name(*divmod(end, SIZE))

    def forcing(self, state: Position) -> Forcing[Move]:
        """Captures, promotions and an attacked Kingfisher, for the fallback's quiescence."""
        return forcing_moves(state)


# --- tactics past a search's depth (the fallback's quiescence, Betsy's evaluation) ---

def ray_squares(square: int, drow: int, dcol: int) -> tuple[int, ...]:
    """The squares from `square` (not included) in direction (drow, dcol) to the edge."""
    row, col = divmod(square, 8)
    squares = []
    row, col = row + drow, col + dcol
    while 0 <= row < 8 and 0 <= col < 8:
        squares.append(8 * row + col)
        row, col = row + drow, col + dcol
    return tuple(squares)


def _steps(square: int, steps: tuple[tuple[int, int], ...]) -> tuple[int, ...]:
    return tuple(ray[0] for ray in (ray_squares(square, drow, dcol) for drow, dcol in steps) if ray)


# per square: the rays out of it, its Nighthawk and Kingfisher steps, and the squares
# from which a white (index 0) or black (1) Parakeet attacks it
_ORTHOGONAL_RAYS = [tuple(ray for ray in (ray_squares(square, *step) for step in ORTHOGONAL)
                          if ray) for square in range(64)]
_DIAGONAL_RAYS = [tuple(ray for ray in (ray_squares(square, *step) for step in DIAGONAL)
                        if ray) for square in range(64)]
_KNIGHT_STEPS = [_steps(square, KNIGHT) for square in range(64)]
KINGFISHER_STEPS = {False: [_steps(square, ORTHOGONAL) for square in range(64)],
                    True: [_steps(square, ORTHOGONAL + DIAGONAL) for square in range(64)]}
_PARAKEET_FROM = ([_steps(square, ((-1, -1), (-1, 1))) for square in range(64)],
                  [_steps(square, ((1, -1), (1, 1))) for square in range(64)])


def attacked(board: str, square: int, by_white: bool, diagonal: bool) -> bool:
    """Whether a piece of white (`by_white`) or black could capture on `square` next move."""
    queen, robin, jay, hawk, king, parakeet = "QRBNKP" if by_white else "qrbnkp"
    for source in _KNIGHT_STEPS[square]:
        if board[source] == hawk:
            return True
    for source in _PARAKEET_FROM[0 if by_white else 1][square]:
        if board[source] == parakeet:
            return True
    for ray in _ORTHOGONAL_RAYS[square]:
        for source in ray:
            piece = board[source]
            if piece != ".":
                if piece in (robin, queen) or piece == king and source == ray[0]:
                    return True
                break
    for ray in _DIAGONAL_RAYS[square]:
        for source in ray:
            piece = board[source]
            if piece != ".":
                if piece in (jay, queen) or piece == king and diagonal and source == ray[0]:
                    return True
                break
    return False


_MINE = {True: frozenset("PRNBQK"), False: frozenset("prnbqk")}


def captures(position: Position) -> list[Move]:
    """The mover's captures and promotions (legal moves all), without generating the
    quiet ones: the fallback asks at every position past its depth."""
    board, white, diagonal = position.board, position.player == "w", position.diagonal
    mine, theirs = _MINE[white], _MINE[not white]
    far, ahead = (6, 8) if white else (1, -8)  # the row before promotion, one row forward
    found = []
    for square, piece in enumerate(board):
        if piece not in mine:
            continue
        kind = piece.upper()
        if kind == "P":
            for target in _PARAKEET_FROM[1 if white else 0][square]:
                if board[target] in theirs:
                    found.append(Move(square, target))
            if square >> 3 == far and board[square + ahead] == ".":
                found.append(Move(square, square + ahead))
        elif kind == "N" or kind == "K":
            steps = _KNIGHT_STEPS[square] if kind == "N" else KINGFISHER_STEPS[diagonal][square]
            for target in steps:
                if board[target] in theirs:
                    found.append(Move(square, target))
        else:
            rays = (_ORTHOGONAL_RAYS[square] if kind == "R" else _DIAGONAL_RAYS[square]
                    if kind == "B" else _ORTHOGONAL_RAYS[square] + _DIAGONAL_RAYS[square])
            for ray in rays:
                for target in ray:
                    there = board[target]
                    if there != ".":
                        if there in theirs:
                            found.append(Move(square, target))
                        break
    return found


def forcing_moves(position: Position) -> Forcing[Move]:
    """`captures`, the most valuable victim first (a Kingfisher's capture ends the game)
    and then the cheapest attacker, and whether the mover's own Kingfisher is attacked."""
    board, white = position.board, position.player == "w"
    moves = captures(position)
    if len(moves) > 1:
        moves.sort(key=lambda move: (-_VICTIM[board[move.end]], _VALUE[board[move.start].upper()]))
    mine = board.find("K" if white else "k")
    threatened = mine >= 0 and attacked(board, mine, not white, position.diagonal)
    return Forcing(moves, threatened)


_VALUE = {"P": 1, "N": 3, "B": 3, "R": 5, "Q": 9, "K": 1000}  # for capture order only
_VICTIM = {".": 8, **{piece: _VALUE[piece.upper()] for piece in PIECES}}  # ".": promotion
