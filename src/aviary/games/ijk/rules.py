"""IJK rules in readable pure Python: the truth the kernels are tested against.

IJK is two-player 2048 with letters. Player `+` owns upper-case tiles and moves
first, `-` owns lower case. A move slides every tile Up, Down, Left or Right:
tiles slide as far as they go, then each adjacent pair in the direction of the
move merges once, scanning from the leading edge (no chain merges), then they
slide again. Equal letters merge into the next letter: in their case when the
cases agree, in the **mover's** case when they differ. A move that changes
nothing is still legal. Then the turn passes and a tile of the player about to
move (`A` for `+`, `a` for `-`) is added: at the first empty cell in reading
order in the deterministic mode, at a uniformly random empty cell in the
non-deterministic one (a chance node: `Position.chance` is set and the caller
picks the cell).

Two variants:
- `course` (default): 6x6, the game starts with `A` at the top-left corner and
  `+` to move; it ends when a K or k is on the board or the board is full; the
  side with the higher highest letter wins (equal: a tie).
- `handout`: 4x4 with a fifth move S (skip: the tile just added for the
  skipping player flips to the opponent's case and no tile is added); only a
  K or k ends the game, won by that case (both at once: a tie). A full board
  on which no slide changes anything can never make a K: that dead board ends
  the game as a tie (random games reach one within a few hundred moves).

The game ends at once when a move makes a K or k (no tile follows it).
Boards are row-major text, `.` empty: 36 characters (course) or 16 (handout).

>>> start = start_position("course")
>>> format_board(play(start, "R", deterministic=True))[:12]
'a....A......'
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from aviary.games.base import (
    CHANCE,
    Game,
    Option,
    Outcome,
    check_cells,
    check_player,
    format_seconds,
    parse_seconds,
    square_name,
)

Player = Literal["+", "-"]
Move = str | int  # a direction letter, or at a chance node the cell the new tile lands on

EMPTY = "."
UPPER = "ABCDEFGHIJK"
LOWER = UPPER.lower()
LAST_LETTER = "K"
SIZES = {"course": 6, "handout": 4}
DIRECTIONS = "UDLR"
SKIP = "S"


@dataclass(frozen=True)
class Position:
    """An immutable, hashable IJK position.

    `chance`: the mover has moved and the new tile for `player` (now to move) is
    still to be placed. `last`: the cell of the tile just added for `player`
    (handout variant only, for Skip; None when unknown or after a skip). The
    course's text forms do not show it, so positions compare by board, player
    and chance alone.
    """

    board: str
    player: Player
    chance: bool = False
    last: int | None = field(default=None, compare=False)

    @property
    def n(self) -> int:
        return 6 if len(self.board) == 36 else 4

    def __post_init__(self) -> None:
        if len(self.board) not in (16, 36):
            raise ValueError(f"board must have 36 (6x6) or 16 (4x4) characters, "
                             f"got {len(self.board)}")
        check_cells(self.board, UPPER + LOWER + EMPTY, "'.', A-K and a-k")
        check_player(self.player, ("+", "-"))


def opponent(player: Player) -> Player:
    return "-" if player == "+" else "+"


def tile(player: Player) -> str:
    """The tile added for `player`: `A` for `+`, `a` for `-`."""
    return "A" if player == "+" else "a"


def owner(letter: str) -> Player | None:
    return None if letter == EMPTY else ("+" if letter.isupper() else "-")


def start_position(variant: str = "course") -> Position:
    """`A` at the top-left corner, `+` to move (who owns that tile)."""
    n = SIZES[variant]
    return Position("A" + EMPTY * (n * n - 1), "+", last=0 if variant == "handout" else None)


def parse(board: str, player: str, variant: str = "course") -> Position:
    """A Position from command-line text; ValueError names what is wrong."""
    n = SIZES[variant]
    if len(board) != n * n:
        raise ValueError(f"BOARD must have {n * n} characters for the {variant} variant "
                         f"({n}x{n}), got {len(board)}")
    if player not in ("+", "-"):
        raise ValueError(f"PLAYER must be '+' or '-', got {player!r}")
    return Position(board, player)  # type: ignore[arg-type]


def format_board(position: Position) -> str:
    return position.board


def merge(first: str, second: str, mover: Player) -> str | None:
    """The tile two equal letters merge into (None if they differ)."""
    if first.lower() != second.lower():
        return None
    following = UPPER[UPPER.index(first.upper()) + 1]
    if first == second:
        return following if first.isupper() else following.lower()
    return following if mover == "+" else following.lower()


def slide_line(line: Sequence[str], mover: Player) -> list[str]:
    """One line, leading edge first, after a move toward the leading edge."""
    tiles = [letter for letter in line if letter != EMPTY]
    result: list[str] = []
    i = 0
    while i < len(tiles):
        merged = merge(tiles[i], tiles[i + 1], mover) if i + 1 < len(tiles) else None
        if merged is not None:
            result.append(merged)  # each pair merges once; the result does not merge again
            i += 2
        else:
            result.append(tiles[i])
            i += 1
    return result + [EMPTY] * (len(line) - len(result))


def lines(n: int, direction: str) -> list[list[int]]:
    """The board's lines for a move in `direction`, each listed from its leading edge."""
    if direction in "LR":
        rows = [[r * n + c for c in range(n)] for r in range(n)]
    else:
        rows = [[r * n + c for r in range(n)] for c in range(n)]
    return [line[::-1] for line in rows] if direction in "DR" else rows


def slide(board: str, direction: str, mover: Player) -> str:
    """The board after `mover` slides every tile in `direction` (no tile added)."""
    n = 6 if len(board) == 36 else 4
    cells = list(board)
    for line in lines(n, direction):
        for index, letter in zip(line, slide_line([board[i] for i in line], mover), strict=True):
            cells[index] = letter
    return "".join(cells)


def dead(board: str) -> bool:
    """A full board on which no slide changes anything (no two equal letters side by side)."""
    if EMPTY in board:
        return False
    return all(slide(board, direction, "+") == board for direction in DIRECTIONS)


def finished(board: str, variant: str) -> bool:
    """A K or k is on the board; a full board (course) or a dead board (handout)."""
    if LAST_LETTER in board or LAST_LETTER.lower() in board:
        return True
    if variant == "course":
        return EMPTY not in board
    return dead(board)


def highest(board: str, player: Player) -> int:
    """0 if `player` has no tile, else 1 + the index of their highest letter (A = 1)."""
    letters = UPPER if player == "+" else LOWER
    return max((letters.index(c) + 1 for c in board if c in letters), default=0)


def winner(board: str, variant: str) -> Player | None:
    """The winner of a finished game, None for a tie."""
    if variant == "handout":
        upper, lower = LAST_LETTER in board, LAST_LETTER.lower() in board
        return None if upper == lower else ("+" if upper else "-")
    plus, minus = highest(board, "+"), highest(board, "-")
    return None if plus == minus else ("+" if plus > minus else "-")


def legal_moves(position: Position, variant: str = "course") -> list[Move]:
    """The mover's moves (every direction, always legal), or the empty cells at a chance node."""
    if finished(position.board, variant):
        return []
    if position.chance:
        return [i for i, c in enumerate(position.board) if c == EMPTY]
    return list(DIRECTIONS + SKIP) if variant == "handout" else list(DIRECTIONS)


def place(position: Position, cell: int) -> Position:
    """The chance outcome: the tile of the player to move lands on empty `cell`."""
    board = position.board
    return Position(board[:cell] + tile(position.player) + board[cell + 1:], position.player,
                    last=cell if position.n == 4 else None)


def play(position: Position, move: Move, *, deterministic: bool, variant: str = "course"
         ) -> Position:
    """The position after `move` (assumed legal).

    Deterministic: the new tile is placed at the first empty cell. Otherwise the
    result is a chance node (`chance=True`) for the caller to resolve with
    `place`, unless the game is over or no cell is empty.
    """
    if isinstance(move, int):
        return place(position, move)
    mover = position.player
    following = opponent(mover)
    if move == SKIP:
        cells = list(position.board)
        if position.last is not None:
            cells[position.last] = tile(following)
        return Position("".join(cells), following)
    board = slide(position.board, move, mover)
    after = Position(board, following)
    if LAST_LETTER in board or LAST_LETTER.lower() in board or EMPTY not in board:
        return after
    if deterministic:
        return place(after, board.index(EMPTY))
    return Position(board, following, chance=True)


def outcome(position: Position, variant: str = "course") -> tuple[Player | None, str] | None:
    """(winner or None for a tie, reason) once the game is over, else None."""
    board = position.board
    if not finished(board, variant):
        return None
    reason = ("letter-k" if LAST_LETTER in board.upper() else
              "board-full" if variant == "course" else "dead-board")
    return winner(board, variant), reason


class IJK(Game[Position, Move]):
    """IJK under the game protocol (options `variant` and `mode`)."""

    name = "ijk"
    title = "IJK"
    labels = ("+", "-")
    how_to_play = (
        "+ owns the upper-case letters and moves first; - owns the lower-case ones.\n"
        "A move slides every tile up, down, left or right (arrow keys or a swipe); two "
        "equal letters that meet merge into the next letter (A A makes B), once a move.\n"
        "Merging into an opponent's tile takes it: the result is in the mover's case.\n"
        "After each move a new tile of the player to move appears (the first empty cell, "
        "or a random one in the nondet mode).\n"
        "The game ends when a K or k is made (or the board is full): the side with the "
        "highest letter wins.")
    options = (
        Option("variant", "course", "course: 6x6, ends at K or a full board; "
               "handout: 4x4 with Skip, ends at K", choices=("course", "handout")),
        Option("mode", "det", "det: the new tile goes to the first empty cell; "
               "nondet: to a random empty cell", choices=("det", "nondet")),
    )
    course_words = "PLAYER BOARD MODE SECONDS"
    symbols = EMPTY + UPPER + LOWER

    @property
    def variant(self) -> str:
        return str(self.settings["variant"])

    @property
    def deterministic(self) -> bool:
        return self.settings["mode"] == "det"

    def start(self) -> Position:
        return start_position(self.variant)

    def parse(self, board: str, player: str) -> Position:
        return parse(board, player, self.variant)

    def format(self, state: Position) -> str:
        return format_board(state)

    def to_move(self, state: Position) -> int:
        if state.chance:
            return CHANCE
        return 0 if state.player == "+" else 1

    def label(self, state: Position) -> str:
        return state.player

    def legal_moves(self, state: Position) -> list[Move]:
        return legal_moves(state, self.variant)

    def play(self, state: Position, move: Move) -> Position:
        return play(state, move, deterministic=self.deterministic, variant=self.variant)

    def outcome(self, state: Position) -> Outcome | None:
        result = outcome(state, self.variant)
        if result is None:
            return None
        won, reason = result
        return Outcome(None if won is None else (0 if won == "+" else 1), reason)

    def chance_outcomes(self, state: Position) -> list[tuple[Move, float]]:
        if not state.chance:
            return []
        cells = legal_moves(state, self.variant)
        return [(cell, 1 / len(cells)) for cell in cells]

    def action_count(self) -> int:
        return len(DIRECTIONS + SKIP) if self.variant == "handout" else len(DIRECTIONS)

    def action(self, move: Move) -> int:
        """U, D, L, R, S are 0-4; a chance outcome is the cell its tile lands on."""
        return move if isinstance(move, int) else (DIRECTIONS + SKIP).index(move)

    def chance_count(self) -> int:
        return 0 if self.deterministic else SIZES[self.variant] ** 2

    def action_text(self, action: int, chance: bool = False) -> str | None:
        """The move letter, or a chance outcome's cell (`c4`), from the id alone."""
        if chance:
            side = SIZES[self.variant]
            return square_name(*divmod(action, side)) if 0 <= action < side * side else None
        return (DIRECTIONS + SKIP)[action] if 0 <= action < self.action_count() else None

    def max_plies(self) -> int | None:
        """Course: every move adds a tile worth 1 to the sum of the tiles (A = 1, B = 2, ...
        J = 512; a merge keeps the sum) while at most 35 tiles below K are on the board,
        so a game has at most 35 * 512 moves. Handout: a Skip adds nothing, so no bound."""
        if self.variant == "handout":
            return None
        return (SIZES[self.variant] ** 2 - 1) * 2 ** (len(UPPER) - 2)

    def move_text(self, state: Position, move: Move) -> str:
        if isinstance(move, int):
            return square_name(*divmod(move, state.n))
        return move

    def answer(self, state: Position, move: Move) -> str:
        """A course IJK program prints its move letter."""
        return self.move_text(state, move)

    def encode(self, state: Position) -> str:
        """`PLAYER BOARD`, then `chance` at a chance node and `last=CELL` when known."""
        words = [state.player, state.board]
        if state.chance:
            words.append("chance")
        if state.last is not None:
            words.append(f"last={state.last}")
        return " ".join(words)

    def decode(self, text: str) -> Position:
        player, board, *rest = text.split()
        position = self.parse(board, player)
        last = next((int(word[5:]) for word in rest if word.startswith("last=")), None)
        return Position(position.board, position.player, "chance" in rest, last)

    def command_args(self, state: Position, seconds: float) -> list[str]:
        args = [state.player, state.board, str(self.settings["mode"]), format_seconds(seconds)]
        if self.variant != "course":
            args += ["--variant", self.variant]
        return args

    @classmethod
    def parse_course(cls, argv: Sequence[str]) -> tuple[IJK, Position, float]:
        """`PLAYER BOARD MODE SECONDS [--variant course|handout]`."""
        words = list(argv)
        variant = "course"
        if "--variant" in words:
            at = words.index("--variant")
            if at + 1 >= len(words):
                raise ValueError("option --variant needs a value (course or handout)")
            variant = words[at + 1]
            del words[at:at + 2]
        for word in words:
            if word.startswith("--variant="):
                variant = word.partition("=")[2]
                words.remove(word)
                break
        if variant not in SIZES:
            raise ValueError(f"--variant must be course or handout, got {variant!r}")
        unknown = [word for word in words if word.startswith("--")]
        if unknown:
            raise ValueError(f"unknown option {unknown[0]!r} (options: --variant)")
        if len(words) != 4:
            raise ValueError(f"usage: aviary ijk move {cls.course_usage()} "
                             f"(got {len(words)} arguments)")
        player, board, mode, limit = words
        if mode not in ("det", "nondet"):
            raise ValueError(f"MODE must be det or nondet, got {mode!r}")
        game = cls(variant=variant, mode=mode)
        return game, game.parse(board, player), parse_seconds(limit)
