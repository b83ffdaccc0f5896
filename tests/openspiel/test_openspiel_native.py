"""OpenSpiel's own games as aviary games (`--game openspiel:NAME`): the adapter against
pyspiel, and real arena runs and `aviary play` sessions through it.
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel is not installed "
                                                "(pip install 'aviary[openspiel]')")

from aviary.arena.games import make_game  # noqa: E402
from aviary.arena.players import build_engine  # noqa: E402
from aviary.arena.store import Store  # noqa: E402
from aviary.errors import UsageError  # noqa: E402
from aviary.games import registry  # noqa: E402
from aviary.games.base import CHANCE, IllegalMove, OptionError  # noqa: E402
from aviary.games.match import Match  # noqa: E402

BIN = Path(sys.executable).parent
ENV = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}


def _aviary(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(BIN / "aviary"), *args], capture_output=True, text=True,
                          timeout=timeout, env=ENV, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("name", ["tic_tac_toe", "connect_four", "pig", "breakthrough"])
def test_random_games_follow_openspiel_move_by_move(name):
    """Moves, chance outcomes, notation, results and the stored text, against pyspiel."""
    game = make_game(f"openspiel:{name}", {"rows": "5"} if name == "connect_four" else {})
    spiel = pyspiel.load_game(name, {"rows": 5} if name == "connect_four" else {})
    rng = random.Random(2)
    for _ in range(3):
        state, mirror = game.start(), spiel.new_initial_state()
        while game.outcome(state) is None and len(state.history) < 300:
            if mirror.is_chance_node():
                assert game.to_move(state) == CHANCE
                assert game.chance_outcomes(state) == mirror.chance_outcomes()
                move = game.sample_chance(state, rng)
            else:
                assert game.to_move(state) == mirror.current_player()
                assert game.legal_moves(state) == mirror.legal_actions()
                move = rng.choice(game.legal_moves(state))
                text = game.move_text(state, move)
                assert text == mirror.action_to_string(mirror.current_player(), move)
                assert game.parse_move(state, text) == move
                assert game.read_answer(state, str(move)) == move  # the id is an answer too
            state = game.play(state, move)
            mirror.apply_action(move)
            assert game.decode(game.encode(state)) == state
            assert game.encode(state) == str(mirror.history())
        if mirror.is_terminal():
            ended = game.outcome(state)
            first, second = mirror.returns()
            assert ended is not None
            assert ended.winner == (None if first == second else int(second > first))


def test_the_game_string_and_options_come_from_openspiel():
    game = make_game("openspiel:connect_four", {"rows": "5", "x_in_row": "3"})
    assert game.game_string == "connect_four(rows=5,x_in_row=3)"
    assert game.command_args(game.start(), 0.5) == ["connect_four(rows=5,x_in_row=3)", "[]",
                                                    "0.5"]
    assert game.action_count() == 7 and game.title == "Connect Four"
    assert make_game("openspiel:connect_four").game_string == "connect_four()"


@pytest.mark.parametrize("name, options, message", [
    ("openspiel:no_such_game", {}, "OpenSpiel has no game 'no_such_game'"),
    ("openspiel:kuhn_poker", {}, "hidden information"),
    ("openspiel:goofspiel", {}, "simultaneously"),
    ("openspiel:connect_four", {"colour": "red"}, "has no option 'colour'"),
    ("openspiel:connect_four", {"rows": "many"}, "must be a whole number"),
    ("openspiel:connect_four(rows=5)", {}, "--option NAME=VALUE"),
    ("no_such_family:chess", {}, "unknown game 'no_such_family:chess'"),
])
def test_games_the_arena_cannot_play_are_refused_naming_why(name, options, message):
    with pytest.raises(UsageError, match=message.replace("(", r"\(").replace(")", r"\)")):
        make_game(name, options)


def test_a_wrong_answer_is_refused_and_a_history_must_be_legal():
    game = make_game("openspiel:tic_tac_toe")
    with pytest.raises(IllegalMove, match="legal: x"):
        game.read_answer(game.start(), "x(9,9)")
    with pytest.raises(IllegalMove):
        game.read_answer(game.start(), "9")
    with pytest.raises(ValueError, match="not a legal action"):
        game.decode("[4, 4]")
    with pytest.raises(OptionError):
        registry.spec("openspiel:kuhn_poker")


@pytest.mark.parametrize("spec", ["aviary:mcts?sims=20", "aviary:openspiel-ab?depth=2",
                                  "aviary:random", "aviary:openspiel:tic_tac_toe"])
def test_the_players_answer_legal_moves(spec):
    game = make_game("openspiel:tic_tac_toe")
    engine = build_engine(spec, game)
    match = Match(game)
    while match.outcome is None:
        match.play(game.read_answer(match.state, engine(match.state, 0.3, match.history)))
    assert match.outcome is not None


def test_alpha_beta_refuses_a_game_with_chance():
    with pytest.raises(UsageError, match="has chance nodes"):
        build_engine("aviary:openspiel-ab", make_game("openspiel:pig"))


def test_mcts_scores_at_least_3_of_4_against_random_at_connect_four(tmp_path):
    """The issue's bar: 4 games stored, MCTS with 200 simulations scores >= 3. Its command,
    with a grace of 2 s: 200 simulations take about 0.1 s, but on a machine busy with
    other work they may pass 0.2 + 0.25 s and lose on time, which is not what is measured."""
    db = tmp_path / "R"
    run = _aviary("arena", "run", "--game", "openspiel:connect_four", "--games", "4",
                  "--time", "0.2", "--grace", "2", "--db", str(db), "aviary:mcts?sims=200",
                  "aviary:random")
    assert run.returncode == 0, run.stderr
    with Store(db, read_only=True) as store:
        games = store.games()
        assert store.config().game == "openspiel:connect_four"
    assert len(games) == 4
    mcts = sum(game.result if game.first.startswith("mcts") else 1 - game.result
               for game in games)
    assert mcts >= 3, [(game.first, game.result, game.reason) for game in games]
    report = _aviary("arena", "report", str(db), "--json", str(tmp_path / "all.json"))
    assert report.returncode == 0 and "mcts?sims=200" in report.stdout
    assert json.loads((tmp_path / "all.json").read_text())
    export = _aviary("arena", "export", str(db), "--out", str(tmp_path / "R.jsonl"))
    assert export.returncode == 0, export.stderr
    assert '"game": "openspiel:connect_four"' in (tmp_path / "R.jsonl").read_text()
    shown = _aviary("arena", "game", str(db), "1")
    assert shown.returncode == 0 and "opening: [" in shown.stdout
    _the_browser_replays_a_game_as_openspiel_draws_it(db)


def _the_browser_replays_a_game_as_openspiel_draws_it(db: Path) -> None:
    """`aviary serve --arena DB`'s replay: no grid of cells, so OpenSpiel's picture."""
    pytest.importorskip("fastapi", reason="the web extra is not installed")
    import warnings

    from aviary.web.app import create_app
    from aviary.web.config import AppConfig

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient
    with TestClient(create_app(AppConfig(workers=1, arena_db=db))) as client:
        arena = client.get("/api/arena").json()
        assert arena["game"] == "openspiel:connect_four" and arena["played"] == 4
        replay = client.get(f"/api/arena/games/{arena['games'][0]['id']}").json()
    assert (replay["rows"], replay["cols"]) == (0, 0)
    game = pyspiel.load_game("connect_four")
    for frame in replay["frames"]:
        spiel = game.new_initial_state()
        for action in json.loads(frame["state"]):
            spiel.apply_action(action)
        assert frame["picture"] == str(spiel).rstrip("\n")


def test_external_programs_play_by_the_documented_protocol(tmp_path):
    """A program gets GAME HISTORY SECONDS and may answer an action string or an id; one
    that answers nonsense loses by `illegal`."""
    by_id = tmp_path / "first_id.py"
    by_id.write_text("import json, sys\nimport pyspiel\n"
                     "state = pyspiel.load_game(sys.argv[1]).new_initial_state()\n"
                     "for action in json.loads(sys.argv[2]):\n"
                     "    state.apply_action(action)\n"
                     "print('thinking')\nprint(state.legal_actions()[0])\n")
    nonsense = tmp_path / "nonsense.py"
    nonsense.write_text("print('resign')\n")
    db = tmp_path / "programs.sqlite"
    run = _aviary("arena", "run", "--game", "openspiel:tic_tac_toe", "--games", "4",
                  "--jobs", "1", "--time", "20", "--db", str(db),
                  f"random={sys.executable} -m aviary.openspiel.random_program",
                  f"first={sys.executable} {by_id}")
    assert run.returncode == 0, run.stderr
    with Store(db, read_only=True) as store:
        games = store.games()
    assert len(games) == 4 and all(game.reason.startswith("returns") for game in games)
    db2 = tmp_path / "nonsense.sqlite"
    run = _aviary("arena", "run", "--game", "openspiel:tic_tac_toe", "--games", "2",
                  "--jobs", "1", "--time", "20", "--db", str(db2), "aviary:random",
                  f"bad={sys.executable} {nonsense}")
    assert run.returncode == 0, run.stderr
    with sqlite3.connect(db2) as connection:
        reasons = [row[0] for row in connection.execute("SELECT reason FROM games")]
    assert reasons == ["illegal", "illegal"]


def test_aviary_play_draws_an_openspiel_game_and_its_mcts_counts_simulations():
    watch = _aviary("play", "openspiel:tic_tac_toe", "--human", "none", "--engine",
                    "mcts?sims=50", "--max-plies", "9", timeout=300)
    assert watch.returncode == 0, watch.stderr
    assert watch.stdout.count("engine (") >= 5 and "game over" in watch.stdout
    assert "50 simulations" in watch.stdout and "nodes" not in watch.stdout
    bad = _aviary("play", "openspiel:kuhn_poker", timeout=120)
    assert bad.returncode == 2 and "hidden information" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1


def test_without_openspiel_an_openspiel_game_is_refused_in_one_line(tmp_path):
    """As on a machine without the extra: the import of pyspiel fails."""
    script = ("import sys; sys.modules['pyspiel'] = None\n"
              "from aviary.cli import main\n"
              "sys.exit(main(sys.argv[1:]))\n")
    run = subprocess.run(
        [sys.executable, "-c", script, "arena", "run", "--game", "openspiel:connect_four",
         "--games", "2", "--db", str(tmp_path / "none.sqlite"), "aviary:random",
         "aviary:random"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 2, run.stderr
    assert "pip install 'aviary[openspiel]'" in run.stderr and "Traceback" not in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1
