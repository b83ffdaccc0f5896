"""`aviary grade`: place any number of programs on a game's calibrated ladder.

    aviary grade --game G [--option ...] [--time S] [--jobs N] [--out DIR] PLAYER...

Players are written as for the arena (`NAME=COMMAND`, `aviary:ENGINE?...`), so a folder
of submissions is a shell glob; `--from FILE` reads one `NAME=COMMAND` a line. Every
program runs in the arena's sandbox. A player that cannot run (missing, not executable,
a folder too large to copy) is reported with why, not fatal. The games go to DIR's
SQLite file (`--db`); the same command again resumes them. At the end: a table on
stdout, DIR/grades.csv, DIR/grades.json and DIR/index.html (a leaderboard to publish).
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import shlex
import sys
from pathlib import Path
from typing import Any

from rich.table import Table

from aviary.arena import isolation, ladder, provenance, runner
from aviary.arena.command import check_backend, check_sandbox, lock_database, parse_options
from aviary.arena.games import make_game
from aviary.arena.grade import BUDGET, TARGET, Grade, Staircase, grades, grades_json
from aviary.arena.players import PlayerSpec, check, parse_specs, resolve_command
from aviary.arena.progress import describe as describe_game
from aviary.arena.referee import GameRecord
from aviary.arena.report import make_console
from aviary.arena.schedule import GRADE, Config
from aviary.arena.store import Store
from aviary.errors import ArgumentParser, UsageError
from aviary.games import registry
from aviary.games.base import Game
from aviary.outputs import write_text_atomically
from aviary.search.clock import check_seconds

CSV_HEADER = ("name", "elo", "elo_low", "elo_high", "level", "games", "forfeits")


def _parser() -> ArgumentParser:
    parser = ArgumentParser(
        prog="aviary grade", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Place programs on a game's calibrated ladder of reference players: "
                    "an Elo with its 95%% interval for each, on a scale that does not "
                    "depend on who else is graded (docs/grade.md).",
        epilog=f"example:\n  aviary grade --game {registry.board_games()[0].name} --time 0.5 "
               "--jobs 2 --out grades submissions/*/player.py")
    parser.add_argument("players", nargs="*", metavar="PLAYER",
                        help="a command (NAME=COMMAND; a path to an executable is one) or "
                             "aviary:ENGINE[?settings]")
    parser.add_argument("--from", dest="from_file", type=Path, metavar="FILE",
                        help="more players, one NAME=COMMAND a line (# starts a comment)")
    parser.add_argument("--game", default=registry.board_games()[0].name,
                        help="the game (default: %(default)s)")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="a game option, e.g. --option n=8 (repeatable)")
    parser.add_argument("--n", help="short for --option n=N")
    parser.add_argument("--time", type=float, default=1.0,
                        help="the graded programs' seconds a move (default 1)")
    parser.add_argument("--out", type=Path, default=Path("grades"),
                        help="folder for grades.csv, grades.json, index.html and the "
                             "database (default: ./grades)")
    parser.add_argument("--db", type=Path, help="the SQLite file (default: DIR/grade.sqlite)")
    parser.add_argument("--ladder", type=Path, metavar="FILE",
                        help="a ladder file (default: the game's own, `aviary ladder show`)")
    parser.add_argument("--budget", type=int, default=BUDGET,
                        help=f"games a player plays at most ({BUDGET})")
    parser.add_argument("--target", type=float, default=TARGET,
                        help=f"a player is done when its 95%% interval is within +-this "
                             f"({TARGET:g})")
    parser.add_argument("--grace", type=float, default=0.25,
                        help="seconds past --time before a program is killed (0.25)")
    parser.add_argument("--memory", type=int, default=2048,
                        help="memory of a program's move in MB (2048; 0 = none)")
    parser.add_argument("--processes", type=int, default=128,
                        help="processes and threads of a program's move (128)")
    parser.add_argument("--sandbox", choices=isolation.SANDBOXES, default="bwrap",
                        help="bwrap: every move isolated (default); none: trusted programs")
    parser.add_argument("--seed", type=int, default=1,
                        help="seed of the openings and of the levels' random moves (1)")
    parser.add_argument("--jobs", type=int, default=runner.default_jobs(),
                        help="games at once (default: one per core)")
    parser.add_argument("--backend", choices=runner.BACKENDS, default="local",
                        help="local: a process pool here (default); ray: Ray tasks")
    parser.add_argument("--address", help="Ray cluster address HOST:PORT (--backend ray)")
    return parser


def main(argv: list[str]) -> int:
    a = _parser().parse_args(argv)
    check_backend(a.backend, a.jobs, a.address)
    game = make_game(a.game, parse_options(a.option, a.n))
    _check_numbers(a)
    used = _ladder(a, game)
    specs = _named(parse_specs([*a.players, *_read_from(a.from_file)]))
    if not specs:
        raise UsageError("no player to grade: give commands, or --from FILE")
    levels = {level.name for level in used.levels}
    for spec in specs:
        if spec.name in levels:
            raise UsageError(f"player {spec.name!r} has the name of a ladder level; "
                             f"name it NAME=COMMAND")
    if a.sandbox != "none" and not all(spec.in_process for spec in specs):
        try:
            isolation.check_available()
        except isolation.SandboxUnavailable as error:
            raise UsageError(str(error)) from None
    runnable, problems = _runnable(specs, game, a.sandbox)
    a.out.mkdir(parents=True, exist_ok=True)
    db = a.db or a.out / "grade.sqlite"
    used = _stored_ladder(db) or used  # a resumed grade keeps the ladder it began on
    config = Config(
        game=game.name, players=[*runnable, *(PlayerSpec(level.name, level.spec)
                                              for level in used.levels)],
        seconds=a.time, games=a.budget * len(runnable), game_options=dict(game.settings),
        mode=GRADE, grace=a.grace,
        max_plies=int(used.calibration.get("max_plies") or ladder.MAX_PLIES),
        opening_plies=int(used.calibration.get("opening_plies") or 4), seed=a.seed,
        memory_mb=a.memory or None, title=f"grade: {game.name} {ladder.key(game)}",
        sandbox=a.sandbox, processes=a.processes)
    with Store(db) as store:
        _create_or_resume(store, config, used, problems, a)
        if runnable:
            status = _play(store, used, [spec.name for spec in runnable], a)
            if status:
                return status
        graded = grades(store, used, [(spec.name, spec.spec) for spec in specs], problems)
        about = _about(store, game, a)
        _write_outputs(a.out, store, graded, used, about)
    print_grades(graded, used, about)
    print(f"written: {a.out / 'grades.csv'}, {a.out / 'grades.json'}, {a.out / 'index.html'}")
    return 0


def _named(specs: list[PlayerSpec]) -> list[PlayerSpec]:
    """Submissions given by a glob (`submissions/*/player.py`) share a file name: such
    players are named by their program's folder instead (`alice`, `bob`), where that is
    unique; otherwise the arena's `NAME#2` names stay."""
    stems = [spec.name.split("#")[0] for spec in specs]
    shared = {stem for stem in stems if stems.count(stem) > 1}
    renamed = []
    for spec, stem in zip(specs, stems, strict=True):
        if stem in shared and not spec.in_process:
            program = next((word for word in reversed(shlex.split(spec.spec))
                            if Path(word).name == stem), None)
            if program is not None and Path(program).parent.name:
                spec = PlayerSpec(Path(program).resolve().parent.name, spec.spec)
        renamed.append(spec)
    names = [spec.name for spec in renamed]
    if len(set(names)) != len(names):
        return specs
    return renamed


def _check_numbers(a: argparse.Namespace) -> None:
    for name, value, zero in (("--time", a.time, False), ("--grace", a.grace, True)):
        try:
            check_seconds(value, name, zero=zero)
        except ValueError as error:
            raise UsageError(str(error)) from None
    if a.budget < 2:
        raise UsageError(f"--budget must be at least 2 (one colour-swapped pair), got {a.budget}")
    if not (a.target > 0 and math.isfinite(a.target)):
        raise UsageError(f"--target must be a number of Elo above 0, got {a.target}")
    if a.memory < 0:
        raise UsageError("--memory must not be negative")
    if a.processes < 4:
        raise UsageError(f"--processes must be at least 4, got {a.processes}")


def _ladder(a: argparse.Namespace, game: Game[Any, Any]) -> ladder.Ladder:
    if a.ladder is None:
        return ladder.load(game)
    used = ladder.read(a.ladder, "--ladder")
    if used.game != game.name or used.settings != dict(game.settings):
        raise UsageError(f"--ladder {a.ladder} is the ladder of {used.game} {used.settings}, "
                         f"not of {game.name} {dict(game.settings)}")
    return used


def _stored_ladder(db: Path) -> ladder.Ladder | None:
    """The ladder a grade in `db` began on, if `db` holds one."""
    if not db.is_file() or db.stat().st_size == 0:
        return None
    with Store(db, must_exist=True) as store:
        text = store.get("ladder")
    return ladder.Ladder.from_json(text) if text else None


def _read_from(path: Path | None) -> list[str]:
    """The players of a --from file: one NAME=COMMAND a line; blank lines and # comments
    are skipped."""
    if path is None:
        return []
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"--from {path}: cannot read it ({error})") from None
    players = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if "=" not in line.split()[0]:
            raise UsageError(f"--from {path} line {number}: expected NAME=COMMAND, got "
                             f"{line[:60]!r}")
        players.append(line)
    return players


def _runnable(specs: list[PlayerSpec], game: Game[Any, Any], sandbox: str
              ) -> tuple[list[PlayerSpec], dict[str, str]]:
    """The players that can run (commands made absolute), and why each other cannot."""
    runnable, problems = [], {}
    for spec in specs:
        try:
            check(spec, game)
            if not spec.in_process:
                spec = PlayerSpec(spec.name, shlex.join(resolve_command(spec.spec)))
                check_sandbox(sandbox, [spec])
        except UsageError as error:
            problems[spec.name] = str(error)
            continue
        runnable.append(spec)
    return runnable, problems


def _create_or_resume(store: Store, config: Config, used: ladder.Ladder,
                      problems: dict[str, str], a: argparse.Namespace) -> None:
    if store.get("config") is None:
        store.create(config)
        store.put("ladder", used.to_json())
        store.put("grade", json.dumps({"budget": a.budget, "target": a.target,
                                       "problems": problems}))
        return
    stored = store.config()
    if stored.mode != GRADE:
        raise UsageError(f"{store.path} holds an arena tournament, not a grade; "
                         "use another --out or --db")
    if (stored.game, stored.game_options, stored.player_specs, stored.seconds) != (
            config.game, config.game_options, config.player_specs, config.seconds):
        raise UsageError(f"{store.path} holds a grade of other players or settings; the same "
                         "command resumes it, another --out starts a new one")


def _play(store: Store, used: ladder.Ladder, names: list[str], a: argparse.Namespace) -> int:
    settings = json.loads(store.get("grade") or "{}")
    schedule = Staircase(store, used, names, int(settings.get("budget", a.budget)),
                         float(settings.get("target", a.target)))
    lock = lock_database(store.path)
    try:
        config = store.config()
        if config.sandbox == "none" and not all(spec.in_process for spec in config.players):
            print("aviary grade: --sandbox none: the programs run unisolated, with the "
                  "arena's own rights (recorded with the grade)", file=sys.stderr)
        runner.warn(runner.oversubscription_warning(a.jobs, a.backend, provenance.load()))
        store.add_sitting(a.jobs, a.backend, isolation.describe() if config.sandbox != "none"
                          else "none: programs ran unisolated, with the arena's rights")
        with runner.StopSignals(store.path) as stop:
            runner.run(store, jobs=a.jobs, backend=a.backend, address=a.address, stop=stop,
                       schedule=schedule, on_game=_progress(schedule))
    except runner.GamesFailed as error:
        print(f"aviary grade: {error}; the finished games are saved and the same command "
              "goes on", file=sys.stderr)
        return 1
    except runner.Interrupted as interrupted:
        print(f"aviary grade: stopped by {interrupted}; the finished games are saved in "
              f"{store.path} and the same command goes on", file=sys.stderr, flush=True)
        return 128 + interrupted.signum
    finally:
        lock.close()
    return 0


def _progress(schedule: Staircase) -> Any:
    def said(record: GameRecord) -> None:
        player = record.first if record.first in schedule.players else record.second
        games = len(schedule.players[player].games())
        print(f"[{player}: {games} games, {schedule.placement(player)}] "
              f"{describe_game(record)}", flush=True)

    return said


def _about(store: Store, game: Game[Any, Any], a: argparse.Namespace) -> dict[str, Any]:
    """What was graded and how: the record that goes with every grade."""
    config = store.config()
    sittings = store.sittings()
    loads = [load for row in store.games() for load in (row.load_start, row.load_end)
             if load is not None]
    settings = json.loads(store.get("grade") or "{}")
    return {"game": game.name, "settings": dict(game.settings), "seconds": config.seconds,
            "date": store.get("created"), "commit": sittings[-1]["commit"] if sittings else "",
            "machine": sittings[-1]["machine"] if sittings else provenance.machine(),
            "load": [min(loads), max(loads)] if loads else None,
            "budget": settings.get("budget"), "target": settings.get("target"),
            "sandbox": sittings[-1].get("sandbox", config.sandbox) if sittings
            else config.sandbox, "jobs": a.jobs}


def _write_outputs(out: Path, store: Store, graded: list[Grade], used: ladder.Ladder,
                   about: dict[str, Any]) -> None:
    write_text_atomically(out / "grades.csv", grades_csv(graded))
    write_text_atomically(out / "grades.json", grades_json(graded, used, about))
    from aviary.arena.leaderboard import write_site

    write_site(out, store, graded, used, about)


def grades_csv(graded: list[Grade]) -> str:
    """`name,elo,elo_low,elo_high,level,games,forfeits`; an open side of an interval is
    empty, and so is the Elo of a player that won (or lost) every game; forfeits as
    `reason=count` words."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_HEADER)
    for grade in graded:
        writer.writerow([grade.name, _number(grade.elo), _number(grade.low),
                         _number(grade.high), grade.level or "", grade.games,
                         grade.forfeits_text()])
    return buffer.getvalue()


def _number(value: float | None) -> str:
    return "" if value is None else f"{value:.0f}"


def print_grades(graded: list[Grade], used: ladder.Ladder, about: dict[str, Any]) -> None:
    console = make_console()
    settings = " ".join(f"{name}={value}" for name, value in used.settings.items())
    table = Table(title=f"grades: {used.game} {settings}, {about['seconds']:g} s a move "
                        "(Elo on the ladder: random mover = 0)")
    for header in ("#", "player", "Elo", "95%", "beats", "games", "forfeits"):
        table.add_column(header, justify="left" if header in ("player", "beats", "forfeits")
                         else "right")
    for rank, grade in enumerate(graded, 1):
        if grade.problem:
            table.add_row("-", grade.name, "", "", "cannot run", "0", grade.problem[:60])
            continue
        placement = grade.placement
        elo, interval = placement.elo_text(), placement.interval_text()
        beats = grade.level or "none"
        if grade.level:
            beats += f" ({used.level(grade.level).elo:+.0f})"
        table.add_row(str(rank), grade.name, elo, interval, beats, str(grade.games),
                      grade.forfeits_text() or "-")
    console.print(table)
    load = about.get("load")
    machine = about.get("machine") or {}
    console.print(f"{about.get('date')}, commit {about.get('commit')}, "
                  f"{machine.get('processor', '?')} {machine.get('cores', '?')} cores"
                  + (f", load {load[0]:.1f}-{load[1]:.1f}" if load else "")
                  + f", sandbox: {about.get('sandbox')}", highlight=False)
