"""One test per Betsy rule (docs/games/betsy.md), against rules.py (the readable truth)."""

import doctest

import pytest

from aviary.games.betsy import rules
from aviary.games.betsy.rules import Move, Position


def board_with(**placed: str) -> str:
    """An empty board with pieces at keys like e2='P' (a1 = square 0, row 1 = white's side)."""
    cells = ["."] * 64
    for name, piece in placed.items():
        cells[square(name)] = piece
    return "".join(cells)


def square(name: str) -> int:
    return 8 * (int(name[1]) - 1) + "abcdefgh".index(name[0])


def position(player: str = "w", diagonal: bool = False, **placed: str) -> Position:
    """Both Kingfishers far away in the corners unless placed, so the game is on."""
    placed = {"a1": "K", "h8": "k", **placed}
    return rules.parse(board_with(**placed), player, diagonal)


def destinations(pos: Position, start: str) -> set[str]:
    names = {square(n): n for n in (f"{c}{r}" for c in "abcdefgh" for r in range(1, 9))}
    return {names[m.end] for m in rules.legal_moves(pos) if m.start == square(start)}


def test_rules_doctests_pass():
    failures, tried = doctest.testmod(rules)
    assert tried > 0 and failures == 0


def test_start_is_the_course_string_white_on_top_and_moving_first():
    start = rules.start_position()
    assert start.board == "RNBQKBNRPPPPPPPP" + "." * 32 + "pppppppprnbqkbnr"
    assert start.player == "w"
    assert all(rules.owner(start.board[m.start]) == "w" for m in rules.legal_moves(start))


@pytest.mark.parametrize(
    "diagonal, expected", [(True, [20, 400, 8902]), (False, [20, 400, 8822])]
)
def test_perft_from_the_start_matches_the_independent_numbers(diagonal, expected):
    start = rules.start_position(diagonal)
    assert [rules.Betsy().perft(start, depth) for depth in (1, 2, 3)] == expected


def test_parakeet_steps_one_forward_or_two_from_its_start_row():
    assert destinations(position(e2="P"), "e2") == {"e3", "e4"}
    assert destinations(position("b", e7="p"), "e7") == {"e6", "e5"}


def test_parakeet_steps_two_only_from_its_start_row():
    assert destinations(position(e3="P"), "e3") == {"e4"}
    assert destinations(position("b", e6="p"), "e6") == {"e5"}


def test_parakeet_steps_two_only_through_an_empty_square():
    assert destinations(position(e2="P", e3="n"), "e2") == set()
    assert destinations(position(e2="P", e4="n"), "e2") == {"e3"}


def test_parakeet_never_captures_straight_ahead():
    assert destinations(position(e4="P", e5="p"), "e4") == set()


def test_parakeet_captures_only_diagonally_forward():
    pos = position(e4="P", d5="n", f5="r", d3="b", f3="q")
    assert destinations(pos, "e4") == {"e5", "d5", "f5"}
    black = position("b", e5="p", d4="N", f6="R")
    assert destinations(black, "e5") == {"e4", "d4"}


def test_parakeet_does_not_capture_its_own_side():
    assert destinations(position(e4="P", d5="N"), "e4") == {"e5"}


def test_parakeet_becomes_a_quetzal_on_the_far_row():
    after = rules.play(position(e7="P"), Move(square("e7"), square("e8")))
    assert after.board[square("e8")] == "Q"
    black = rules.play(position("b", d2="p", c1="R"), Move(square("d2"), square("c1")))
    assert black.board[square("c1")] == "q"


def test_robin_nighthawk_blue_jay_and_quetzal_move_as_in_chess():
    assert destinations(position(d4="R", d6="p", b4="P"), "d4") == {
        "d5", "d6", "d3", "d2", "d1", "c4", "e4", "f4", "g4", "h4"}
    assert destinations(position(b1="N"), "b1") == {"a3", "c3", "d2"}
    assert destinations(position(c1="B", e3="p"), "c1") == {"b2", "a3", "d2", "e3"}
    quetzal = destinations(position(d1="Q"), "d1")
    assert {"d8", "h5", "b1", "a4"} <= quetzal and len(quetzal) == 7 + 3 + 4 + 3 + 4 - 1


def test_kingfisher_steps_orthogonally_by_default():
    assert destinations(position(a1=".", e4="K"), "e4") == {"e5", "e3", "d4", "f4"}


def test_kingfisher_variant_also_steps_diagonally():
    assert destinations(position(diagonal=True, a1=".", e4="K"), "e4") == {
        "e5", "e3", "d4", "f4", "d5", "f5", "d3", "f3"}


def test_the_game_is_won_by_capturing_the_kingfisher():
    pos = position(e4="R", e7="k", h8=".")
    take = Move(square("e4"), square("e7"))
    assert take in rules.legal_moves(pos)
    after = rules.play(pos, take)
    assert rules.winner(after) == "w" and rules.legal_moves(after) == []
    game = rules.Betsy()
    assert game.outcome(after) is not None and game.outcome(after).winner == 0


def test_no_check_a_kingfisher_may_step_into_attack():
    pos = position(e4="K", a1=".", e6="r")
    assert "e5" in destinations(pos, "e4")


def test_a_player_with_no_legal_move_loses():
    # white: only a Kingfisher boxed in by its own Parakeets, which are blocked
    pos = position(a1="K", a2="P", b1="P", a3="p", b2="p")
    assert rules.legal_moves(pos) == []
    assert rules.winner(pos) == "b"


def test_no_castling_and_no_en_passant():
    castle = position(a1=".", e1="K", h1="R")
    assert destinations(castle, "e1") == {"d1", "f1", "e2"}
    passing = rules.play(position("b", e5="P", d7="p"), Move(square("d7"), square("d5")))
    assert destinations(passing, "e5") == {"e6"}


def test_bad_boards_are_refused_with_a_reason():
    for board, player in [
        (rules.START[:-1], "w"),
        (rules.START[:-1] + "x", "w"),
        (rules.START, "white"),
        ("KK" + rules.START[2:], "w"),
    ]:
        with pytest.raises(ValueError):
            rules.parse(board, player)


def test_move_text_is_from_and_to_square():
    game = rules.Betsy()
    start = game.start()
    move = game.parse_move(start, "e2e4")
    assert move == Move(square("e2"), square("e4"))
    assert game.move_text(start, move) == "e2e4"
    assert game.format(game.play(start, move))[square("e4")] == "P"


def test_option_kingfisher_chooses_the_variant():
    assert not rules.Betsy().diagonal
    assert rules.Betsy(kingfisher="diagonal").start().diagonal
    game, state, seconds = rules.Betsy.parse_course(["b", rules.START, "2", "--kingfisher",
                                                     "diagonal"])
    assert game.diagonal and state.diagonal and state.player == "b" and seconds == 2
    with pytest.raises(ValueError):
        rules.Betsy.parse_course(["w", rules.START, "1", "--kingfisher", "knight"])
