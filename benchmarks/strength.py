"""Every headline strength figure, as the arena match that measures it.

Each figure is one `aviary arena run` (below: its id, title, game, options and
players); this script only names them, so that a figure can be played, continued,
exported and shown with one short command. The record of a figure is its export,
`benchmarks/results/ID.jsonl` (committed); its working database is
`benchmarks/results/db/ID.sqlite` (not committed). A match too long for one sitting is
continued later: `run` resumes the database, or rebuilds it from the committed export
first (`aviary arena import`) when the database is not on this machine.

    python benchmarks/strength.py list
    python benchmarks/strength.py run pikachu-n8-1s    # play or continue, then export
    python benchmarks/strength.py page                 # docs/benchmarks.md + the README table

The opponent is the textbook player (`aviary:textbook`), which deepens to the same
clock as the engine; time odds give the engine a tenth of the opponent's time.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
DATABASES = RESULTS / "db"
AVIARY = [sys.executable, "-m", "aviary", "arena"]
# `aviary` with numba's import slowed as on a slower machine (its own warm server folder)
SLOW_AVIARY = "benchmarks/slow_machine/aviary"


@dataclass(frozen=True)
class Figure:
    id: str
    title: str
    game: str
    options: tuple[str, ...] = ()
    players: tuple[str, str] = ("engine=aviary:engine", "textbook=aviary:textbook")
    seconds: float = 1.0
    games: int = 40
    max_plies: int = 300
    jobs: int = 1  # games at once, part of what the figure measures (`run --jobs` overrides)
    setup: tuple[str, ...] = ()  # a command run before each sitting (from the checkout)


_FOX = ("variant=classic", "variant=elephants")
# (id part, title, game, options, the course command's words, draw after plies)
_COURSE = (("pikachu-n8", "Pikachu n=8", "pikachu", ("n=8",), ("pikachu",), 300),
           ("betsy", "Betsy", "betsy", (), ("betsy",), 300),
           ("foxgeese-classic", "Fox-Geese classic", "foxgeese", ("variant=classic",),
            ("foxgeese",), 700),
           ("foxgeese-elephants", "Fox-Geese elephants", "foxgeese", ("variant=elephants",),
            ("foxgeese",), 700),
           ("ijk-course-det", "IJK course det", "ijk", ("mode=det",), ("ijk", "move"), 4000))
FIGURES = [
    Figure("pikachu-n8-1s", "Pikachu n=8: engine 1 s vs textbook 1 s", "pikachu", ("n=8",)),
    Figure("betsy-orthogonal-1s", "Betsy: engine 1 s vs textbook 1 s", "betsy"),
    Figure("betsy-diagonal-1s", "Betsy, diagonal Kingfisher: engine 1 s vs textbook 1 s",
           "betsy", ("kingfisher=diagonal",)),
    *(Figure(f"foxgeese-{variant.split('=')[1]}{'-shrink' if shrink else ''}-1s",
             f"Fox-Geese {variant.split('=')[1]}{' with the shrinking board' if shrink else ''}"
             ": engine 1 s vs textbook 1 s (both sides)",
             "foxgeese", (variant, f"shrink={str(shrink).lower()}"), max_plies=700)
      for variant in _FOX for shrink in (False, True)),
    *(Figure(f"ijk-{variant}-{mode}-1s", f"IJK {variant} {mode}: engine 1 s vs textbook 1 s",
             "ijk", (f"variant={variant}", f"mode={mode}"), max_plies=4000)
      for variant in ("course", "handout") for mode in ("det", "nondet")),
    Figure("pikachu-n8-odds", "Pikachu n=8, time odds: engine 0.1 s vs textbook 1 s",
           "pikachu", ("n=8",), ("engine=aviary:engine?time=0.1", "textbook=aviary:textbook")),
    Figure("betsy-orthogonal-odds", "Betsy, time odds: engine 0.1 s vs textbook 1 s", "betsy",
           (), ("engine=aviary:engine?time=0.1", "textbook=aviary:textbook")),
    # The course command as course staff would run it on a slower machine: numba's import
    # 0.45 s slower, a fresh process a move, two games at once. The arena kills what a move
    # leaves running, so a warm server is started before the match (a grader that does not
    # clean up gets one from the first move on); `-cold` has none: the fallback answers.
    *(Figure(f"course-{name}-slow", f"{title}: course command 1 s (numba's import +0.45 s,"
             " warm server started first, 2 games at once) vs textbook 1 s",
             game, options, (f"course={SLOW_AVIARY} {' '.join(words)}",
                             "textbook=aviary:textbook"),
             games=20, max_plies=max_plies, jobs=2,
             setup=(SLOW_AVIARY, "warm", "start", "--idle", "30"))
      for name, title, game, options, words, max_plies in _COURSE),
    Figure("course-pikachu-n8-slow-cold", "Pikachu n=8: course command 1 s (numba's import"
           " +0.45 s, no warm server, 2 games at once) vs textbook 1 s", "pikachu", ("n=8",),
           (f"course={SLOW_AVIARY} pikachu", "textbook=aviary:textbook"), games=20, jobs=2,
           setup=(SLOW_AVIARY, "warm", "stop")),
]
BY_ID = {figure.id: figure for figure in FIGURES}


def arena(*words: str) -> None:
    subprocess.run([*AVIARY, *words], check=True, cwd=ROOT)  # players' paths are the checkout's


def run(figure: Figure, jobs: int | None) -> None:
    """Play or continue the figure's match, then export it; a match stopped with Ctrl-C is
    exported too (its finished games are the record; `run` again continues it)."""
    db, export = DATABASES / f"{figure.id}.sqlite", RESULTS / f"{figure.id}.jsonl"
    DATABASES.mkdir(parents=True, exist_ok=True)
    if figure.setup:
        subprocess.run(figure.setup, cwd=ROOT, check=False, capture_output=True)
    try:
        _play(figure, db, export, figure.jobs if jobs is None else jobs)
    except (KeyboardInterrupt, subprocess.CalledProcessError):
        if db.exists():
            arena("export", str(db), "--out", str(export), "--force")
        raise
    arena("export", str(db), "--out", str(export), "--force")


def _play(figure: Figure, db: Path, export: Path, jobs: int) -> None:
    if db.exists():
        arena("resume", str(db), "--jobs", str(jobs))
    elif export.exists():
        arena("import", str(export), "--db", str(db))
        arena("resume", str(db), "--jobs", str(jobs))
    else:
        options = [word for option in figure.options for word in ("--option", option)]
        arena("run", "--game", figure.game, *options, "--time", f"{figure.seconds:g}",
              "--games", str(figure.games), "--max-plies", str(figure.max_plies),
              "--jobs", str(jobs), "--title", figure.title, "--db", str(db), *figure.players)


def page() -> None:
    exports = sorted(str(path) for path in RESULTS.glob("*.jsonl"))
    arena("page", *exports, "--out", str(ROOT / "docs" / "benchmarks.md"),
          "--readme", str(ROOT / "README.md"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("list", help="the figures and their matches")
    played = commands.add_parser("run", help="play or continue a figure's match, then export")
    played.add_argument("ids", nargs="+", choices=sorted(BY_ID), metavar="ID")
    played.add_argument("--jobs", type=int, help="games at once (default: the figure's, "
                        "1 for the engine's matches, 2 for the course command's)")
    commands.add_parser("page", help="regenerate docs/benchmarks.md and the README table")
    args = parser.parse_args()
    if args.command == "list":
        for figure in FIGURES:
            print(f"{figure.id:30} {figure.title}")
    elif args.command == "run":
        try:
            for figure_id in args.ids:
                run(BY_ID[figure_id], args.jobs)
        except (KeyboardInterrupt, subprocess.CalledProcessError):
            page()
            print("strength: stopped; the finished games are exported, and `run` again "
                  "continues the match", file=sys.stderr)
            return 130
        page()
    else:
        page()
    return 0


if __name__ == "__main__":
    sys.exit(main())
