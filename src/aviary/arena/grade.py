"""`aviary grade`: each player placed on a game's calibrated ladder, in the arena's sandbox.

Every graded player plays colour-swapped pairs against ladder levels chosen as a
staircase: its first pair against the middle level, each next one against the level
nearest its Elo so far (where it scores about 50%, so each game says the most), a step
at a time while it wins or loses every game. A player is done when its 95% interval is
within +-`target` Elo, when it has played `budget` games, or when it has won every one
of `OFF_SCALE` games against the top level (or lost as many against the bottom one):
the ladder then bounds it from one side only and more games cannot move the bound.

The games are an arena tournament (`mode="grade"`) whose slots are planned as results
arrive and written down before they are played (`Store.plan_slot`), so `aviary grade`
resumes from its database like `aviary arena resume`: the staircase is rebuilt from the
stored games, and games planned but not finished are played again.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from aviary.arena.ladder import Ladder
from aviary.arena.ratings import Placement, even_chance_elo, place
from aviary.arena.referee import FORFEITS, GameRecord
from aviary.arena.runner import Schedule
from aviary.arena.schedule import Slot
from aviary.arena.store import Store, StoredGame

BUDGET = 40  # games a player plays at most
TARGET = 75.0  # Elo: a player whose 95% interval is within +- this is done
OFF_SCALE = 8  # games all won against the top level (or lost against the bottom) end it
JUMP = 2  # levels the staircase climbs (descends) while a player wins (loses) every game


@dataclass
class _Pair:
    level: str
    round: int
    slots: list[Slot]
    results: dict[int, float] = field(default_factory=dict)  # slot index -> player's score

    @property
    def done(self) -> bool:
        return len(self.results) == len(self.slots)


@dataclass
class _Player:
    name: str
    pairs: list[_Pair] = field(default_factory=list)

    def games(self) -> list[tuple[str, float]]:
        return [(pair.level, score) for pair in self.pairs for score in pair.results.values()]

    @property
    def busy(self) -> bool:
        return any(not pair.done for pair in self.pairs)


class Staircase(Schedule):
    """The grade's schedule: one pair at a time per player, each against the level its
    games so far point to."""

    def __init__(self, store: Store, ladder: Ladder, players: Sequence[str],
                 budget: int = BUDGET, target: float = TARGET) -> None:
        super().__init__([])
        self.store, self.ladder = store, ladder
        self.budget, self.target = budget, target
        self.elo = {level.name: level.elo for level in ladder.levels}
        self.order = [level.name for level in ladder.levels]
        self.players = {name: _Player(name) for name in players}
        self.done: set[str] = set()  # finished stays finished: no need to place them again
        self.queue: list[Slot] = []  # planned but not finished: play these first
        finished = {game.id - 1: game for game in store.games()}
        self.next_index, self.next_round = 0, 0
        for slot in store.planned_slots():
            player, level = (slot.first, slot.second) if slot.first in self.players \
                else (slot.second, slot.first)
            entry = self.players[player]
            if not entry.pairs or entry.pairs[-1].round != slot.round:
                entry.pairs.append(_Pair(level, slot.round, []))
            pair = entry.pairs[-1]
            pair.slots.append(slot)
            if slot.index in finished:
                pair.results[slot.index] = _score(finished[slot.index], player)
            else:
                self.queue.append(slot)
            self.next_index = max(self.next_index, slot.index + 1)
            self.next_round = max(self.next_round, slot.round + 1)
        self.rotation = 0

    # Schedule --------------------------------------------------------------------------------
    def next(self) -> Slot | None:
        if self.queue:
            return self.queue.pop(0)
        names = list(self.players)
        for turn in range(len(names)):
            player = self.players[names[(self.rotation + turn) % len(names)]]
            if player.busy or self.finished(player.name):
                continue
            self.rotation = (self.rotation + turn + 1) % len(names)
            level = self.choose(player)
            first = Slot(self.next_index, player.name, level, self.next_round)
            second = Slot(self.next_index + 1, level, player.name, self.next_round)
            self.next_index += 2
            self.next_round += 1
            for slot in (first, second):
                self.store.plan_slot(slot)
            player.pairs.append(_Pair(level, first.round, [first, second]))
            self.queue.append(second)
            return first
        return None

    def played(self, record: GameRecord) -> None:
        for player in (record.first, record.second):
            if player in self.players:
                for pair in self.players[player].pairs:
                    if any(slot.index == record.slot for slot in pair.slots):
                        mine = record.result if record.first == player else 1 - record.result
                        pair.results[record.slot] = mine

    def most_at_once(self) -> int:
        return 2 * len(self.players)

    # the staircase ---------------------------------------------------------------------------
    def placement(self, name: str) -> Placement:
        return placed(self.elo, self.players[name].games())

    def finished(self, name: str) -> bool:
        """Whether `name` is done; asked on every poll of an idle worker, so a finished
        player is remembered rather than placed again."""
        if name in self.done:
            return True
        if self._finished(name):
            self.done.add(name)
            return True
        return False

    def _finished(self, name: str) -> bool:
        player = self.players[name]
        games = player.games()
        if len(games) >= self.budget:
            return True
        return not player.busy and settled(self.order, self.elo, games, self.target)

    def choose(self, player: _Player) -> str:
        return choose_level(self.order, self.elo, player.games())


def choose_level(order: Sequence[str], elo: Mapping[str, float],
                 games: Sequence[tuple[str, float]]) -> str:
    """The level of a player's next pair, from its games so far (level, score): the middle
    first; then, while it has won (lost) every game, `JUMP` levels up (down) from the
    highest (lowest) it met; else the level nearest its Elo so far."""
    if not games:
        return order[(len(order) - 1) // 2]
    met = sorted({order.index(level) for level, _ in games})
    if all(score == 1 for _, score in games):
        return order[min(met[-1] + JUMP, len(order) - 1)]
    if all(score == 0 for _, score in games):
        return order[max(met[0] - JUMP, 0)]
    so_far = placed(elo, games).elo
    assert so_far is not None
    return min(order, key=lambda level: abs(elo[level] - so_far))


def settled(order: Sequence[str], elo: Mapping[str, float],
            games: Sequence[tuple[str, float]], target: float = TARGET) -> bool:
    """Whether a player's games (level, score) place it closely enough: its interval
    within +-`target`, or `OFF_SCALE` games all won against the top level (or all lost
    against the bottom one). (The budget is the caller's to count.)"""
    margin = placed(elo, games).margin
    if margin is not None and margin <= target:
        return True
    against_top = [score for level, score in games if level == order[-1]]
    against_bottom = [score for level, score in games if level == order[0]]
    return ((len(against_top) >= OFF_SCALE and all(score == 1 for score in against_top))
            or (len(against_bottom) >= OFF_SCALE and all(score == 0 for score in against_bottom)))


def simulate(ladder: Ladder, elo: float, rng: random.Random, budget: int = BUDGET,
             target: float = TARGET) -> Placement:
    """The placement a grade gives a model player whose Elo on `ladder` is `elo`: it plays
    the staircase's pairs, winning each game with the ladder's logistic chance (no draws).
    What the intervals claim can be checked against it: how often they hold the true
    Elo, and how often a second grade lands inside the first's interval."""
    order = [level.name for level in ladder.levels]
    levels = {level.name: level.elo for level in ladder.levels}
    games: list[tuple[str, float]] = []
    while len(games) < budget and not (games and settled(order, levels, games, target)):
        level = choose_level(order, levels, games)
        chance = 1 / (1 + 10 ** ((levels[level] - elo) / 400))
        games += [(level, float(rng.random() < chance)) for _ in range(2)]
    return placed(levels, games)


def placed(elo: Mapping[str, float], games: Sequence[tuple[str, float]]) -> Placement:
    """The placement of a player's games (level, score) against levels of Elo `elo`."""
    return place([(elo[level], score) for level, score in games])


def _score(game: StoredGame, player: str) -> float:
    return game.result if game.first == player else 1 - game.result


@dataclass(frozen=True)
class Grade:
    """One graded player: its Elo on the ladder's scale, the highest level it beat (scored
    at least 50% against), its games, its forfeits by reason, and its score against each
    level it met (points, games)."""

    name: str
    spec: str
    elo: float | None
    low: float | None
    high: float | None
    level: str | None
    games: int
    forfeits: dict[str, int] = field(default_factory=dict)
    scores: dict[str, tuple[float, int]] = field(default_factory=dict)
    problem: str | None = None  # why it could not be graded (it cannot run)
    even_chance: float | None = None  # all won or all lost: the Elo that result is even at

    @property
    def placement(self) -> Placement:
        return Placement(self.elo, self.low, self.high)

    @property
    def sort_key(self) -> float:
        """Where it stands: its Elo; a player who won (lost) every game where that result
        has an even chance (not its bound: two games lost to a level put the bound above
        the level); else at the bottom."""
        for value in (self.elo, self.even_chance, self.low, self.high):
            if value is not None:
                return value
        return float("-inf")

    def forfeits_text(self) -> str:
        return " ".join(f"{reason}={count}" for reason, count in sorted(self.forfeits.items()))

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["scores"] = {level: list(score) for level, score in self.scores.items()}
        return data


def grades(store: Store, ladder: Ladder, players: Sequence[tuple[str, str]],
           problems: dict[str, str] | None = None) -> list[Grade]:
    """Every player's grade from the games stored so far, best first; `players` are
    (name, spec); `problems` the players that could not run, with why."""
    problems = problems or {}
    elo = {level.name: level.elo for level in ladder.levels}
    order = [level.name for level in ladder.levels]
    games = store.games()
    result = []
    for name, spec in players:
        mine = [game for game in games if name in (game.first, game.second)]
        scores: dict[str, tuple[float, int]] = {}
        forfeits: dict[str, int] = {}
        samples = []
        for game in mine:
            level = game.second if game.first == name else game.first
            score = _score(game, name)
            points, count = scores.get(level, (0.0, 0))
            scores[level] = (points + score, count + 1)
            samples.append((elo[level], score))
            side = 0 if game.first == name else 1
            if game.reason in FORFEITS and game.winner == 1 - side:
                forfeits[game.reason] = forfeits.get(game.reason, 0) + 1
        placement = place(samples)
        beaten = [level for level, (points, count) in scores.items() if points >= count / 2]
        highest = max(beaten, key=order.index) if beaten else None
        result.append(Grade(name, spec, _rounded(placement.elo), _rounded(placement.low),
                            _rounded(placement.high), highest, len(mine), forfeits,
                            dict(sorted(scores.items(), key=lambda item: order.index(item[0]))),
                            problems.get(name), _rounded(even_chance_elo(samples))))
    return sorted(result, key=lambda grade: -grade.sort_key)


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def grades_json(grades_: Sequence[Grade], ladder: Ladder, about: dict[str, Any]) -> str:
    """The grades as the JSON `DIR/grades.json` holds: what was graded and how, the
    ladder, and each player's grade."""
    data = {**about, "ladder": json.loads(ladder.to_json()),
            "players": [grade.to_dict() for grade in grades_]}
    return json.dumps(data, indent=1) + "\n"
