"""aviary's own Pikachu players in the arena: in-process engines and the course command line."""

import importlib.util
import sys

import pytest

from aviary.arena.games import make_game
from aviary.arena.players import make_player, parse_specs
from aviary.arena.referee import GameRecord, play_game

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("aviary.games.pikachu.engine") is None,
    reason="the Pikachu engine is not built yet",
)


def play(specs: list[str], seconds: float, max_plies: int, n: int = 7) -> GameRecord:
    game = make_game("pikachu", {"n": str(n)})
    first, second = parse_specs(specs)
    players = (make_player(first, game, 0.5, None), make_player(second, game, 0.5, None))
    record = GameRecord(slot=0, first=first.name, second=second.name, opening="")
    return play_game(game, players, game.start(), seconds, max_plies, record)


def test_in_process_engine_and_textbook_play_legal_games_at_fixed_depth():
    record = play(["aviary:pikachu?depth=2", "aviary:textbook?depth=2"], seconds=5, max_plies=8)
    assert record.reason in ("ply-limit", "captured-all", "no-move")
    assert len(record.moves) == 8 or record.reason != "ply-limit"


def test_in_process_engine_with_a_time_setting_answers_within_it():
    record = play(["aviary:pikachu?time=0.2", "aviary:random?seed=4"], seconds=2, max_plies=4)
    engine_moves = [move for move in record.moves if move.mover == 0]
    assert record.reason == "ply-limit" and len(engine_moves) == 2
    assert all(move.seconds < 1.0 for move in engine_moves)


def test_the_course_command_line_plays_as_an_external_program():
    record = play([f"{sys.executable} -m aviary pikachu", "aviary:random?seed=2"],
                  seconds=1, max_plies=4, n=8)
    assert (record.reason, len(record.moves)) == ("ply-limit", 4), record.detail
    assert all(move.seconds < 1.0 for move in record.moves if move.mover == 0)
