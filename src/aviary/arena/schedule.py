"""Tournament configuration and its plan: who plays whom, with which colours, from where.

The plan is a pure function of the configuration, so a resumed tournament
recomputes exactly the same list of games and runs only the slots the
database does not hold yet.

Games come in colour-swapped pairs from one opening: a pairing (A, B) plays
A-B then B-A from the same position. Round r uses opening r for every
pairing, so every pairing sees the same openings; an opening is `opening_plies`
random legal moves from the start, drawn from a generator seeded by
(seed, r), or, where the tournament was given its positions (`openings`, from
`arena run --openings FILE`), position r of them, taken in turn.

A ladder calibration may go on in weighted phases (`Config.phases`): from a phase's
first game, pairs go to the pairings in proportion to the phase's weights (the pairings
whose games say most about the ladder's widest interval, `arena/allocation.py`), each pair
a round of its own, so from its own opening. The games before a phase keep their slots.
"""

from __future__ import annotations

import heapq
import itertools
import json
import math
import random
from dataclasses import asdict, dataclass, field
from typing import Any

from aviary.arena.games import make_game
from aviary.arena.players import PlayerSpec
from aviary.games.base import Game

MODES = ("round-robin", "gauntlet", "ladder")
LADDER_REACH = 2  # in "ladder" mode a player meets those up to this many places away
GRADE = "grade"  # `aviary grade`: no fixed plan, its schedule plans slots as results come in


@dataclass(frozen=True)
class Config:
    game: str
    players: list[PlayerSpec]
    seconds: float
    games: int  # total games in the tournament
    game_options: dict[str, Any] = field(default_factory=dict)
    mode: str = "round-robin"
    grace: float = 0.25
    max_plies: int = 200
    opening_plies: int = 4
    seed: int = 1
    memory_mb: int | None = 2048
    sprt: tuple[float, float, float, float] | None = None  # elo0, elo1, alpha, beta
    title: str = ""  # what the tournament measures, in words (shown on the benchmarks page)
    openings: tuple[str, ...] = ()  # given start positions (encoded), in place of random ones
    sandbox: str = "bwrap"  # how external programs run: "bwrap" (isolated) or "none"
    processes: int = 128  # processes and threads of one move of an external program
    phases: tuple[tuple[int, tuple[int, ...]], ...] = ()  # (first game, pairs per pairing
    # in a cycle): from that game on, pairs go to the pairings in those proportions

    @property
    def player_specs(self) -> tuple[str, ...]:
        """The players' spec strings (what decides which code plays besides the game)."""
        return tuple(player.spec for player in self.players)

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> Config:
        data = json.loads(text)
        data["players"] = [PlayerSpec(**player) for player in data["players"]]
        if data.get("sprt") is not None:
            data["sprt"] = tuple(data["sprt"])
        data["openings"] = tuple(data.get("openings") or ())
        data["phases"] = tuple((int(start), tuple(int(weight) for weight in weights))
                               for start, weights in data.get("phases") or ())
        return cls(**data)

    def make_game(self) -> Game:
        return make_game(self.game, {name: str(value) for name, value in self.game_options.items()})


@dataclass(frozen=True)
class Slot:
    """One planned game: its number, who plays first (game player 0), and its opening."""

    index: int
    first: str
    second: str
    round: int


def pairings(config: Config) -> list[tuple[str, str]]:
    names = [player.name for player in config.players]
    if config.mode == GRADE:
        return []
    if config.mode == "gauntlet":
        return [(names[0], other) for other in names[1:]]
    if config.mode == "ladder":  # neighbours only: far-apart levels' games say next to nothing
        return [(names[i], names[j]) for i, j in itertools.combinations(range(len(names)), 2)
                if j - i <= LADDER_REACH]
    return list(itertools.combinations(names, 2))


def plan(config: Config) -> list[Slot]:
    """`config.games` slots: rounds of colour-swapped pairs over every pairing, then the
    pairs of each weighted phase."""
    pairs = pairings(config)
    slots: list[Slot] = []
    if not pairs:
        return slots
    check_phases(config.phases, len(pairs))
    ends = [min(start, config.games) for start, _ in config.phases] + [config.games]
    round_number = -1
    while len(slots) < ends[0]:
        round_number += 1
        for a, b in pairs:
            for first, second in ((a, b), (b, a)):
                if len(slots) < ends[0]:
                    slots.append(Slot(len(slots), first, second, round_number))
    for (_, weights), end in zip(config.phases, ends[1:], strict=True):
        for a, b in _weighted(pairs, weights, (end - len(slots) + 1) // 2):
            round_number += 1
            for first, second in ((a, b), (b, a)):
                if len(slots) < end:
                    slots.append(Slot(len(slots), first, second, round_number))
    return slots


def _weighted(pairs: list[tuple[str, str]], weights: tuple[int, ...], count: int
              ) -> list[tuple[str, str]]:
    """`count` pairings in turn, each as often as its weight says and spread out evenly
    (the next is the one furthest behind its share; of equals, the first)."""
    # pairing i is due at (2c + 1) / (2 weight) after c turns: in whole multiples of 1 / scale
    scale = math.lcm(*(2 * weight for weight in weights if weight > 0))
    queue = [(scale // (2 * weight), i) for i, weight in enumerate(weights) if weight > 0]
    heapq.heapify(queue)
    chosen = []
    for _ in range(count):
        due, i = heapq.heappop(queue)
        chosen.append(pairs[i])
        heapq.heappush(queue, (due + scale // weights[i], i))
    return chosen


def check_phases(phases: tuple[tuple[int, tuple[int, ...]], ...], pairings: int) -> None:
    """A phase begins on a pair (an even game number) after the one before, and weighs
    every pairing, at least one of them above 0."""
    last = -1
    for start, weights in phases:
        if start % 2 or start <= last:
            raise ValueError(f"a phase begins at game {start}: not a pair's first game after "
                             "the phase before")
        if len(weights) != pairings or min(weights) < 0 or max(weights) < 1:
            raise ValueError(f"a phase's weights {list(weights)} do not weigh the "
                             f"{pairings} pairings")
        last = start


def opening(game: Game, config: Config, round_number: int) -> str:
    """The shared opening of a round, encoded: the given positions in turn, else a seeded
    random walk from the start."""
    if config.openings:
        return config.openings[round_number % len(config.openings)]
    rng = random.Random(f"{config.seed}:{round_number}")
    return game.encode(game.opening(rng, config.opening_plies))


def default_games(mode: str, players: int) -> int:
    """One colour-swapped pair per pairing."""
    if mode == "gauntlet":
        count = players - 1
    elif mode == "ladder":
        count = sum(min(LADDER_REACH, players - 1 - i) for i in range(players))
    else:
        count = players * (players - 1) // 2
    return 2 * count
