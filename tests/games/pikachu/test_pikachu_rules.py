"""One test per Pikachu rule in DESIGN.md, against rules.py (the readable truth)."""

import doctest

from aviary.games.pikachu import rules
from aviary.games.pikachu.rules import Move, Position


def position(rows: list[str], player: str = "w") -> Position:
    """A position from its rows, row 1 (white's back row) first."""
    return rules.parse(len(rows), "".join(rows), player)


def square(rows: list[str], row: int, col: int) -> int:
    return row * len(rows) + col


EMPTY7 = ["......."] * 7


def with_pieces(**placed: str) -> list[str]:
    """7x7 rows with pieces at keys like r3c4='w' (0-based row and column)."""
    cells = [list(row) for row in EMPTY7]
    for where, piece in placed.items():
        row, col = (int(part) for part in where[1:].split("c"))
        cells[row][col] = piece
    return ["".join(row) for row in cells]


def destinations(pos: Position, start: int) -> set[int]:
    return {move.end for move in rules.legal_moves(pos) if move.start == start}


def test_rules_doctests_pass():
    failures, tried = doctest.testmod(rules)
    assert tried > 0 and failures == 0


def test_start_position_matches_the_course_string_for_n8():
    start = rules.start_position(8)
    assert start.board == "........wwwwwwwwwwwwwwww................bbbbbbbbbbbbbbbb........"
    assert start.player == "w"


def test_white_moves_first_toward_row_n():
    start = rules.start_position(8)
    assert all(move.end // 8 == 3 for move in rules.legal_moves(start))


def test_pichu_steps_forward_left_or_right_to_empty_squares():
    rows = with_pieces(r3c3="w")
    assert destinations(position(rows), 3 * 7 + 3) == {4 * 7 + 3, 3 * 7 + 2, 3 * 7 + 4}


def test_black_pichu_forward_is_toward_row_1():
    rows = with_pieces(r3c3="b")
    assert destinations(position(rows, "b"), 3 * 7 + 3) == {2 * 7 + 3, 3 * 7 + 2, 3 * 7 + 4}


def test_pichu_cannot_move_backwards():
    rows = with_pieces(r3c3="w")
    assert 2 * 7 + 3 not in destinations(position(rows), 3 * 7 + 3)


def test_no_diagonal_moves():
    pichu = destinations(position(with_pieces(r3c3="w")), 24)
    pikachu = destinations(position(with_pieces(r3c3="W")), 24)
    for ends in (pichu, pikachu):
        assert all(end // 7 == 3 or end % 7 == 3 for end in ends)


def test_pichu_jumps_an_adjacent_opposing_pichu_or_pikachu_and_removes_it():
    for victim in "bB":
        pos = position(with_pieces(r3c3="w", r4c3=victim))
        jump = Move(24, 5 * 7 + 3, 4 * 7 + 3)
        assert jump in rules.legal_moves(pos)
        assert rules.play(pos, jump).board[4 * 7 + 3] == "."


def test_pichu_jumps_sideways_but_never_backwards():
    pos = position(with_pieces(r3c3="w", r3c4="b", r2c3="b"))
    captures = {move for move in rules.legal_moves(pos) if move.is_capture}
    assert captures == {Move(24, 3 * 7 + 5, 3 * 7 + 4)}


def test_pichu_cannot_jump_its_own_piece_or_onto_an_occupied_square():
    pos = position(with_pieces(r3c3="w", r4c3="w", r3c4="b", r3c5="b"))
    assert not [move for move in rules.legal_moves(pos) if move.is_capture and move.start == 24]


def test_pikachu_slides_any_distance_in_four_directions_through_empty_squares():
    rows = with_pieces(r3c3="W", r3c5="w")
    ends = destinations(position(rows), 24)
    column = {r * 7 + 3 for r in range(7)} - {24}
    assert ends == column | {3 * 7 + 0, 3 * 7 + 1, 3 * 7 + 2, 3 * 7 + 4}


def test_pikachu_jump_lands_on_any_empty_square_beyond_the_piece():
    pos = position(with_pieces(r0c3="W", r3c3="b"))
    jumps = {move.end for move in rules.legal_moves(pos) if move.captured == 3 * 7 + 3}
    assert jumps == {4 * 7 + 3, 5 * 7 + 3, 6 * 7 + 3}


def test_pikachu_jump_needs_empty_squares_up_to_and_after_the_piece():
    pos = position(with_pieces(r0c3="W", r3c3="b", r5c3="b"))
    jumps = {move.end for move in rules.legal_moves(pos) if move.captured is not None}
    assert jumps == {4 * 7 + 3}  # cannot pass the second piece: one jump per move


def test_pikachu_cannot_jump_its_own_piece():
    pos = position(with_pieces(r0c3="W", r3c3="w"))
    assert max(destinations(pos, 3)) < 3 * 7 + 3


def test_pichu_reaching_the_far_row_becomes_a_pikachu_by_step_or_jump():
    step = position(with_pieces(r5c3="w"))
    assert rules.play(step, Move(5 * 7 + 3, 6 * 7 + 3)).board[6 * 7 + 3] == "W"
    jump = position(with_pieces(r1c3="b", r0c3="."), "b")
    assert rules.play(jump, Move(7 + 3, 3)).board[3] == "B"
    over = position(with_pieces(r4c3="w", r5c3="b"))
    assert rules.play(over, Move(4 * 7 + 3, 6 * 7 + 3, 5 * 7 + 3)).board[6 * 7 + 3] == "W"


def test_capturing_is_never_forced():
    pos = position(with_pieces(r3c3="w", r4c3="b"))
    assert any(not move.is_capture for move in rules.legal_moves(pos))


def test_one_jump_per_move_then_the_turn_passes():
    pos = position(with_pieces(r1c3="w", r2c3="b", r4c3="b"))
    after = rules.play(pos, Move(7 + 3, 3 * 7 + 3, 2 * 7 + 3))
    assert after.player == "b" and after.board[4 * 7 + 3] == "b"


def test_capturing_every_opposing_piece_wins():
    pos = position(with_pieces(r3c3="w", r4c3="b"))
    after = rules.play(pos, Move(24, 5 * 7 + 3, 4 * 7 + 3))
    assert rules.winner(after) == "w"


def test_a_player_with_no_legal_move_loses():
    # a black Pichu on row 1 cannot go forward; right is blocked by a wall of two white Pichus
    stuck = rules.parse(7, "bww" + "." * 46, "b")
    assert rules.legal_moves(stuck) == []
    assert rules.winner(stuck) == "w"
    free = rules.parse(7, "bw." + "." * 46, "b")
    assert rules.legal_moves(free) == [Move(0, 2, 1)] and rules.winner(free) is None


def test_successors_are_exactly_the_legal_moves_boards():
    start = rules.start_position(7)
    boards = rules.successors(start)
    assert len(boards) == len(rules.legal_moves(start)) == 7
    assert all(rules.is_legal_successor(start, board) for board in boards)
    assert not rules.is_legal_successor(start, start.board)


def test_parse_rejects_bad_sizes_characters_and_players():
    for n, board, player in [(6, "." * 36, "w"), (7, "." * 48, "w"), (7, "x" * 49, "w"),
                             (7, "." * 49, "x")]:
        try:
            rules.parse(n, board, player)
        except ValueError as error:
            assert str(error)
        else:
            raise AssertionError(f"accepted {n} {player}")


def test_the_quick_players_gain_is_the_change_in_material_it_computes_from_scratch():
    import random

    from aviary.games.pikachu import quick

    rng = random.Random(3)
    for _ in range(30):
        position = rules.start_position(8)
        for _ in range(rng.randrange(0, 40)):
            moves = rules.legal_moves(position)
            if not moves:
                break
            position = rules.play(position, rng.choice(moves))
        me, them = position.player, rules.opponent(position.player)
        before = quick.material(position, me) - quick.material(position, them)
        for move in rules.legal_moves(position):
            after = rules.play(position, move)
            expected = quick.material(after, me) - quick.material(after, them) - before
            assert abs(quick.gain(position, move) - expected) < 1e-9
