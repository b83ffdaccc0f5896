"""What a strength figure needs from the arena: each player's own clock or node budget,
every move's time, CPU and note, the load and the code per game, an export that is the
record of the figure, and the generated page that says whether the figure is current."""

import io
import json
import re
import sqlite3
import subprocess
import sys
import textwrap
import tokenize
from pathlib import Path

import pytest

from aviary.arena import provenance
from aviary.arena.export import (
    README_END,
    README_START,
    benchmarks_page,
    read_export,
    replace_readme_table,
)
from aviary.errors import UsageError


def arena(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "aviary", "arena", *args],
                          capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def match(tmp_path_factory):
    """Pikachu n=7: the engine at its own 0.05 s against the engine at 400 nodes a move and
    a program that says on stderr that its fallback answered; then exported."""
    folder = tmp_path_factory.mktemp("measure")
    program = folder / "says_fallback.py"
    program.write_text(textwrap.dedent(f"""\
        #!{sys.executable}
        import subprocess, sys
        # the course command's answer (quickly), then a line on stderr about who answered
        result = subprocess.run([{sys.executable!r}, "-m", "aviary", "pikachu",
                                 *sys.argv[1:-1], "0.2"], capture_output=True, text=True)
        print(result.stdout.strip().splitlines()[-1], flush=True)
        print("debug line", file=sys.stderr)
        print("answered by the fallback (depth 1)", file=sys.stderr)
        """))
    program.chmod(0o755)
    db = folder / "match.sqlite"
    result = arena("run", "--n", "7", "--time", "2", "--games", "6", "--max-plies", "16",
                   "--jobs", "1", "--db", str(db), "--title", "a measured smoke match",
                   "fast=aviary:engine?time=0.05", "budget=aviary:engine?nodes=400",
                   f"says={program}")
    assert result.returncode == 0, result.stderr
    out = folder / "match.jsonl"
    exported = arena("export", str(db), "--out", str(out))
    assert exported.returncode == 0, exported.stderr
    return db, out, result.stdout


def moves_of(db, player):
    with sqlite3.connect(db) as connection:
        return connection.execute(
            "SELECT m.time_limit, m.seconds, m.cpu, m.note FROM moves m JOIN games g"
            " ON g.id = m.game WHERE (m.mover = 0 AND g.first = ?) OR"
            " (m.mover = 1 AND g.second = ?)", (player, player)).fetchall()


def test_each_player_is_timed_against_its_own_clock(match):
    db, _, _ = match
    fast, budget = moves_of(db, "fast"), moves_of(db, "budget")
    assert fast and budget
    assert {limit for limit, *_ in fast} == {0.05}  # its own time=, not the tournament's 2 s
    assert {limit for limit, *_ in budget} == {2.0}
    assert all(cpu is not None and cpu >= 0 for *_, cpu, _ in fast + budget)


def test_a_node_budget_is_a_limit_on_the_search_not_on_the_clock(match):
    db, _, _ = match
    # 400 nodes take milliseconds: the player answers far inside the tournament's 2 s
    assert max(seconds for _, seconds, _, _ in moves_of(db, "budget")) < 1.0


def test_a_programs_last_stderr_line_is_its_moves_note_and_fallbacks_are_counted(match):
    db, _, stdout = match
    notes = {note for *_, note in moves_of(db, "says")}
    assert notes == {"answered by the fallback (depth 1)"}
    report = arena("report", str(db), "--json", str(db.parent / "report.json"))
    assert report.returncode == 0, report.stderr
    standings = json.loads((db.parent / "report.json").read_text())["standings"]
    by_name = {row["player"]: row for row in standings}
    assert by_name["says"]["fallbacks"] == len(moves_of(db, "says"))
    assert by_name["fast"]["fallbacks"] == 0
    assert "plies per game" in report.stdout and "load" in report.stdout


def test_games_carry_the_load_and_the_fingerprint_of_the_code_that_played(match):
    db, _, _ = match
    with sqlite3.connect(db) as connection:
        rows = connection.execute("SELECT load_start, load_end, code FROM games").fetchall()
    assert len(rows) == 6
    assert all(start is not None and end is not None for start, end, _ in rows)
    # a program plays, so the course runner's code is part of the fingerprint
    with_program = provenance.code_fingerprint("pikachu", ("a-program",))
    assert {code for *_, code in rows} == {with_program}
    assert with_program != provenance.code_fingerprint("pikachu")


def test_the_export_is_the_figures_record(match):
    _, out, _ = match
    exported = read_export(out)
    header = exported.header
    assert header["config"]["title"] == "a measured smoke match"
    sitting = header["sittings"][0]
    assert sitting["jobs"] == 1 and sitting["machine"]["cores"] >= 1
    assert "load" in sitting and "commit" in sitting
    assert sitting["deep_tables"] == {}  # Pikachu has no `warmup --deep` tables
    assert len(exported.games) == 6
    game = exported.games[0]
    assert game["code"] == provenance.code_fingerprint("pikachu", ("a-program",))
    assert len(game["moves"]) == game["plies"]  # Pikachu has no chance moves
    assert all(len(move) == 8 for move in game["moves"])  # ply, mover, times, note, state


def test_the_page_says_current_for_todays_code_and_stale_once_it_changed(match, tmp_path):
    _, out, _ = match
    # the page is for two-player matches: keep the first two players' games
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    lines[0]["config"]["players"] = lines[0]["config"]["players"][:2]
    two = [lines[0]] + [g for g in lines[1:] if {g["first"], g["second"]} == {"fast", "budget"}]
    for game in two[1:]:  # two engines, no program: the fingerprint leaves the runner out
        game["code"] = provenance.code_fingerprint("pikachu")
    current = tmp_path / "current.jsonl"
    current.write_text("\n".join(json.dumps(line) for line in two) + "\n")
    page = benchmarks_page([read_export(current)])
    assert "a measured smoke match" in page and "| current |" in page
    # each side's score in the table: the bars of a game whose sides differ are per side
    assert re.search(r"\| as w \d+\.\d%, as b \d+\.\d% \|", page)
    assert "reproduce: `aviary arena run --game pikachu --option n=7 --time 2" in page
    for game in two[1:]:
        game["code"] = "0" * 16  # as if played by other code
    stale = tmp_path / "stale.jsonl"
    stale.write_text("\n".join(json.dumps(line) for line in two) + "\n")
    assert "stale: the code has changed since" in benchmarks_page([read_export(stale)])


def test_the_readme_table_is_replaced_between_its_markers_only():
    readme = f"intro\n{README_START}\nold table\n{README_END}\nrest\n"
    replaced = replace_readme_table(readme, f"{README_START}\nnew\n{README_END}")
    assert replaced == f"intro\n{README_START}\nnew\n{README_END}\nrest\n"
    with pytest.raises(UsageError, match="no benchmarks markers"):
        replace_readme_table("no markers here\n", "table")


def test_a_file_that_is_not_an_export_is_one_line(tmp_path):
    bogus = tmp_path / "bogus.jsonl"
    bogus.write_text('{"kind": "game"}\n')
    result = arena("page", str(bogus), "--out", str(tmp_path / "page.md"))
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"aviary arena: {bogus}: not an arena export (its first line is not a match)"]
    assert not (tmp_path / "page.md").exists()


def test_an_export_rebuilds_its_database_which_resume_completes(match, tmp_path):
    db, out, _ = match
    lines = out.read_text().splitlines()
    partial = tmp_path / "partial.jsonl"
    partial.write_text("\n".join(lines[:5]) + "\n")  # the match and its first 4 games
    rebuilt = tmp_path / "rebuilt.sqlite"
    imported = arena("import", str(partial), "--db", str(rebuilt))
    assert imported.returncode == 0, imported.stderr
    assert "4 of 6 games" in imported.stdout
    again = tmp_path / "again.jsonl"
    assert arena("export", str(rebuilt), "--out", str(again)).returncode == 0
    games = [json.loads(line) for line in again.read_text().splitlines()[1:]]
    assert games == [json.loads(line) for line in lines[1:5]]  # every field, every move
    resumed = arena("resume", str(rebuilt), "--jobs", "1")
    assert resumed.returncode == 0, resumed.stderr
    with sqlite3.connect(rebuilt) as connection:
        assert connection.execute("SELECT COUNT(*) FROM games").fetchone() == (6,)
    refused = arena("import", str(partial), "--db", str(rebuilt))
    assert refused.returncode == 2 and "exists" in refused.stderr


def test_a_sitting_says_whether_the_games_slow_tables_were_built(match, tmp_path):
    """The classic fox plays from its odds only where `aviary warmup --deep` built them:
    the record says so, and the page repeats it."""
    from aviary.games.foxgeese import odds

    assert provenance.deep_tables("foxgeese") == {"aviary.games.foxgeese.odds": odds.built()}
    _, out, _ = match
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    lines[0]["config"]["players"] = lines[0]["config"]["players"][:2]
    two = [lines[0]] + [g for g in lines[1:] if {g["first"], g["second"]} == {"fast", "budget"}]
    for tables, says in (({"odds": True}, "built"), ({"odds": False}, "not built")):
        two[0]["sittings"] = [dict(two[0]["sittings"][0], deep_tables=tables)]
        path = tmp_path / "deep.jsonl"
        path.write_text("\n".join(json.dumps(line) for line in two) + "\n")
        assert f"(`aviary warmup --deep`): {says}\n" in benchmarks_page([read_export(path)])
    two[0]["sittings"] = [dict(two[0]["sittings"][0], deep_tables={})]
    path.write_text("\n".join(json.dumps(line) for line in two) + "\n")
    assert "warmup --deep" not in benchmarks_page([read_export(path)])


def test_the_page_names_the_machines_a_figure_was_played_on(match, tmp_path):
    """Sittings on hosts that differ only in their kernel's build are one machine to a
    reader; sittings on different processors are each named."""
    _, out, _ = match
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    lines[0]["config"]["players"] = lines[0]["config"]["players"][:2]
    two = [lines[0]] + [g for g in lines[1:] if {g["first"], g["second"]} == {"fast", "budget"}]
    sitting = two[0]["sittings"][0]
    here = dict(sitting["machine"], processor="Test CPU", cores=2, python="3.11.7")
    path = tmp_path / "machines.jsonl"
    for other, says in (({"system": "Linux-other-kernel-build"},
                         "- machine: Test CPU, 2 cores, Python 3.11.7\n"),
                        ({"processor": "Other CPU", "cores": 16},
                         "- machine: Other CPU, 16 cores, Python 3.11.7; "
                         "Test CPU, 2 cores, Python 3.11.7\n")):
        two[0]["sittings"] = [dict(sitting, machine=here),
                              dict(sitting, machine=dict(here, **other))]
        path.write_text("\n".join(json.dumps(line) for line in two) + "\n")
        assert says in benchmarks_page([read_export(path)])


def test_the_fingerprint_takes_in_the_code_of_the_players_that_are_not_the_game():
    """A figure against OpenSpiel's MCTS goes stale when its player changes; one between
    two of the game's own engines does not carry the course runner or OpenSpiel."""
    assert provenance.player_code(["aviary:engine?time=0.1", "aviary:textbook"]) == ()
    assert provenance.player_code(["aviary:mcts?time=10"]) == ("openspiel",)
    # a program's figure covers every module of the course command (runner, warm server,
    # memory of the game), so a change to any of them marks it stale
    course = sorted((Path(provenance.__file__).parents[1] / "course").glob("*.py"))
    assert len(course) >= 3
    assert set(course) <= set(provenance.code_files("betsy", ("python3 mine.py",)))
    assert not set(course) & set(provenance.code_files("betsy", ("aviary:engine",)))
    plain = provenance.code_fingerprint("betsy")
    assert provenance.code_fingerprint("betsy", ("aviary:engine", "aviary:textbook")) == plain
    assert provenance.code_fingerprint("betsy", ("aviary:engine", "aviary:mcts")) != plain


KERNEL = '''"""A module's docstring."""
import numpy as np  # the arrays

WEIGHT = 3


def score(board):
    """Why the weight is three: measured."""
    # a comment on its own line
    return WEIGHT * np.sum(board == "#")  # a comment after code


def clamp(x):
    if x > 9:
        x = 9
    return x


class Player:
    """A class's docstring,
    on two lines — with a dash."""

    def move(self):
        """é"""; return 1
'''


def test_the_fingerprint_ignores_comments_docstrings_and_blank_lines():
    reworded = (KERNEL.replace("A module's docstring.", "Another\n\nmodule docstring.")
                .replace("# the arrays", "# numpy")
                .replace("    # a comment on its own line\n", "\n\n    # other words\n")
                .replace("measured.", "measured in 40 games, 2026-11.")
                .replace("# a comment after code", "")
                .replace("with a dash.", "without one.")
                .replace('"""é"""', '"""ü and more"""'))
    assert reworded != KERNEL
    assert provenance.significant_text(reworded) == provenance.significant_text(KERNEL)
    text = provenance.significant_text(KERNEL)
    assert "docstring" not in text and "comment" not in text and "\n\n" not in text
    assert 'np.sum(board == "#")' in text  # a '#' in a string is code
    assert "        ; return 1" in text  # the code after a docstring stays, indented
    assert "def move(self):" in text


@pytest.mark.parametrize("change", [
    ("WEIGHT = 3", "WEIGHT = 4"),  # a constant
    ('board == "#"', 'board == "*"'),  # a string that is not a docstring
    ("        x = 9\n    return x", "        x = 9\n        return x"),  # indentation
    ("; return 1", "; return 2"),  # code on a docstring's line
])
def test_the_fingerprint_sees_every_change_to_code(change):
    old, new = change
    assert old in KERNEL
    changed = KERNEL.replace(old, new)
    assert provenance.significant_text(changed) != provenance.significant_text(KERNEL)


def test_the_package_reads_the_same_with_a_comment_on_every_line():
    """Every file of the package, a comment added at the end of each logical line (where
    the tokenizer ends one, so never inside a string): the same significant text."""
    package = Path(provenance.__file__).parents[1]
    files = sorted(package.rglob("*.py"))
    assert len(files) > 50
    for path in files:
        source = path.read_text(encoding="utf-8")
        lines = source.split("\n")
        ends = [token.start for token in tokenize.generate_tokens(io.StringIO(source).readline)
                if token.type == tokenize.NEWLINE and token.string]
        for row, column in reversed(ends):
            lines[row - 1] = lines[row - 1][:column] + "  # a note" + lines[row - 1][column:]
        commented = "\n".join(lines)
        assert commented != source or not ends
        text = provenance.significant_text(source)
        assert provenance.significant_text(commented) == text, path
        assert "# a note" not in text and all(line.strip() for line in text.splitlines())
