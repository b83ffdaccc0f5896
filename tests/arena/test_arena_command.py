"""`aviary arena`: bad configuration is one line before any game; report, export, replay."""

import csv
import json
import os
import sqlite3
import subprocess
import sys

import pytest
from arena_programs import write_programs

from aviary.arena.command import main
from aviary.arena.players import parse_specs
from aviary.arena.schedule import Config, plan
from aviary.errors import UsageError


def arena(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "aviary", "arena", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def finished_db(tmp_path_factory):
    """A small finished round-robin between three in-process random players."""
    db = tmp_path_factory.mktemp("arena") / "results.sqlite"
    result = arena("run", "--n", "7", "--time", "1", "--games", "6", "--max-plies", "30",
                   "--jobs", "1", "--db", str(db),
                   "a=aviary:random?seed=1", "b=aviary:random?seed=2", "c=aviary:random?seed=3")
    assert result.returncode == 0, result.stderr
    return db


@pytest.mark.parametrize("players, message", [
    (["/no/such/program", "aviary:random"], "player program not found: /no/such/program"),
    (["no-such-program-on-path", "aviary:random"], "not found on PATH"),
    (["aviary:random"], "at least two players"),
    (["aviary:nonsense", "aviary:random"], "unknown engine 'aviary:nonsense'"),
    (["aviary:random?depth=x", "aviary:random"], "takes only seed="),
    ([f"{sys.executable} missing_script.py", "aviary:random"], "not found: missing_script.py"),
])
def test_bad_players_are_one_line_before_any_game(tmp_path, players, message):
    db = tmp_path / "results.sqlite"
    result = arena("run", "--db", str(db), *players)
    assert result.returncode == 2
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr and not db.exists()


def test_a_non_executable_program_is_refused(tmp_path):
    script = tmp_path / "player.py"
    script.write_text("print('hi')\n")
    os.chmod(script, 0o644)
    with pytest.raises(UsageError, match="not executable"):
        main(["run", "--db", str(tmp_path / "r.sqlite"), str(script), "aviary:random"])


@pytest.mark.parametrize("options, message", [
    (["--game", "chess"], "unknown game 'chess'"),
    (["--n", "5"], "at least 7"),
    (["--time", "0"], "--time must be a number of seconds above 0"),
    (["--time", "inf"], r"--time must be a number of seconds above 0 and at most 86400 \(a day\), "
                        "got inf"),
    (["--grace", "nan"], "--grace must be a number of seconds at least 0"),
    (["--opening-plies", "1000"], "random games of pikachu end before 1000 plies"),
    (["--games", "0"], "--games must be at least 1"),
    (["--jobs", "0"], "--jobs must be at least 1"),
    (["--sprt", "5,0"], "ELO0 < ELO1"),
])
def test_bad_settings_are_refused(tmp_path, options, message):
    with pytest.raises(UsageError, match=message):
        main(["run", "--db", str(tmp_path / "r.sqlite"), *options,
              "aviary:random", "aviary:random"])


def test_an_unreachable_ray_cluster_is_one_line_in_seconds_and_no_database(tmp_path):
    pytest.importorskip("ray")
    db = tmp_path / "r.sqlite"
    result = arena("run", "--backend", "ray", "--address", "127.0.0.1:1", "--db", str(db),
                   "aviary:random", "aviary:random")  # before: retried for ever
    assert result.returncode == 2
    assert result.stderr.strip() == ("aviary arena: cannot reach a Ray cluster at 127.0.0.1:1: "
                                     "Connection refused")
    assert not db.exists()


def test_a_database_holding_a_tournament_is_never_overwritten(finished_db):
    before = finished_db.read_bytes()
    with pytest.raises(UsageError, match="already holds a tournament"):
        main(["run", "--db", str(finished_db), "aviary:random", "aviary:random"])
    with sqlite3.connect(finished_db) as connection:
        assert connection.execute("SELECT COUNT(*) FROM games").fetchone() == (6,)
    assert len(finished_db.read_bytes()) == len(before)


def test_report_prints_standings_and_exports_csv_and_json(finished_db, tmp_path):
    result = arena("report", str(finished_db), "--csv", str(tmp_path / "s.csv"),
                   "--json", str(tmp_path / "s.json"))
    assert result.returncode == 0, result.stderr
    assert all(name in result.stdout for name in ("a", "b", "c", "W-D-L"))
    with open(tmp_path / "s.csv") as handle:
        rows = list(csv.DictReader(handle))
    assert sorted(row["player"] for row in rows) == ["a", "b", "c"]
    assert sum(int(row["games"]) for row in rows) == 12  # 6 games, two players each
    def no_infinities(constant):
        raise AssertionError(f"not strict JSON: {constant}")

    document = json.loads((tmp_path / "s.json").read_text(), parse_constant=no_infinities)
    assert len(document["games"]) == 6 and document["config"]["game"] == "pikachu"
    again = arena("report", str(finished_db), "--csv", str(tmp_path / "s.csv"))
    assert again.returncode == 2 and "exists" in again.stderr


def test_game_replays_every_board_and_the_result(finished_db):
    with sqlite3.connect(finished_db) as connection:
        plies, reason = connection.execute(
            "SELECT plies, reason FROM games WHERE id = 2").fetchone()
    result = arena("game", str(finished_db), "2")
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("\nply ") == plies
    assert "result" in result.stdout and reason in result.stdout
    missing = arena("game", str(finished_db), "99")
    assert missing.returncode == 2 and "no game 99" in missing.stderr


def test_resume_of_a_finished_tournament_plays_nothing(finished_db):
    result = arena("resume", str(finished_db))
    assert result.returncode == 0, result.stderr
    with sqlite3.connect(finished_db) as connection:
        assert connection.execute("SELECT COUNT(*) FROM games").fetchone() == (6,)


def test_report_on_a_missing_database_is_one_line(tmp_path):
    result = arena("report", str(tmp_path / "nothing.sqlite"))
    assert result.returncode == 2 and "no such database" in result.stderr
    assert not (tmp_path / "nothing.sqlite").exists()


def test_relative_program_paths_work_although_moves_run_in_a_temporary_directory(tmp_path):
    write_programs(tmp_path)
    result = arena("run", "--n", "7", "--time", "1", "--games", "2", "--max-plies", "4",
                   "--jobs", "1", "--db", "r.sqlite", "aviary:random?seed=1",
                   f"{sys.executable} random_mover.py", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    with sqlite3.connect(tmp_path / "r.sqlite") as connection:
        reasons = [row[0] for row in connection.execute("SELECT reason FROM games")]
    assert reasons == ["ply-limit", "ply-limit"]


def test_plan_pairs_colours_and_shares_openings_per_round():
    specs = parse_specs(["a=aviary:random", "b=aviary:random", "c=aviary:random"])
    config = Config(game="pikachu", players=specs, seconds=1, games=8)
    slots = plan(config)
    assert [(s.first, s.second) for s in slots[:6]] == [
        ("a", "b"), ("b", "a"), ("a", "c"), ("c", "a"), ("b", "c"), ("c", "b")]
    assert [s.round for s in slots] == [0] * 6 + [1] * 2
    gauntlet = plan(Config(game="pikachu", players=specs, seconds=1, games=4, mode="gauntlet"))
    assert [(s.first, s.second) for s in gauntlet] == [("a", "b"), ("b", "a"), ("a", "c"),
                                                       ("c", "a")]


def test_every_game_of_a_round_starts_from_the_same_seeded_opening(finished_db):
    with sqlite3.connect(finished_db) as connection:
        rows = connection.execute("SELECT round, opening FROM games").fetchall()
    by_round: dict[int, set[str]] = {}
    for round_number, opening in rows:
        by_round.setdefault(round_number, set()).add(opening)
    assert all(len(openings) == 1 for openings in by_round.values())
    start = "w ......." + "w" * 14
    assert all(not opening.startswith(start) for (opening,) in {(o,) for _, o in rows})


def test_sprt_stops_a_lopsided_match_early_and_resume_respects_the_stop(tmp_path):
    # Fishtest's LLR over pairs grows by 0.134 a won pair at [0, 50] (the regularized
    # empty cells keep a variance), so 23 pairs are needed to pass log(0.95/0.05) = 2.944:
    # no single pair decides, as it did before (LLR 33178 after one pair).
    commands = write_programs(tmp_path)
    db = tmp_path / "sprt.sqlite"
    result = arena("run", "--n", "7", "--time", "1", "--games", "60", "--jobs", "1",
                   "--sprt", "0,50", "--db", str(db), "aviary:random?seed=1",
                   f"bad={commands['garbage']}")
    assert result.returncode == 0, result.stderr
    assert "H1 accepted" in result.stdout
    with sqlite3.connect(db) as connection:
        assert connection.execute("SELECT COUNT(*) FROM games").fetchone() == (46,)
    again = arena("resume", str(db))
    assert again.returncode == 0 and "already stopped" in again.stdout
    with sqlite3.connect(db) as connection:
        assert connection.execute("SELECT COUNT(*) FROM games").fetchone() == (46,)


def test_an_sprt_watch_adds_each_stored_game_as_reading_the_database_again_would(tmp_path):
    """A run's SPRT reads the stored games once and then adds the row `Store.save` returns
    for each game it stores: the same rows, in the same order, as reading them again, and
    so the same decision."""
    from aviary.arena.players import PlayerSpec
    from aviary.arena.referee import GameRecord, MoveRecord
    from aviary.arena.runner import SprtWatch
    from aviary.arena.store import Store

    config = Config(game="pikachu", players=[PlayerSpec("a", "aviary:random?seed=1"),
                                             PlayerSpec("b", "aviary:random?seed=2")],
                    seconds=1.0, games=60, game_options={"n": 7}, sprt=(0, 50, 0.05, 0.05))
    slots = plan(config)

    def record(slot) -> GameRecord:  # "a" wins every game, by a few moves
        return GameRecord(slot.index, slot.first, slot.second, f"opening {slot.round}",
                          1.0 if slot.first == "a" else 0.0, 0 if slot.first == "a" else 1,
                          "no-pieces", "", [MoveRecord(1, 0, "s", 0.1, 0.1, 1.0)], 1.23456,
                          (0.5, 0.75), "fingerprint")

    with Store(tmp_path / "sprt.sqlite") as store:
        store.create(config)
        for slot in slots[:10]:
            store.save(record(slot), slot.round)
        watch = SprtWatch(store, config)
        assert watch.games == store.games() and watch.decision() is None
        for slot in slots[10:]:
            watch.add(store.save(record(slot), slot.round))
        assert watch.games == store.games()
        # 30 won pairs pass the H1 bound (23 are needed, as the match above shows)
        assert watch.decision() == SprtWatch(store, config).decision() == "H1"


def test_more_games_at_once_than_cores_is_warned_about():
    from aviary.arena.runner import default_jobs, oversubscription_warning

    cores = default_jobs()
    assert oversubscription_warning(cores, "local") is None
    warning = oversubscription_warning(cores + 1, "local")
    assert warning is not None and "forfeit unfairly" in warning


def test_a_second_arena_on_a_running_database_is_refused(finished_db):
    import fcntl

    with open(finished_db, "rb") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)  # as a running arena holds it
        result = arena("resume", str(finished_db))
    assert result.returncode == 2 and "already running" in result.stderr
