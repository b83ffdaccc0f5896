"""An SPRT match's run, head against a base commit: its seconds, and the very same games.

`aviary arena run --sprt` checks its decision after every stored game. A patch test of
quick games plays thousands of them, and while the process that stores games decides, a
worker that finished its game waits for its next. This runs the same match with the
code of two commits: base (checked out in a temporary worktree) and head (this tree),
each as the real command in a process of its own, in turn: two seeded random movers at
Pikachu (n=8) with the sandbox off, so a game costs milliseconds and the run is what the
arena spends beside its games. The bounds are set so the test cannot decide before the
last game. Both runs must store the same results game for game: the script checks it
and fails otherwise.

    python benchmarks/sprt_run.py [--base main] [--games 1000 3000]
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from aviary.errors import ArgumentParser, UsageError
from script import run_main
from strength import base_worktree, commit_of, head_against_base

ROOT = Path(__file__).resolve().parent.parent
PLAYERS = ("a=aviary:random?seed=1", "b=aviary:random?seed=2")
BOUNDS = "--sprt=-5,5,0.000001,0.000001"  # LLR bounds +-13.8: no decision within the runs


def side(tree: Path, games: int, folder: Path) -> tuple[float, list[tuple[int, float]]]:
    """One side's match: its wall seconds and its stored (game, result) pairs."""
    db = folder / f"{tree.name}-{games}.sqlite"
    env = dict(os.environ, PYTHONPATH=str(tree / "src"))
    started = time.perf_counter()
    result = subprocess.run(
        [sys.executable, "-m", "aviary", "arena", "run", "--game", "pikachu", "--option", "n=8",
         "--games", str(games), "--jobs", "2", "--sandbox", "none", BOUNDS, "--db", str(db),
         *PLAYERS], capture_output=True, text=True, env=env, cwd=folder, timeout=3600)
    seconds = time.perf_counter() - started
    if result.returncode != 0:
        raise RuntimeError(f"{tree}: {result.stderr.strip().splitlines()[-1:]}")
    with sqlite3.connect(db) as connection:
        rows = connection.execute("SELECT id, result FROM games ORDER BY id").fetchall()
    return seconds, rows


def main() -> int:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="main", help="the commit to compare with (main)")
    parser.add_argument("--games", type=int, nargs="+", default=[1000, 3000],
                        help="the matches' games")
    args = parser.parse_args()
    if min(args.games) < 2:
        raise UsageError(f"--games must be at least 2, got {min(args.games)}")
    commit = commit_of(args.base, "sprt_run: --base")
    print("an SPRT match of random movers (Pikachu n=8, 2 workers, no sandbox): "
          + head_against_base(args.base, commit))
    failed = False
    with base_worktree(commit) as base_tree, tempfile.TemporaryDirectory() as folder:
        for games in args.games:
            base_s, base_rows = side(base_tree, games, Path(folder))
            head_s, head_rows = side(ROOT, games, Path(folder))
            same = base_rows == head_rows and len(head_rows) == games
            failed |= not same
            print(f"  {games:6} games  base {base_s:7.1f} s  head {head_s:7.1f} s  "
                  f"ratio {base_s / head_s:5.2f}x  "
                  + ("same results" if same else "RESULTS DIFFER"))
    return 1 if failed else 0


if __name__ == "__main__":
    run_main(main)
