"""docs/benchmarks.md and the README's summary table are what the committed exports give
today: a stale figure (its code changed) shows as stale until it is measured again."""

from pathlib import Path

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
