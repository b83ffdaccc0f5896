"""Engine and textbook opponent sanity: legal moves everywhere, tactics a strong player never
misses."""

import random
from functools import cache

import pytest

from aviary.errors import NoMoveError
from aviary.games import registry
from aviary.games.pikachu import engine, rules
from aviary.search import alphabeta
from aviary.search.clock import Limit


@cache
def main_engine(n: int):
    """The engine (`aviary:engine`) of the n x n game, as the registry keeps it."""
    return registry.spec("pikachu").engine("engine", rules.Pikachu(n=n))


@cache
def textbook(n: int):
    """The textbook opponent (`aviary:textbook`) of the n x n game."""
    return engine.make_textbook(rules.Pikachu(n=n))


def wins_within(position: rules.Position, plies: int) -> bool:
    """Brute force from rules.py: can the side to move force a win within `plies`?"""
    for move in rules.legal_moves(position):
        after = rules.play(position, move)
        if rules.winner(after) == position.player:
            return True
        if plies >= 3:
            replies = rules.legal_moves(after)
            if replies and all(wins_within(rules.play(after, r), plies - 2) for r in replies):
                return True
    return False


def test_engine_takes_the_winning_capture():
    # white Pikachu can jump black's last piece; a Pichu push elsewhere would not win
    board = "W..b..." + "......." + "w......" + "." * 28
    position = rules.parse(7, board, "w")
    move = main_engine(position.n).best_move(position, depth=3)
    assert rules.winner(rules.play(position, move)) == "w"


def test_engine_avoids_a_one_move_loss():
    # white's only Pichu stands on the row of a black Pikachu: only stepping forward survives
    board = "." * 21 + "B..w..." + "." * 21
    position = rules.parse(7, board, "w")
    move = main_engine(position.n).best_move(position, depth=4)
    assert move == rules.Move(3 * 7 + 3, 4 * 7 + 3)


def test_engine_finds_a_forced_win_in_3_plies():
    board = ".bW...bw" + "." * 30 + "w" + "." * 10
    position = rules.parse(7, board, "w")
    assert wins_within(position, 3) and not wins_within(position, 1)
    reports = list(main_engine(position.n).think(position, Limit(depth=6)))
    assert reports[-1].mate_in == 3
    after = rules.play(position, reports[-1].move)
    assert all(wins_within(rules.play(after, reply), 1) for reply in rules.legal_moves(after))


def test_think_reports_each_depth_with_a_legal_board_and_principal_variation():
    position = rules.start_position(8)
    reports = list(main_engine(position.n).think(position, Limit(depth=5)))
    assert [report.depth for report in reports] == [1, 2, 3, 4, 5]
    for report in reports:
        assert rules.is_legal_successor(position, report.answer)
        assert report.pv[0] == report.move and report.nodes > 0
        line = position
        for move in report.pv:  # the principal variation is a legal line
            assert move in rules.legal_moves(line)
            line = rules.play(line, move)


def test_think_stops_at_the_node_limit_with_the_last_completed_depth():
    player = main_engine(10)
    position = rules.start_position(10)
    reports = list(player.think(position, Limit(nodes=3000)))
    depths = [report.depth for report in reports]
    assert len(depths) >= 2 and depths == list(range(1, len(depths) + 1))
    # every reported depth was completed within the limit (polled every 1024 nodes) ...
    assert all(report.nodes < 3000 + 1024 for report in reports)
    # ... and the next depth was started, ran into the limit and was thrown away
    ctx = player.workspace(position).ctx
    assert ctx[alphabeta.ABORTED] == 1 and ctx[alphabeta.NODES] >= 3000
    assert reports[-1].move in rules.legal_moves(position)


@pytest.mark.parametrize("n", [7, 9, 12, 16, 33])
def test_engine_and_textbook_return_legal_moves_for_every_board_size(n):
    position = rules.start_position(n)
    for _ in range(6):  # a few plies in, for both colours
        move = main_engine(position.n).best_move(position, depth=2)
        assert move in rules.legal_moves(position)
        assert textbook(n).best_move(position, depth=2) in rules.legal_moves(position)
        position = rules.play(position, move)


@pytest.mark.parametrize("seed", [5, 8])
def test_engine_and_textbook_play_legal_games_to_the_end(seed):
    chooser = random.Random(seed)
    position = rules.start_position(7)
    for ply in range(400):
        if rules.winner(position):
            break
        if ply < 4:
            move = chooser.choice(rules.legal_moves(position))
        elif position.player == "w":
            move = main_engine(position.n).best_move(position, depth=3)
        else:
            move = textbook(7).best_move(position, depth=2)
        assert move in rules.legal_moves(position)
        position = rules.play(position, move)
    assert rules.winner(position) == "w", f"no win for the engine after {ply} plies"


def test_textbook_with_a_time_limit_returns_a_legal_move():
    position = rules.start_position(8)
    assert textbook(8).best_move(position, time=0.05) in rules.legal_moves(position)


def test_best_move_raises_when_there_is_no_legal_move():
    stuck = rules.parse(7, "bww" + "." * 46, "b")
    for player in (main_engine(7).best_move, textbook(7).best_move):
        with pytest.raises(NoMoveError):
            player(stuck, depth=2)


def test_quick_player_takes_the_winning_capture_and_avoids_a_hanging_step():
    from aviary.games.pikachu import quick

    win = rules.parse(7, "W..b..." + "......." + "w......" + "." * 28, "w")
    assert rules.winner(rules.play(win, quick.best_move(win))) == "w"
    hang = rules.parse(7, "." * 21 + "B..w..." + "." * 21, "w")
    assert quick.best_move(hang) == rules.Move(3 * 7 + 3, 4 * 7 + 3)
