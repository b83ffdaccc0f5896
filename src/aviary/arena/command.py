"""`aviary arena run | resume | report | game`: tournaments from the command line.

Every configuration mistake (unknown game, missing or non-executable
program, unknown engine, impossible settings, a database that already holds
a tournament) is one clear line before any game starts.
"""

from __future__ import annotations

import argparse
import fcntl
import random
import shlex
import sqlite3
import sys
from pathlib import Path
from typing import IO

from aviary.arena import isolation, provenance, runner
from aviary.arena.export import (
    benchmarks_page,
    import_export,
    read_export,
    readme_table,
    replace_readme_table,
    two_player_matches,
    write_export,
)
from aviary.arena.games import make_game
from aviary.arena.players import PlayerSpec, check, parse_specs, resolve_command
from aviary.arena.progress import LiveView
from aviary.arena.report import make_console, print_report, write_csv, write_json
from aviary.arena.schedule import MODES, Config, default_games
from aviary.arena.store import Store
from aviary.errors import ArgumentParser, UsageError
from aviary.games import registry
from aviary.games.base import Game, OptionError, option_pairs
from aviary.outputs import check_output, write_text_atomically
from aviary.search.clock import check_seconds


def _examples() -> str:
    game = registry.board_games()[0].name
    return f"""\
players: a command (`python3 my_player.py`, called with the game's course arguments,
e.g. `aviary {game} --help`) or an in-process engine (`aviary:engine?depth=4`,
`aviary:engine?time=0.5`, `aviary:textbook?time=1`, `aviary:random?seed=1`;
`aviary:GAME` is the game's main engine); prefix NAME= to name one.
games: {', '.join(spec.name for spec in registry.board_games())}, or a game of a family:
{', '.join(f'{prefix}:NAME' for prefix in registry.FAMILIES)} (docs/openspiel.md); game options as
--option NAME=VALUE (see docs/games/), --n N is short for --option n=N.

example:
  aviary arena run --game {game} --time 2 --games 20 --db results.sqlite \\
      aviary:engine aviary:textbook?time=1 'mine=python3 my_player.py'
"""


def _parser() -> ArgumentParser:
    parser = ArgumentParser(prog="aviary arena", description="Tournaments between programs.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=ArgumentParser)

    run = commands.add_parser("run", help="start a tournament",
                              epilog=_examples(),
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    run.add_argument("players", nargs="+", metavar="PLAYER",
                     help="two or more: a command, or aviary:ENGINE[?settings] (see below)")
    run.add_argument("--db", required=True, type=Path, help="SQLite file for the results")
    run.add_argument("--game", default=registry.board_games()[0].name,
                     help="the game to play (default: %(default)s)")
    run.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                     help="a game option, e.g. --option n=10 (repeatable)")
    run.add_argument("--n", help="short for --option n=N (board size, where the game has one)")
    run.add_argument("--time", type=float, default=1.0, help="seconds per move (default 1)")
    run.add_argument("--games", type=int, help="total games (default: one pair per pairing)")
    run.add_argument("--mode", choices=MODES, default="round-robin",
                     help="round-robin; gauntlet: the first player against each other one; "
                          "ladder: each player against the two on either side of it")
    run.add_argument("--grace", type=float, default=0.25,
                     help="seconds past --time before a program is killed (start-up; 0.25)")
    run.add_argument("--max-plies", type=int, default=200, help="draw after this many plies")
    run.add_argument("--opening-plies", type=int, default=4,
                     help="random legal plies from the start that make each opening (4)")
    run.add_argument("--seed", type=int, default=1,
                     help="seed of the shared openings, chance events and the in-process "
                          "players' random moves: the same seed replays their games")
    run.add_argument("--openings", type=Path, metavar="FILE",
                     help="start positions, one a line as the records store them (PLAYER "
                          "BOARD ...): round r starts from line r, in turn; in place of "
                          "--opening-plies")
    run.add_argument("--memory", type=int, default=2048,
                     help="memory of a program's move in MB, all its processes together "
                          "(address space per process where the machine has no cgroups); "
                          "0 = none (2048)")
    run.add_argument("--processes", type=int, default=128,
                     help="processes and threads of a program's move together (128)")
    run.add_argument("--sandbox", choices=isolation.SANDBOXES, default="bwrap",
                     help="bwrap: every move of a program runs isolated in bubblewrap "
                          "(default); none: with the arena's own rights (trusted programs "
                          "only)")
    run.add_argument("--sprt", metavar="ELO0,ELO1[,ALPHA,BETA]",
                     help="two players only: stop when the SPRT over pairs decides")
    run.add_argument("--title", default="",
                     help="what the tournament measures, in words (for the benchmarks page)")
    _add_execution(run)

    resume = commands.add_parser("resume", help="finish a stopped tournament")
    resume.add_argument("db", type=Path)
    _add_execution(resume)

    report = commands.add_parser("report", help="standings table; export CSV/JSON")
    report.add_argument("db", type=Path)
    report.add_argument("--csv", type=Path, help="write the standings as CSV")
    report.add_argument("--json", type=Path, help="write config, standings and games as JSON")
    report.add_argument("--force", action="store_true", help="overwrite existing export files")

    export = commands.add_parser("export", help="the tournament as JSON lines (the record "
                                 "of a figure: settings, commit, machine, load, every game)")
    export.add_argument("db", type=Path)
    export.add_argument("--out", type=Path, required=True, help="the .jsonl file to write")
    export.add_argument("--force", action="store_true", help="overwrite an existing file")

    restore = commands.add_parser("import", help="rebuild a tournament database from its "
                                  "export (then `resume` it)")
    restore.add_argument("export", type=Path, help="an exported tournament (.jsonl)")
    restore.add_argument("--db", type=Path, required=True, help="the new SQLite file")

    page = commands.add_parser("page", help="write docs/benchmarks.md (and the README's "
                               "summary table) from exports")
    page.add_argument("exports", nargs="*", type=Path, help="exported tournaments (.jsonl)")
    page.add_argument("--out", type=Path, required=True, help="the Markdown page to write")
    page.add_argument("--readme", type=Path,
                      help="also replace the summary table between this file's markers")

    game = commands.add_parser("game", help="replay one stored game as boards")
    game.add_argument("db", type=Path)
    game.add_argument("id", type=int)
    return parser


def _add_execution(parser: ArgumentParser) -> None:
    parser.add_argument("--jobs", type=int, default=runner.default_jobs(),
                        help="games at once (default: one per core)")
    parser.add_argument("--backend", choices=runner.BACKENDS, default="local",
                        help="local: a process pool here (default); ray: Ray tasks")
    parser.add_argument("--address", help="Ray cluster address HOST:PORT (--backend ray; "
                        "default: start Ray here)")


def _sprt(text: str | None, players: int) -> tuple[float, float, float, float] | None:
    if text is None:
        return None
    if players != 2:
        raise UsageError("--sprt needs exactly two players")
    try:
        values = [float(part) for part in text.split(",")]
    except ValueError:
        raise UsageError(f"--sprt {text!r}: expected ELO0,ELO1[,ALPHA,BETA]") from None
    if len(values) not in (2, 4):
        raise UsageError(f"--sprt {text!r}: expected ELO0,ELO1[,ALPHA,BETA]")
    elo0, elo1, alpha, beta = (*values, 0.05, 0.05) if len(values) == 2 else values
    if not elo0 < elo1 or not (0 < alpha < 1 and 0 < beta < 1):
        raise UsageError("--sprt needs ELO0 < ELO1 and 0 < ALPHA, BETA < 1")
    return elo0, elo1, alpha, beta


def _config(a: argparse.Namespace) -> Config:
    options = parse_options(a.option, a.n)
    game = make_game(a.game, options)
    for name, value, zero in (("--time", a.time, False), ("--grace", a.grace, True)):
        try:  # inf would never cut a program off; beyond a day a timer overflows
            check_seconds(value, name, zero=zero)
        except ValueError as error:
            raise UsageError(str(error)) from None
    if len(a.players) < 2:
        raise UsageError("a tournament needs at least two players")
    specs = []
    for spec in parse_specs(a.players):
        check(spec, game)
        if not spec.in_process:  # store absolute paths: moves run in a temporary directory
            spec = PlayerSpec(spec.name, shlex.join(resolve_command(spec.spec)))
        specs.append(spec)
    games = a.games if a.games is not None else default_games(a.mode, len(specs))
    for name, value in (("--games", games), ("--max-plies", a.max_plies)):
        if value < 1:
            raise UsageError(f"{name} must be at least 1, got {value}")
    if a.opening_plies < 0 or a.memory < 0:
        raise UsageError("--opening-plies and --memory must not be negative")
    if a.processes < 4:  # the sandbox's own two processes, the program, a child
        raise UsageError(f"--processes must be at least 4, got {a.processes}")
    check_sandbox(a.sandbox, specs)
    openings = _read_openings(game, a.openings) if a.openings is not None else ()
    if not openings:
        _check_openings(game, a.opening_plies, a.seed)
    return Config(
        game=a.game, players=specs, seconds=a.time, games=games,
        game_options=dict(game.settings),
        mode=a.mode, grace=a.grace, max_plies=a.max_plies,
        opening_plies=a.opening_plies, seed=a.seed,
        memory_mb=a.memory or None, sprt=_sprt(a.sprt, len(specs)), title=a.title,
        openings=openings, sandbox=a.sandbox, processes=a.processes,
    )


def check_sandbox(sandbox: str, specs: list[PlayerSpec]) -> None:
    """Before any game: the sandbox runs here, and each program's folder can be copied."""
    if sandbox == "none" or all(spec.in_process for spec in specs):
        return
    try:
        isolation.check_available()
    except isolation.SandboxUnavailable as error:
        raise UsageError(str(error)) from None
    for spec in specs:
        if spec.in_process:
            continue
        folder = isolation.own_folder(resolve_command(spec.spec))
        problem = folder and isolation.folder_size_problem(folder)
        if problem:
            raise UsageError(f"player {spec.name}: {problem}")


def parse_options(pairs: list[str], n: str | None) -> dict[str, str]:
    """`--option NAME=VALUE` pairs (and the `--n` shortcut) as a name -> text mapping."""
    try:
        options = option_pairs(pairs)
    except OptionError as error:
        raise UsageError(str(error)) from None
    if n is not None:
        options["n"] = n
    return options


def _read_openings(game: Game, path: Path) -> tuple[str, ...]:
    """The positions of an `--openings` file, each checked: one a line (blank lines and
    `#` comments aside), as `Game.encode` writes it; a position the game cannot read, or
    one whose game is over, is one line naming the file and line."""
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or "not a text file"
        raise UsageError(f"--openings {path}: {reason}") from None
    openings = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            state = game.decode(line)
        except (ValueError, IndexError, KeyError, OptionError, UsageError) as error:
            raise UsageError(f"--openings {path} line {number}: not a {game.name} position "
                             f"({error or 'PLAYER BOARD expected'})") from None
        if game.outcome(state) is not None:
            raise UsageError(f"--openings {path} line {number}: the game is already over")
        openings.append(game.encode(state))
    if not openings:
        raise UsageError(f"--openings {path}: no position in it")
    return tuple(openings)


def _check_openings(game: Game, plies: int, seed: int) -> None:
    """Openings must be reachable: the game silently falls back to its start position.

    A few random walks first (quick when games end long before `plies`), then the
    first round's real opening."""
    if plies == 0:
        return
    rng = random.Random(f"{seed}:check")
    reachable = any(game.outcome(game.random_walk(rng, plies)) is None for _ in range(5))
    start = game.encode(game.start())
    if not reachable or game.encode(game.opening(random.Random(f"{seed}:0"), plies)) == start:
        raise UsageError(f"--opening-plies {plies}: random games of {game.name} end before "
                         f"{plies} plies; use fewer")


def check_backend(backend: str, jobs: int, address: str | None) -> None:
    """Before the database is touched (`run` and `resume`): `--jobs`, and a Ray cluster that
    does not answer, each one line."""
    if jobs < 1:
        raise UsageError(f"--jobs must be at least 1, got {jobs}")
    if address is not None and backend != "ray":
        raise UsageError("--address is for --backend ray")
    if backend == "ray":
        try:
            import ray  # noqa: F401
        except ImportError:
            raise UsageError("--backend ray needs Ray: pip install 'aviary[cluster]'") from None
        if address:
            runner.check_address(address)


def lock_database(db: Path) -> IO[bytes]:
    """Hold an exclusive flock on the database: two arenas on one file would race for slots.

    SQLite locks with fcntl, which is independent of flock on Linux, so this does not get
    in its way; the kernel drops the lock when the process dies, so it is never stale.
    """
    handle = open(db, "rb")  # noqa: SIM115 - held until the tournament ends
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        raise UsageError(f"another arena is already running on {db}") from None
    return handle


def _play(store: Store, jobs: int, backend: str, address: str | None) -> int:
    lock = lock_database(store.path)
    try:
        return _play_locked(store, jobs, backend, address)
    finally:
        lock.close()


def _play_locked(store: Store, jobs: int, backend: str, address: str | None) -> int:
    config = store.config()
    done = store.finished_count()
    stopped = store.get("stopped")
    if stopped:
        print(f"{store.path}: tournament already stopped ({stopped})")
    else:
        if config.sandbox == "none" and not all(spec.in_process for spec in config.players):
            print("aviary arena: --sandbox none: the programs run unisolated, with the "
                  "arena's own rights (recorded with the tournament)", file=sys.stderr)
        runner.warn(runner.oversubscription_warning(jobs, backend, provenance.load()))
        unisolated = "none: programs ran unisolated, with the arena's rights"
        store.add_sitting(jobs, backend, isolation.describe() if config.sandbox != "none"
                          else unisolated)
        console = make_console()
        try:
            with runner.StopSignals(store.path) as stop, \
                    LiveView(store, total=config.games, done=done, console=console) as view:
                runner.run(store, jobs=jobs, backend=backend, address=address,
                           on_game=view.update, stop=stop)
        except runner.GamesFailed as error:
            print(f"aviary arena: {error}; the finished games are saved and "
                  f"`aviary arena resume {store.path}` continues", file=sys.stderr)
            return 1
        except runner.Interrupted as interrupted:
            stored = store.finished_count()
            print(f"aviary arena: stopped by {interrupted}: {stored} of {config.games} games "
                  f"stored, games in progress abandoned; `aviary arena resume {store.path}` "
                  "continues", file=sys.stderr, flush=True)
            return 128 + interrupted.signum
    print_report(store)
    return 0


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    try:
        return _command(args)
    except sqlite3.DatabaseError as error:  # damage found past the checks at opening
        raise UsageError(f"database {getattr(args, 'db', '')}: {error}; restore it from a "
                         "copy, or start again with another --db") from None


def _command(args: argparse.Namespace) -> int:
    if args.command == "run":
        config = _config(args)
        check_backend(args.backend, args.jobs, args.address)
        with Store(args.db) as store:
            store.create(config)
            return _play(store, args.jobs, args.backend, args.address)
    if args.command == "resume":
        check_backend(args.backend, args.jobs, args.address)
        with Store(args.db, must_exist=True) as store:
            config = store.config()
            game = config.make_game()
            for spec in config.players:
                check(spec, game)
            check_sandbox(config.sandbox, config.players)
            return _play(store, args.jobs, args.backend, args.address)
    if args.command == "report":
        for path in (args.csv, args.json):  # all checked before the table is printed
            if path is not None:
                check_output(path, replace=args.force)
        with Store(args.db, read_only=True) as store:
            print_report(store)
            if args.csv is not None:
                write_csv(store, args.csv)
            if args.json is not None:
                write_json(store, args.json)
        return 0
    if args.command == "export":
        check_output(args.out, replace=args.force)
        with Store(args.db, read_only=True) as store:
            write_export(store, args.out)
        print(f"wrote {args.out}")
        return 0
    if args.command == "import":
        match = read_export(args.export)
        if args.db.exists():
            raise UsageError(f"{args.db} exists; import into a new file")
        try:
            with Store(args.db) as store:
                stored = import_export(match, store)
        except (KeyError, TypeError, ValueError) as error:
            for leftover in (args.db, args.db.with_name(args.db.name + "-wal"),
                             args.db.with_name(args.db.name + "-shm")):
                leftover.unlink(missing_ok=True)
            raise UsageError(f"{args.export}: a game line is incomplete ({error!r}); "
                             "nothing was written") from None
        print(f"{args.db}: {stored} of {match.config.games} games from {args.export}; "
              f"`aviary arena resume {args.db}` plays the rest")
        return 0
    if args.command == "page":
        return _page(args.exports, args.out, args.readme)
    return _replay(args.db, args.id)


def _page(exports: list[Path], out: Path, readme: Path | None) -> int:
    matches = two_player_matches(exports)
    page = benchmarks_page(matches, out.parent)
    if readme is not None:
        try:
            text = readme.read_text()
        except OSError as error:
            raise UsageError(f"cannot read {readme}: {error.strerror}") from None
        write_text_atomically(readme, replace_readme_table(text, readme_table(matches)))
    write_text_atomically(out, page)
    print(f"wrote {out}" + (f" and the table in {readme}" if readme else ""))
    return 0


def _replay(path: Path, game_id: int) -> int:
    with Store(path, read_only=True) as store:
        if not 1 <= game_id < 2**63:  # SQLite's integers end at 2**63 - 1
            raise UsageError(f"{path} has no game {game_id}")
        config = store.config()
        game = config.make_game()
        stored = store.game(game_id)
        names = (stored.first, stored.second)
        result = {1.0: "1-0", 0.0: "0-1"}.get(stored.result, "1/2-1/2")
        print(f"game {stored.id} (round {stored.round + 1}): {game.labels[0]} {stored.first}"
              f" vs {game.labels[1]} {stored.second}")
        print(f"opening: {stored.opening}")
        print(game.render(game.decode(stored.opening)))
        for move in store.moves(game_id):
            if move.mover < 0:
                print(f"\nply {move.ply}: chance")
            else:
                print(f"\nply {move.ply}: {game.labels[move.mover]} {names[move.mover]}"
                      f" (answered at {move.seconds:.2f} s, ran {move.wall:.2f} s)")
            print(game.render(game.decode(move.state)))
        detail = f" - {stored.detail}" if stored.detail else ""
        print(f"\nresult {result}: {stored.reason}{detail}")
    return 0

