"""One test per IJK rule (issue 11), against rules.py (the readable truth)."""

import doctest
import random

import pytest

from aviary.games.base import CHANCE, IllegalMove
from aviary.games.ijk import rules
from aviary.games.ijk.rules import IJK, Position


def board(*rows: str) -> str:
    return "".join(rows)


def test_rules_doctests_pass():
    failures, tried = doctest.testmod(rules)
    assert tried > 0 and failures == 0


def test_merges_scan_from_the_leading_edge():
    # three equal tiles: the pair nearest the leading edge merges
    assert rules.slide_line(list("AAA..."), "+") == list("BA....")
    assert "".join(rules.slide_line(list("...AAA")[::-1], "+"))[:2] == "BA"
    after = rules.slide(board("AAA...", *["......"] * 5), "R", "+")
    assert after[:6] == "....AB"


def test_tiles_slide_before_and_after_merging():
    assert rules.slide_line(list(".A..A."), "+") == list("B.....")
    assert rules.slide_line(list("B.AA.C"), "+") == list("BBC...")


def test_no_chain_merge_in_one_move():
    # A A B: the As make a B, which does not merge with the B in the same move
    assert rules.slide_line(list("AAB..."), "+") == list("BB....")
    assert rules.slide_line(list("AAAA.."), "+") == list("BB....")


def test_same_case_merges_keep_their_case_whoever_moves():
    assert rules.slide_line(list("aa...."), "+") == list("b.....")
    assert rules.slide_line(list("CC...."), "-") == list("D.....")


def test_mixed_case_merge_goes_to_the_movers_case():
    assert rules.slide_line(list("Aa...."), "+") == list("B.....")
    assert rules.slide_line(list("Aa...."), "-") == list("b.....")
    assert rules.slide_line(list("jJ...."), "+") == list("K.....")


def test_different_letters_do_not_merge():
    assert rules.slide_line(list("AbB..."), "+") == list("AC....")


def test_a_move_that_changes_nothing_is_legal_and_passes_the_turn():
    game = IJK()
    start = game.start()  # A in the top-left corner: Up and Left change nothing
    assert game.legal_moves(start) == ["U", "D", "L", "R"]
    after = game.play(start, "U")
    assert after.player == "-"
    assert after.board == board("Aa....", *["......"] * 5)


def test_deterministic_placement_is_the_first_empty_cell_in_reading_order():
    game = IJK(mode="det")
    position = game.parse(board("AB....", "......", *["......"] * 4), "+")
    after = game.play(position, "R")
    assert after.board == board("a...AB", *["......"] * 5)
    assert game.to_move(after) == 1 and not after.chance
    after2 = game.play(after, "L")  # - merges a+A into b; the new A lands at cell 2
    assert after2.board == board("bBA...", *["......"] * 5)


def test_nondeterministic_placement_is_a_chance_node_over_the_empty_cells():
    game = IJK(mode="nondet")
    after = game.play(game.start(), "R")
    assert game.to_move(after) == CHANCE and game.is_chance(after)
    outcomes = game.chance_outcomes(after)
    assert [cell for cell, _ in outcomes] == list(range(5)) + list(range(6, 36))
    assert sum(p for _, p in outcomes) == pytest.approx(1.0)
    assert len({p for _, p in outcomes}) == 1
    placed = game.play(after, 7)
    assert placed.board[7] == "a" and game.to_move(placed) == 1
    drawn = {game.sample_chance(after, random.Random(seed)) for seed in range(40)}
    assert len(drawn) > 5 and all(after.board[cell] == "." for cell in drawn)


def test_course_game_ends_at_a_k_and_the_higher_highest_letter_wins():
    game = IJK()
    position = game.parse(board("JJ...c", *["......"] * 5), "+")
    after = game.play(position, "L")
    assert after.board[0] == "K" and "a" not in after.board  # no tile after the last move
    result = game.outcome(after)
    assert result is not None and result.winner == 0 and result.reason == "letter-k"
    assert game.legal_moves(after) == []


def test_course_game_ends_on_a_full_board_won_by_the_highest_letter():
    game = IJK()
    full = "AB" * 17 + "a."
    position = game.parse(full[:35].replace("A", "C", 1) + "b", "-")
    result = game.outcome(position)
    assert result is not None and result.winner == 0 and result.reason == "board-full"
    lower = game.parse("ab" * 17 + "dA", "+")
    assert game.outcome(lower) is not None and game.outcome(lower).winner == 1


def test_equal_highest_letters_are_a_tie():
    game = IJK()
    tied = game.parse("AB" * 17 + "ab", "+")
    result = game.outcome(tied)
    assert result is not None and result.winner is None and result.is_draw


def test_full_board_is_not_the_end_in_the_handout_variant():
    game = IJK(variant="handout")
    full = game.parse("ABCD" * 4, "+")
    assert game.outcome(full) is None
    assert game.legal_moves(full) == ["U", "D", "L", "R", "S"]


def test_a_dead_handout_board_is_a_tie():
    game = IJK(variant="handout")
    dead = game.parse("ABab" + "baBA" + "ABab" + "baBA", "+")  # no equal neighbours
    assert all(game.play(dead, move).board == dead.board for move in "UDLRS")
    result = game.outcome(dead)
    assert result is not None and result.winner is None and result.reason == "dead-board"
    live = game.parse("ABab" + "baBA" + "ABab" + "baBB", "+")
    assert game.outcome(live) is None


def test_handout_is_won_by_the_case_of_the_k():
    game = IJK(variant="handout")
    assert game.outcome(game.parse("k" + "." * 15, "+")).winner == 1
    assert game.outcome(game.parse("K" + "." * 15, "-")).winner == 0
    assert game.outcome(game.parse("Kk" + "." * 14, "-")).winner is None


def test_handout_skip_flips_the_tile_just_added_and_adds_none():
    game = IJK(variant="handout", mode="det")
    start = game.start()
    after = game.play(start, "R")  # + moves A right; a lands at cell 0 for -
    assert after.board == "a..A" + "." * 12 and after.last == 0
    skipped = game.play(after, "S")
    assert skipped.board == "A..A" + "." * 12  # the a became +'s A, no new tile
    assert skipped.player == "+" and skipped.last is None
    again = game.play(skipped, "S")  # nothing was added for +: nothing flips
    assert again.board == skipped.board and again.player == "-"


def test_skip_is_not_a_move_of_the_course_variant():
    game = IJK()
    with pytest.raises(IllegalMove):
        game.parse_move(game.start(), "S")


def test_parse_rejects_wrong_sizes_letters_and_players():
    game = IJK()
    with pytest.raises(ValueError, match="36"):
        game.parse("A" * 16, "+")
    with pytest.raises(ValueError, match="L"):
        game.parse("L" + "." * 35, "+")
    with pytest.raises(ValueError, match="PLAYER"):
        game.parse("." * 36, "x")


def test_course_command_line_round_trips():
    game = IJK(variant="handout", mode="nondet")
    position = game.parse("aB" + "." * 14, "-")
    args = game.command_args(position, 0.5)
    assert args == ["-", "aB" + "." * 14, "nondet", "0.5", "--variant", "handout"]
    parsed_game, parsed, seconds = IJK.parse_course(args)
    assert parsed_game.settings == game.settings and parsed == position and seconds == 0.5
    with pytest.raises(ValueError, match="MODE"):
        IJK.parse_course(["+", "." * 36, "maybe", "1"])


def test_encode_keeps_chance_and_last():
    game = IJK(variant="handout", mode="nondet")
    chance = game.play(game.start(), "D")
    assert game.decode(game.encode(chance)) == chance
    placed = game.play(chance, 3)
    assert placed.last == 3 and game.decode(game.encode(placed)) == placed


def test_answer_is_the_move_letter():
    game = IJK()
    assert game.answers(game.start()) == {"U": "U", "D": "D", "L": "L", "R": "R"}


def test_random_games_end_with_an_outcome():
    for variant in ("course", "handout"):
        for mode in ("det", "nondet"):
            game = IJK(variant=variant, mode=mode)
            rng = random.Random(3)
            state: Position = game.start()
            for _ in range(3000):
                if game.outcome(state) is not None:
                    break
                if game.is_chance(state):
                    state = game.play(state, game.sample_chance(state, rng))
                else:
                    state = game.play(state, rng.choice(game.legal_moves(state)))
            ended = game.outcome(state)
            assert ended is not None, f"{variant} {mode}: no outcome after 3000 plies"
            assert ended.winner in (0, 1, None) and ended.reason
            assert game.legal_moves(state) == []
