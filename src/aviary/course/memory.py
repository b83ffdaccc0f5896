"""What the course command remembers between its moves: the game so far.

A course command is one process a move, told only the position. Without the game's
earlier positions its engine cannot see a repetition, and in a won but slow ending it
can shuffle between the same four positions until the move limit (in one measured game
for 500 plies, with a winning score on every move), where the in-process engine, given
the game's history, plays on.

So each command adds one line to `memory.jsonl` in the user's private aviary folder (the
warm server's): the position it was given, the position its answer made, and the line
of its own previous move in the same game. The next command finds its game by the rules:
the newest line whose answer the opponent's move can turn into the position it is given;
following the links back gives the game's positions, oldest first. Games played side by
side keep apart (a position follows only from its own game's answers); lines older than
`MAX_AGE_SECONDS` are not used; the file is cut back to its newest lines as it grows.

A game with chance keeps none (its positions do not recur).
`AVIARY_NO_MEMORY=1` turns it off. It is kept as well as it can be, never at the cost of
an answer: a line lost (a full disk, two commands cutting the file at once) only
shortens the history the next move's search sees.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import math
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aviary.course import engine_host as host
from aviary.course import warm_server as warm
from aviary.errors import UsageError
from aviary.games.base import Game

FILE_NAME = "memory.jsonl"
MAX_AGE_SECONDS = 600.0  # a line older than this belongs to another game
LOOK_BACK = 32  # newest lines of the same game settings tried as this game's last move
READ_BYTES = 1 << 19  # only the file's tail is read (a 600-ply game is about 50 KB)
KEEP_BYTES = 1 << 20  # past this size the file is rewritten with its newest half
HISTORY_BYTES = 48 << 10  # the most history sent to an engine child through its pipe
# (a pipe holds 64 KB: the rest of its request line, the position and time, is small)


def enabled(game: Game[Any, Any]) -> bool:
    return os.environ.get("AVIARY_NO_MEMORY") != "1" and game.chance_count() == 0


@dataclass(frozen=True)
class Recall:
    """The game's positions before the one given (oldest first, as encoded by the game)
    and the id of the line they end at (None: no earlier move of this game is known)."""

    history: tuple[str, ...] = ()
    parent: str | None = None


def _path() -> Path | None:
    try:
        return warm.private_directory() / FILE_NAME
    except UsageError:  # no private folder: the command plays without memory
        return None


def _lines(path: Path) -> list[dict[str, Any]]:
    try:
        with path.open("rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            handle.seek(max(0, size - READ_BYTES))
            data = handle.read()
    except OSError:
        return []
    if size > READ_BYTES:
        data = data.partition(b"\n")[2]  # the first line read may be cut
    return host.json_objects(data.splitlines())


def _key(name: str, game: Game[Any, Any]) -> str:
    return f"{name} {json.dumps(game.settings, sort_keys=True)}"


def recall(name: str, game: Game[Any, Any], state: Any) -> Recall:
    """The positions of `state`'s game before it, as far as this user's course commands
    answered in it (see the module's docstring)."""
    path = _path() if enabled(game) else None
    if path is None:
        return Recall()
    key, now, given = _key(name, game), time.time(), _course_text(game, state)
    mine = [line for line in _lines(path)
            if _well_formed(line) and line["key"] == key and now - line["time"] < MAX_AGE_SECONDS]
    by_id = {line["id"]: line for line in mine}
    for line in reversed(mine[-LOOK_BACK:]):
        made = _decoded(game, line["made"])
        if made is None or game.outcome(made) is not None:
            continue
        if any(_course_text(game, after) == given for after in game.successors(made).values()):
            return Recall(_chain(game, line, by_id), line["id"])
    return Recall()


def _well_formed(line: dict[str, Any]) -> bool:
    """Whether a line has the fields `remember` writes, of their types: a file edited by
    hand, cut or written by another version is read around its bad lines, never fails."""
    stamp = line.get("time")
    return (all(isinstance(line.get(field), str) for field in ("id", "key", "given", "made"))
            and isinstance(line.get("parent"), str | None)
            and isinstance(stamp, int | float) and not isinstance(stamp, bool)
            and math.isfinite(stamp))


def _decoded(game: Game[Any, Any], text: str) -> Any:
    """The position `text` encodes, or None when it is no position of this game."""
    try:
        return game.decode(text)
    except (ValueError, TypeError, IndexError, KeyError, AttributeError):
        return None


def _course_text(game: Game[Any, Any], state: Any) -> tuple[str, str]:
    """The position as the course command is told it (a move counter in the state is not
    part of it)."""
    return game.label(state), game.format(state)


def _chain(game: Game[Any, Any], line: dict[str, Any],
           by_id: dict[str, dict[str, Any]]) -> tuple[str, ...]:
    """The positions from the game's first known line to `line`, oldest first; the chain
    ends early at a line whose positions are not this game's (the engine decodes them)."""
    positions: list[str] = []
    seen: set[str] = set()
    cursor: dict[str, Any] | None = line
    while cursor is not None and cursor["id"] not in seen:
        seen.add(cursor["id"])
        pair = [cursor["made"], cursor["given"]]
        if any(_decoded(game, text) is None for text in pair):
            break
        positions += pair
        cursor = by_id.get(cursor["parent"]) if cursor["parent"] is not None else None
    return tuple(reversed(positions))


def remember(name: str, game: Game[Any, Any], state: Any, made: Any, parent: str | None) -> None:
    """Add this move's line: `state` was given, the answer made `made`. Never raises: a
    command whose memory cannot be written still answered."""
    path = _path() if enabled(game) else None
    if path is None:
        return
    line = {"id": os.urandom(6).hex(), "key": _key(name, game), "given": game.encode(state),
            "made": game.encode(made), "parent": parent, "time": round(time.time(), 3)}
    with contextlib.suppress(OSError):
        descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(descriptor, json.dumps(line).encode() + b"\n")  # one write: whole lines
            if os.fstat(descriptor).st_size > KEEP_BYTES:
                _cut(path)
        finally:
            os.close(descriptor)


def _cut(path: Path) -> None:
    """Rewrite the file with its newest half (the newest lines are the ones used)."""
    with path.open("rb+") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return  # another command is cutting it
        data = handle.read()
        if len(data) <= KEEP_BYTES:
            return
        kept = data[len(data) - KEEP_BYTES // 2:].partition(b"\n")[2]
        spare = path.with_name(f"{FILE_NAME}.{os.getpid()}")
        spare.write_bytes(kept)
        os.chmod(spare, 0o600)
        os.replace(spare, path)


def history_for_pipe(history: tuple[str, ...]) -> list[str]:
    """The history for an engine child's request (down a pipe), its newest positions kept
    under HISTORY_BYTES so that the write never waits for the child to read."""
    kept = list(history)
    while kept and sum(len(text) + 4 for text in kept) > HISTORY_BYTES:
        kept = kept[len(kept) // 4 or 1:]
    return kept
