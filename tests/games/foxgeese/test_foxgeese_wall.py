"""The geese's starting wall holds for ever: no fox side can force a win, in any variant.

Solved over rules.py (the truth) as a safety game, not searched to a depth. The geese
restrict themselves to *wall positions*: every goose and elephant on its starting point
but at most one, which stands one step away from it. Among the wall positions reached
from the start, the test finds the largest set from which, whatever the foxes play, no
fox move takes a goose or pinches an elephant, and the geese always have a move back
into the set (removed from the candidates until nothing changes). A start in that set
means the geese can keep every piece and always move; the foxes win only by taking
pieces or leaving the geese no move, so they can never win, and the game is at worst
drawn on the move limit for the geese. The shrinking board closes an arm only when 8 or
4 animals are left, never with the whole flock on the board, so the same holds with it.

This is why the foxes' games against the textbook opponent end on the move limit
(docs/games/foxgeese.md, "Against the textbook opponent"): a fox side's score above a
draw comes only from the defender leaving its wall.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from aviary.games.foxgeese import rules
from aviary.games.foxgeese.rules import Position

HELD, BROKEN = "held", "broken"  # the geese win (a fox trapped), or a piece of theirs lost


def wall_positions(home: str) -> Callable[[str], bool]:
    """Whether a board is a wall position of `home`: at most one goose or elephant off its
    point of `home`, and that one a step away from it."""
    pieces = {point: piece for point, piece in enumerate(home) if piece in "GE"}

    def is_wall(board: str) -> bool:
        now = {point: piece for point, piece in enumerate(board) if piece in "GE"}
        if len(now) != len(pieces):
            return False
        away = [point for point, piece in pieces.items() if now.get(point) != piece]
        if not away:
            return True
        arrived = [point for point in now if point not in pieces]
        return len(away) == 1 and any(step == arrived[0]
                                      for step, _ in rules.neighbours(away[0]))

    return is_wall


def _fresh(position: Position) -> Position:
    """The position with its clock at the start (equality ignores the ply anyway)."""
    return Position(position.board, position.player, int(position.player == "g"),
                    position.shrink)


def the_wall_holds(start: Position) -> tuple[bool, int]:
    """(whether the geese can keep `start`'s wall for ever, wall positions reached)."""
    is_wall = wall_positions(start.board)
    following: dict[Position, list[Position | str]] = {}
    todo = [_fresh(start)]
    while todo:
        position = todo.pop()
        if position in following:
            continue
        after: list[Position | str] = []
        for move in rules.legal_moves(position):
            reached = _fresh(rules.play(position, move))
            decided = rules.result(reached)
            if decided is not None:
                after.append(HELD if decided[0] == "g" else BROKEN)
            elif is_wall(reached.board):
                after.append(reached)
                todo.append(reached)
            elif position.player == "f":
                after.append(BROKEN)  # a goose taken or an elephant pinched
            # a geese move that leaves the wall is one they do not choose
        if position.player == "f" and not after:
            after.append(HELD)  # foxes with no move lose
        following[position] = after
    safe = set(following)
    changed = True
    while changed:
        changed = False
        for position, after in following.items():
            if position not in safe:
                continue
            good = [item == HELD or (item != BROKEN and item in safe) for item in after]
            if not (all(good) if position.player == "f" else any(good)):
                safe.discard(position)
                changed = True
    return _fresh(start) in safe, len(following)


@pytest.mark.parametrize("variant", rules.VARIANTS)
@pytest.mark.parametrize("shrink", [False, True], ids=["", "shrink"])
def test_the_geese_keep_their_starting_wall_for_ever(variant: str, shrink: bool) -> None:
    held, reached = the_wall_holds(rules.start_position(variant, shrink))
    assert held
    assert reached > 100  # the foxes' moves were followed, not cut short


def test_a_wall_with_a_gap_beside_an_elephant_does_not_hold() -> None:
    """The same solver can answer no: with the goose on b5 gone, the elephant on a5 has
    two free neighbours, and the foxes can pinch it."""
    start = rules.start_position("elephants")
    cells = list(start.board)
    cells[4 * rules.SIZE + 1] = rules.EMPTY
    held, _ = the_wall_holds(Position("".join(cells), "f"))
    assert not held


def test_a_wall_position_has_one_piece_at_most_one_step_off() -> None:
    home = rules.start_position("classic").board

    def moved(*steps: tuple[int, int]) -> str:
        cells = list(home)
        for start, end in steps:
            cells[start], cells[end] = rules.EMPTY, cells[start]
        return "".join(cells)

    a5, a4, a3, g5, g4 = (4 * 7, 3 * 7, 2 * 7, 4 * 7 + 6, 3 * 7 + 6)
    is_wall = wall_positions(home)
    assert is_wall(home) and is_wall(moved((a5, a4)))
    assert not is_wall(moved((a5, a3)))  # two steps away
    assert not is_wall(moved((a5, a4), (g5, g4)))  # two pieces off
    assert not is_wall(home.replace("G", rules.EMPTY, 1))  # a goose lost
