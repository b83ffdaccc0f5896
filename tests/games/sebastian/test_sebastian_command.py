"""`aviary sebastian`: the course-like driver, advice, solve, and one-line errors."""

import os
import subprocess
import sys

import pytest


def run_sebastian(*args, cache=None):
    env = dict(os.environ)
    if cache is not None:
        env["AVIARY_CACHE_DIR"] = str(cache)
    return subprocess.run([sys.executable, "-m", "aviary", "sebastian", *args],
                          capture_output=True, text=True, timeout=120, env=env)


@pytest.mark.parametrize("args", [
    ["advise", "--dice", "1", "3", "3", "4", "--roll", "1"],
    ["advise", "--dice", "1", "3", "3", "4", "7", "--roll", "1"],
    ["advise", "--dice", "1", "3", "3", "4", "x", "--roll", "1"],
    ["advise", "--dice", "1", "3", "3", "4", "6", "--roll", "4"],
    ["advise", "--dice", "1", "3", "3", "4", "6", "--roll", "1", "--filled", "yahtzee"],
    ["advise", "--dice", "1", "3", "3", "4", "6", "--roll", "1", "--filled", "primis,primis"],
    ["advise", "--dice", "1", "3", "3", "4", "6", "--roll", "1", "--filled", "primis",
     "--upper", "12"],
    ["play", "--games", "0"],
    ["fly"],
])
def test_bad_input_is_one_line_on_stderr_and_exit_2(args, tmp_path):
    result = run_sebastian(*args, cache=tmp_path)
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert list(tmp_path.iterdir()) == []  # refused before any solving


def test_play_ends_with_the_course_summary_line(solution, session_cache):
    result = run_sebastian("play", "--games", "20", "--seed", "4", cache=session_cache)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    words = lines[-1].split()
    assert lines[-1].startswith("Min/max/mean scores: ") and len(words) == 5
    low, high, mean = int(words[2]), int(words[3]), float(words[4])
    assert low <= mean <= high
    assert any(line.startswith("Mean 95% confidence interval:") for line in lines)
    assert any(line.startswith("Bonus rate:") for line in lines)


def test_advise_lists_the_top_five_choices_best_first(solution, session_cache):
    result = run_sebastian("advise", "--dice", "1", "3", "3", "4", "6", "--roll", "1",
                           "--filled", "primis,company", "--upper", "3", cache=session_cache)
    assert result.returncode == 0, result.stderr
    rows = [line for line in result.stdout.splitlines() if line[:4].strip().endswith(".")]
    assert len(rows) == 5
    values = [float(row.split()[-1]) for row in rows]
    assert values == sorted(values, reverse=True)


def test_advise_on_the_third_roll_names_categories(solution, session_cache):
    result = run_sebastian("advise", "--dice", "5", "5", "5", "5", "5", "--roll", "3",
                           "--score", "0", cache=session_cache)
    assert result.returncode == 0, result.stderr
    rows = [line for line in result.stdout.splitlines() if line.strip().startswith("1.")]
    assert rows[0].split()[1] == "quintuplicatam"


def test_solve_prints_the_exact_figures(solution, session_cache):
    result = run_sebastian("solve", cache=session_cache)
    assert result.returncode == 0, result.stderr
    assert "245.8708" in result.stdout and "39.8" in result.stdout and "69.0%" in result.stdout
