"""`benchmarks/strength.py quick` and `sprt`: the quick set names every configuration's
standard figures within its budget, and a patch test refuses what it cannot play in one
line, before it checks anything out."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "strength.py"


def strength(*words: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *words], capture_output=True,
                          text=True, timeout=120)


def test_the_quick_list_names_every_configuration_within_45_minutes_at_2_jobs():
    result = strength("quick", "--list")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    figures = [line.split()[0] for line in lines if line.startswith("quick-")]
    configurations = re.findall(r"^quick-(.+)-textbook ", result.stdout, re.MULTILINE)
    # every game, every configuration measured in the 1 s figures, both standard figures
    for configuration in ("pikachu-n8", "betsy-orthogonal", "betsy-diagonal",
                          "foxgeese-classic", "foxgeese-classic-shrink", "foxgeese-elephants",
                          "foxgeese-elephants-shrink", "ijk-course-det", "ijk-course-nondet"):
        assert configuration in configurations
        assert f"quick-{configuration}-2t" in figures
    assert len(figures) == 2 * len(configurations)
    minutes = [float(found) for found in re.findall(r"games  about\s+([\d.]+) min", result.stdout)]
    assert len(minutes) == len(figures) and all(m > 0 for m in minutes)
    total = re.search(r"about (\d+) min at --jobs 2 \(budget 45 min", lines[-1])
    assert total, lines[-1]
    assert int(total[1]) <= 45 and abs(int(total[1]) - sum(minutes)) <= 1
    assert "ijk-handout-det" in lines[-1]  # outside the strength bars, and said so


@pytest.mark.parametrize("words, says", [
    (["--game", "sebastian", "--base", "HEAD"], "not a board game"),
    (["--game", "pikachu", "--base", "no-such-revision-anywhere"], "no revision"),
    (["--game", "pikachu", "--base", "HEAD", "--elo0", "5", "--elo1", "0"], "--elo0 < --elo1"),
    (["--game", "pikachu"], "required: --base"),
])
def test_a_patch_test_it_cannot_play_is_one_line_and_exit_2(words, says):
    before = worktrees()
    result = strength("sprt", *words)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and says in result.stderr, result.stderr
    assert worktrees() <= before  # nothing checked out, nothing left behind


def worktrees() -> set[str]:
    listed = subprocess.run(["git", "worktree", "list", "--porcelain"], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout
    return {line for line in listed.splitlines() if line.startswith("worktree ")}
