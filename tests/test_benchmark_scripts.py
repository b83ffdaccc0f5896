"""The benchmark scripts refuse bad arguments as `aviary` does: one line, exit 2.

Every script in benchmarks/ is a command someone types; a typo must not answer with
argparse's usage text and a second line, or a traceback. Most scripts import numba
kernels before they parse, so only two quick ones run here as real processes; the rest
are checked from their source (they parse with `aviary.errors.ArgumentParser` and start
through `script.run_main`).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
HELPERS = {"measure.py", "script.py"}  # imported by the scripts, not run


def _scripts() -> list[Path]:
    return sorted(path for path in BENCHMARKS.glob("*.py") if path.name not in HELPERS)


def _main_block(tree: ast.Module) -> ast.If | None:
    for node in tree.body:
        if (isinstance(node, ast.If) and isinstance(node.test, ast.Compare)
                and isinstance(node.test.left, ast.Name) and node.test.left.id == "__name__"):
            return node
    return None


def test_there_are_scripts_to_check() -> None:
    assert len(_scripts()) >= 20


@pytest.mark.parametrize("path", _scripts(), ids=lambda path: path.name)
def test_each_script_parses_with_the_one_line_parser(path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    plain = [node.lineno for node in ast.walk(tree)
             if isinstance(node, ast.Attribute) and node.attr == "ArgumentParser"
             and isinstance(node.value, ast.Name) and node.value.id == "argparse"]
    assert plain == [], f"{path.name} builds argparse.ArgumentParser (lines {plain})"
    block = _main_block(tree)
    assert block is not None, f"{path.name} has no `if __name__ == \"__main__\"` block"
    called = {node.func.id for node in ast.walk(block)
              if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
    handled = any(isinstance(node, ast.ExceptHandler) and isinstance(node.type, ast.Name)
                  and node.type.id == "UsageError" for node in ast.walk(block))
    assert "run_main" in called or handled, (
        f"{path.name} starts main without script.run_main or a UsageError handler")


@pytest.mark.parametrize("arguments", [["--no-such-flag"], ["--moves", "many"]],
                         ids=["unknown-flag", "bad-number"])
@pytest.mark.parametrize("script", ["textbook_clock.py", "course_startup.py"])
def test_a_bad_argument_is_one_line_and_status_2(script: str, arguments: list[str]) -> None:
    result = subprocess.run([sys.executable, str(BENCHMARKS / script), *arguments],
                            capture_output=True, text=True, timeout=120, cwd=BENCHMARKS)
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"{script}: ") and "Traceback" not in result.stderr


@pytest.mark.parametrize(("seconds", "handed"), [("0.5", "1"), ("2", "2"), ("2.01", "3")])
def test_the_grade_wrapper_hands_seconds_rounded_up_and_the_rest_unchanged(
        tmp_path: Path, seconds: str, handed: str) -> None:
    """benchmarks/grade_programs.py calls course programs (whose skeleton reads SECONDS
    with int()) through one shell script that rounds SECONDS, their last argument, up."""
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import grade_programs
    finally:
        sys.path.remove(str(BENCHMARKS))
    wrapper = grade_programs.script(tmp_path / "course", "printf '%s|'")
    said = subprocess.run([wrapper, "8", "w", "a board with spaces", seconds],
                          capture_output=True, text=True, timeout=30, check=True).stdout
    assert said == f"8|w|a board with spaces|{handed}|"


def test_the_grade_record_counts_where_the_course_commands_answers_came_from(
        tmp_path: Path) -> None:
    """benchmarks/grade_programs.py counts the course command's moves by the first word of
    the line it said on stderr (a stale build once left every answer to the fallback);
    the other player's moves, and its notes, are not counted."""
    from aviary.arena.players import PlayerSpec
    from aviary.arena.referee import GameRecord, MoveRecord
    from aviary.arena.schedule import Config
    from aviary.arena.store import Store

    sys.path.insert(0, str(BENCHMARKS))
    try:
        import grade_programs
    finally:
        sys.path.remove(str(BENCHMARKS))
    first = GameRecord(slot=0, first="course", second="L3", opening="start", moves=[
        MoveRecord(1, 0, "a", 0.2, 0.2, note="engine (depth 8, score +1)"),
        MoveRecord(2, 1, "b", 0.1, 0.1, note="fallback (a level's note)"),
        MoveRecord(3, 0, "c", 0.2, 0.2, note="fallback (depth 3, score +0)")])
    second = GameRecord(slot=1, first="L3", second="course", opening="start", moves=[
        MoveRecord(1, 0, "a", 0.1, 0.1, note="engine (a level's note)"),
        MoveRecord(2, 1, "b", 0.2, 0.2, note="engine (depth 9, score +2)"),
        MoveRecord(3, 0, "c", 0.1, 0.1),
        MoveRecord(4, 1, "d", 0.2, 0.2, note="table (win in 3)")])
    with Store(tmp_path / "grade.sqlite") as store:
        store.create(Config("pikachu", [PlayerSpec("course", "aviary pikachu"),
                                        PlayerSpec("L3", "aviary:random")], 0.5, 2))
        store.save(first, 1)
        store.save(second, 1)
    assert grade_programs.course_answers(tmp_path) == {"engine": 2, "fallback": 1, "table": 1}
