"""Fox, Geese and Elephants in readable pure Python: the truth the kernels are tested against.

The board is the 33-point cross: a 7x7 grid without its four 2x2 corners. Its text
is 49 characters, row-major, row 0 first: `#` off the board (a corner, or an arm
the shrinking board has closed), `.` empty, `F` fox, `G` goose, `E` elephant.
Point `r * 7 + c` is row r, column c; `d4` (row 3, column 3) is the centre.

Players: `f` (the foxes, move first) and `g` (the geese and the elephants). Every
piece steps one point up, down, left or right to an empty point; a fox may instead
jump an adjacent goose (never an elephant, never a fox) to the empty point just
beyond, removing the goose. One jump per move; capturing is never forced.

After every move of either side, two removals, both judged on the board the move
left (so neither depends on the other being done first):
- a fox with no step, no jump and no fox next to it is trapped and removed;
- an elephant with two foxes next to it is caught in their pincer and removed.

The state counts plies (`ply`: even when the foxes move, odd when the geese
move), because two rules need more than the board: the shrinking board closes an
arm at the end of each full round (after the geese's move), and the move limit
(`MOVE_LIMIT` plies) ends the game in a draw.

>>> start = start_position("classic")
>>> len(legal_moves(start))  # the fox steps up, left or right
3
>>> format_board(start)[21:35]
'...F...GGGGGGG'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, NamedTuple

from aviary.games.base import (
    Board,
    Game,
    Option,
    Outcome,
    check_cells,
    check_player,
    square_name,
)

Player = Literal["f", "g"]
Point = int

SIZE = 7
CELLS = SIZE * SIZE
HOLE, EMPTY, FOX, GOOSE, ELEPHANT = "#", ".", "F", "G", "E"
VARIANTS = ("classic", "elephants")
MOVE_LIMIT = 600  # plies (300 full rounds) without a result: a draw

# the 16 grid points off the cross: the four 2x2 corners
CORNERS = frozenset(
    r * SIZE + c for r in range(SIZE) for c in range(SIZE) if (r < 2 or r > 4) and (c < 2 or c > 4)
)
POINTS = tuple(p for p in range(CELLS) if p not in CORNERS)

# the arms the shrinking board may close, in the order it tries them
ARMS: tuple[tuple[str, frozenset[int]], ...] = (
    ("top", frozenset(r * SIZE + c for r in (0, 1) for c in (2, 3, 4))),
    ("bottom", frozenset(r * SIZE + c for r in (5, 6) for c in (2, 3, 4))),
    ("left", frozenset(r * SIZE + c for r in (2, 3, 4) for c in (0, 1))),
    ("right", frozenset(r * SIZE + c for r in (2, 3, 4) for c in (5, 6))),
)
# the centre's nine points, in no arm: the shrinking board never closes them
CENTRE = frozenset(r * SIZE + c for r in (2, 3, 4) for c in (2, 3, 4))
SHRINK_AT = (8, 4)  # animals left at the end of a round that close an arm

_STEPS = ((-1, 0), (1, 0), (0, -1), (0, 1))  # up, down, left, right


class Move(NamedTuple):
    """A step or jump from one point to another, capturing the goose on `captured` if any."""

    start: Point
    end: Point
    captured: Point | None = None

    @property
    def is_capture(self) -> bool:
        return self.captured is not None


@dataclass(frozen=True)
class Position:
    """An immutable position: the board text, the player to move, plies played, the option.

    `shrink` travels with the position because `play` needs it at every round's end.
    `ply` is the game's clock (the move limit), not part of what the position *is*:
    it takes no part in equality or hashing, so positions compare as the course's
    text forms do (board and player), like a chess position apart from its move
    counters. Its parity always follows the player, so round ends are never lost.
    """

    board: str
    player: Player
    ply: int = field(default=0, compare=False)
    shrink: bool = False

    def __post_init__(self) -> None:
        if len(self.board) != CELLS:
            raise ValueError(f"board must have {CELLS} characters (7x7), got {len(self.board)}")
        check_cells(self.board, HOLE + EMPTY + FOX + GOOSE + ELEPHANT)
        for point in CORNERS:
            if self.board[point] != HOLE:
                row, col = divmod(point, SIZE)
                raise ValueError(f"point {square_name(row, col)} (row {row}, column {col}) "
                                 f"is off the cross and must be '#'")
        for point in CENTRE:
            if self.board[point] == HOLE:
                row, col = divmod(point, SIZE)
                raise ValueError(f"point {square_name(row, col)} (row {row}, column {col}) "
                                 f"is in the centre, which never closes: it cannot be '#'")
        for name, arm in ARMS:
            closed = sum(self.board[p] == HOLE for p in arm)
            if 0 < closed < len(arm):
                raise ValueError(f"the {name} arm is partly closed: '#' closes whole arms only")
        check_player(self.player, ("f", "g"))
        if self.ply < 0 or self.ply % 2 != (self.player == "g"):
            raise ValueError(f"ply {self.ply} does not match player {self.player!r} "
                             f"(the foxes move at even plies)")


def opponent(player: Player) -> Player:
    return "g" if player == "f" else "f"


def owner(piece: str) -> Player | None:
    """The player a point's piece belongs to, or None for an empty or closed point."""
    if piece == FOX:
        return "f"
    if piece in (GOOSE, ELEPHANT):
        return "g"
    return None


def neighbours(point: Point) -> list[tuple[Point, Point | None]]:
    """(adjacent point, the point beyond it in the same direction or None), on the cross."""
    row, col = divmod(point, SIZE)
    found = []
    for drow, dcol in _STEPS:
        r1, c1 = row + drow, col + dcol
        if not (0 <= r1 < SIZE and 0 <= c1 < SIZE) or r1 * SIZE + c1 in CORNERS:
            continue
        r2, c2 = r1 + drow, c1 + dcol
        beyond = r2 * SIZE + c2
        on_cross = 0 <= r2 < SIZE and 0 <= c2 < SIZE and beyond not in CORNERS
        found.append((r1 * SIZE + c1, beyond if on_cross else None))
    return found


def start_board(variant: str) -> str:
    """The starting board text of `variant` ('classic' or 'elephants')."""
    cells = [HOLE if p in CORNERS else EMPTY for p in range(CELLS)]
    for p in POINTS:
        if p // SIZE >= 4:
            cells[p] = GOOSE
    if variant == "classic":
        cells[3 * SIZE + 3] = FOX
    elif variant == "elephants":
        cells[3 * SIZE + 2] = cells[3 * SIZE + 4] = FOX
        for col in (0, 3, 6):
            cells[4 * SIZE + col] = ELEPHANT
    else:
        raise ValueError(f"variant must be one of {', '.join(VARIANTS)}, got {variant!r}")
    return "".join(cells)


def start_position(variant: str = "classic", shrink: bool = False) -> Position:
    return Position(start_board(variant), "f", 0, shrink)


# most pieces of each kind a variant's board can hold
LIMITS = {
    "classic": {FOX: 1, GOOSE: 13, ELEPHANT: 0},
    "elephants": {FOX: 2, GOOSE: 10, ELEPHANT: 3},
}


def parse(board: str, player: str, variant: str = "classic", shrink: bool = False,
          ply: int | None = None) -> Position:
    """A Position from the course's command-line pieces; ValueError names what is wrong.

    The board text does not say where in the game it is: by default the foxes are
    taken at the start of a round (ply 0) and the geese in its middle (ply 1).
    """
    check_player(player, ("f", "g"))
    if variant not in LIMITS:
        raise ValueError(f"variant must be one of {', '.join(VARIANTS)}, got {variant!r}")
    for piece, most in LIMITS[variant].items():
        if board.count(piece) > most:
            name = {FOX: "fox", GOOSE: "goose", ELEPHANT: "elephant"}[piece]
            hint = " (the elephant game: --variant elephants)" if variant == "classic" else ""
            raise ValueError(f"the {variant} game has at most {most} '{piece}' ({name}), "
                             f"the board has {board.count(piece)}{hint}")
    if ply is None:
        ply = 0 if player == "f" else 1
    return Position(board, player, ply, shrink)  # type: ignore[arg-type]


def format_board(position: Position) -> str:
    """The course board text (the only form a user or grader sees)."""
    return position.board


def piece_moves(board: str, point: Point) -> list[Move]:
    """The moves of the piece on `point`: steps to empty points, and a fox's jumps over geese."""
    piece = board[point]
    moves = []
    for next_point, beyond in neighbours(point):
        there = board[next_point]
        if there == EMPTY:
            moves.append(Move(point, next_point))
        elif piece == FOX and there == GOOSE and beyond is not None and board[beyond] == EMPTY:
            moves.append(Move(point, beyond, next_point))
    return moves


def legal_moves(position: Position) -> list[Move]:
    """Every legal move of the player to move, in board order (none once the game is over)."""
    if result(position) is not None or position.ply >= MOVE_LIMIT:
        return []
    return _moves(position)


def _moves(position: Position) -> list[Move]:
    moves: list[Move] = []
    for point, piece in enumerate(position.board):
        if owner(piece) == position.player:
            moves += piece_moves(position.board, point)
    return moves


def is_trapped(board: str, point: Point) -> bool:
    """The fox on `point` has no step, no jump and no fox next to it."""
    if any(board[next_point] == FOX for next_point, _ in neighbours(point)):
        return False
    return not piece_moves(board, point)


def is_pinched(board: str, point: Point) -> bool:
    """The elephant on `point` has two foxes next to it."""
    return sum(board[next_point] == FOX for next_point, _ in neighbours(point)) >= 2


def remove_caught(board: str) -> str:
    """The board without its trapped foxes and pinched elephants (judged together)."""
    caught = [p for p, piece in enumerate(board)
              if (piece == FOX and is_trapped(board, p))
              or (piece == ELEPHANT and is_pinched(board, p))]
    cells = list(board)
    for point in caught:
        cells[point] = EMPTY
    return "".join(cells)


def animals(board: str) -> int:
    return sum(board.count(piece) for piece in (FOX, GOOSE, ELEPHANT))


def close_arm(board: str) -> str:
    """The board with its first completely empty arm closed, if 8 or 4 animals remain."""
    if animals(board) not in SHRINK_AT:
        return board
    for _, arm in ARMS:
        if all(board[p] == EMPTY for p in arm):
            return "".join(HOLE if p in arm else piece for p, piece in enumerate(board))
    return board


def play(position: Position, move: Move) -> Position:
    """The position after `move` (assumed legal): removals, then the round's end if it is one."""
    cells = list(position.board)
    piece = cells[move.start]
    cells[move.start] = EMPTY
    if move.captured is not None:
        cells[move.captured] = EMPTY
    cells[move.end] = piece
    board = remove_caught("".join(cells))
    if position.shrink and position.player == "g":  # the geese's move ends the round
        board = close_arm(board)
    return Position(board, opponent(position.player), position.ply + 1, position.shrink)


def result(position: Position) -> tuple[Player | None, str] | None:
    """(winner or None for a draw, why) by the piece counts, in the rules' order, else None."""
    board = position.board
    foxes, geese, elephants = board.count(FOX), board.count(GOOSE), board.count(ELEPHANT)
    if foxes == 0:
        return "g", "no-foxes"
    if geese == 0 and elephants == 0:
        return "f", "no-geese"
    if elephants < 2 and geese == 0:
        return "f", "one-elephant"
    if geese < 4 and elephants == 0:
        return "f", "too-few-geese"
    if foxes == 1 and elephants > 1:
        return "g", "one-fox-against-elephants"
    if foxes == 1 and geese == 1 and elephants == 1:
        return None, "one-of-each"
    return None


def outcome(position: Position) -> tuple[Player | None, str] | None:
    """The piece-count result, else the move limit's draw, else a loss for a mover with no move."""
    decided = result(position)
    if decided is not None:
        return decided
    if position.ply >= MOVE_LIMIT:
        return None, "move-limit"
    if not _moves(position):
        return opponent(position.player), "no-move"
    return None


def successors(position: Position) -> dict[str, Move]:
    """Board text after each legal move -> that move (moves with the same board are alike)."""
    return {format_board(play(position, move)): move for move in legal_moves(position)}


class FoxGeese(Game[Position, Move]):
    """Fox, Geese and Elephants under the game protocol (options `variant`, `shrink`)."""

    name = "foxgeese"
    title = "Fox, Geese and Elephants"
    labels = ("f", "g")
    how_to_play = (
        "The foxes (f, pieces F) move first; the geese (g) play the geese (G) and "
        "elephants (E).\n"
        "Every piece steps to an adjacent empty point: up, down, left or right.\n"
        "A fox may instead jump an adjacent goose to the empty point beyond, removing it "
        "(never an elephant).\n"
        "A fox that cannot move and has no fox beside it is trapped and removed; an "
        "elephant between two foxes is removed.\n"
        "The geese win by removing the foxes; the foxes win by taking the flock down "
        "(fewer than four geese and no elephants). 600 plies without a result: a draw.")
    piece_names = {"F": "fox", "G": "goose", "E": "elephant"}
    options = (
        Option("variant", "classic", "classic (1 fox, 13 geese) or elephants "
               "(2 foxes, 10 geese, 3 elephants)", choices=VARIANTS),
        Option("shrink", False, "close an empty arm at a round's end when 8 or 4 animals remain"),
    )
    symbols = HOLE + EMPTY + FOX + GOOSE + ELEPHANT

    @property
    def variant(self) -> str:
        return str(self.settings["variant"])

    @property
    def shrink(self) -> bool:
        return bool(self.settings["shrink"])

    def start(self) -> Position:
        return start_position(self.variant, self.shrink)

    def parse(self, board: str, player: str) -> Position:
        return parse(board, player, self.variant, self.shrink)

    def format(self, state: Position) -> str:
        return format_board(state)

    def to_move(self, state: Position) -> int:
        return 0 if state.player == "f" else 1

    def legal_moves(self, state: Position) -> list[Move]:
        return legal_moves(state)

    def play(self, state: Position, move: Move) -> Position:
        return play(state, move)

    def outcome(self, state: Position) -> Outcome | None:
        ended = outcome(state)
        if ended is None:
            return None
        winner, why = ended
        return Outcome(None if winner is None else (0 if winner == "f" else 1), why)

    def move_text(self, state: Position, move: Move) -> str:
        return f"{square_name(*divmod(move.start, SIZE))}-{square_name(*divmod(move.end, SIZE))}"

    def answers(self, state: Position) -> dict[str, Move]:
        return successors(state)

    def board(self) -> Board:
        return Board(SIZE, SIZE, frozenset(CORNERS))

    def action_count(self) -> int:
        return CELLS * CELLS

    def action(self, move: Move) -> int:
        """From-point times 49 plus to-point (a jump's goose is the point between them)."""
        return move.start * CELLS + move.end

    def action_text(self, action: int, chance: bool = False) -> str | None:
        """`d2-d3` from the id alone (it holds both points)."""
        if chance or not 0 <= action < CELLS * CELLS:
            return None
        start, end = divmod(action, CELLS)
        return f"{square_name(*divmod(start, SIZE))}-{square_name(*divmod(end, SIZE))}"

    def max_plies(self) -> int:
        return MOVE_LIMIT

    def encode(self, state: Position) -> str:
        """`LABEL BOARD PLY`: the ply counter is part of the state (round ends, move limit)."""
        return f"{state.player} {state.board} {state.ply}"

    def decode(self, text: str) -> Position:
        words = text.split()
        ply = int(words[2]) if len(words) > 2 else None
        return parse(words[1], words[0], self.variant, self.shrink, ply)
