"""Standings from stored games: scores, W/D/L, Elo with error bars, forfeits, time used."""

from __future__ import annotations

import csv
import json
import math
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from aviary.arena import provenance, ratings
from aviary.arena.audit import audit
from aviary.arena.referee import FORFEITS
from aviary.arena.store import Store, StoredGame
from aviary.outputs import write_atomically, write_text_atomically


@dataclass
class Standing:
    """One player's line in the standings; Elo figures are against the field it met."""

    player: str
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    score: float = 0.0  # fraction of points
    elo: float = 0.0  # trinomial, vs the field
    elo_margin: float = 0.0
    pair_elo: float = 0.0  # pentanomial, over complete colour-swapped pairs
    pair_margin: float = 0.0
    pairs: list[int] = field(default_factory=lambda: [0] * 5)  # pairs scoring 0, ½ .. 2
    los: float = 0.5
    bt: float = 0.0  # Bradley-Terry over all games, mean 0
    bt_margin: float = 0.0
    forfeits: dict[str, int] = field(default_factory=dict)  # losses by reason
    moves: int = 0
    mean_seconds: float = 0.0  # when answers arrived
    max_seconds: float = 0.0
    mean_wall: float = 0.0  # how long the player ran per move
    max_wall: float = 0.0
    over_limit: int = 0  # moves answered after the player's time (within the grace)
    mean_cpu: float | None = None  # CPU seconds per move, where measured
    fallbacks: int = 0  # moves whose note says a fallback answered (not the engine)


def pair_counts(games: list[StoredGame], player: str) -> list[int]:
    """Pentanomial counts for `player`: complete colour-swapped pairs by points scored (0..2)."""
    pairs: dict[tuple[int, frozenset[str]], list[float]] = defaultdict(list)
    for game in games:
        if player in (game.first, game.second):
            mine = game.result if game.first == player else 1 - game.result
            pairs[(game.round, frozenset((game.first, game.second)))].append(mine)
    counts = [0] * 5
    for scores in pairs.values():
        if len(scores) == 2:
            counts[round(2 * sum(scores))] += 1
    return counts


def standings(store: Store) -> list[Standing]:
    games = store.games()
    names = [player.name for player in store.config().players]
    table = {name: Standing(name) for name in names}
    for game in games:
        for side, name in enumerate((game.first, game.second)):
            row = table[name]
            mine = game.result if side == 0 else 1 - game.result
            row.games += 1
            row.wins += mine == 1
            row.draws += mine == 0.5
            row.losses += mine == 0
            if game.reason in FORFEITS and game.winner == 1 - side:
                row.forfeits[game.reason] = row.forfeits.get(game.reason, 0) + 1
    fitted = ratings.bradley_terry(names, [(g.first, g.second, g.result) for g in games])
    for name, row in table.items():
        if row.games:
            row.score = (row.wins + 0.5 * row.draws) / row.games
        tri = ratings.trinomial(row.wins, row.draws, row.losses)
        row.pairs = pair_counts(games, name)
        penta = ratings.pentanomial(row.pairs)
        row.elo, row.elo_margin = tri.elo, tri.margin
        row.pair_elo, row.pair_margin = penta.elo, penta.margin
        row.los = ratings.likelihood_of_superiority(row.wins, row.losses)
        row.bt, row.bt_margin = fitted[name].elo, fitted[name].margin
    limit, cpu, note = store.move_columns().split(", ")
    for name, count, mean, longest, mean_wall, longest_wall, over, mean_cpu, fallbacks in \
            store.db.execute(
        "SELECT CASE WHEN m.mover = 0 THEN g.first WHEN m.mover = 1 THEN g.second END, COUNT(*),"
        " AVG(m.seconds), MAX(m.seconds), AVG(m.wall), MAX(m.wall),"
        f" SUM(m.seconds > {limit}), AVG({cpu}), SUM(LOWER({note}) LIKE '%fallback%')"
        " FROM moves m JOIN games g ON g.id = m.game WHERE m.mover >= 0"
        " GROUP BY 1"
    ):
        if name in table:
            row = table[name]
            row.moves, row.mean_seconds, row.max_seconds = count, mean, longest
            row.mean_wall, row.max_wall = mean_wall, longest_wall
            row.over_limit, row.mean_cpu, row.fallbacks = over or 0, mean_cpu, fallbacks or 0
    return sorted(table.values(), key=lambda row: (-row.bt, -row.score, row.player))


def standings_table(rows: list[Standing], title: str = "", width: int = 160) -> Table:
    """The standings; narrower than 130 columns, the pairs, LOS and time columns are left out."""
    columns: dict[str, Callable[[Standing], str]] = {
        "player": lambda row: row.player,
        "games": lambda row: str(row.games),
        "W-D-L": lambda row: f"{row.wins}-{row.draws}-{row.losses}",
        "score": lambda row: f"{100 * row.score:.1f}%",
        "Elo ±95%": lambda row: str(ratings.elo_figure([row.losses, row.draws, row.wins])),
        "pairs ±95%": lambda row: str(ratings.elo_figure(row.pairs)),
        "LOS": lambda row: f"{100 * row.los:.1f}%",
        "BT ±95%": lambda row: f"{row.bt:+.0f} ± {row.bt_margin:.0f}",
        "forfeits": lambda row: ", ".join(
            f"{reason} {n}" for reason, n in sorted(row.forfeits.items())) or "-",
        "answer s (max)": lambda row: f"{row.mean_seconds:.2f} ({row.max_seconds:.2f})",
        "ran s (max)": lambda row: f"{row.mean_wall:.2f} ({row.max_wall:.2f})",
        "over": lambda row: str(row.over_limit),
        "cpu s": lambda row: "-" if row.mean_cpu is None else f"{row.mean_cpu:.2f}",
        "fallback": lambda row: str(row.fallbacks),
    }
    if width < 130:
        for wide in ("pairs ±95%", "LOS", "answer s (max)", "cpu s", "fallback"):
            del columns[wide]
    table = Table(title=title or None)
    table.add_column("#", justify="right")
    for header in columns:
        table.add_column(header, justify="left" if header in ("player", "forfeits") else "right")
    for rank, row in enumerate(rows, 1):
        table.add_row(str(rank), *(cell(row) for cell in columns.values()))
    return table


@dataclass(frozen=True)
class SideScore:
    """A player's results on one side (as white, as the fox): where the sides differ in
    kind, a total hides that one side always wins and the other always draws."""

    score: float
    wins: int
    draws: int
    losses: int

    def __str__(self) -> str:
        return f"{100 * self.score:.1f}% ({self.wins}-{self.draws}-{self.losses})"


def side_scores(games: list[StoredGame], player: str, labels: tuple[str, ...] | list[str]
                ) -> dict[str, SideScore | None]:
    """`player`'s results by the side it played (the game's labels: first mover first)."""
    found: dict[str, SideScore | None] = {}
    for side, label in enumerate(labels):
        mine = [g.result if side == 0 else 1 - g.result for g in games
                if (g.first if side == 0 else g.second) == player]
        found[label] = SideScore(sum(mine) / len(mine), mine.count(1.0), mine.count(0.5),
                                 mine.count(0.0)) if mine else None
    return found


def sides_text(by_side: dict[str, SideScore | None]) -> str:
    return "; ".join(f"as {label} {side}" for label, side in by_side.items() if side)


@dataclass(frozen=True)
class MatchSummary:
    """A two-player match as fishtest reports one: the first player's results against the
    second, counted in colour-swapped pairs (pentanomial), with its SPRT state."""

    player: str
    opponent: str
    wins: int
    draws: int
    losses: int
    pairs: list[int]  # complete pairs scoring 0, 1/2, 1, 3/2, 2 of 2 for `player`
    estimate: ratings.PairEstimate
    sprt: ratings.SprtResult | None
    sprt_bounds: tuple[float, float] | None
    by_side: dict[str, SideScore | None] = field(default_factory=dict)

    @property
    def figure(self) -> ratings.EloFigure:
        return ratings.elo_figure(self.pairs)

    def lines(self) -> list[str]:
        lines = [f"{self.player} against {self.opponent}: W-D-L {self.wins}-{self.draws}-"
                 f"{self.losses}; pairs scoring 0/0.5/1/1.5/2 of 2: {self.pairs}",
                 f"{self.figure.explained()}; LOS {100 * self.estimate.los:.1f}%"]
        sides = sides_text(self.by_side)
        if sides:
            lines.append(f"{self.player} by side: {sides}")
        if self.sprt is not None and self.sprt_bounds is not None:
            elo0, elo1 = self.sprt_bounds
            verdict = {"H1": f"H1 accepted (elo >= {elo1:g})",
                       "H0": f"H0 accepted (elo <= {elo0:g})"}
            lines.append(f"SPRT [{elo0:g}, {elo1:g}] LLR {self.sprt.llr:.2f} in "
                         f"({self.sprt.lower:.2f}, {self.sprt.upper:.2f}): "
                         f"{verdict.get(self.sprt.decision or '', 'undecided')}")
        return lines


def summarize_match(store: Store) -> MatchSummary | None:
    """The first player's match against the second (two-player tournaments only)."""
    config = store.config()
    if len(config.players) != 2:
        return None
    games, first, second = store.games(), config.players[0].name, config.players[1].name
    counts = pair_counts(games, first)
    scores = [g.result if g.first == first else 1 - g.result for g in games]
    test = bounds = None
    if config.sprt is not None:
        elo0, elo1, alpha, beta = config.sprt
        test, bounds = ratings.sprt_pentanomial(counts, elo0, elo1, alpha, beta), (elo0, elo1)
    return MatchSummary(first, second, scores.count(1.0), scores.count(0.5), scores.count(0.0),
                        counts, ratings.pair_estimate(counts), test, bounds,
                        side_scores(games, first, config.make_game().labels))


def match_summary(store: Store) -> str:
    """For a two-player tournament: W/D/L, pentanomial counts, Elo and the SPRT state."""
    summary = summarize_match(store)
    return "" if summary is None else "\n".join(summary.lines())


def games_summary(store: Store) -> str:
    """Game lengths, the machine's load while they were played, and the code that played."""
    games = store.games()
    if not games:
        return ""
    plies = sorted(game.plies for game in games)
    middle = plies[len(plies) // 2] if len(plies) % 2 else (
        plies[len(plies) // 2 - 1] + plies[len(plies) // 2]) / 2
    loads = [load for game in games for load in (game.load_start, game.load_end)
             if load is not None]
    codes = Counter(game.code for game in games if game.code)
    line = f"plies per game {plies[0]}-{plies[-1]} (median {middle:g})"
    sittings = store.sittings()
    cores = sittings[-1]["machine"]["cores"] if sittings else provenance.machine()["cores"]
    if loads:
        line += f"; load {min(loads):.1f}-{max(loads):.1f} on {cores} cores"
    if codes:
        line += "; code " + ", ".join(f"{code} ({n} games)" for code, n in codes.most_common())
    return line


def reasons_summary(store: Store) -> str:
    reasons = Counter(game.reason for game in store.games())
    return "results by reason: " + ", ".join(f"{r} {n}" for r, n in sorted(reasons.items()))


def make_console() -> Console:
    """A console for tables: the terminal's width, or 160 columns into a file or pipe."""
    console = Console()
    return console if console.is_terminal else Console(width=160)


_FLAGGED_SHOWN = 10


def print_report(store: Store, console: Console | None = None) -> None:
    console = console or make_console()
    config, games = store.config(), store.games()
    options = " ".join(f"{key}={value}" for key, value in config.game_options.items())
    title = (f"{config.game} {options}  {config.seconds:g}s/move  "
             f"{len(games)}/{config.games} games")
    console.print(standings_table(standings(store), title, console.width))
    if games:
        console.print(reasons_summary(store))
        console.print(games_summary(store))
    summary = match_summary(store)
    if summary:
        console.print(summary)
    problems = audit(store)
    for game_id, problem in list(problems.items())[:_FLAGGED_SHOWN]:
        console.print(f"FLAGGED game {game_id}: {problem}", markup=False, highlight=False)
    if problems:
        more = len(problems) - _FLAGGED_SHOWN
        console.print(f"{len(problems)} stored game(s) do not follow from their moves under "
                      f"the rules{f' ({more} more not shown)' if more > 0 else ''}; "
                      "`aviary arena game DB ID` shows one", markup=False, highlight=False)
    elif games:
        console.print("every stored result follows from its moves under the rules")


def write_csv(store: Store, path: Path) -> None:
    rows = standings(store)
    columns = [name for name in asdict(rows[0]) if name != "forfeits"] if rows else []
    def write(temporary: Path) -> None:
        with open(temporary, "w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow([*columns, *FORFEITS])
            for row in rows:
                data = asdict(row)
                writer.writerow([data[c] for c in columns]
                                + [row.forfeits.get(r, 0) for r in FORFEITS])

    write_atomically(path, write)


def write_json(store: Store, path: Path) -> None:
    document: dict[str, Any] = {
        "config": json.loads(store.config().to_json()),
        "standings": [asdict(row) for row in standings(store)],
        "games": [asdict(game) for game in store.games()],
    }
    write_text_atomically(path, json.dumps(_finite(document), indent=2, allow_nan=False) + "\n")


def _finite(value: Any) -> Any:
    """Strict JSON has no infinities: an unbounded Elo or error bar becomes null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(item) for item in value]
    return value
