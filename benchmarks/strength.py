"""Every headline strength figure, as the arena match that measures it.

Each figure is one `aviary arena run` (below: its id, title, game, options and
players); this script only names them, so that a figure can be played, continued,
exported and shown with one short command. The record of a figure is its export,
`benchmarks/results/ID.jsonl` (committed); its working database is
`benchmarks/results/db/ID.sqlite` (not committed). A match too long for one sitting is
continued later: `run` resumes the database, or rebuilds it from the committed export
first (`aviary arena import`) when the database is not on this machine. `list` also
counts the games a database holds beyond its record (a match still running).

    python benchmarks/strength.py list                 # each figure: games played, code, hours left
    python benchmarks/strength.py run pikachu-n8-1s    # play or continue, then export
    python benchmarks/strength.py run --again ID       # a stale figure: from the start
    python benchmarks/strength.py page                 # docs/benchmarks.md + the README table

The opponent is the textbook player (`aviary:textbook`), which deepens to the same
clock as the engine; time odds give the engine a tenth of the opponent's time.
"""

from __future__ import annotations

import signal
import statistics
import subprocess
import sys
import threading
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from aviary.arena.export import Match, read_export, status
from aviary.arena.players import own_seconds, parse_specs
from aviary.arena.store import Store
from aviary.errors import ArgumentParser, UsageError

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
DATABASES = RESULTS / "db"
AVIARY = [sys.executable, "-m", "aviary", "arena"]
# `aviary` with numba's import slowed as on a slower machine (its own warm server folder)
SLOW_AVIARY = "benchmarks/slow_machine/aviary"


@dataclass(frozen=True)
class Configuration:
    """A game as measured: every opponent plays it (the figure ids start with `id`)."""

    id: str
    title: str
    game: str
    options: tuple[str, ...] = ()
    max_plies: int = 300
    sides: str = ""  # said after the title where the two sides differ in kind


@dataclass(frozen=True)
class Figure:
    """One arena match: a configuration played by two players."""

    id: str
    title: str
    configuration: Configuration
    players: tuple[str, str] = ("engine=aviary:engine", "textbook=aviary:textbook")
    seconds: float = 1.0
    games: int = 40
    jobs: int = 1  # games at once, part of what the figure measures (`run --jobs` overrides)
    setup: tuple[str, ...] = ()  # a command run before each sitting (from the checkout)


CONFIGURATIONS = [
    Configuration("pikachu-n8", "Pikachu n=8", "pikachu", ("n=8",)),
    Configuration("betsy-orthogonal", "Betsy", "betsy"),
    Configuration("betsy-diagonal", "Betsy, diagonal Kingfisher", "betsy",
                  ("kingfisher=diagonal",)),
    *(Configuration(f"foxgeese-{variant}{'-shrink' if shrink else ''}",
                    f"Fox-Geese {variant}{' with the shrinking board' if shrink else ''}",
                    "foxgeese", (f"variant={variant}", f"shrink={str(shrink).lower()}"), 700,
                    " (both sides)")
      for variant in ("classic", "elephants") for shrink in (False, True)),
    *(Configuration(f"ijk-{variant}-{mode}", f"IJK {variant} {mode}", "ijk",
                    (f"variant={variant}", f"mode={mode}"), 4000)
      for variant in ("course", "handout") for mode in ("det", "nondet")),
]
# the course command's words after `aviary` (the game's name, unless given here)
_COMMAND_WORDS = {"ijk": ("ijk", "move")}
# Measured through the course command too: one configuration of each game (and both kinds of
# Fox-Geese fox).
_COURSE = ("pikachu-n8", "betsy-orthogonal", "foxgeese-classic", "foxgeese-elephants",
           "ijk-course-det")


def _course(configuration: Configuration, warm: bool) -> Figure:
    """The course command as course staff would run it on a slower machine: numba's import
    0.45 s slower, a fresh process a move, two games at once. The arena kills what a move
    leaves running, so the warm server is started before the match (a grader that does not
    clean up gets one from the course command's first move); `-cold` has none."""
    words = _COMMAND_WORDS.get(configuration.game, (configuration.game,))
    server = "warm server started first" if warm else "no warm server"
    return Figure(f"course-{configuration.id}-slow{'' if warm else '-cold'}",
                  f"{configuration.title}: course command 1 s (numba's import +0.45 s, {server},"
                  f" 2 games at once) vs textbook 1 s{configuration.sides}",
                  configuration,
                  (f"course={SLOW_AVIARY} {' '.join(words)}", "textbook=aviary:textbook"),
                  games=20, jobs=2,
                  setup=(SLOW_AVIARY, "warm", "start", "--idle", "30") if warm
                  else (SLOW_AVIARY, "warm", "stop"))


_BY_CONFIGURATION = {configuration.id: configuration for configuration in CONFIGURATIONS}
FIGURES = [
    *(Figure(f"{c.id}-1s", f"{c.title}: engine 1 s vs textbook 1 s{c.sides}", c)
      for c in CONFIGURATIONS),
    *(Figure(f"{c.id}-odds", f"{c.title}, time odds: engine 0.1 s vs textbook 1 s", c,
             ("engine=aviary:engine?time=0.1", "textbook=aviary:textbook"))
      for c in (_BY_CONFIGURATION["pikachu-n8"], _BY_CONFIGURATION["betsy-orthogonal"])),
    # OpenSpiel's MCTS (random rollouts over the rules; `pip install -e '.[openspiel]'`),
    # an opponent written elsewhere: at the engine's time, and with ten times its time.
    *(Figure(f"{c.id}-mcts{mcts}", f"{c.title}: engine 1 s vs OpenSpiel MCTS {mcts} s{c.sides}",
             c, ("engine=aviary:engine", f"mcts=aviary:mcts?time={mcts}"))
      for mcts in (1, 10) for c in CONFIGURATIONS),
    *(_course(_BY_CONFIGURATION[name], warm=True) for name in _COURSE),
    _course(_BY_CONFIGURATION["pikachu-n8"], warm=False),
]
BY_ID = {figure.id: figure for figure in FIGURES}


def arena(*words: str) -> None:
    """`aviary arena WORDS`, run from the checkout's root (players' paths are the checkout's).

    The arena runs in a process group of its own, and a stop reaches it from here: each
    Ctrl-C (or SIGINT or SIGTERM sent to this script) is passed on as one SIGINT. On the
    first the arena stores every finished game and stops; a second makes it quit at once.
    `subprocess.run` killed it 0.25 s after a Ctrl-C instead, whatever it was doing
    (storing a game, say), and Python's resource tracker then warned of its killed
    workers' semaphores.
    """
    process = subprocess.Popen([*AVIARY, *words], cwd=ROOT, process_group=0)
    interrupted = False
    while True:
        try:
            code = process.wait()
            break
        except KeyboardInterrupt:
            interrupted = True
            process.send_signal(signal.SIGINT)
    if interrupted:
        raise KeyboardInterrupt
    if code:
        raise subprocess.CalledProcessError(code, process.args)


def record_paths(figure: Figure) -> tuple[Path, Path]:
    """The figure's working database (not committed) and its record, the export."""
    return DATABASES / f"{figure.id}.sqlite", RESULTS / f"{figure.id}.jsonl"


def run(figure: Figure, jobs: int | None) -> None:
    """Play or continue the figure's match, then export it; a match stopped with Ctrl-C is
    exported too (its finished games are the record; `run` again continues it)."""
    db, export = record_paths(figure)
    DATABASES.mkdir(parents=True, exist_ok=True)
    if figure.setup:
        # a failed set-up (no warm server) would measure another setting than the title says
        subprocess.run(figure.setup, cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    try:
        with KeepWarm(figure):
            _play(figure, db, export, figure.jobs if jobs is None else jobs)
    except (KeyboardInterrupt, subprocess.CalledProcessError):
        if db.exists():
            arena("export", str(db), "--out", str(export), "--force")
        raise
    arena("export", str(db), "--out", str(export), "--force")


class KeepWarm:
    """While a figure's match runs, starts its warm server again whenever it has stopped.

    The arena's programs may not start one (it would outlive their move), and a server
    stops itself when aviary's files change on disk (even a docstring: it compares their
    bytes), so an edit during a match left every later move to the command's own engine
    child, not what the figure's title says (it happened: 4 games of a Pikachu figure
    answered by the fallback). Now at most `PERIOD` seconds of moves are; each move's
    note in the record says what answered it, and the count of restarts is printed.
    """

    PERIOD = 10.0  # seconds between looks (each a short `aviary warm status`)

    def __init__(self, figure: Figure, period: float = PERIOD) -> None:
        self.figure, self.period = figure, period
        self.restarts = 0
        self._done = threading.Event()
        self._watcher: threading.Thread | None = None

    def __enter__(self) -> KeepWarm:
        if self.figure.setup[1:3] == ("warm", "start"):
            self._watcher = threading.Thread(target=self._watch, daemon=True)
            self._watcher.start()
        return self

    def __exit__(self, *exception: object) -> None:
        self._done.set()
        if self._watcher is not None:
            self._watcher.join()
        if self.restarts:
            print(f"strength: warning: {self.figure.id}'s warm server had stopped (an edit of "
                  f"aviary's files?) and was started again {self.restarts} time(s); the "
                  "moves in between were answered without it", file=sys.stderr)

    def running(self) -> bool:
        server = subprocess.run([*self.figure.setup[:2], "status"], cwd=ROOT,
                                capture_output=True, text=True)
        return server.returncode == 0 and server.stdout.lstrip().startswith("{")

    def _watch(self) -> None:
        while not self._done.wait(self.period):
            if not self.running():  # (a server still stopping refuses a start: next look)
                subprocess.run(self.figure.setup, cwd=ROOT, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
                if self.running():
                    self.restarts += 1


def _play(figure: Figure, db: Path, export: Path, jobs: int) -> None:
    if db.exists():
        arena("resume", str(db), "--jobs", str(jobs))
    elif export.exists():
        arena("import", str(export), "--db", str(db))
        arena("resume", str(db), "--jobs", str(jobs))
    else:
        configuration = figure.configuration
        options = [word for option in configuration.options for word in ("--option", option)]
        # The course figures run our own course command as a grader did before the sandbox
        # (and with a warm server, which no sandboxed move can reach): unisolated.
        trusted = ("--sandbox", "none") if figure.setup else ()
        arena("run", "--game", configuration.game, *options, "--time", f"{figure.seconds:g}",
              "--games", str(figure.games), "--max-plies", str(configuration.max_plies),
              "--jobs", str(jobs), "--title", figure.title, *trusted, "--db", str(db),
              *figure.players)


@cache
def recorded(export: Path) -> Match:
    """A figure's record, read once however many lines of `list` it serves."""
    return read_export(export)


def current(figure: Figure) -> bool:
    """Whether the figure's committed record (if any) measured today's code."""
    export = record_paths(figure)[1]
    return not export.exists() or status(read_export(export)) == "current"


def stored_games(db: Path) -> int:
    """How many finished games the figure's working database holds (0 without one): a
    match in progress stores each game as it ends and exports only when it stops."""
    if not db.exists():
        return 0
    try:
        with Store(db, read_only=True) as store:
            return len(store.finished_ids())
    except UsageError as error:
        raise UsageError(f"not a readable arena database: {error}") from None


def move_seconds(figure: Figure) -> float:
    """The mean of the two players' clocks: a player's own `time=`, else the figure's."""
    clocks = [own_seconds(player.spec) for player in parse_specs(list(figure.players))]
    return sum(figure.seconds if clock is None else clock for clock in clocks) / len(clocks)


def _player_names(figure: Figure) -> tuple[str, ...]:
    return tuple(player.name for player in parse_specs(list(figure.players)))


def estimate(figure: Figure) -> str:
    """About how long an unplayed figure takes here: its games at the length of a recorded
    figure of the same configuration (one against the same opponent if there is one, then
    the one with the most games: the engine's games against MCTS are far shorter than
    against the textbook), each move as long as there, scaled by the two figures' clocks;
    without one, the most its games can take (every game to the move limit)."""
    siblings = [other for other in FIGURES if other.configuration == figure.configuration
                and other is not figure and record_paths(other)[1].exists()]
    matches = [(recorded(record_paths(other)[1]), other) for other in siblings]
    matches = [(match, other) for match, other in matches if match.games]
    if not matches:
        hours = (figure.games * figure.configuration.max_plies * move_seconds(figure)
                 / figure.jobs / 3600)
        return f"at most {hours:.0f} h (every game to the move limit)"
    kinds = _player_names(figure)
    match, other = max(matches, key=lambda pair: (_player_names(pair[1]) == kinds,
                                                  len(pair[0].games)))
    plies = sum(len(game["moves"]) for game in match.games)
    seconds = sum(move[3] for game in match.games for move in game["moves"])
    per_game = seconds / len(match.games) * move_seconds(figure) / move_seconds(other)
    hours = figure.games * per_game / figure.jobs / 3600
    return f"about {hours:.1f} h ({plies / len(match.games):.0f} plies a game, as {other.id})"


def progress(figure: Figure) -> str:
    """How far the figure's committed record is: games played of its total, whether the
    code it measured is today's, and about how long the rest takes at the figure's games
    at once (from the record's own mean game: its moves' wall times); and the games its
    working database holds beyond the record (a match still running, or stopped without
    its export). A stale record is measured again from the start (`run --again`)."""
    db, export = record_paths(figure)
    stored = stored_games(db)
    if not export.exists():
        return (f"not exported: {stored} games in its database" if stored
                else f"not played; {estimate(figure)}")
    match = recorded(export)
    played, code = len(match.games), status(match).partition(":")[0]
    said = f"{played}/{figure.games} games, {code}"
    left = figure.games - played if code == "current" else figure.games
    if played and left:
        minutes = statistics.fmean(sum(move[3] for move in game["moves"]) / 60
                                   for game in match.games)
        said += f", about {left * minutes / figure.jobs / 60:.1f} h to play"
    if stored > played:
        said += f" (+{stored - played} in its database, not yet exported)"
    return said


def page() -> None:
    exports = sorted(str(path) for path in RESULTS.glob("*.jsonl"))
    arena("page", *exports, "--out", str(ROOT / "docs" / "benchmarks.md"),
          "--readme", str(ROOT / "README.md"))


def main() -> int:
    parser = ArgumentParser(prog="strength", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True, parser_class=ArgumentParser)
    commands.add_parser("list", help="the figures and their matches")
    played = commands.add_parser("run", help="play or continue a figure's match, then export")
    played.add_argument("ids", nargs="+", metavar="ID", help="figures, as `list` names them")
    played.add_argument("--jobs", type=int, help="games at once (default: the figure's, "
                        "1 for the engine's matches, 2 for the course command's)")
    played.add_argument("--again", action="store_true",
                        help="measure from the start: delete the figure's database and "
                        "record first (the committed record stays in git's history)")
    commands.add_parser("page", help="regenerate docs/benchmarks.md and the README table")
    args = parser.parse_args()
    unknown = [figure_id for figure_id in getattr(args, "ids", []) if figure_id not in BY_ID]
    if unknown:
        raise UsageError(f"strength run: no figure {', '.join(map(repr, unknown))}; "
                         "`strength.py list` names them")
    if args.command == "list":
        for figure in FIGURES:
            print(f"{figure.id:32} {progress(figure):66} {figure.title}")
    elif args.command == "run":
        stale = [figure_id for figure_id in args.ids if not current(BY_ID[figure_id])]
        if stale and not args.again:
            print(f"strength: the record of {', '.join(stale)} is stale (the code it measured "
                  "has changed); continuing it would mix two codes in one figure: `run "
                  "--again` measures it from the start", file=sys.stderr)
            return 2
        try:
            for figure_id in args.ids:
                if args.again:
                    for path in record_paths(BY_ID[figure_id]):
                        path.unlink(missing_ok=True)
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
    # SIGINT and SIGTERM stop a match as Ctrl-C does, also where a shell started this in the
    # background with SIGINT ignored (the arena it runs handles both in any case)
    for stop in (signal.SIGINT, signal.SIGTERM):
        signal.signal(stop, signal.default_int_handler)
    try:
        sys.exit(main())
    except UsageError as error:  # bad arguments, a record that is not an export: one line
        message = str(error)
        print(message if message.startswith("strength") else f"strength: {message}",
              file=sys.stderr)
        sys.exit(2)
