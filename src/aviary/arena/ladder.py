"""Ladders: reference players of fixed strength, one ladder per game configuration.

A course grades on a scale that must not move with who else submitted, with the machine
or with the day. A ladder's levels are in-process players whose strength is set by what
they compute, never by seconds: the random mover at the bottom, then the game's main
engine at a node budget (`nodes=`) that plays a uniformly random legal move instead of
its own with a falling probability (`random=`), up to the engine itself. Each level has
`time=` far above what its budget needs, so the budget, not the clock, decides its
moves on any machine.

The ladder is calibrated once, by games among its levels (`aviary ladder calibrate`):
colour-swapped pairs from shared random openings, each level against the two levels on
either side of it (the arena's "ladder" mode; levels further apart score 0 or 100% and
say next to nothing). Once every pairing has some pairs, the calibration goes on in
weighted phases: more pairs where they narrow the widest interval most for their time
(`arena/allocation.py`). A Bradley-Terry fit puts the random mover at 0 Elo; resampling
pairs gives each level's 95% interval, against the random mover (it widens up the
ladder, since it carries every step below) and against the level below (the step).

The fitted ladder is a JSON file in the game's folder (`ladders/KEY.json`, KEY from the
game's settings), with the commit, date, machine and settings of its calibration, and the
result of every calibration game (`results`: one character a planned game, in the order
the arena planned them, for each code fingerprint that played some; `phases` say how the
plan was weighted). With those the file
is its own evidence -- refitting them gives its numbers -- and a calibration can go on
from the file alone, on another machine, when its database is gone.
"""

from __future__ import annotations

import importlib.util
import json
import math
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from aviary.arena import provenance
from aviary.arena.players import PlayerSpec
from aviary.arena.ratings import anchored_fits
from aviary.arena.referee import DRAW_BY_PLY_LIMIT
from aviary.arena.schedule import Config, Slot, check_phases, default_games, opening, plan
from aviary.arena.store import Store, StoredGame
from aviary.errors import UsageError
from aviary.games import registry
from aviary.games.base import Game
from aviary.outputs import write_text_atomically

NODES = 1000  # the engine's node budget at every level but the random mover
CEILING = 30  # `time=` of a level: seconds its budget never comes near
# the chance of a random move at each level between the random mover and the engine
SHARES = (0.93, 0.8, 0.7, 0.62, 0.53, 0.44, 0.36, 0.26, 0.14, 0.06)
ANCHOR = "L0"
# resamples behind a ladder file's intervals and the stop at the target: the 2.5% and
# 97.5% points of 300 moved the widest interval by 1-2 Elo at +-30 from one draw of them
# to the next, of 10,000 by about 0.4 (and a calibration stopping at the first draw under
# its target kept a low one); 100,000 take a few seconds
RESAMPLES = 100_000
MAX_PLIES = 300  # a calibration game not over by then is a draw
FORMAT = 1
# a calibration game's result in a ladder file, from its first player's side
RESULT_CHARS = {1.0: "1", 0.0: "0", 0.5: "="}
SCORE_OF_CHAR = {char: score for score, char in RESULT_CHARS.items()}
PLY_LIMIT_CHAR = "p"  # drawn at the ply limit
NOT_PLAYED = "."  # planned, not stored (in flight when the calibration stopped), or played
# by other code (another fingerprint's string has it)
CARRIED = "carried"  # a carried game's reason (what ended it is not kept in the file)


def level_specs(shares: Sequence[float] = SHARES, nodes: int = NODES) -> list[str]:
    """The levels' player specs, weakest first: random, the engine diluted, the engine."""
    engine = f"aviary:engine?nodes={nodes}&time={CEILING}"
    return ["aviary:random", *(f"{engine}&random={share:g}" for share in shares), engine]


@dataclass(frozen=True)
class Level:
    """One reference player and its Elo (the random mover's is 0) with 95% intervals:
    against the random mover, and of its step up from the level below."""

    name: str
    spec: str
    elo: float = 0.0
    low: float = 0.0
    high: float = 0.0
    step: float = 0.0
    step_low: float = 0.0
    step_high: float = 0.0
    games: int = 0

    @property
    def margin(self) -> float:
        return (self.high - self.low) / 2

    @property
    def step_margin(self) -> float:
        return (self.step_high - self.step_low) / 2


@dataclass(frozen=True)
class Ladder:
    game: str
    settings: dict[str, Any]
    levels: tuple[Level, ...]
    calibration: dict[str, Any] = field(default_factory=dict)
    results: dict[str, str] = field(default_factory=dict)  # code fingerprint -> results

    def level(self, name: str) -> Level:
        for level in self.levels:
            if level.name == name:
                return level
        raise KeyError(name)

    def to_json(self) -> str:
        data = {"format": FORMAT, "game": self.game, "settings": self.settings,
                "levels": [asdict(level) for level in self.levels],
                "calibration": self.calibration, "results": self.results}
        return json.dumps(data, indent=1, sort_keys=False) + "\n"

    @classmethod
    def from_json(cls, text: str) -> Ladder:
        data = json.loads(text)
        return cls(data["game"], dict(data["settings"]),
                   tuple(Level(**level) for level in data["levels"]),
                   dict(data.get("calibration") or {}),
                   _checked_results(data.get("results") or {}))


def _checked_results(results: Any) -> dict[str, str]:
    """A ladder file's `results`; ValueError unless they are strings of result characters
    of one length, no game in two of them."""
    allowed = {*RESULT_CHARS.values(), PLY_LIMIT_CHAR, NOT_PLAYED}
    if not isinstance(results, dict) or not all(
            isinstance(code, str) and isinstance(chars, str) and set(chars) <= allowed
            for code, chars in results.items()):
        raise ValueError(f"results must map code fingerprints to strings of {''.join(allowed)}")
    if len({len(chars) for chars in results.values()}) > 1:
        raise ValueError("results of unequal lengths")
    for column in zip(*results.values(), strict=True):
        if len(column) - column.count(NOT_PLAYED) > 1:
            raise ValueError("a game's result under two code fingerprints")
    return dict(results)


def key(game: Game[Any, Any]) -> str:
    """The file name (without .json) of `game`'s ladder: its settings as NAME=VALUE."""
    return settings_key(game.settings)


def settings_key(settings: dict[str, Any]) -> str:
    """Game settings as a ladder's file name says them: `n=8`, `shrink=true,variant=classic`."""
    parts = [f"{name}={str(value).lower() if isinstance(value, bool) else value}"
             for name, value in sorted(settings.items())]
    return ",".join(parts) or "default"


def folder(game_name: str) -> Path:
    """The game's `ladders` folder, beside its rules module."""
    target = None if ":" in game_name else registry.spec(game_name).game
    if target is None:
        raise UsageError(f"{game_name} has no ladder: only aviary's own board games have one")
    module = target.partition(":")[0]
    found = importlib.util.find_spec(module)
    if found is None or found.origin is None:
        raise UsageError(f"cannot find the module of {game_name}")
    return Path(found.origin).parent / "ladders"


def path(game: Game[Any, Any]) -> Path:
    return folder(game.name) / f"{key(game)}.json"


def load(game: Game[Any, Any]) -> Ladder:
    """`game`'s packaged ladder; UsageError naming the command that makes it, or why the
    configuration has none (`ladders/KEY.none`: a calibration found its levels cannot be
    told apart)."""
    where = path(game)
    if not where.is_file():
        impossible = where.with_suffix(".none")
        if impossible.is_file():
            raise UsageError(f"{game.name} {key(game)} has no ladder: "
                             + " ".join(impossible.read_text().split()))
        raise UsageError(f"no ladder for {game.name} {key(game)}: calibrate one with "
                         f"`aviary ladder calibrate --game {game.name}"
                         + "".join(f" --option {part}" for part in key(game).split(",")
                                   if part != "default") + "`")
    return read(where)


def read(where: Path, said: str = "ladder file") -> Ladder:
    """The ladder in file `where`; UsageError naming it as `said` (a command's option)
    and what is wrong."""
    try:
        return Ladder.from_json(where.read_text())
    except OSError as error:
        raise UsageError(f"{said} {where}: {error.strerror}") from None
    except (ValueError, KeyError, TypeError) as error:
        raise UsageError(f"{said} {where}: not a ladder file ({error})") from None


def available(game_name: str) -> list[Ladder]:
    """Every packaged ladder of game `game_name` (for the web app's levels)."""
    try:
        where = folder(game_name)
    except UsageError:
        return []
    ladders = []
    for file in sorted(where.glob("*.json")):
        try:
            ladders.append(Ladder.from_json(file.read_text()))
        except (ValueError, KeyError, TypeError):
            continue
    return ladders


# Calibration ---------------------------------------------------------------------------------

def calibration_config(game: Game[Any, Any], specs: Sequence[str], games: int,
                       max_plies: int = MAX_PLIES, seed: int = 1,
                       phases: tuple[tuple[int, tuple[int, ...]], ...] = ()) -> Config:
    """The arena tournament that calibrates a ladder: levels L0.. in ladder mode (from
    each of `phases` on, weighted: `arena/allocation.py`)."""
    players = [PlayerSpec(f"L{i}", spec) for i, spec in enumerate(specs)]
    return Config(game=game.name, players=players, seconds=float(CEILING), games=games,
                  game_options={name: str(value).lower() if isinstance(value, bool) else value
                                for name, value in game.settings.items()},
                  mode="ladder", max_plies=max_plies, seed=seed, phases=phases,
                  title=f"ladder calibration: {game.name} {key(game)}")


def phases_of(ladder: Ladder) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """The weighted phases a ladder file's calibration played in (none in files from
    before there were any: a round robin throughout)."""
    found = ladder.calibration.get("phases") or ()
    try:
        phases = tuple((int(start), tuple(int(weight) for weight in weights))
                       for start, weights in found)
        check_phases(phases, default_games("ladder", len(ladder.levels)) // 2)
    except (TypeError, ValueError) as error:
        raise UsageError(f"the ladder file's phases {found!r} are not a calibration's: "
                         f"{error}") from None
    return phases


def pairs_of(games: Sequence[StoredGame]) -> list[list[tuple[str, str, float]]]:
    """Games grouped into their colour-swapped pairs (a pair's two games share a round
    and its two players); a pair whose second game is missing counts alone."""
    grouped: dict[tuple[int, str, str], list[tuple[str, str, float]]] = {}
    for game in games:
        first, second = sorted((game.first, game.second))
        grouped.setdefault((game.round, first, second), []).append(
            (game.first, game.second, game.result))
    return list(grouped.values())


def fit(store: Store, resamples: int = RESAMPLES, stored: Sequence[StoredGame] | None = None
        ) -> Ladder:
    """The ladder the calibration database `store` holds so far (`stored`: its games,
    when the caller has read them)."""
    config = store.config()
    names = [player.name for player in config.players]
    stored = store.games() if stored is None else stored
    pairs = pairs_of(stored)
    if not pairs:
        raise UsageError(f"{store.path} holds no calibration game yet")
    if all_drawn(stored):
        raise UsageError(f"{store.path}: all {len(stored)} of its games were drawn, so its "
                         "levels cannot be told apart: there is no ladder to write")
    centre, draws = anchored_fits(names, pairs, ANCHOR, resamples)
    played = {name: 0 for name in names}
    for row in stored:
        played[row.first] += 1
        played[row.second] += 1
    levels = []
    for i, player in enumerate(config.players):
        elo = float(centre[i])
        low, high = (np.percentile(draws[:, i], [2.5, 97.5]) if len(draws)
                     else (elo, elo))
        step = elo - float(centre[i - 1]) if i else 0.0
        steps = draws[:, i] - draws[:, i - 1] if i and len(draws) else np.array([step])
        step_low, step_high = np.percentile(steps, [2.5, 97.5])
        levels.append(Level(player.name, player.spec, round(elo, 1),
                            round(min(float(low), elo), 1), round(max(float(high), elo), 1),
                            round(step, 1), round(min(float(step_low), step), 1),
                            round(max(float(step_high), step), 1), played[player.name]))
    sittings = store.sittings()
    loads = [load for row in stored for load in (row.load_start, row.load_end)
             if load is not None]
    carried = json.loads(store.get("carried") or "{}")  # the calibration this one goes on
    earlier = [*carried.get("earlier", []),
               {key: carried[key] for key in ("games", "commit", "started", "finished",
                                              "machine", "load") if key in carried}
               ] if carried else []
    loads += [load for before in earlier for load in before.get("load") or ()]
    game = config.make_game()
    calibration = {
        "games": len(stored), "pairs": len(pairs), "resamples": resamples,
        "commit": sittings[-1]["commit"] if sittings else provenance.git_commit(),
        "started": earlier[0].get("started") if earlier else store.get("created"),
        "finished": max(row.finished for row in stored),
        "machine": sittings[-1]["machine"] if sittings else provenance.machine(),
        "load": [min(loads), max(loads)] if loads else None,
        "max_plies": config.max_plies, "opening_plies": config.opening_plies,
        "seed": config.seed, "mode": config.mode, "anchor": ANCHOR,
        **({"phases": [[start, list(weights)] for start, weights in config.phases]}
           if config.phases else {}),
        "ply_limit_draws": sum(row.reason == DRAW_BY_PLY_LIMIT for row in stored),
        "code": sorted({row.code for row in stored if row.code}),
        **({"earlier": earlier} if earlier else {}),
    }
    return Ladder(game.name, dict(game.settings), tuple(levels), calibration,
                  results_of(stored))


def results_of(stored: Sequence[StoredGame]) -> dict[str, str]:
    """The stored games' results as a ladder file keeps them: for each code fingerprint,
    one character a planned game (slot order), `NOT_PLAYED` where it has none."""
    size = max((row.id for row in stored), default=0)
    by_code: dict[str, list[str]] = {}
    for row in stored:
        chars = by_code.setdefault(row.code or "", [NOT_PLAYED] * size)
        chars[row.id - 1] = (PLY_LIMIT_CHAR if row.reason == DRAW_BY_PLY_LIMIT
                             else RESULT_CHARS[row.result])
    return {code: "".join(chars) for code, chars in sorted(by_code.items())}


def carried_config(carried: Ladder, game: Game[Any, Any], games: int,
                   specs: Sequence[str] | None = None) -> Config:
    """The calibration that goes on from ladder file `carried`'s games: its levels (or
    `specs`, as many, some of them changed), ply limit and seed (so its openings), for at
    least every game the file holds."""
    about = carried.calibration
    missing = [name for name in ("max_plies", "seed") if not isinstance(about.get(name), int)]
    if missing:
        raise UsageError(f"the ladder file's calibration does not say its {' and '.join(missing)}"
                         ", so its games cannot go on: use another --file")
    played = max((len(chars) for chars in carried.results.values()), default=0)
    config = calibration_config(game, specs or [level.spec for level in carried.levels],
                                max(games, played), about["max_plies"], about["seed"],
                                phases_of(carried))
    if config.opening_plies != about.get("opening_plies", config.opening_plies):
        raise UsageError(f"the ladder file's games began with {about['opening_plies']} random "
                         f"plies, a calibration now with {config.opening_plies}: use another "
                         "--file")
    return config


def carried_games(carried: Ladder, config: Config, source: str,
                  dropped: frozenset[str] = frozenset()) -> list[StoredGame]:
    """Ladder file `carried`'s games as rows of `config`'s database (no moves: the file
    keeps only results), each in its planned slot with its round's opening; but not the
    games of the levels `dropped` (changed since: their slots are played again)."""
    slots = plan(config)
    game = config.make_game()
    openings: dict[int, str] = {}
    finished = str(carried.calibration.get("finished") or "")
    rows = []
    for code, slot, char in played_slots(carried, slots):
        if {slot.first, slot.second} & dropped:
            continue
        if slot.round not in openings:
            openings[slot.round] = opening(game, config, slot.round)
        result = 0.5 if char == PLY_LIMIT_CHAR else SCORE_OF_CHAR[char]
        winner = None if result == 0.5 else int(result == 0)
        rows.append(StoredGame(
            slot.index + 1, slot.round, slot.first, slot.second, openings[slot.round], result,
            winner, DRAW_BY_PLY_LIMIT if char == PLY_LIMIT_CHAR else CARRIED,
            f"carried from {source}", 0, 0.0, finished, None, None, code or None))
    return sorted(rows, key=lambda row: row.id)


def played_slots(ladder: Ladder, slots: Sequence[Slot]) -> Iterator[tuple[str, Slot, str]]:
    """Each game a ladder file's results hold, with its code fingerprint and the planned
    slot it was played in (`slots`: the plan of its calibration)."""
    for code, chars in ladder.results.items():
        for slot, char in zip(slots, chars, strict=False):  # a code's string may be short
            if char != NOT_PLAYED:
                yield code, slot, char


def all_drawn(games: Sequence[StoredGame]) -> bool:
    """Whether every game was drawn: then each level scores exactly half against every
    other, resampling finds no spread, and a fit would put every level at 0 +- 0 (as in a
    game whose board locks up before anyone can win)."""
    return all(game.result == 0.5 for game in games)


def precise_enough(ladder: Ladder, target: float) -> bool:
    """Every level's interval against the random mover within +-target."""
    return all(level.margin <= target for level in ladder.levels)


def widest(ladder: Ladder) -> Level:
    """The level whose interval against the random mover is widest (the top, mostly;
    of equals, the highest)."""
    return max(reversed(ladder.levels), key=lambda level: level.margin)


def games_to_target(ladder: Ladder, target: float) -> int:
    """About how many more games would put every level within +-target: an interval
    narrows as one over the square root of the games."""
    games = int(ladder.calibration.get("games", 0))
    return max(0, math.ceil(games * (widest(ladder).margin / target) ** 2) - games)


def ply_limited(ladder: Ladder, game: Game[Any, Any]) -> list[tuple[str, str, int, int]]:
    """The pairings whose calibration games reached the ply limit, read from the file's
    results (each planned game's slot says who played it): (lower level, higher level,
    games cut off, games played), most cut off first. Cut off, a game counts as a draw,
    so a pairing where many are says its two levels are closer than their play is."""
    if not ladder.results:
        return []
    played = max(len(chars) for chars in ladder.results.values())
    config = calibration_config(game, [level.spec for level in ladder.levels], played,
                                phases=phases_of(ladder))
    counts: dict[tuple[str, str], list[int]] = {}
    for _, slot, char in played_slots(ladder, plan(config)):
        low, high = sorted((slot.first, slot.second), key=_level_number)
        pairing = counts.setdefault((low, high), [0, 0])
        pairing[0] += char == PLY_LIMIT_CHAR
        pairing[1] += 1
    found = [(low, high, cut, games) for (low, high), (cut, games) in counts.items() if cut]
    return sorted(found, key=lambda row: (-row[2] / row[3], _level_number(row[0])))


def _level_number(name: str) -> int:
    return int(name.removeprefix("L"))


def write(ladder: Ladder, out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomically(out, ladder.to_json())


def steps_outside(ladder: Ladder, low: float = 50, high: float = 250) -> list[str]:
    """Levels whose step up from the level below is outside [low, high] Elo."""
    return [level.name for level in ladder.levels[1:] if not low <= level.step <= high]


def describe(spec: str) -> str:
    """A level's spec in words: `random`, `engine 1000 nodes, 44% random`."""
    if spec == "aviary:random":
        return "random mover"
    name, _, query = spec.removeprefix("aviary:").partition("?")
    settings = dict(part.partition("=")[::2] for part in query.split("&") if part)
    words = [name]
    if "depth" in settings:
        words.append(f"depth {settings['depth']}")
    if "nodes" in settings:
        words.append(f"{int(settings['nodes']):,} nodes")
    if "random" in settings:
        share = float(settings["random"])
        words.append(f"{share:.0%} random moves" if not math.isclose(share, 0) else "")
    return ", ".join(word for word in words if word)



# Choosing the levels -------------------------------------------------------------------------

# A probe's levels: the share of random moves on a fine grid from the random mover to the
# engine; its quick fit tells where each share stands, so the calibrated levels can be
# placed at even steps. The grid is finer at both ends, where the curve is steepest (in
# one game the last 3% of random moves alone cost the engine about 400 Elo).
PROBE_SHARES = (0.97, 0.93, 0.85, 0.77, 0.7, 0.62, 0.53, 0.44, 0.36, 0.26, 0.14, 0.06, 0.03,
                0.012)
PROBE_ROUNDS = 12  # colour-swapped pairs per pairing in the probe
FEWEST = 8  # levels in a ladder at the least
STEP = 200  # the widest step between neighbouring levels the choice aims at. A step must
# end within 50-250, and steps come out off their aim: one game's levels placed 200 apart on
# the curve of 8,118 games stood 163 to 235 apart after 14,600 (on a probe's curve, up to 284)


def share_of(spec: str) -> float:
    """The chance of a random move of a level's spec (1 for the random mover)."""
    if spec == "aviary:random":
        return 1.0
    query = spec.partition("?")[2]
    settings = dict(part.partition("=")[::2] for part in query.split("&") if part)
    return float(settings.get("random", 0))


def choose_shares(probe: Ladder) -> list[float]:
    """Shares of random moves for a ladder at even steps of about `STEP` Elo, read off a
    probe's fitted curve (made monotone: fewer random moves are never weaker), from the
    random mover (share 1) to the engine (share 0) included.

    The ladder has as many levels as keep the steps within `STEP` (and `FEWEST` at the
    least): 8-12 for a span up to 2,200 Elo, and more where the span is wider (3,100 Elo,
    as one game has, takes seventeen): a step's 50-250 Elo is a bar, the count only a
    size."""
    points = sorted(((share_of(level.spec), level.elo) for level in probe.levels), reverse=True)
    shares = [share for share, _ in points]
    elos = _rising([elo for _, elo in points])
    top = elos[-1]
    count = max(FEWEST, math.ceil(top / STEP) + 1)
    chosen = []
    for k in range(1, count - 1):
        target = top * k / (count - 1)
        chosen.append(round(float(np.interp(target, elos, shares)), 3))
    return chosen


def _rising(values: list[float]) -> list[float]:
    """The closest non-decreasing sequence (pool adjacent violators), nudged to rise
    strictly so it can be inverted."""
    blocks: list[list[float]] = []
    for value in values:
        blocks.append([value, 1])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            value2, count2 = blocks.pop()
            value1, count1 = blocks.pop()
            blocks.append([(value1 * count1 + value2 * count2) / (count1 + count2),
                           count1 + count2])
    result = [value for value, count in blocks for _ in range(int(count))]
    return [value + 1e-6 * i for i, value in enumerate(result)]
