"""A match at an edge reads the same in `aviary arena report` and on the benchmarks page:
a perfect score is a one-sided bound, identical pairs give no Elo but the scores by side,
and neither shows a clamp's +1199.8, an infinity or a zero-width interval."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from aviary.arena.export import benchmarks_page, two_player_matches, write_export
from aviary.arena.referee import GameRecord, MoveRecord
from aviary.arena.schedule import Config, PlayerSpec
from aviary.arena.store import Store

ROOT = Path(__file__).resolve().parents[2]
FORBIDDEN = ("1199.8", "inf", "± 0.0")


def finished_match(path: Path, results: list[float]) -> None:
    """Engine against random, one colour-swapped pair per two games; `results` are the
    engine's scores game by game (it moves first in the even games)."""
    config = Config(game="pikachu", players=[PlayerSpec("engine", "aviary:engine"),
                                             PlayerSpec("random", "aviary:random")],
                    seconds=0.1, games=len(results), game_options={"n": 8})
    with Store(path) as store:
        store.create(config)
        for slot, score in enumerate(results):
            first, second = ("engine", "random") if slot % 2 == 0 else ("random", "engine")
            result = score if first == "engine" else 1 - score
            winner = None if result == 0.5 else 0 if result == 1 else 1
            record = GameRecord(slot=slot, first=first, second=second,
                                opening=f"opening {slot // 2}", result=result, winner=winner,
                                reason="ply-limit" if winner is None else "captured-all",
                                code="0123456789abcdef")
            record.moves = [MoveRecord(ply, ply % 2, "s", 0.05, 0.05, 0.1)
                            for ply in range(1, 11)]
            store.save(record, slot // 2)


def report(db: Path) -> str:
    result = subprocess.run([sys.executable, "-m", "aviary", "arena", "report", str(db)],
                            capture_output=True, text=True, timeout=120,
                            env={**os.environ, "COLUMNS": "200"})
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_a_4_0_0_match_reports_a_one_sided_bound(tmp_path):
    db = tmp_path / "perfect.sqlite"
    finished_match(db, [1.0] * 4)
    text = report(db)
    assert "W-D-L 4-0-0" in text
    assert "above -216 Elo, 95% (one-sided" in text  # 2 pairs: 0.05 ** (1 / 2) = 0.2236
    assert "above -19" in text and "below +19" in text  # the games' column: 4 samples
    for word in FORBIDDEN:
        assert word not in text, word


def test_identical_pairs_report_no_elo_only_the_sides(tmp_path):
    db = tmp_path / "identical.sqlite"
    finished_match(db, [1.0, 0.5] * 3)  # wins as w, draws as b: every pair 1½ of 2
    text = report(db)
    assert "no Elo: all 3 pairs 1½ of 2" in text
    assert "engine by side: as w 100.0% (3-0-0); as b 50.0% (0-3-0)" in text
    for word in FORBIDDEN:
        assert word not in text, word


@pytest.mark.parametrize("results, said", [
    ([1.0] * 6, "above -94 Elo, 95%"),  # 3 pairs: 0.05 ** (1 / 3) = 0.368
    ([1.0, 0.5] * 3, "no Elo: all 3 pairs 1½ of 2"),
])
def test_the_page_says_what_the_report_says(tmp_path, results, said):
    db, export = tmp_path / "match.sqlite", tmp_path / "match.jsonl"
    finished_match(db, results)
    with Store(db, read_only=True) as store:
        write_export(store, export)
    page = benchmarks_page(two_player_matches([export]), tmp_path)
    assert f"| {said} |" in page and said in report(db)
    for word in FORBIDDEN:
        assert word not in page, word


def test_the_committed_page_and_readme_have_no_edge_artefacts():
    page = (ROOT / "docs" / "benchmarks.md").read_text()
    readme = (ROOT / "README.md").read_text()
    for word in FORBIDDEN:
        assert word not in page, word
        assert word not in readme.split("<!-- benchmarks:")[1], word


def test_every_mcts_row_gives_its_simulations_a_move():
    page = (ROOT / "docs" / "benchmarks.md").read_text()
    rows = [line for line in page.splitlines() if line.startswith("| [") and "MCTS" in line]
    assert rows
    for row in rows:
        assert "simulations a move" in row.split(" | ")[0], row
