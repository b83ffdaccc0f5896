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
    python benchmarks/strength.py sprt --game pikachu --option n=8 --base main --head HEAD
                                                       # a patch test, as fishtest runs one
    python benchmarks/strength.py quick [--list]       # every standard figure at 0.1 s a move

The opponent is the textbook player (`aviary:textbook`), which deepens to the same
clock as the engine; time odds give the engine a tenth of the opponent's time.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from aviary.arena.export import Match, read_export, status
from aviary.arena.games import make_game
from aviary.arena.players import own_seconds, parse_specs
from aviary.arena.provenance import machine
from aviary.arena.report import summarize_match
from aviary.arena.store import Store
from aviary.errors import ArgumentParser, UsageError
from aviary.games import registry

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
# The quick set: every configuration's standard figures at 0.1 s a move, short enough to
# re-measure in the session that changes the code: the engine against the textbook
# opponent, and the engine at 2t against itself at t (Elo per doubling of time, which
# never saturates). Games per configuration keep the whole set within 45 minutes at
# `--jobs 2` (`quick --list` estimates it from the 1 s records, corrected by the quick
# figures played so far); the handout variant of IJK is outside the strength bars (its
# page says why).
QUICK_SECONDS = 0.1
QUICK_JOBS = 2
QUICK_GAMES = {"pikachu-n8": 30, "betsy-orthogonal": 30, "betsy-diagonal": 30,
               "foxgeese-classic": 8, "foxgeese-classic-shrink": 8,
               "foxgeese-elephants": 6, "foxgeese-elephants-shrink": 6,
               "ijk-course-det": 4, "ijk-course-nondet": 4}
QUICK_BUDGET_MINUTES = 45


def _quick(configuration: Configuration) -> list[Figure]:
    games, c = QUICK_GAMES[configuration.id], configuration
    return [Figure(f"quick-{c.id}-textbook",
                   f"{c.title}, quick: engine 0.1 s vs textbook 0.1 s{c.sides}", c,
                   seconds=QUICK_SECONDS, games=games, jobs=QUICK_JOBS),
            Figure(f"quick-{c.id}-2t",
                   f"{c.title}, quick: engine 0.2 s vs engine 0.1 s (Elo per doubling)"
                   f"{c.sides}", c,
                   ("engine-2t=aviary:engine?time=0.2", "engine-t=aviary:engine?time=0.1"),
                   seconds=QUICK_SECONDS, games=games, jobs=QUICK_JOBS)]


QUICK = [figure for configuration in CONFIGURATIONS if configuration.id in QUICK_GAMES
         for figure in _quick(configuration)]
FIGURES += QUICK
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
    """About how long an unplayed figure takes here (see `estimate_hours`)."""
    return estimate_hours(figure)[1]


def estimate_hours(figure: Figure) -> tuple[float, str]:
    """About how long an unplayed figure takes here, in hours and in words: its games at
    the length of a recorded figure of the same configuration (one against the same
    opponent if there is one, then the one with the most games: the engine's games
    against MCTS are far shorter than against the textbook), each move as long as there,
    scaled by the two figures' clocks; without one, the most its games can take (every
    game to the move limit)."""
    siblings = [other for other in FIGURES if other.configuration == figure.configuration
                and other is not figure and record_paths(other)[1].exists()]
    matches = [(recorded(record_paths(other)[1]), other) for other in siblings]
    matches = [(match, other) for match, other in matches if match.games]
    if not matches:
        hours = (figure.games * figure.configuration.max_plies * move_seconds(figure)
                 / figure.jobs / 3600)
        return hours, f"at most {hours:.0f} h (every game to the move limit)"
    kinds = _player_names(figure)
    match, other = max(matches, key=lambda pair: (_player_names(pair[1]) == kinds,
                                                  len(pair[0].games)))
    plies = sum(len(game["moves"]) for game in match.games)
    seconds = sum(move[3] for game in match.games for move in game["moves"])
    per_game = seconds / len(match.games) * move_seconds(figure) / move_seconds(other)
    hours = figure.games * per_game / figure.jobs / 3600
    return hours, (f"about {hours:.1f} h ({plies / len(match.games):.0f} plies a game, "
                   f"as {other.id})")


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


# ---- the quick set ---------------------------------------------------------------------------
# A figure's own start-up (numba, the arena's workers): quick-betsy-orthogonal-textbook's
# run took 73 s here, 52 s of it its games (2 at once)
QUICK_STARTUP_SECONDS = 25


def _played_hours(export: Path, jobs: int) -> float:
    """How long a record's games took at `jobs` games at once (their own walls)."""
    return sum(game["wall"] for game in recorded(export).games) / jobs / 3600


def quick_calibration() -> tuple[float, str]:
    """The ratio of the quick figures played here to their estimates from the 1 s
    records (short clocks cost more a move than the 1 s moves scaled down), and which
    figures it comes from; 1 before any is played."""
    played = [figure for figure in QUICK if record_paths(figure)[1].exists()
              and len(recorded(record_paths(figure)[1]).games) >= figure.games]
    if not played:
        return 1.0, "no quick figure played yet"
    actual = sum(_played_hours(record_paths(figure)[1], figure.jobs) for figure in played)
    estimated = sum(estimate_hours(figure)[0] for figure in played)
    return actual / estimated, ", ".join(figure.id for figure in played)


def quick_list() -> None:
    """Each quick figure with its estimate here, and the set's total at `QUICK_JOBS`: the
    1 s records' moves scaled to 0.1 s, times what the quick figures played here took
    against that, plus each figure's start-up."""
    ratio, basis = quick_calibration()
    total = 0.0
    for figure in QUICK:
        hours, said = estimate_hours(figure)
        hours = hours * ratio + QUICK_STARTUP_SECONDS / 3600
        total += hours
        state = progress(figure) if record_paths(figure)[1].exists() else "not played"
        print(f"{figure.id:40} {figure.games:3} games  about {60 * hours:4.1f} min  "
              f"{figure.title} [{state}; {said.partition(' (')[2].rstrip(')')}]")
    skipped = [c.id for c in CONFIGURATIONS if c.id not in QUICK_GAMES]
    print(f"quick set: {len(QUICK)} figures of {len(QUICK_GAMES)} configurations, about "
          f"{60 * total:.0f} min at --jobs {QUICK_JOBS} (budget {QUICK_BUDGET_MINUTES} min; "
          f"the 1 s records' moves scaled to the clock, times {ratio:.2f} as measured by "
          f"{basis}, plus {QUICK_STARTUP_SECONDS} s of start-up a figure); not in it: "
          f"{', '.join(skipped)} (outside the strength bars)")


def quick_run(jobs: int | None) -> None:
    """Bring every quick figure up to date: a stale record is measured again from the start,
    an unfinished current one continued, a finished current one left as it is."""
    for figure in QUICK:
        db, export = record_paths(figure)
        if export.exists() and not current(figure):
            db.unlink(missing_ok=True)
            export.unlink()
        if export.exists() and len(recorded(export).games) >= figure.games:
            continue
        run(figure, jobs)


# ---- patch tests -----------------------------------------------------------------------------
SPRT_RESULTS = RESULTS / "sprt"  # patch tests' records (not figures of the page)
# Seconds past the move's time before a move is lost: a move is a process, and at a load of
# 7 on 2 cores one in a few hundred waited past half a second to be scheduled.
SPRT_GRACE = 2.0
# A game undecided after this share of the figures' ply limit is a draw (fishtest
# adjudicates draws too): two equal engines at 0.05 s often shuffle to any limit, and 300
# plies a game made 60 Pikachu games take 20 minutes here. `--max-plies` changes it.
SPRT_PLY_SHARE = 0.5
SERVER_READY_SECONDS = 900  # building an engine compiles its kernels in a fresh worktree

# A revision's engine, kept loaded in a process on the revision's code (PYTHONPATH): it
# reads the course arguments of a move from its socket and answers the engine's line. One
# move at a time (the engine keeps its tables between moves; a fork a move rebuilt them and
# overran): with two games at once a move may wait for the other game's, and its time
# starts when its search does (the grace covers the wait, the same for both sides).
MOVE_SERVER = """
import json, os, socketserver, sys, threading
from aviary.arena.games import make_game
from aviary.arena.players import build_engine

path, name, options = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
game = make_game(name, options)
engine = build_engine("aviary:engine", game)  # compiled (warmed up) before the first move
one_at_a_time = threading.Lock()


class Move(socketserver.StreamRequestHandler):
    def handle(self):
        argv = json.loads(self.rfile.readline())
        played, state, seconds = type(game).parse_course(argv)
        with one_at_a_time:
            line = engine(state, seconds, ())
        self.wfile.write((line + "\\n").encode())


class Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True


with Server(path + ".part", Move) as server:
    os.rename(path + ".part", path)  # ready: the socket's name says so
    server.serve_forever()
"""

# The one-move entry point the arena runs (a program, a process a move): it hands its
# course arguments to the revision's move server and prints the answer.
MOVER = """#!{python} -S
import json, socket, sys
connection = socket.socket(socket.AF_UNIX)
connection.connect({path!r})
connection.sendall((json.dumps(sys.argv[1:]) + "\\n").encode())
data = b""
while not data.endswith(b"\\n"):
    chunk = connection.recv(65536)
    if not chunk:
        break
    data += chunk
line = data.decode().strip()
if not line:
    sys.exit("no answer from the move server")
print(line, flush=True)
"""


def git(*words: str, cwd: Path = ROOT) -> str:
    return subprocess.run(["git", *words], cwd=cwd, capture_output=True, text=True,
                          check=True).stdout.strip()


def commit_of(revision: str, command: str = "strength sprt") -> str:
    """The commit `revision` names in this repository; UsageError (said by `command`) if
    none."""
    try:
        return git("rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}")
    except subprocess.CalledProcessError:
        raise UsageError(f"{command}: no revision {revision!r} in this repository") from None


def head_against_base(base: str, commit: str) -> str:
    """What a head-against-base benchmark's first line says of its two sides and where
    it ran: base (its name and commit), head (this tree, clean or not), when, the
    machine and its load."""
    where = machine()
    dirty = git("status", "--porcelain", "--untracked-files=no")
    return (f"base {base} ({commit[:12]}) against head {git('rev-parse', '--short', 'HEAD')} "
            f"(this tree, {'with changes' if dirty else 'clean'}), "
            f"{time.strftime('%Y-%m-%d %H:%M')}, {where['processor']} {where['cores']} cores, "
            f"load {os.getloadavg()[0]:.1f}")


@contextmanager
def base_worktree(commit: str) -> Iterator[Path]:
    """`commit` checked out in a temporary worktree (the base side), removed after."""
    with tempfile.TemporaryDirectory(prefix="aviary-base-") as folder:
        tree = Path(folder) / "base"
        git("worktree", "add", "--detach", "--quiet", str(tree), commit)
        try:
            yield tree
        finally:
            git("worktree", "remove", "--force", str(tree))


@dataclass(frozen=True)
class Revision:
    """One side of a patch test: a commit checked out in a worktree of its own, whose
    engine plays from a move server on its own code."""

    role: str  # "head" or "base"
    commit: str
    tree: Path

    @property
    def socket(self) -> Path:
        return self.tree.parent / f"{self.role}.socket"

    def serve(self, game: str, options: dict[str, str]) -> subprocess.Popen[str]:
        """Start the revision's move server (its engine compiles first)."""
        environment = {**os.environ, "PYTHONPATH": str(self.tree / "src")}
        return subprocess.Popen([sys.executable, "-c", MOVE_SERVER, str(self.socket), game,
                                 json.dumps(options)], cwd=self.tree, env=environment,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)

    def mover(self) -> Path:
        """The revision's one-move entry point, beside its worktree."""
        script = self.tree.parent / f"{self.role}-move"
        script.write_text(MOVER.format(python=sys.executable, path=str(self.socket)))
        script.chmod(0o755)
        return script


PRIME_SECONDS = 0.3
PRIME_PLIES = 30


def _prime(revisions: list[Revision], board: Any) -> None:
    """A game between the two engines before the match, at a longer clock: what an engine
    loads or compiles on first use in a game's course (it overran a move's grace in the
    first games otherwise) is loaded before any move counts."""
    rng = random.Random(0)
    state = board.start()
    for ply in range(PRIME_PLIES):
        if board.outcome(state) is not None:
            break
        if board.is_chance(state):
            moves, weights = zip(*board.chance_outcomes(state), strict=True)
            state = board.play(state, rng.choices(moves, weights)[0])
            continue
        revision = revisions[ply % 2]
        result = subprocess.run([str(revision.mover()),
                                 *board.command_args(state, PRIME_SECONDS)],
                                capture_output=True, text=True, timeout=120)
        move = board.answers(state).get(result.stdout.strip())
        if result.returncode != 0 or move is None:
            raise UsageError(f"strength sprt: {revision.role} ({revision.commit[:12]}) does "
                             "not answer a move: "
                             f"{(result.stderr.strip().splitlines() or ['?'])[-1]}")
        state = board.play(state, move)


def _wait_until_served(servers: list[tuple[Revision, subprocess.Popen[str]]]) -> None:
    deadline = time.monotonic() + SERVER_READY_SECONDS
    for revision, server in servers:
        while not revision.socket.exists():
            if server.poll() is not None or time.monotonic() > deadline:
                said = (server.stderr.read() if server.stderr else "").strip().splitlines()
                raise UsageError(f"strength sprt: {revision.role} ({revision.commit[:12]}) "
                                 f"cannot play: {(said or ['no engine in time'])[-1]}")
            time.sleep(0.5)


def sprt_title(game: str, options: list[str], base: str, head: str, seconds: float,
               elo0: float, elo1: float) -> str:
    said = f"{game} {' '.join(options)}".strip()
    return (f"{said}, patch test SPRT [{elo0:g}, {elo1:g}] at {seconds:g} s a move: head "
            f"{head[:12]} vs base {base[:12]}")


def sprt_export_path(game: str, options: list[str], base: str, head: str,
                     seconds: float) -> Path:
    said = "-".join([game, *(option.replace("=", "") for option in options)])
    return SPRT_RESULTS / f"{said}-{head[:7]}-vs-{base[:7]}-{seconds:g}s.jsonl"


def max_plies_of(game: str, options: list[str]) -> int:
    for configuration in CONFIGURATIONS:
        if configuration.game == game and set(configuration.options) <= set(options):
            return configuration.max_plies
    return 300


def patch_test(game: str, options: list[str], base: str, head: str, seconds: float,
               elo0: float, elo1: float, max_games: int, jobs: int,
               max_plies: int | None = None) -> int:
    """Play head's engine against base's in colour-swapped pairs until the pentanomial
    SPRT decides (or `max_games`), each revision from its own worktree; print the
    result and keep its export in benchmarks/results/sprt/."""
    if game not in registry.GAMES:
        raise UsageError(f"strength sprt: --game {game!r}: not a board game; known: "
                         + ", ".join(spec.name for spec in registry.board_games()))
    settings = dict(option.partition("=")[::2] for option in options)
    board = make_game(game, settings)  # a bad option is one line here, before any checkout
    commits = {"base": commit_of(base), "head": commit_of(head)}
    folder = Path(tempfile.mkdtemp(prefix="aviary-sprt-"))
    revisions = [Revision(role, commits[role], folder / role) for role in ("head", "base")]
    added: list[Revision] = []
    servers: list[tuple[Revision, subprocess.Popen[str]]] = []
    try:
        for revision in revisions:
            git("worktree", "add", "--detach", "--quiet", str(revision.tree), revision.commit)
            added.append(revision)
        print(f"strength sprt: head {commits['head'][:12]}, base {commits['base'][:12]} in "
              f"{folder}; compiling each one's engine", flush=True)
        servers = [(revision, revision.serve(game, settings)) for revision in revisions]
        _wait_until_served(servers)
        _prime(revisions, board)
        db = folder / "sprt.sqlite"
        export = sprt_export_path(game, options, commits["base"], commits["head"], seconds)
        option_words = [word for option in options for word in ("--option", option)]
        players = [f"{revision.role}={revision.mover()}" for revision in revisions]
        plies = (max_plies if max_plies is not None
                 else round(SPRT_PLY_SHARE * max_plies_of(game, options)))
        try:
            arena("run", "--game", game, *option_words, "--time", f"{seconds:g}",
                  "--grace", f"{SPRT_GRACE:g}", "--games", str(max_games),
                  "--max-plies", str(plies), "--sprt", f"{elo0:g},{elo1:g}",
                  "--jobs", str(jobs), "--title",
                  sprt_title(game, options, commits["base"], commits["head"], seconds,
                             elo0, elo1),
                  # our own two revisions, reached through their move servers' sockets,
                  # which no sandboxed move can see
                  "--sandbox", "none", "--db", str(db), *players)
        except subprocess.CalledProcessError:
            raise UsageError("strength sprt: the match stopped (the arena said why, above)"
                             ) from None
        finally:
            if db.exists():
                SPRT_RESULTS.mkdir(parents=True, exist_ok=True)
                arena("export", str(db), "--out", str(export), "--force")
        with Store(db, read_only=True) as store:
            summary = summarize_match(store)
        if summary is None or summary.sprt is None:
            raise UsageError("strength sprt: the match has no SPRT state")
        print("\n".join(sprt_lines(summary, max_games)))
        print(f"record: {export.relative_to(ROOT)}")
    finally:
        for _, server in servers:
            server.terminate()
            server.wait()
        for revision in added:
            subprocess.run(["git", "worktree", "remove", "--force", str(revision.tree)],
                           cwd=ROOT, capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)
        subprocess.run(["git", "worktree", "prune"], cwd=ROOT, capture_output=True)
    return 0


def sprt_lines(summary: Any, max_games: int) -> list[str]:
    """The verdict as fishtest gives one: W-D-L, pairs, Elo, LLR with its bounds."""
    test, (elo0, elo1) = summary.sprt, summary.sprt_bounds
    games = summary.wins + summary.draws + summary.losses
    verdict = {"H1": f"H1 accepted: head is better (elo >= {elo1:g})",
               "H0": f"H0 accepted: head is not better than elo {elo0:g}"}.get(
        test.decision or "", f"undecided after {games} of at most {max_games} games")
    return [f"head vs base: W-D-L {summary.wins}-{summary.draws}-{summary.losses}, "
            f"pairs scoring 0/0.5/1/1.5/2 of 2: {summary.pairs}",
            summary.figure.explained(),
            f"LLR {test.llr:.2f} (bounds {test.lower:.2f}, {test.upper:.2f}) for "
            f"[{elo0:g}, {elo1:g}]: {verdict}"]


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
    quick = commands.add_parser("quick", help="every configuration's standard figures at "
                                "0.1 s a move (about 45 minutes at --jobs 2)")
    quick.add_argument("--list", action="store_true",
                       help="name each quick figure with its estimate; play nothing")
    quick.add_argument("--jobs", type=int, help=f"games at once (default {QUICK_JOBS})")
    test = commands.add_parser("sprt", help="a patch test: head's engine against base's, "
                               "each from its own worktree, until the SPRT decides")
    test.add_argument("--game", required=True)
    test.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                      help="a game option (repeatable), as `aviary arena run` takes it")
    test.add_argument("--base", required=True, metavar="REV", help="the code to beat")
    test.add_argument("--head", default="HEAD", metavar="REV", help="the change (HEAD)")
    test.add_argument("--time", type=float, default=0.1, help="seconds a move (0.1)")
    test.add_argument("--elo0", type=float, default=0.0)
    test.add_argument("--elo1", type=float, default=10.0)
    test.add_argument("--max-games", type=int, default=2000,
                      help="stop undecided after this many games (2000)")
    test.add_argument("--jobs", type=int, default=2, help="games at once (2)")
    test.add_argument("--max-plies", type=int,
                      help="a game is a draw after this many plies (default: half the "
                      "figures' limit, 150 for Pikachu and Betsy)")
    args = parser.parse_args()
    unknown = [figure_id for figure_id in getattr(args, "ids", []) if figure_id not in BY_ID]
    if unknown:
        raise UsageError(f"strength run: no figure {', '.join(map(repr, unknown))}; "
                         "`strength.py list` names them")
    if args.command == "list":
        for figure in FIGURES:
            print(f"{figure.id:32} {progress(figure):66} {figure.title}")
    elif args.command == "quick":
        if args.list:
            quick_list()
            return 0
        try:
            quick_run(args.jobs)
        except (KeyboardInterrupt, subprocess.CalledProcessError):
            page()
            print("strength: stopped; the finished games are exported, and `quick` again "
                  "continues", file=sys.stderr)
            return 130
        page()
    elif args.command == "sprt":
        if args.time <= 0 or args.max_games < 2 or args.jobs < 1 or args.elo0 >= args.elo1:
            raise UsageError("strength sprt: needs --time > 0, --max-games >= 2, --jobs >= 1 "
                             "and --elo0 < --elo1")
        return patch_test(args.game, args.option, args.base, args.head, args.time,
                          args.elo0, args.elo1, args.max_games, args.jobs, args.max_plies)
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
