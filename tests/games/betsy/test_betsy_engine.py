"""Engine, textbook opponent and quick player: legal moves everywhere, no Kingfisher tactic
missed."""

import random

import pytest

from aviary.errors import NoMoveError
from aviary.games.betsy import engine, quick, rules
from aviary.search import alphabeta
from aviary.search.clock import Limit

GAMES = {diagonal: rules.Betsy(kingfisher="diagonal" if diagonal else "orthogonal")
         for diagonal in (False, True)}
ENGINES = {diagonal: engine.make_engine(game) for diagonal, game in GAMES.items()}
TEXTBOOK = {diagonal: engine.make_textbook(game) for diagonal, game in GAMES.items()}
# the engine with null-move pruning switched the other way from the default
SWITCHED = {diagonal: engine.make_engine(game, null_move=not engine.NULL_MOVE)
            for diagonal, game in GAMES.items()}


def square(name: str) -> int:
    return 8 * (int(name[1]) - 1) + "abcdefgh".index(name[0])


def board_with(**placed: str) -> str:
    cells = ["."] * 64
    for name, piece in placed.items():
        cells[square(name)] = piece
    return "".join(cells)


# white to move: black's Kingfisher on e8 hangs to the Robin on e2; white's own is safe
HANGING = board_with(a1="K", e2="R", e8="k", h7="p", a7="p", b8="q")
# white to move: black's Robin on d8 attacks white's Kingfisher on d1 (and nothing else matters)
ATTACKED = board_with(d1="K", d8="r", h8="k", a2="P", h2="P", g7="p")


@pytest.mark.parametrize("diagonal", [False, True])
def test_engine_takes_a_hanging_kingfisher(diagonal):
    position = rules.parse(HANGING, "w", diagonal)
    for depth in (1, 4, 7):
        for player in (ENGINES[diagonal], SWITCHED[diagonal]):  # null move on and off
            move = player.best_move(position, depth=depth)
            assert rules.winner(rules.play(position, move)) == "w"
    assert TEXTBOOK[diagonal].best_move(position, depth=2) == rules.Move(square("e2"), square("e8"))
    assert quick.best_move(position) == rules.Move(square("e2"), square("e8"))


@pytest.mark.parametrize("diagonal", [False, True])
def test_engine_saves_its_own_kingfisher(diagonal):
    position = rules.parse(ATTACKED, "w", diagonal)
    for player in (lambda p: ENGINES[diagonal].best_move(p, depth=4),
                   lambda p: SWITCHED[diagonal].best_move(p, depth=4),
                   lambda p: SWITCHED[diagonal].best_move(p, depth=7),
                   lambda p: TEXTBOOK[diagonal].best_move(p, depth=3), quick.best_move):
        after = rules.play(position, player(position))
        # whatever black replies, white's Kingfisher is still on the board
        assert all(rules.winner(rules.play(after, r)) is None for r in rules.legal_moves(after))


def test_the_engine_sees_a_win_as_a_win():
    position = rules.parse(HANGING, "w")
    for player in (ENGINES[False], SWITCHED[False]):
        report = list(player.think(position, Limit(depth=3)))[-1]
        assert report.mate_in == 1


def wins_at_once(position: rules.Position) -> bool:
    return any(rules.winner(rules.play(position, m)) == position.player
               for m in rules.legal_moves(position))


def test_engine_finds_a_forced_kingfisher_capture_in_3_plies():
    # black's Kingfisher on h8 can only step to g8 (its Parakeet on h7 is blocked by h6):
    # a Robin on row 8 or the g-file wins in three plies
    board = board_with(a1="R", e1="K", h8="k", h7="p", h6="P")
    position = rules.parse(board, "w")
    assert not wins_at_once(position)
    for player in (ENGINES[False], SWITCHED[False]):  # null move on and off: the same score
        report = list(player.think(position, Limit(depth=5)))[-1]
        assert report.mate_in == 3
        after = rules.play(position, report.move)
        assert all(wins_at_once(rules.play(after, reply)) for reply in rules.legal_moves(after))


def middle_game(seed: int) -> rules.Position:
    chooser = random.Random(seed)
    position = rules.start_position()
    for _ in range(20):
        position = rules.play(position, chooser.choice(rules.legal_moves(position)))
    return position


@pytest.mark.parametrize("null_move", [False, True])
def test_null_move_runs_only_when_switched_on_and_cuts_in_a_middle_game(null_move):
    player = engine.make_engine(GAMES[False], null_move=null_move)
    position = middle_game(3)
    assert rules.winner(position) is None
    reports = list(player.think(position, Limit(depth=7)))
    assert reports[-1].move in rules.legal_moves(position)
    ctx = player.workspace(position).ctx
    assert ctx[alphabeta.NULL] == int(null_move)
    assert (ctx[alphabeta.NULL_CUTS] > 0) == null_move


def test_think_reports_each_depth_with_a_legal_board_and_principal_variation():
    position = rules.start_position()
    reports = list(ENGINES[False].think(position, Limit(depth=5)))
    assert [report.depth for report in reports] == [1, 2, 3, 4, 5]
    for report in reports:
        assert rules.is_legal_successor(position, report.answer)
        line = position
        for move in report.pv:
            assert move in rules.legal_moves(line)
            line = rules.play(line, move)


@pytest.mark.parametrize("diagonal", [False, True])
def test_engine_and_textbook_play_legal_games_to_the_end(diagonal):
    chooser = random.Random(5)
    position = rules.start_position(diagonal)
    for ply in range(160):
        if rules.winner(position):
            break
        if ply < 4:
            move = chooser.choice(rules.legal_moves(position))
        elif position.player == "w":
            move = ENGINES[diagonal].best_move(position, depth=3)
        else:
            move = TEXTBOOK[diagonal].best_move(position, depth=2)
        assert move in rules.legal_moves(position)
        position = rules.play(position, move)
    assert rules.winner(position) == "w", f"no win for the engine after {ply} plies"


def test_textbook_with_a_time_limit_returns_a_legal_move():
    position = rules.start_position(True)
    assert TEXTBOOK[True].best_move(position, time=0.05) in rules.legal_moves(position)


def test_best_move_raises_when_there_is_no_legal_move():
    stuck = rules.parse(board_with(a1="K", a2="P", b1="P", a3="p", b2="p", h8="k"), "w")
    for player in (ENGINES[False].best_move, TEXTBOOK[False].best_move):
        with pytest.raises(NoMoveError):
            player(stuck, depth=2)
    with pytest.raises(ValueError):
        quick.best_move(stuck)
