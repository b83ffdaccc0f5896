"""docs/benchmarks.md and the README's summary table are what the committed exports give
today: a stale figure (its code changed) shows as stale until it is measured again."""

import dataclasses
import importlib.util
import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from aviary.arena.export import (
    README_END,
    README_START,
    benchmarks_page,
    readme_table,
    two_player_matches,
)

ROOT = Path(__file__).resolve().parents[2]
EXPORTS = sorted((ROOT / "benchmarks" / "results").glob("*.jsonl"))
COMMAND = ("aviary arena page benchmarks/results/*.jsonl --out docs/benchmarks.md "
           "--readme README.md")


def test_the_committed_benchmarks_page_is_what_the_exports_give_today():
    expected = benchmarks_page(two_player_matches(EXPORTS), ROOT / "docs")
    page = (ROOT / "docs" / "benchmarks.md").read_text()
    assert page == expected, f"docs/benchmarks.md is out of date: run `{COMMAND}`"


def test_the_readmes_summary_table_is_what_the_exports_give_today():
    readme = (ROOT / "README.md").read_text()
    start, end = readme.index(README_START), readme.index(README_END) + len(README_END)
    assert readme[start:end] == readme_table(two_player_matches(EXPORTS)), (
        f"the README's benchmarks table is out of date: run `{COMMAND}`")


def test_every_export_is_a_two_player_match_with_its_provenance():
    for match in two_player_matches(EXPORTS):
        sittings = match.header["sittings"]
        assert sittings and all(s["commit"] and s["machine"]["cores"] for s in sittings)
        assert all(game["code"] and game["finished"] for game in match.games)


def test_the_figures_list_says_how_far_each_record_is():
    """`strength.py list` names every figure with its record's state: the games played of
    its total and whether the code it measured is today's (or "not played")."""
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "strength.py"), "list"],
                            capture_output=True, text=True, timeout=120, check=True)
    lines = result.stdout.splitlines()
    recorded = {path.stem for path in EXPORTS}
    assert len(lines) > len(recorded)
    for line in lines:
        figure = line.split()[0]
        if figure in recorded:
            assert re.search(r"\d+/\d+ games, (current|stale)", line), line
        else:  # or a match started here and not yet exported
            assert "not played" in line or "games in its database" in line, line


def load_strength():
    """benchmarks/strength.py as a module (benchmarks/ is not a package)."""
    spec = importlib.util.spec_from_file_location("strength", ROOT / "benchmarks" / "strength.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["strength"] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def strength_copy(tmp_path):
    """benchmarks/strength.py copied into a folder of its own, with an empty
    benchmarks/results beside it: the copy reads and writes only those records."""
    script = tmp_path / "benchmarks" / "strength.py"
    (tmp_path / "benchmarks" / "results").mkdir(parents=True)
    script.write_bytes((ROOT / "benchmarks" / "strength.py").read_bytes())
    return script


def test_a_stale_record_is_measured_again_from_the_start_not_continued(tmp_path):
    """`run` on a figure whose record measured other code refuses (one figure, one code)
    and names `run --again`; the record is left as it was."""
    script = strength_copy(tmp_path)
    record = ROOT / "benchmarks" / "results" / "betsy-orthogonal-1s.jsonl"
    lines = [json.loads(line) for line in record.read_text().splitlines()]
    for game in lines[1:]:
        game["code"] = "0" * 16  # as if played by other code
    stale = tmp_path / "benchmarks" / "results" / record.name
    stale.write_text("".join(json.dumps(line) + "\n" for line in lines))
    before = stale.read_text()
    result = subprocess.run([sys.executable, str(script), "run", "betsy-orthogonal-1s"],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert "betsy-orthogonal-1s is stale" in result.stderr and "--again" in result.stderr
    assert stale.read_text() == before and not (stale.parent / "db").exists()


def test_a_record_without_games_is_current_and_continued(tmp_path):
    """A sitting stopped before its first game ended leaves an export with no game: it
    measured no code, so it is current (`run` continues it), not stale."""
    script = strength_copy(tmp_path)
    header = (ROOT / "benchmarks" / "results" / "betsy-orthogonal-1s.jsonl").read_text()
    empty = tmp_path / "benchmarks" / "results" / "betsy-orthogonal-1s.jsonl"
    empty.write_text(header.splitlines()[0] + "\n")
    result = subprocess.run([sys.executable, str(script), "list"], capture_output=True,
                            text=True, timeout=120, check=True)
    line = next(line for line in result.stdout.splitlines()
                if line.startswith("betsy-orthogonal-1s "))
    assert "0/40 games, current" in line, line
    page = benchmarks_page(two_player_matches([empty]), tmp_path)
    assert "| no game yet |" in page and "| current |" in page and "stale:" not in page


def test_the_list_counts_the_games_a_running_match_has_not_exported_yet(tmp_path):
    """A match stores each game as it ends and exports when it stops: `list` says how
    many games its working database holds beyond the committed record, and a match
    started again from the start (no record yet) is not shown as "not played"."""
    script = strength_copy(tmp_path)
    results = tmp_path / "benchmarks" / "results"
    record = ROOT / "benchmarks" / "results" / "betsy-orthogonal-1s.jsonl"
    (results / "db").mkdir()
    subprocess.run([sys.executable, "-m", "aviary", "arena", "import", str(record), "--db",
                    str(results / "db" / "betsy-orthogonal-1s.sqlite")],
                   capture_output=True, text=True, timeout=120, check=True)
    lines = record.read_text().splitlines()
    (results / record.name).write_text("\n".join(lines[:11]) + "\n")  # 10 of 40 games

    def listed() -> str:
        result = subprocess.run([sys.executable, str(script), "list"], capture_output=True,
                                text=True, timeout=120, check=True)
        return next(line for line in result.stdout.splitlines()
                    if line.startswith("betsy-orthogonal-1s "))

    assert "10/40 games" in listed() and "(+30 in its database, not yet exported)" in listed()
    (results / record.name).unlink()
    assert "not exported: 40 games in its database" in listed()


def test_an_unplayed_figure_is_estimated_from_a_recorded_one_of_its_game(tmp_path):
    """Before a figure is played, `list` says about how long it takes: as long a game as
    a recorded figure of the same configuration, its moves scaled by the two players'
    clocks (OpenSpiel's MCTS at 10 s against the engine at 1 s: 5.5 s a move against
    the record's 1 s); with no such record, every game to the move limit."""
    script = strength_copy(tmp_path)
    record = ROOT / "benchmarks" / "results" / "betsy-orthogonal-1s.jsonl"
    (tmp_path / "benchmarks" / "results" / record.name).write_bytes(record.read_bytes())
    result = subprocess.run([sys.executable, str(script), "list"], capture_output=True,
                            text=True, timeout=120, check=True)
    said = {line.split()[0]: line for line in result.stdout.splitlines()}
    hours = {}
    for figure in ("betsy-orthogonal-mcts1", "betsy-orthogonal-mcts10"):
        found = re.search(r"not played; about ([\d.]+) h \((\d+) plies a game, "
                          r"as betsy-orthogonal-1s\)", said[figure])
        assert found, said[figure]
        hours[figure] = float(found[1])
    games = [json.loads(line) for line in record.read_text().splitlines()[1:]]
    recorded = sum(move[3] for game in games for move in game["moves"]) / len(games) / 3600
    assert abs(hours["betsy-orthogonal-mcts1"] - 40 * recorded) <= 0.05
    assert abs(hours["betsy-orthogonal-mcts10"] - 40 * recorded * 5.5) <= 0.05
    # no Pikachu record here: 40 games of 300 plies at 1 s a move
    assert "not played; at most 3 h (every game to the move limit)" in said["pikachu-n8-mcts1"]
    # with a record against the same opponent, that one gives the games' length
    mcts = ROOT / "benchmarks" / "results" / "betsy-diagonal-mcts1.jsonl"
    (tmp_path / "benchmarks" / "results" / mcts.name).write_bytes(mcts.read_bytes())
    (tmp_path / "benchmarks" / "results" / "betsy-diagonal-1s.jsonl").write_bytes(
        (ROOT / "benchmarks" / "results" / "betsy-diagonal-1s.jsonl").read_bytes())
    result = subprocess.run([sys.executable, str(script), "list"], capture_output=True,
                            text=True, timeout=120, check=True)
    line = next(line for line in result.stdout.splitlines()
                if line.startswith("betsy-diagonal-mcts10 "))
    assert "as betsy-diagonal-mcts1)" in line, line


def test_a_working_database_that_is_not_one_is_one_line_and_exit_2(tmp_path):
    script = strength_copy(tmp_path)
    (tmp_path / "benchmarks" / "results" / "db").mkdir()
    (tmp_path / "benchmarks" / "results" / "db" / "pikachu-n8-1s.sqlite").write_text("garbage")
    result = subprocess.run([sys.executable, str(script), "list"], capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1 and "not a readable arena database" in result.stderr


def test_a_record_that_is_not_an_export_is_one_line_and_exit_2(tmp_path):
    script = strength_copy(tmp_path)
    (tmp_path / "benchmarks" / "results" / "pikachu-n8-1s.jsonl").write_text("garbage\n")
    for words in (["list"], ["run", "pikachu-n8-1s"]):
        result = subprocess.run([sys.executable, str(script), *words], capture_output=True,
                                text=True, timeout=120)
        assert result.returncode == 2
        assert result.stderr.count("\n") == 1 and "not a readable arena export" in result.stderr
        assert "Traceback" not in result.stderr


def test_bad_arguments_are_one_line_and_exit_2():
    script = ROOT / "benchmarks" / "strength.py"
    for words, says in ((["run", "no-such-figure"], "no figure 'no-such-figure'"),
                        (["bogus"], "invalid choice: 'bogus'"),
                        ([], "required: command"),
                        (["run", "--jobs", "x", "pikachu-n8-1s"], "invalid int value: 'x'")):
        result = subprocess.run([sys.executable, str(script), *words], capture_output=True,
                                text=True, timeout=120)
        assert result.returncode == 2 and result.stdout == "", words
        assert result.stderr.count("\n") == 1 and says in result.stderr, result.stderr
        assert result.stderr.startswith("strength")


def test_a_warm_server_that_stops_during_a_match_is_started_again(tmp_path, monkeypatch,
                                                                 capsys):
    """A real server in a private folder, stopped as an edit of aviary's files stops it."""
    aviary = Path(sys.executable).parent / "aviary"
    if not aviary.exists():
        pytest.skip("needs the installed `aviary` command beside this Python")
    strength = load_strength()
    monkeypatch.setenv("AVIARY_WARM_DIR", str(tmp_path / "warm"))
    figure = dataclasses.replace(strength.BY_ID["course-pikachu-n8-slow"],
                                 setup=(str(aviary), "warm", "start", "--idle", "2", "--lazy"))
    subprocess.run(figure.setup, check=True, capture_output=True, timeout=120)
    try:
        with strength.KeepWarm(figure, period=0.2) as keeper:
            assert keeper.running()
            subprocess.run([str(aviary), "warm", "stop"], check=True, capture_output=True,
                           timeout=60)
            deadline = time.monotonic() + 60
            while keeper.restarts == 0 and time.monotonic() < deadline:
                time.sleep(0.1)
            assert keeper.restarts == 1 and keeper.running()
        assert "started again 1 time(s)" in capsys.readouterr().err
        # a figure without a warm server is not watched
        with strength.KeepWarm(strength.BY_ID["pikachu-n8-1s"], period=0.01) as idle:
            time.sleep(0.1)
        assert idle.restarts == 0 and idle._watcher is None
    finally:
        subprocess.run([str(aviary), "warm", "stop"], capture_output=True, timeout=60)


def test_a_program_a_figure_names_is_written_from_the_checkout_root():
    """The arena stores a program's path absolute, as it was on the measuring machine; the
    page names it from the root of this checkout, so its reproduce lines run here."""
    page = benchmarks_page(two_player_matches(EXPORTS), ROOT / "docs")
    programs = [spec for line in page.splitlines() if line.startswith("- players: ")
                for spec in re.findall(r"= `([^`]+)`", line) if not spec.startswith("aviary:")]
    assert programs, "no figure of a command player"
    for spec in programs:
        program = spec.split()[0]
        assert not program.startswith("/") and (ROOT / program).is_file(), spec
        assert f"={spec}'" in page  # the reproduce line names it so too


def test_a_program_outside_the_checkout_keeps_its_absolute_path(tmp_path):
    line = json.loads(EXPORTS[0].read_text().splitlines()[0])
    line["config"]["players"][0]["spec"] = "/opt/graders/student.py --fast"
    export = tmp_path / "outside.jsonl"
    export.write_text(json.dumps(line) + "\n")
    page = benchmarks_page(two_player_matches([export]), ROOT / "docs")
    assert "= `/opt/graders/student.py --fast`" in page
