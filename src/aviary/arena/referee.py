"""The referee: plays one game, validating every answer with the game's own rules.

A player that gives no answer in time, crashes, prints nothing, or prints
something that is not a legal move loses the game at once; the reason and
the offending output (truncated) are kept. A game that reaches the ply limit
is a draw. At a chance node (a random tile, a dice roll) the referee draws the outcome
from a generator seeded by the game's round, so both games of a colour-swapped
pair see the same chance events; they are stored as moves by mover -1.
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aviary.arena.players import Contestant, truncate
from aviary.games.base import CHANCE, Game, IllegalMove
from aviary.games.match import Match

# Reasons a game ends. The first four are forfeits by the player who lost.
FORFEITS = ("timeout", "illegal", "crash", "no-output")
DRAW_BY_PLY_LIMIT = "ply-limit"


@dataclass(frozen=True)
class MoveRecord:
    ply: int  # 1 for the first move played after the opening
    mover: int  # 0 or 1; -1 for a chance event
    state: str  # encoded position after the move
    seconds: float  # when the mover's answer arrived
    wall: float  # how long the mover ran (external programs may keep thinking after answering)
    limit: float = 0.0  # the mover's time for this move
    cpu: float | None = None  # CPU seconds the move cost, where measured
    note: str = ""  # what the mover said about its move (a program's last stderr line)


@dataclass
class GameRecord:
    """A finished game: who played, from where, every move with its time, and how it ended."""

    slot: int
    first: str
    second: str
    opening: str
    result: float = 0.5  # the first player's score: 1, 0.5 or 0
    winner: int | None = None
    reason: str = ""
    detail: str = ""
    moves: list[MoveRecord] = field(default_factory=list)
    wall: float = 0.0
    load: tuple[float, float] = (0.0, 0.0)  # the machine's 1-minute load at start and end
    code: str = ""  # fingerprint of the aviary code that played (`arena.provenance`)


# Told before each move who is to move and with what time: (record so far, mover, seconds).
TurnWatcher = Callable[[GameRecord, int, float], None]


def play_game(game: Game, players: tuple[Contestant, Contestant], opening: Any, seconds: float,
              max_plies: int, record: GameRecord, chance: random.Random | None = None,
              on_turn: TurnWatcher | None = None, seed: str | None = None) -> GameRecord:
    """Play from `opening`; players[0] is whoever moves first in `opening`'s game order.

    `players[i]` plays the game's player i (0 moves first in the game, e.g. white), each
    with its own time per move where it has one (`Contestant.seconds`), else `seconds`.
    `chance` draws chance events (default: a generator seeded with 0). `on_turn` is told
    before each move (the arena's watchdog: whose move a dead worker was running).
    `seed` names the game: player i draws its random moves from `seed:i` (None: each
    player's own generator goes on).
    """
    chance = chance or random.Random(0)
    limits = tuple(player.seconds or seconds for player in players)
    record.load = (_load(), record.load[1])
    try:
        for seat, player in enumerate(players):
            player.begin_game(None if seed is None else f"{seed}:{seat}")
        return _play(game, players, opening, limits, max_plies, record, chance, on_turn)
    finally:
        for player in players:
            player.end_game()
        record.load = (record.load[0], _load())


def _load() -> float:
    return round(os.getloadavg()[0], 2)


def _play(game: Game, players: tuple[Contestant, Contestant], opening: Any,
          limits: tuple[float, ...], max_plies: int, record: GameRecord,
          chance: random.Random, on_turn: TurnWatcher | None) -> GameRecord:
    match: Match[Any, Any] = Match(game, opening)
    while match.outcome is None and match.plies < max_plies:
        if match.is_chance:
            match.play_chance(chance)
            record.moves.append(MoveRecord(match.plies, CHANCE, game.encode(match.state),
                                           0.0, 0.0))
            continue
        state, mover = match.state, match.to_move
        if on_turn is not None:
            on_turn(record, mover, limits[mover])
        answer = players[mover].move(state, limits[mover], match.history)
        if answer.failure is not None or answer.line is None:
            return forfeit(record, mover, answer.failure or "no-output", answer.detail)
        try:
            match.play(game.read_answer(state, answer.line))
        except IllegalMove as why:
            return forfeit(record, mover, "illegal", f"{why}: {truncate(answer.line)!r}")
        wall = answer.seconds if answer.wall is None else answer.wall
        record.moves.append(MoveRecord(match.plies, mover, game.encode(match.state),
                                       round(answer.seconds, 4), round(wall, 4), limits[mover],
                                       answer.cpu, answer.note))
    ended = match.outcome
    if ended is None:
        record.winner, record.result, record.reason = None, 0.5, DRAW_BY_PLY_LIMIT
        record.detail = f"no result after {max_plies} plies"
    else:
        record.winner, record.reason = ended.winner, ended.reason
        record.result = 0.5 if ended.winner is None else float(ended.winner == 0)
    return record


def forfeit(record: GameRecord, loser: int, reason: str, detail: str) -> GameRecord:
    """End `record` as lost by game player `loser` for `reason` (one of FORFEITS)."""
    record.winner = 1 - loser
    record.result = float(loser == 1)
    record.reason, record.detail = reason, detail
    return record
