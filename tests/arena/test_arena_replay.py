"""A game depends on its own seed alone: the in-process players forget their earlier games.

Every in-process player searches with tables of its own, and before each game the arena
tells it `new_game(seed)`: a search drops its transposition table and move-ordering
history, and a player that draws random moves (`aviary:random`, a ladder level's share)
draws them from the tournament's `--seed`, the game and the seat. So a ladder level
plays a game the same whichever games its worker played before, and the same `--seed`
replays a tournament.
"""

import sqlite3
import subprocess
import sys

import numpy as np

from aviary.arena.players import PlayerSpec, build_engine, make_player
from aviary.arena.referee import GameRecord, play_game
from aviary.games import registry
from aviary.search.clock import Limit

LEVEL = "aviary:engine?nodes=400&random=0.3"  # a ladder level's form: a budget, a share


def moves_of(game, players, seed: str, plies: int = 40) -> list[str]:
    start = game.start()
    record = play_game(game, players, start, 30.0, plies, GameRecord(0, "a", "b", ""),
                       seed=seed)
    return [move.state for move in record.moves]


def test_a_level_plays_the_game_of_a_seed_again_after_other_games():
    game = registry.make("pikachu", n=7)
    players = (make_player(PlayerSpec("level", LEVEL), game, 1.0, None),
               make_player(PlayerSpec("random", "aviary:random"), game, 1.0, None))
    first = moves_of(game, players, "7:0")
    others = [moves_of(game, players, f"7:{index}") for index in (1, 2, 3)]
    assert moves_of(game, players, "7:0") == first
    assert all(other != first for other in others)  # each seed its own game


def test_a_new_game_empties_the_search_tables():
    game = registry.make("pikachu", n=7)
    player = registry.spec("pikachu").engine("engine", game)
    list(player.think(game.start(), Limit(depth=4)))
    assert np.any(player.workspace(game.start()).tt)
    player.new_game()
    assert not np.any(player.workspace(game.start()).tt)


def test_two_players_of_one_engine_search_with_tables_of_their_own():
    # a ladder calibration's game is one engine against itself at two shares of random
    # moves: neither may read what the other's search stored
    game = registry.make("pikachu", n=7)
    first = build_engine("aviary:engine?nodes=400", game)  # no random share: it searches
    second = build_engine("aviary:engine?nodes=2000", game)
    before = second.player.workspace(game.start()).tt.copy()
    first.new_game()
    first(game.start(), 30.0)
    assert np.any(first.player.workspace(game.start()).tt)
    assert np.array_equal(second.player.workspace(game.start()).tt, before)


def test_random_moves_are_drawn_per_game_and_seat_and_own_seed():
    game = registry.make("betsy")
    state = game.start()
    plain, seeded = build_engine("aviary:random", game), build_engine("aviary:random?seed=3", game)

    def answers(engine, seed: str) -> list[str]:
        engine.new_game(seed)
        return [engine(state, 1.0) for _ in range(12)]

    assert answers(plain, "1:0:0") == answers(plain, "1:0:0")
    assert answers(plain, "1:0:0") != answers(plain, "1:0:1")
    assert answers(seeded, "1:0:0") != answers(plain, "1:0:0")


def arena_moves(tmp_path, name: str, seed: int, jobs: int) -> list[tuple[int, str]]:
    db = tmp_path / f"{name}.sqlite"
    result = subprocess.run(
        [sys.executable, "-m", "aviary", "arena", "run", "--n", "7", "--time", "5",
         "--games", "4", "--max-plies", "30", "--seed", str(seed), "--jobs", str(jobs),
         "--db", str(db), f"level={LEVEL}", "random=aviary:random"],
        capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    with sqlite3.connect(db) as connection:
        return connection.execute("SELECT game, state FROM moves ORDER BY game, ply").fetchall()


def test_the_same_seed_replays_a_tournament_on_any_number_of_workers(tmp_path):
    one_worker = arena_moves(tmp_path, "a", 5, jobs=1)
    assert len(one_worker) > 4 * 10
    assert arena_moves(tmp_path, "b", 5, jobs=2) == one_worker
    assert arena_moves(tmp_path, "c", 6, jobs=1) != one_worker
