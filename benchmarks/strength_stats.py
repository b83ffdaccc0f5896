"""Elo with a 95% interval from per-game results, shared by the strength benchmarks.

The Elo of a score is the arena's (`aviary.arena.ratings.elo_from_score`); the
interval here is per game, for a match of one engine against one opponent.
Also the match logs of the benchmarks that play in parts (`--log`, `--summarize`).
"""

from __future__ import annotations

import hashlib
import json
import math
import sys
from collections.abc import Callable, Hashable
from typing import Any

from aviary.arena.ratings import elo_from_score as elo


def elo_interval(results: list[float]) -> tuple[float, float, float]:
    """Elo of the mean score with a 95% interval from the per-game (trinomial) variance."""
    games = len(results)
    mean = sum(results) / games
    if mean in (0.0, 1.0):  # no variance to estimate: exact (Clopper-Pearson) bound instead
        bound = 0.025 ** (1 / games)
        return (elo(1.0), elo(bound), elo(1.0)) if mean else (elo(0.0), elo(0.0), elo(1 - bound))
    variance = sum((r - mean) ** 2 for r in results) / max(games - 1, 1)
    margin = 1.96 * math.sqrt(variance / games)
    return elo(mean), elo(mean - margin), elo(mean + margin)


# A match at 1 s a move can take hours, so the slow benchmarks play it in parts (on
# several cores or in several sittings) and log one JSON line per game; the parts add
# up only if they ran the same settings on the same code and no game was played twice.


class LogError(Exception):
    """Match logs that cannot be added up; the message says why."""


def code_fingerprint() -> str:
    """A hash of every aviary source file this process has loaded: the code that played."""
    digest = hashlib.sha256()
    for name in sorted(n for n in sys.modules if n == "aviary" or n.startswith("aviary.")):
        path = getattr(sys.modules[name], "__file__", None)
        if path and path.endswith(".py"):
            digest.update(name.encode())
            with open(path, "rb") as source:
                digest.update(source.read())
    return digest.hexdigest()[:16]


def append_record(path: str, record: dict[str, Any]) -> None:
    """One game's line at the end of the log at `path`."""
    with open(path, "a", encoding="utf-8") as log:
        log.write(json.dumps(record) + "\n")


def read_logs(paths: list[str], game_id: Callable[[dict[str, Any]], Hashable]
              ) -> list[dict[str, Any]]:
    """Every game of the logs at `paths`, checked: same "settings", same "code", and no
    `game_id` twice. LogError says what is wrong."""
    games: list[dict[str, Any]] = []
    for path in paths:
        try:
            with open(path, encoding="utf-8") as log:
                games += [json.loads(line) for line in log if line.strip()]
        except (OSError, ValueError) as error:
            raise LogError(f"{path}: {error}") from None
    if not games:
        raise LogError("the logs hold no game")
    for key in ("settings", "code"):
        kinds = {json.dumps(game.get(key), sort_keys=True) for game in games}
        if len(kinds) > 1:
            raise LogError(f"the logs mix games of different {key}: {sorted(kinds)}")
    try:
        played = [game_id(game) for game in games]
    except (KeyError, TypeError) as error:
        raise LogError(f"a line of the logs is not a game record (no {error})") from None
    twice = sorted({str(p) for p in played if played.count(p) > 1})
    if twice:
        raise LogError(f"games played twice: {', '.join(twice)}")
    return games
