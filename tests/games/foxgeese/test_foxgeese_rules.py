"""One test per Fox, Geese and Elephants rule, on hand-made positions, against rules.py."""

import doctest

import pytest

from aviary.games.base import Outcome
from aviary.games.foxgeese import rules
from aviary.games.foxgeese.rules import Move, Position

EMPTY = [
    "##...##",
    "##...##",
    ".......",
    ".......",
    ".......",
    "##...##",
    "##...##",
]


def at(row: int, col: int) -> int:
    return row * 7 + col


def board(**placed: str) -> str:
    """The empty cross with pieces at keys like r3c4='F' (0-based row and column)."""
    cells = [list(row) for row in EMPTY]
    for where, piece in placed.items():
        row, col = (int(part) for part in where[1:].split("c"))
        cells[row][col] = piece
    return "".join("".join(row) for row in cells)


def position(player: str = "f", shrink: bool = False, ply: int | None = None,
             **placed: str) -> Position:
    text = board(**placed)
    variant = "elephants" if "E" in text or text.count("F") > 1 else "classic"
    return rules.parse(text, player, variant, shrink, ply)


# four spare geese far away keep the piece-count endings out of the way
SPARE = {"r6c2": "G", "r6c3": "G", "r6c4": "G", "r5c2": "G"}


def test_rules_doctests_pass():
    failures, tried = doctest.testmod(rules)
    assert tried > 0 and failures == 0


def test_the_cross_has_33_points():
    assert len(rules.POINTS) == 33
    assert board().count(".") == 33 and board().count("#") == 16


def test_classic_start_one_fox_at_the_centre_and_13_geese():
    start = rules.start_position("classic")
    assert start.board[at(3, 3)] == "F" and start.board.count("F") == 1
    assert start.board.count("G") == 13
    assert all(start.board[at(4, c)] == "G" for c in range(7))
    assert all(start.board[at(r, c)] == "G" for r in (5, 6) for c in (2, 3, 4))
    assert start.player == "f" and start.ply == 0


def test_elephant_start():
    start = rules.start_position("elephants")
    assert {p for p, ch in enumerate(start.board) if ch == "F"} == {at(3, 2), at(3, 4)}
    assert {p for p, ch in enumerate(start.board) if ch == "E"} == {at(4, 0), at(4, 3), at(4, 6)}
    assert start.board.count("G") == 10
    assert all(start.board[p] in "GE" for p in rules.POINTS if p // 7 >= 4)


def test_pieces_step_orthogonally_to_empty_points_only():
    pos = position("g", r3c3="G", r2c3="F", **{"r3c2": "G"}, r6c2="G", r6c3="G")
    ends = {m.end for m in rules.legal_moves(pos) if m.start == at(3, 3)}
    assert ends == {at(4, 3), at(3, 4)}  # up is the fox, left a goose, no diagonals


def test_geese_and_elephants_may_step_backwards():
    pos = position("g", r4c3="E", r3c3="G", r0c2="F", r0c3="G", r6c2="G", r6c3="G")
    assert Move(at(4, 3), at(5, 3)) in rules.legal_moves(pos)
    assert Move(at(3, 3), at(2, 3)) in rules.legal_moves(pos)


def test_fox_jumps_a_goose_to_the_empty_point_beyond_and_removes_it():
    pos = position(r3c3="F", r3c4="G", **SPARE)
    jump = Move(at(3, 3), at(3, 5), at(3, 4))
    assert jump in rules.legal_moves(pos)
    after = rules.play(pos, jump)
    assert after.board[at(3, 4)] == "." and after.board[at(3, 5)] == "F"


def test_no_jump_when_the_point_beyond_is_taken_or_off_the_cross():
    pos = position(r3c3="F", r3c4="G", r3c5="G", r2c3="G", r1c3="G", r4c3="G", r5c3="G", **SPARE)
    assert not [m for m in rules.legal_moves(pos) if m.is_capture]
    edge = position(r2c1="F", r2c0="G", **SPARE)  # nothing beyond column 0
    assert not [m for m in rules.legal_moves(edge) if m.is_capture]


def test_fox_never_jumps_an_elephant_or_a_fox():
    pos = position(r3c2="F", r3c3="E", r3c4="F", r2c4="E", r0c2="G", r0c3="G", r0c4="G",
                   r1c2="G")
    assert not [m for m in rules.legal_moves(pos) if m.is_capture]


def test_capturing_is_not_forced():
    pos = position(r3c3="F", r3c4="G", **SPARE)
    assert Move(at(3, 3), at(2, 3)) in rules.legal_moves(pos)


def test_one_jump_per_move():
    pos = position(r3c1="F", r3c2="G", r3c4="G", **SPARE)
    after = rules.play(pos, Move(at(3, 1), at(3, 3), at(3, 2)))
    assert after.board[at(3, 4)] == "G" and after.player == "g"


def test_trapped_fox_is_removed_after_the_geese_move():
    # the fox in the left arm: the goose closing its last exit traps it
    pos = position("g", r2c0="F", r3c0="G", r4c0="G", r3c1="G", r2c2="G", r6c2="G", r6c3="G",
                   r6c4="G")
    after = rules.play(pos, Move(at(3, 1), at(2, 1)))
    assert after.board[at(2, 0)] == "."
    assert rules.outcome(after) == ("g", "no-foxes")


def test_fox_with_a_fox_next_to_it_is_not_trapped():
    pos = position("g", r2c0="F", r2c1="F", r3c0="G", r4c0="G", r3c1="G", r4c1="G", r1c2="G",
                   r2c3="G", r5c2="E", r6c2="E")
    after = rules.play(pos, Move(at(1, 2), at(2, 2)))
    assert after.board.count("F") == 2
    assert rules.outcome(after) == ("g", "no-move")  # but they cannot move: the foxes lose


def test_elephant_pincer_removes_an_elephant_between_two_foxes():
    pos = position("f", r3c2="F", r3c3="E", r2c4="F", r6c2="G", r6c3="G", r6c4="G", r5c2="G",
                   r5c3="E", r5c4="E")
    after = rules.play(pos, Move(at(2, 4), at(3, 4)))
    assert after.board[at(3, 3)] == "." and after.board.count("E") == 2


def test_two_foxes_at_a_right_angle_pinch_too():
    pos = position("f", r3c2="F", r3c3="E", r1c3="F", r6c2="G", r6c3="G", r6c4="G", r5c2="G",
                   r5c3="E", r5c4="E")
    after = rules.play(pos, Move(at(1, 3), at(2, 3)))
    assert after.board[at(3, 3)] == "."


def test_an_elephant_stepping_between_two_foxes_is_removed():
    pos = position("g", r3c2="F", r3c4="F", r2c3="E", r6c2="G", r6c3="G", r6c4="G", r5c2="G",
                   r5c3="E", r5c4="E")
    after = rules.play(pos, Move(at(2, 3), at(3, 3)))
    assert after.board[at(3, 3)] == "." and after.board.count("E") == 2


def test_removals_are_judged_together_on_the_board_the_move_left():
    # the elephant steps into the fox's last exit: the fox on a3 is trapped (the elephant
    # blocks it) and the elephant is pinched by both foxes; both go
    pos = position("g", r2c0="F", r2c2="F", r3c0="G", r4c0="G", r3c1="E", r6c2="G",
                   r6c3="E", r6c4="E")
    after = rules.play(pos, Move(at(3, 1), at(2, 1)))
    assert after.board[at(2, 0)] == "." and after.board[at(2, 1)] == "."
    assert after.board[at(2, 2)] == "F"


def test_end_no_foxes_geese_win_first():
    pos = position("f", r0c2="G")  # no foxes and also too few geese: the geese win
    assert rules.outcome(pos) == ("g", "no-foxes")


def test_end_no_geese_and_no_elephants_fox_wins():
    assert rules.outcome(position("g", r3c3="F")) == ("f", "no-geese")


def test_end_one_elephant_and_no_geese_fox_wins():
    assert rules.outcome(position("g", r3c3="F", r3c4="F", r0c2="E")) == ("f", "one-elephant")
    assert rules.outcome(position("g", r3c3="F", r0c2="E")) == ("f", "one-elephant")


def test_end_fewer_than_four_geese_and_no_elephants_fox_wins():
    three = position("g", r3c3="F", r6c2="G", r6c3="G", r6c4="G")
    assert rules.outcome(three) == ("f", "too-few-geese")
    assert rules.outcome(position("g", r3c3="F", **SPARE)) is None


def test_end_one_fox_against_two_elephants_geese_win():
    pos = position("f", r3c3="F", r0c2="E", r6c4="E", r6c2="G")
    assert rules.outcome(pos) == ("g", "one-fox-against-elephants")
    assert rules.outcome(position("f", r3c3="F", r3c1="F", r0c2="E", r6c4="E", r6c2="G")) is None


def test_end_one_fox_one_goose_one_elephant_draw():
    assert rules.outcome(position("f", r3c3="F", r0c2="E", r6c2="G")) == (None, "one-of-each")


def test_a_side_with_no_legal_move_loses():
    # the fox at the top arm's corner, walled by geese two deep: trapped foxes are removed
    # only after a move, so a position given like this is a loss for the fox to move
    pos = position("f", r0c2="F", r0c3="G", r0c4="G", r1c2="G", r2c2="G", r6c2="G")
    assert rules.legal_moves(pos) == []
    assert rules.outcome(pos) == ("g", "no-move")


def test_geese_without_a_move_lose():
    # every arm closed, the 3x3 centre full: 1 fox and 8 geese, none can step
    text = list(board(r2c2="G", r2c3="G", r2c4="G", r3c2="G", r3c3="F", r3c4="G", r4c2="G",
                      r4c3="G", r4c4="G"))
    for _, arm in rules.ARMS:
        for point in arm:
            text[point] = "#"
    pos = rules.parse("".join(text), "g")
    assert rules.legal_moves(pos) == []
    assert rules.outcome(pos) == ("f", "no-move")


def test_move_limit_is_a_draw():
    pos = position("f", ply=rules.MOVE_LIMIT, r3c3="F", **SPARE)
    assert rules.outcome(pos) == (None, "move-limit")
    assert rules.legal_moves(pos) == []
    assert rules.outcome(position("f", ply=rules.MOVE_LIMIT - 2, r3c3="F", **SPARE)) is None


def test_shrink_closes_the_first_empty_arm_at_the_end_of_a_round_with_8_animals():
    # 1 fox + 7 geese; the top arm is empty, so it closes after the geese's move
    pos = position("g", shrink=True, r3c3="F", r4c0="G", r4c1="G", r4c2="G", r4c3="G",
                   r4c4="G", r5c2="G", r6c2="G")
    after = rules.play(pos, Move(at(6, 2), at(6, 3)))
    top = [at(r, c) for r in (0, 1) for c in (2, 3, 4)]
    assert all(after.board[p] == "#" for p in top)
    assert rules.legal_moves(after) and all(m.end not in top for m in rules.legal_moves(after))


def test_shrink_takes_the_arms_in_order_and_only_one_per_round():
    # top taken by a goose, bottom and left empty: bottom closes, left stays open
    pos = position("g", shrink=True, r3c3="F", r1c3="G", r4c2="G", r4c3="G", r4c4="G",
                   r3c5="G", r2c5="G", r2c4="G")
    after = rules.play(pos, Move(at(1, 3), at(1, 2)))
    bottom = [at(r, c) for r in (5, 6) for c in (2, 3, 4)]
    left = [at(r, c) for r in (2, 3, 4) for c in (0, 1)]
    assert all(after.board[p] == "#" for p in bottom)
    assert all(after.board[p] == "." for p in left)


def test_shrink_at_4_animals_not_at_other_counts():
    five = position("g", shrink=True, r3c3="F", r3c4="E", r3c2="F", r4c3="G", r2c3="G",
                    r2c4=".")
    after = rules.play(five, Move(at(2, 3), at(2, 4)))  # 5 animals: nothing closes
    assert after.board.count("#") == 16
    four = position("g", shrink=True, r3c3="F", r3c4="E", r3c2="F", r2c3="E")
    after = rules.play(four, Move(at(2, 3), at(2, 4)))  # 4 animals: the top arm closes
    assert after.board.count("#") == 22


def test_shrink_waits_for_the_round_end_and_is_off_by_default():
    pos = position("f", shrink=True, r3c3="F", r4c0="G", r4c1="G", r4c2="G", r4c3="G",
                   r4c4="G", r5c2="G", r6c2="G")
    assert rules.play(pos, Move(at(3, 3), at(2, 3))).board.count("#") == 16  # mid-round
    plain = position("g", r3c3="F", r4c0="G", r4c1="G", r4c2="G", r4c3="G", r4c4="G",
                     r5c2="G", r6c2="G")
    assert rules.play(plain, Move(at(6, 2), at(6, 3))).board.count("#") == 16


def test_a_closed_arm_can_trap_a_fox_which_goes_after_the_next_move():
    # elephants block the fox on c3 above, right and below; the left arm closes behind it
    pos = position("g", shrink=True, r2c2="F", r1c2="E", r2c3="E", r3c2="E", r3c5="F",
                   r6c2="G", r6c3="G", r5c3="G")
    after = rules.play(pos, Move(at(5, 3), at(5, 4)))
    assert after.board[at(2, 0)] == "#" and after.board[at(2, 2)] == "F"
    moved = rules.play(after, Move(at(3, 5), at(3, 6)))
    assert moved.board[at(2, 2)] == "."
    assert rules.outcome(moved) == ("g", "one-fox-against-elephants")


def test_parse_rejects_bad_boards_naming_the_problem():
    with pytest.raises(ValueError, match="49 characters"):
        rules.parse("." * 48, "f")
    with pytest.raises(ValueError, match="only"):
        rules.parse(board(r3c3="X"), "f")
    with pytest.raises(ValueError, match="off the cross"):
        rules.parse("." * 49, "f")
    with pytest.raises(ValueError, match="player"):
        rules.parse(board(r3c3="F"), "x")
    with pytest.raises(ValueError, match="partly closed"):
        rules.parse(board(r0c2="#", r3c3="F"), "f")
    with pytest.raises(ValueError, match="at most 1 'F'"):
        rules.parse(board(r3c3="F", r3c4="F"), "f", "classic")
    with pytest.raises(ValueError, match="elephants"):
        rules.parse(board(r3c3="F", r3c4="E"), "f", "classic")


def test_course_position_starts_a_round_for_the_fox_and_is_mid_round_for_the_geese():
    text = board(r3c3="F", **SPARE)
    assert rules.parse(text, "f").ply == 0
    assert rules.parse(text, "g").ply == 1


def test_game_protocol_outcome_labels_and_board():
    game = rules.FoxGeese(variant="elephants", shrink=True)
    start = game.start()
    assert game.format(start) == rules.start_board("elephants")
    assert game.labels == ("f", "g") and game.to_move(start) == 0
    assert game.board().holes == rules.CORNERS and game.board().rows == 7
    assert game.outcome(position("f", r0c2="G")) == Outcome(1, "no-foxes")
    assert game.decode(game.encode(start)) == start
    move = game.parse_move(start, "c4-c3")
    after = game.play(start, move)
    assert after.ply == 1 and game.decode(game.encode(after)).ply == 1
    later = rules.Position(after.board, "g", 41, True)
    assert game.decode(game.encode(later)).ply == 41
