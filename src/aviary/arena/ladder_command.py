"""`aviary ladder calibrate | show`: make a game's ladder of reference players, and read it.

`calibrate` may take hours and can be stopped at any time: its games are an arena
database, and the same command again goes on from there. The ladder file keeps every
game's result too, so where the database is gone (another machine, another day) a
calibration with a new database goes on from the file's games. When no levels are given it
first plays a short probe over a fine grid of levels (its own database, beside the
calibration's) and places the ladder's levels at even steps of that probe's curve;
`--levels-from FILE` places them on the curve of a ladder file instead (a probe's, or a
first calibration whose steps came out uneven). The
ladder file is rewritten every `CHECK_EVERY` games (past 10,000 games, every 1% more), so
a long calibration always leaves its current ladder behind.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from rich.table import Table

from aviary.arena import allocation, isolation, ladder, runner
from aviary.arena.command import check_backend, lock_database, parse_options
from aviary.arena.games import make_game
from aviary.arena.players import PlayerSpec, check
from aviary.arena.progress import describe as describe_game
from aviary.arena.referee import GameRecord
from aviary.arena.report import make_console
from aviary.arena.schedule import Config, default_games, pairings
from aviary.arena.store import Store, StoredGame
from aviary.errors import ArgumentParser, UsageError
from aviary.games.base import Game

CHECK_EVERY = 100  # games between fits (and rewrites of the ladder file)
MAX_GAMES = 200_000  # a guard against a calibration that never gets there: sixteen levels
# over 3,000 Elo need about 100,000 games for +-30
TARGET = 30.0
PLY_LIMITED = 0.1  # a larger share of games cut off at --max-plies is said
PROGRESS_RESAMPLES = 10_000  # a fit on the way (the file's and the stop's: ladder.RESAMPLES)
CUT_OFF_FEWEST = 20  # a calibration says so of a pairing once it has this many games
CUT_OFF_NAMED = 4  # pairings named (most cut off first); the rest are counted
REWEIGH_GROWTH = 1.5  # a sitting weighs its pairings again once the games have grown so much
REWEIGH = "weighing the pairings again"  # why a sitting's run stops and goes on at once
SHARES_NAMED = 6  # pairings named when a phase begins (the largest shares)


def _parser() -> ArgumentParser:
    parser = ArgumentParser(prog="aviary ladder",
                            description="A game's ladder of reference players: make it, read it.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=ArgumentParser)
    calibrate = commands.add_parser("calibrate", help="play the ladder's levels against each "
                                    "other and write the ladder file (resumable)")
    show = commands.add_parser("show", help="the ladder's levels with their Elo and intervals")
    for sub in (calibrate, show):
        sub.add_argument("--game", required=True, help="the game")
        sub.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                         help="a game option, e.g. --option n=8 (repeatable)")
        sub.add_argument("--file", type=Path, help="the ladder file (default: the game's own, "
                         "in the package)")
    calibrate.add_argument("--db", type=Path, help="the calibration's SQLite file (default: "
                           "ladder-GAME-OPTIONS.sqlite here); its probe is FILE-probe.sqlite")
    calibrate.add_argument("--levels", nargs="+", metavar="SPEC",
                           help="the levels' player specs, weakest first (the first is the "
                                "anchor, 0 Elo; default: chosen by a probe)")
    calibrate.add_argument("--levels-from", type=Path, metavar="FILE",
                           help="place the levels at even steps of the curve of this ladder "
                                "file (a probe's, or a first calibration whose steps came out "
                                "uneven) instead of probing")
    calibrate.add_argument("--target", type=float, default=TARGET,
                           help="stop when every level's 95%% interval is within +-this (30)")
    calibrate.add_argument("--max-games", type=int, default=MAX_GAMES,
                           help=f"stop after this many games in all ({MAX_GAMES})")
    calibrate.add_argument("--probe-rounds", type=int, default=ladder.PROBE_ROUNDS,
                           help="colour-swapped pairs per pairing in the probe "
                                f"({ladder.PROBE_ROUNDS})")
    calibrate.add_argument("--max-plies", type=int,
                           help="a game is a draw after this many plies (default: as in the "
                                "ladder file, else the game's longest ladder, else "
                                f"{ladder.MAX_PLIES})")
    calibrate.add_argument("--jobs", type=int, default=runner.default_jobs(),
                           help="games at once (default: one per core)")
    return parser


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    game = make_game(args.game, parse_options(args.option, None))
    out = args.file or ladder.path(game)
    if args.command == "show":
        if args.file is not None and not args.file.is_file():
            raise UsageError(f"no such ladder file: {args.file}")
        shown = ladder.read(args.file, "--file") if args.file else ladder.load(game)
        print_ladder(shown, game)
        return 0
    return _calibrate(args, game, out)


def _calibrate(args: argparse.Namespace, game: Game[Any, Any], out: Path) -> int:
    check_backend("local", args.jobs, None)
    for name, value in (("--max-games", args.max_games), ("--max-plies", args.max_plies),
                        ("--probe-rounds", args.probe_rounds)):
        if value is not None and value < 1:
            raise UsageError(f"{name} must be at least 1, got {value}")
    if not args.target > 0:
        raise UsageError(f"--target must be above 0, got {args.target}")
    if args.levels and args.levels_from:
        raise UsageError("give --levels or --levels-from, not both")
    db = args.db or Path(f"ladder-{game.name}-{ladder.key(game)}.sqlite")
    specs = args.levels
    for i, spec in enumerate(specs or ()):  # before any database is made
        check(PlayerSpec(f"L{i}", spec), game)
    existing = _existing_levels(db)
    if existing is not None:  # going on: the database's levels (--levels-from chose them)
        if specs and specs != existing:
            raise UsageError(f"{db} calibrates other levels; use another --db")
        specs = existing
    elif args.levels_from:
        specs = _levels_from(args.levels_from, game)
    carried, changed = _carried(out, game, specs) if existing is None else (None, [])
    if carried is not None:
        config = ladder.carried_config(carried, game, args.max_games, specs)
        rows = ladder.carried_games(carried, config, out.name, frozenset(changed))
        about = {**carried.calibration, "games": len(rows)}  # those it goes on from
        print(f"aviary ladder: going on from the {len(rows):,} games in {out} (calibrated "
              f"{about.get('started')} to {about.get('finished')}, max plies "
              f"{config.max_plies})", flush=True)
        if changed:
            print(f"aviary ladder: {', '.join(changed)} changed, so their games in {out} "
                  "are played again; the games between the levels it keeps go on",
                  flush=True)
        return _run_calibration(args, db, out, config, rows, json.dumps(about))
    if args.max_plies is None:  # a database going on keeps its own
        args.max_plies = ladder.MAX_PLIES if existing is not None else _ply_limit(out, game)
    if not specs:
        probe_db = db.with_name(db.stem + "-probe.sqlite")
        probe_specs = ladder.level_specs(ladder.PROBE_SHARES)
        games = args.probe_rounds * default_games("ladder", len(probe_specs))
        print(f"aviary ladder: probing {len(probe_specs)} levels ({games} games, {probe_db})",
              flush=True)
        status = _play(probe_db, ladder.calibration_config(game, probe_specs, games,
                                                           args.max_plies), args.jobs, None)
        if status:
            return status
        with Store(probe_db, read_only=True) as store:
            probed = ladder.fit(store, resamples=0)
        cut = cut_off(probed, game)
        if cut:
            print(f"aviary ladder: the probe's {cut}", flush=True)
        specs = _chosen_levels(probed)
    if len(specs) < 2:
        raise UsageError("a ladder needs at least two levels")
    config = ladder.calibration_config(game, specs, args.max_games, args.max_plies)
    return _run_calibration(args, db, out, config)


def _ply_limit(out: Path, game: Game[Any, Any]) -> int:
    """A new calibration's ply limit when none is given: its ladder file's, else the
    longest of the game's packaged ladders' (a game that needs more than the default
    needs it in every configuration, and a bigger board more), else `ladder.MAX_PLIES`.
    Too low a limit cuts off games between the top levels and presses them together."""
    limits: list[tuple[int, str]] = []
    if out.is_file():
        own = ladder.read(out, "--file")
        if own.game == game.name and isinstance(own.calibration.get("max_plies"), int):
            limits = [(own.calibration["max_plies"], str(out))]
    if not limits:
        limits = [(other.calibration["max_plies"],
                   f"its ladder of {ladder.settings_key(other.settings)}")
                  for other in ladder.available(game.name)
                  if isinstance(other.calibration.get("max_plies"), int)]
    if not limits:
        return ladder.MAX_PLIES
    plies, where = max(limits)
    print(f"aviary ladder: a game is a draw after {plies:,} plies (as in {where}; "
          "--max-plies sets another limit)", flush=True)
    return plies


def _chosen_levels(curve: ladder.Ladder) -> list[str]:
    shares = ladder.choose_shares(curve)
    print(f"aviary ladder: {len(shares) + 2} levels, at random-move shares "
          + ", ".join(f"{share:g}" for share in shares), flush=True)
    return ladder.level_specs(shares)


def _levels_from(where: Path, game: Game[Any, Any]) -> list[str]:
    """Levels at even steps of ladder file `where`'s curve (`--levels-from`)."""
    if not where.is_file():
        raise UsageError(f"no such ladder file: {where}")
    curve = ladder.read(where, "--levels-from")
    if curve.game != game.name or curve.settings != dict(game.settings):
        raise UsageError(f"--levels-from {where} is a ladder of {curve.game} "
                         f"{curve.settings}, not of {game.name} {dict(game.settings)}")
    if len(curve.levels) < 3:
        raise UsageError(f"--levels-from {where} has {len(curve.levels)} levels: too few "
                         "to draw a curve through")
    return _chosen_levels(curve)


def _carried(out: Path, game: Game[Any, Any], specs: list[str] | None
             ) -> tuple[ladder.Ladder | None, list[str]]:
    """The ladder file `out` if a calibration into a new database goes on from its games
    (it is this game's, keeps its results, and has the levels asked for, or none were),
    and the levels asked for that differ from its own: as many levels, some of them
    replaced (a step that came out too wide), keep the games between the others."""
    if not out.is_file():
        return None, []
    found = ladder.read(out, "--file")
    if not found.results or found.game != game.name or found.settings != dict(game.settings):
        return None, []
    own = [level.spec for level in found.levels]
    if not specs or specs == own:
        return found, []
    changed = [f"L{i}" for i, (asked, had) in enumerate(zip(specs, own, strict=False))
               if asked != had]
    if len(specs) != len(own) or len(changed) > len(own) // 2:
        print(f"aviary ladder: {out} holds other levels; a new calibration replaces it",
              flush=True)
        return None, []
    return found, changed


def _run_calibration(args: argparse.Namespace, db: Path, out: Path, config: Config,
                      carried: Sequence[StoredGame] = (), carried_from: str = "") -> int:
    fitted_at = 0
    game = config.make_game()
    cut_said = False  # whether this sitting said which pairings the ply limit cuts off
    sitting: tuple[float, int] | None = None  # when this sitting stored its first game, and
    # the games stored then
    weighed_at: int | None = None  # the games stored when this sitting last weighed the
    # pairings (None: not yet, as too few had been played)
    reweigh = False  # whether the run stopped to weigh them again

    def weigh(store: Store) -> None:
        """Begin a weighted phase at the next pair's slot, if the games say enough."""
        nonlocal weighed_at
        config = store.config()
        stored = store.games()
        found = _design(config, stored, args.target)
        if found is None:
            return
        weighed_at = len(stored)
        start = max((row.id for row in stored), default=0)
        start += start % 2
        phases = tuple(phase for phase in config.phases if phase[0] < start)
        if phases and phases[-1][1] == found.weights:
            return
        store.put("config", replace(config, phases=(*phases, (start, found.weights))).to_json())
        named = sorted(zip(found.weights, pairings(config), strict=True), reverse=True)
        shares = ", ".join(f"{low}-{high} {weight / sum(found.weights):.0%}"
                           for weight, (low, high) in named[:SHARES_NAMED] if weight)
        print(f"aviary ladder: from game {start + 1:,} on, pairs go where they narrow the "
              f"widest interval most for their time: {shares}"
              + (", ..." if sum(1 for weight in found.weights if weight) > SHARES_NAMED
                 else "") + (f" (about {found.games:,} more games for +-{args.target:g})"
                             if found.games else ""), flush=True)

    def checkpoint(store: Store, done: int) -> str | None:
        nonlocal fitted_at, sitting, cut_said, reweigh
        if sitting is None:
            sitting = (time.monotonic(), done)
        if not fit_due(done, fitted_at):
            return None
        fitted_at = done
        stored = store.games()
        if ladder.all_drawn(stored):
            return f"all of the first {done} games drawn"  # the fit below says so
        fitted = ladder.fit(store, resamples=PROGRESS_RESAMPLES, stored=stored)
        if ladder.precise_enough(fitted, args.target):
            # confirmed by more resamples (the 2.5% and 97.5% points of fewer move by
            # about a percent): the ladder that ends the calibration is its file's
            fitted = ladder.fit(store, stored=stored)
        ladder.write(fitted, out)
        cut = "" if cut_said else cut_off(fitted, game, fewest=CUT_OFF_FEWEST)
        if cut:  # said once a sitting, as soon as it shows
            print(f"aviary ladder: so far {cut}", flush=True)
            cut_said = True
        minutes = (time.monotonic() - sitting[0]) / 60
        found = _design(store.config(), stored, args.target)
        print(fit_line(fitted, args.target,
                       (done - sitting[1]) / minutes if done > sitting[1] else None,
                       None if found is None else found.games), flush=True)
        if ladder.precise_enough(fitted, args.target):
            return f"every level within +-{args.target:g} Elo"
        if found is not None and (weighed_at is None or done >= REWEIGH_GROWTH * weighed_at):
            reweigh = True
            return REWEIGH
        return None

    while True:
        reweigh = False
        status = _play(db, config, args.jobs, checkpoint, carried, carried_from, weigh)
        if status or not reweigh:
            break
        carried, carried_from = (), ""  # the database holds them now
    with Store(db, read_only=True) as store:
        if not store.games():
            return status
        fitted = ladder.fit(store)  # stopped or done: the ladder of every stored game
    ladder.write(fitted, out)
    print_ladder(fitted, game)
    print(f"written to {out}")
    return status


def _design(config: Config, stored: Sequence[StoredGame], target: float
            ) -> allocation.Design | None:
    """The weights the games so far give the calibration's pairings (`allocation.design`)."""
    return allocation.design([player.name for player in config.players], pairings(config),
                             stored, target)


def fit_due(done: int, last: int) -> bool:
    """Whether a calibration fits its ladder at `done` games stored, its last fit at
    `last`: every `CHECK_EVERY` games, and past 10,000 games every 1% more (a fit reads
    every game, and the workers wait while it runs)."""
    return done > 0 and done % CHECK_EVERY == 0 and done - last >= done // 100


def fit_line(fitted: ladder.Ladder, target: float, per_minute: float | None = None,
             more: int | None = None) -> str:
    """What a calibration says at each fit: how far it has come, and how far to go (`more`
    games, as weighted phases would play them; else as many as the games so far, in the
    same mix, would need), and, at `per_minute` games a minute, as this sitting has played
    them, how long."""
    wide = ladder.widest(fitted)
    steps = [level.step for level in fitted.levels[1:]]
    if more is None or ladder.precise_enough(fitted, target):
        more = ladder.games_to_target(fitted, target)
    pace = (f" (at {per_minute:,.0f} a minute, as here so far: {_duration(more / per_minute)})"
            if more and per_minute else "")
    return (f"aviary ladder: {fitted.calibration['games']:,} games: widest interval "
            f"+-{wide.margin:.1f} ({wide.name}), steps {min(steps):.0f} to {max(steps):.0f} Elo; "
            + (f"about {more:,} more games for +-{target:g}{pace}" if more else
               f"every level within +-{target:g}"))


def _duration(minutes: float) -> str:
    """`minutes` in words: `40 minutes`, `3.5 hours`, `2.1 days`."""
    if minutes < 90:
        whole = max(1, round(minutes))
        return f"{whole} minute{'s' if whole > 1 else ''}"
    if minutes < 48 * 60:
        return f"{minutes / 60:.1f} hours"
    return f"{minutes / 1440:.1f} days"


def _existing_levels(db: Path) -> list[str] | None:
    if not db.exists():
        return None
    with Store(db, must_exist=True) as store:
        if store.get("config") is None:
            return None
        config = store.config()
    if config.mode != "ladder":
        raise UsageError(f"{db} holds a tournament that is no ladder calibration; "
                         "use another --db")
    return [player.spec for player in config.players]


def _play(db: Path, config: Config, jobs: int,
          until: Callable[[Store, int], str | None] | None = None,
          carried: Sequence[StoredGame] = (), carried_from: str = "",
          before: Callable[[Store], None] | None = None) -> int:
    """Play `config`'s games into `db` (created, with the `carried` games of a calibration
    it goes on, or resumed where it stopped, up to the game count asked for now: a
    calibration's length is a limit, not part of what it is); 0, or 128 + the signal that
    stopped it. `until` is asked before the first game and after each stored one, with
    the number of games stored; `before`, with the database open, before any game."""
    with Store(db) as store:
        if store.get("config") is None:
            store.create(config, carried, carried_from)
        elif store.config().games != config.games:
            store.put("config", replace(store.config(), games=config.games).to_json())
        if before is not None:
            before(store)
        tally = _Tally(store)
        lock = lock_database(db)
        try:
            store.add_sitting(jobs, "local", isolation.describe())
            with runner.StopSignals(db) as stop:
                runner.run(store, jobs=jobs, stop=stop, on_game=tally.said,
                           until=None if until is None else lambda _: until(store, tally.done))
        except runner.Interrupted as interrupted:
            print(f"aviary ladder: stopped by {interrupted}; the same command goes on from "
                  f"{db}", file=sys.stderr, flush=True)
            return 128 + interrupted.signum
        finally:
            lock.close()
    return 0


class _Tally:
    """The games stored in a calibration's database: counted once when it opens, then one
    more a stored game (counting them again would read every id, a game at a time)."""

    def __init__(self, store: Store) -> None:
        self.total = store.config().games
        self.done = store.finished_count()

    def said(self, record: GameRecord) -> None:
        self.done += 1
        print(f"[{self.done}/{self.total}] {describe_game(record)}", flush=True)


def print_ladder(shown: ladder.Ladder, game: Game[Any, Any]) -> None:
    console = make_console()
    settings = " ".join(f"{name}={value}" for name, value in shown.settings.items())
    table = Table(title=f"ladder: {shown.game} {settings}".strip())
    for header in ("level", "player", "Elo", "95% (vs random)", "step", "95% (step)", "games"):
        table.add_column(header, justify="left" if header in ("level", "player") else "right")
    for level in shown.levels:
        table.add_row(level.name, ladder.describe(level.spec), f"{level.elo:+.0f}",
                      f"{level.low:+.0f} .. {level.high:+.0f}",
                      f"{level.step:+.0f}" if level.step else "",
                      f"{level.step_low:+.0f} .. {level.step_high:+.0f}" if level.step else "",
                      str(level.games))
    console.print(table)
    about = shown.calibration
    if about:
        load = about.get("load")
        machine = about.get("machine") or {}
        load_text = f", load {load[0]:.1f}-{load[1]:.1f}" if load else ""
        console.print(f"calibrated: {about.get('games')} games in {about.get('pairs')} pairs, "
                      f"commit {about.get('commit')}, {about.get('started')} to "
                      f"{about.get('finished')}, {machine.get('processor', '?')} "
                      f"{machine.get('cores', '?')} cores{load_text}", highlight=False)
        for before in about.get("earlier") or ():
            machine = before.get("machine") or {}
            console.print(f"  going on from {before.get('games')} games of commit "
                          f"{before.get('commit')}, {before.get('started')} to "
                          f"{before.get('finished')}, {machine.get('processor', '?')}",
                          highlight=False)
    resamples = about.get("resamples") if about else None
    if isinstance(resamples, int) and resamples:
        line = (f"intervals: the 2.5% and 97.5% points of {resamples:,} resamples of the "
                "colour-swapped pairs")
        if resamples < ladder.RESAMPLES:
            refit = ("`aviary ladder calibrate` going on from this file's games fits them so"
                     if shown.results else
                     "this file keeps no results, so only a new calibration can refit it")
            line += (f"; a calibration now draws {ladder.RESAMPLES:,}, whose points move "
                     f"less from draw to draw: {refit}")
        console.print(line, highlight=False)
    wide = [level.name for level in shown.levels if level.margin > TARGET]
    if wide:
        console.print(f"intervals wider than +-{TARGET:g}: {', '.join(wide)} (about "
                      f"{ladder.games_to_target(shown, TARGET):,} more games: "
                      "`aviary ladder calibrate` goes on)", highlight=False)
    uneven = ladder.steps_outside(shown)
    if uneven:
        console.print(f"steps outside 50-250 Elo: {', '.join(uneven)}", highlight=False)
    limited, games = about.get("ply_limit_draws") or 0, about.get("games") or 0
    if games and limited > PLY_LIMITED * games:
        console.print(f"{limited} of {games} games reached the ply limit "
                      f"({about.get('max_plies')}) and count as draws, which makes levels "
                      "look alike: calibrate again with a higher --max-plies", highlight=False)
        return
    cut = cut_off(shown, game)
    if cut:
        console.print(cut, highlight=False)


def cut_off(shown: ladder.Ladder, game: Game[Any, Any], fewest: int = 1) -> str:
    """What to say of the pairings of `shown` (with `fewest` games or more) where more than
    `PLY_LIMITED` of the games were cut off at the ply limit; empty if none."""
    pairings = [f"{low}-{high} {cut} of {played}"
                for low, high, cut, played in ladder.ply_limited(shown, game)
                if cut > PLY_LIMITED * played and played >= fewest]
    if not pairings:
        return ""
    if len(pairings) > CUT_OFF_NAMED:
        pairings[CUT_OFF_NAMED:] = [f"{len(pairings) - CUT_OFF_NAMED} more pairings"]
    return (f"games cut off at the ply limit ({shown.calibration.get('max_plies')}) and "
            f"counted as draws: {', '.join(pairings)}; such draws bring two levels together, "
            "and a higher --max-plies parts them where the games would have ended")
