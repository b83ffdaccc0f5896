"""OpenSpiel's players: its MCTSBot on our games through pyspiel, and as aviary players.

`aviary:mcts` and `aviary:openspiel-ab` are built the way the arena builds them
(`build_engine`) and must answer legal moves in every game; an MCTS with a time
setting must stop at its clock; bad settings are one clear UsageError.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel is not installed "
                                                "(pip install 'aviary[openspiel]')")

import numpy as np  # noqa: E402
from open_spiel.python.algorithms import mcts  # noqa: E402

import aviary.openspiel  # noqa: E402, F401  (registers the games)
from aviary.arena.games import make_game  # noqa: E402
from aviary.arena.players import build_engine  # noqa: E402
from aviary.errors import UsageError  # noqa: E402
from aviary.games import registry  # noqa: E402

SPECS = registry.board_games()
NAMES = [spec.name for spec in SPECS]
BIN = Path(sys.executable).parent


@pytest.mark.parametrize("name", NAMES)
def test_openspiels_mcts_bot_plays_a_uniform_random_bot_to_the_end(name):
    game = pyspiel.load_game(f"aviary_{name}(max_plies=80)")
    rng = np.random.RandomState(3)
    bots = [mcts.MCTSBot(game, 2, 8, mcts.RandomRolloutEvaluator(1, rng), random_state=rng),
            pyspiel.make_uniform_random_bot(1, 5)]
    state = game.new_initial_state()
    chance = random.Random(4)
    while not state.is_terminal():
        if state.is_chance_node():
            actions, weights = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(chance.choices(actions, weights)[0])
            continue
        action = bots[state.current_player()].step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
    assert state.returns() in ([1.0, -1.0], [-1.0, 1.0], [0.0, 0.0])
    assert 0 < state.plies <= 80
    returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, 7)
    assert returns in ([1.0, -1.0], [-1.0, 1.0], [0.0, 0.0])


def configurations() -> list[tuple[str, dict[str, str]]]:
    """Each game at its defaults, then with each text or yes/no option's other values."""
    found: list[tuple[str, dict[str, str]]] = []
    for spec in SPECS:
        found.append((spec.name, {}))
        for option in spec.game_class().options:
            if isinstance(option.default, bool):
                found.append((spec.name, {option.name: str(not option.default).lower()}))
            found += [(spec.name, {option.name: value})
                      for value in option.choices if value != option.default]
    return found


@pytest.mark.parametrize("name, options", configurations(),
                         ids=[f"{n}-{o}" for n, o in configurations()])
def test_mcts_and_alpha_beta_answer_legal_moves_in_the_arena(name, options):
    game = make_game(name, options)
    rng = random.Random(5)
    state = game.opening(rng, 3)
    if game.is_chance(state):
        state = game.play(state, game.sample_chance(state, rng))
    engine = build_engine("aviary:mcts?sims=6&seed=2&uct=1.4&rollouts=2", game)
    assert engine(state, 5.0, ()) in game.answers(state)
    if game.chance_count() == 0:
        engine = build_engine("aviary:openspiel-ab?depth=2", game)
        assert engine(state, 5.0, ()) in game.answers(state)
    else:
        with pytest.raises(UsageError, match="for games without chance.*has chance nodes"):
            build_engine("aviary:openspiel-ab?depth=2", game)


def test_mcts_with_a_time_setting_stops_at_its_clock():
    game = make_game("betsy", {})
    engine = build_engine("aviary:mcts?time=0.3&seed=1", game)
    player = engine  # the arena's engine is the player itself
    start = time.monotonic()
    line = engine(game.start(), 30.0, ())  # the setting, not the arena's 30 s, is the clock
    used = time.monotonic() - start
    assert line in game.answers(game.start())
    assert used < 0.3 + 1.0  # generous: the machine may be busy; 30 s would be far past it
    assert 0 < player.bot.simulations < 10 ** 9
    assert player.note in (f"{player.bot.simulations} simulations",
                           "fallback: a random move, no simulation reached a move in time")


def test_mcts_with_a_simulation_count_replays_a_game_from_its_seed():
    # the arena tells each player `new_game(seed)` (tournament seed, game, seat): MCTS
    # bound by simulations, not seconds, then plays the same game again on any worker
    from aviary.arena.players import PlayerSpec, make_player
    from aviary.arena.referee import GameRecord, play_game

    game = make_game("betsy", {})
    players = tuple(make_player(PlayerSpec(name, "aviary:mcts?sims=6"), game, 30.0, None)
                    for name in ("a", "b"))

    def moves(seed: str) -> list[str]:
        record = play_game(game, players, game.start(), 30.0, 10, GameRecord(0, "a", "b", ""),
                           seed=seed)
        return [move.state for move in record.moves]

    first = moves("4:0")
    moves("4:1")  # another game between: it must not shift the draws of the next
    assert moves("4:0") == first
    assert moves("4:2") != first and moves("4:3") != first


def test_mcts_out_of_time_before_a_move_was_searched_answers_a_random_legal_move():
    game = make_game("pikachu", {})
    player = registry.player("mcts", game, {"time": "0.0001", "seed": "3"})
    move = player.best_move(game.start())
    assert move in game.legal_moves(game.start())
    assert player.bot.fallback and player.bot.simulations == 1
    assert player.note.startswith("fallback")


def test_alpha_beta_deepens_to_the_clock_and_finds_a_win_in_one():
    game = make_game("betsy", {})
    # white's Robin on a1 takes the black Kingfisher on a8 up the open file
    board = "R" + "." * 3 + "K" + "." * 51 + "k" + "." * 7
    state = game.parse(board, "w")
    player = registry.player("openspiel-ab", game, {"time": "0.5"})
    move = player.best_move(state)
    assert game.move_text(state, move) == "a1a8"
    assert player.reached >= 1


@pytest.mark.parametrize("spec, message", [
    ("aviary:mcts?sims=0", "sims= must be a whole number of at least 1"),
    ("aviary:mcts?time=-1", "time= must be a number of seconds above 0"),
    ("aviary:mcts?time=1_0", "time= must be a number of seconds above 0"),
    ("aviary:mcts?time=1&sims=5", "give time= or sims=, not both"),
    ("aviary:mcts?uct=abc", "uct= must be a number"),
    ("aviary:mcts?depth=3", "aviary:mcts takes time=, sims=, uct=, rollouts=, seed=, not depth="),
    ("aviary:openspiel-ab?depth=x", "depth= must be a whole number"),
])
def test_bad_settings_are_one_clear_usage_error(spec, message):
    with pytest.raises(UsageError, match=message.replace("?", r"\?")):
        build_engine(spec, make_game("foxgeese", {}))


def test_an_arena_match_and_a_watched_game_run_with_openspiels_players(tmp_path):
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    db = tmp_path / "os.sqlite"
    run = subprocess.run(
        [str(BIN / "aviary"), "arena", "run", "--game", "foxgeese", "--games", "2",
         "--jobs", "1", "--time", "2", "--max-plies", "6", "--db", str(db),
         "aviary:openspiel-ab?depth=1", "aviary:mcts?sims=4"],
        capture_output=True, text=True, timeout=300, env=env)
    assert run.returncode == 0, run.stderr
    assert "game 2:" in run.stdout and "1/2-1/2 (ply-limit" in run.stdout
    for failure in ("crash", "timeout", "illegal", "forfeit:"):
        assert failure not in run.stdout.lower().replace("forfeits", "")
    assert db.exists() and db.stat().st_size > 0
    watch = subprocess.run(
        [str(BIN / "aviary"), "play", "betsy", "--human", "none", "--engine", "mcts?sims=3",
         "--max-plies", "2"], capture_output=True, text=True, timeout=120, env=env,
        stdin=subprocess.DEVNULL)
    assert watch.returncode == 0, watch.stderr
    assert watch.stdout.count("engine (") == 2
    assert watch.stdout.count("3 simulations  value") == 2  # not `depth 1 score +0 nodes 0`
    bad = subprocess.run(
        [str(BIN / "aviary"), "play", "ijk", "--option", "mode=nondet", "--human", "none",
         "--engine", "openspiel-ab"], capture_output=True, text=True, timeout=120, env=env)
    assert bad.returncode == 2 and "has chance nodes" in bad.stderr and not bad.stdout
    assert "Traceback" not in bad.stderr


def test_without_openspiel_the_players_are_refused_in_one_line(tmp_path):
    """As on a machine without the extra: the import of pyspiel fails."""
    script = ("import sys; sys.modules['pyspiel'] = None\n"
              "from aviary.cli import main\n"
              "sys.exit(main(sys.argv[1:]))\n")
    run = subprocess.run(
        [sys.executable, "-c", script, "arena", "run", "--game", "betsy", "--games", "2",
         "--db", str(tmp_path / "none.sqlite"), "aviary:mcts?time=1", "aviary:random"],
        capture_output=True, text=True, timeout=120)
    assert run.returncode == 2
    assert "aviary:mcts is not available" in run.stderr
    assert "pip install 'aviary[openspiel]'" in run.stderr and "Traceback" not in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1
