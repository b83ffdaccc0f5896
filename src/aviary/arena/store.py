"""SQLite storage: a real file, one transaction per finished game, safe against kill -9.

The database holds the tournament's configuration (so `resume` needs only
the file) and every finished game with all its moves. A game is written in
one transaction as soon as it ends; WAL journaling with synchronous=FULL
means a killed arena loses at most the games still being played. A game's
id is its planned slot number + 1 and is the table's primary key, so
resuming can never store a game twice.

Only our own files are touched: a new database is stamped with
`APPLICATION_ID`, and an existing file is checked on a read-only
connection before anything is written -- an SQLite file of another program
or a damaged one (`PRAGMA quick_check`) is one line, and left as it was.
"""

from __future__ import annotations

import json
import sqlite3
import stat
from collections.abc import Iterator, Sequence
from contextlib import closing, contextmanager
from dataclasses import astuple, dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from aviary.arena import provenance
from aviary.arena.referee import GameRecord, MoveRecord
from aviary.arena.schedule import Config, Slot, plan
from aviary.errors import UsageError

APPLICATION_ID = 0x41564941  # "AVIA" in the SQLite header: this file is an arena database
_CORE_TABLES = {"meta", "games", "moves"}
_TABLES = _CORE_TABLES | {"slots"}
_SQLITE_MAGIC = b"SQLite format 3\0"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,          -- planned slot + 1
    round INTEGER NOT NULL,
    first TEXT NOT NULL,             -- plays the game's first player (who moves first)
    second TEXT NOT NULL,
    opening TEXT NOT NULL,           -- encoded start position
    result REAL NOT NULL,            -- first player's score: 1, 0.5, 0
    winner INTEGER,                  -- 0, 1 or NULL for a draw
    reason TEXT NOT NULL,
    detail TEXT NOT NULL,
    plies INTEGER NOT NULL,
    wall REAL NOT NULL,              -- seconds the game took
    finished TEXT NOT NULL,          -- UTC time it was stored
    load_start REAL,                 -- the machine's 1-minute load when it began
    load_end REAL,                   -- and when it ended
    code TEXT                        -- fingerprint of the code that played it
);
CREATE TABLE IF NOT EXISTS moves (
    game INTEGER NOT NULL REFERENCES games(id),
    ply INTEGER NOT NULL,
    mover INTEGER NOT NULL,
    state TEXT NOT NULL,             -- encoded position after the move
    seconds REAL NOT NULL,           -- when the mover's answer arrived
    wall REAL NOT NULL,              -- how long the mover ran
    time_limit REAL,                 -- the mover's time for this move
    cpu REAL,                        -- CPU seconds the move cost
    note TEXT,                       -- what the mover said (a program's last stderr line)
    PRIMARY KEY (game, ply)
);
-- games a schedule planned as results came in (`aviary grade`), each before it was
-- played; a tournament with a fixed plan (`arena run`) leaves this empty
CREATE TABLE IF NOT EXISTS slots (
    id INTEGER PRIMARY KEY,          -- planned slot + 1, as in games
    round INTEGER NOT NULL,
    first TEXT NOT NULL,
    second TEXT NOT NULL
);
"""
# Columns added since the first databases; an older file gains them when opened to write.
_ADDED = {"games": ("load_start REAL", "load_end REAL", "code TEXT"),
          "moves": ("time_limit REAL", "cpu REAL", "note TEXT")}


@dataclass(frozen=True)
class StoredGame:
    id: int
    round: int
    first: str
    second: str
    opening: str
    result: float
    winner: int | None
    reason: str
    detail: str
    plies: int
    wall: float
    finished: str = ""
    load_start: float | None = None
    load_end: float | None = None
    code: str | None = None


_GAME_COLUMNS = ("id, round, first, second, opening, result, winner, reason, detail, plies, wall,"
                 " finished, load_start, load_end, code")
_INSERT_GAME = f"INSERT INTO games ({_GAME_COLUMNS}) VALUES ({', '.join('?' * 15)})"


class Store:
    """One tournament database. Use as a context manager."""

    def __init__(self, path: str | Path, *, must_exist: bool = False,
                 read_only: bool = False) -> None:
        self.path = Path(path)
        existing = _check_path(self.path, must_exist or read_only)
        if existing:
            with closing(_read_only(self.path)) as db:
                _check_ours(self.path, db)
        try:
            if read_only:
                self.db = _read_only(self.path)
                return
            self.db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            if not existing:
                self.db.execute(f"PRAGMA application_id={APPLICATION_ID}")
            self.db.executescript(_SCHEMA)
            self._add_columns()
        except sqlite3.DatabaseError as error:
            raise UsageError(f"{self.path}: cannot open as an arena database: {error}") from None

    def _add_columns(self) -> None:
        for table, columns in _ADDED.items():
            have = {row[1] for row in self.db.execute(f"PRAGMA table_info({table})")}
            for column in columns:
                if column.split()[0] not in have:
                    self.db.execute(f"ALTER TABLE {table} ADD COLUMN {column}")

    def _has(self, table: str, column: str) -> bool:
        return any(row[1] == column for row in self.db.execute(f"PRAGMA table_info({table})"))

    def _game_columns(self) -> str:
        """The games columns to select; NULL for those an old read-only file lacks."""
        if self._has("games", "code"):
            return _GAME_COLUMNS
        return _GAME_COLUMNS.replace("load_start, load_end, code", "NULL, NULL, NULL")

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.db.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    # configuration ---------------------------------------------------------------------------
    def get(self, key: str) -> str | None:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def put(self, key: str, value: str) -> None:
        with self.transaction() as db:
            db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, value))

    def create(self, config: Config, carried: Sequence[StoredGame] = (),
               carried_from: str = "") -> None:
        """Record a new tournament; refuses a database that already holds one. `carried`:
        games it played before, elsewhere (their rows, without moves), stored with it in
        one transaction, and `carried_from` says where they were (a ladder file's
        calibration, as JSON)."""
        with self.transaction() as db:
            if db.execute("SELECT 1 FROM meta WHERE key = 'config'").fetchone():
                raise UsageError(f"{self.path} already holds a tournament; "
                                 f"use `aviary arena resume {self.path}` or another --db")
            db.execute("INSERT INTO meta VALUES ('config', ?)", (config.to_json(),))
            db.execute("INSERT INTO meta VALUES ('created', ?)", (_now(),))
            if carried:
                db.execute("INSERT INTO meta VALUES ('carried', ?)", (carried_from,))
                db.executemany(_INSERT_GAME, [astuple(row) for row in carried])

    def add_sitting(self, jobs: int, backend: str, sandbox: str = "") -> None:
        """Record one sitting of the tournament (a run or a resume): when, on what code,
        machine and package versions (and which of the game's slow-to-build tables it
        had), at which load, with how many games at once, and how its programs were
        isolated."""
        sittings = self.sittings()
        sittings.append({"started": _now(), "commit": provenance.git_commit(),
                         "machine": provenance.machine(), "packages": provenance.packages(),
                         "load": provenance.load(),
                         "jobs": jobs, "backend": backend, "sandbox": sandbox,
                         "deep_tables": provenance.deep_tables(self.config().game)})
        self.put("sittings", json.dumps(sittings))

    def sittings(self) -> list[dict[str, Any]]:
        text = self.get("sittings")
        return list(json.loads(text)) if text else []

    def config(self) -> Config:
        text = self.get("config")
        if text is None:
            raise UsageError(f"{self.path} holds no tournament (start one with `aviary arena run`)")
        return Config.from_json(text)

    # games -----------------------------------------------------------------------------------
    def finished_ids(self) -> set[int]:
        return {row[0] for row in self.db.execute("SELECT id FROM games")}

    def finished_count(self) -> int:
        """How many games are stored (`len(finished_ids())` without a set of their ids)."""
        return int(self.db.execute("SELECT count(*) FROM games").fetchone()[0])

    def save(self, record: GameRecord, round_number: int,
             finished: str | None = None) -> StoredGame:
        """Store a finished game and its moves atomically (`finished`: when, default now);
        returns its row as `games` will read it."""
        stored = StoredGame(record.slot + 1, round_number, record.first, record.second,
                            record.opening, record.result, record.winner, record.reason,
                            record.detail, len(record.moves), round(record.wall, 3),
                            finished or _now(), *record.load, record.code)
        with self.transaction() as db:
            db.execute(_INSERT_GAME, astuple(stored))
            db.executemany(
                "INSERT INTO moves (game, ply, mover, state, seconds, wall, time_limit, cpu, note)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [(record.slot + 1, m.ply, m.mover, m.state, m.seconds, m.wall, m.limit, m.cpu,
                  m.note) for m in record.moves],
            )
        return stored

    def games(self) -> list[StoredGame]:
        """The tournament's stored games: rows that are planned games with their players
        (a row written by anything else is `foreign_games`, which the report flags)."""
        planned = self._planned()
        return [game for game in self._all_games() if planned.get(game.id) == (game.first,
                                                                               game.second)]

    def foreign_games(self) -> list[StoredGame]:
        """Rows of the games table that are no planned game of this tournament."""
        planned = self._planned()
        return [game for game in self._all_games() if planned.get(game.id) != (game.first,
                                                                               game.second)]

    def _all_games(self) -> list[StoredGame]:
        rows = self.db.execute(f"SELECT {self._game_columns()} FROM games ORDER BY id")
        return [StoredGame(*row) for row in rows]

    def _planned(self) -> dict[int, tuple[str, str]]:
        # the plan up to the last stored game: a calibration plans 200,000, and fits often
        last = self.db.execute("SELECT max(id) FROM games").fetchone()[0] or 0
        config = self.config()
        planned = {slot.index + 1: (slot.first, slot.second)
                   for slot in plan(replace(config, games=min(config.games, last)))}
        if self._has_table("slots"):
            for game_id, first, second in self.db.execute("SELECT id, first, second FROM slots"):
                planned.setdefault(game_id, (first, second))
        return planned

    def _has_table(self, table: str) -> bool:
        return self.db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                               (table,)).fetchone() is not None

    def plan_slot(self, slot: Slot) -> None:
        """Write down a game a schedule decided on, before it is played (so it counts as
        planned when stored, and a resumed schedule finds it)."""
        with self.transaction() as db:
            db.execute("INSERT OR IGNORE INTO slots (id, round, first, second) VALUES (?, ?, ?, ?)",
                       (slot.index + 1, slot.round, slot.first, slot.second))

    def planned_slots(self) -> list[Slot]:
        """The games a schedule wrote down (`plan_slot`), in order."""
        if not self._has_table("slots"):
            return []
        return [Slot(game_id - 1, first, second, round_number) for game_id, round_number, first,
                second in self.db.execute("SELECT id, round, first, second FROM slots ORDER BY id")]

    def game(self, game_id: int) -> StoredGame:
        for game in self.db.execute(
                f"SELECT {self._game_columns()} FROM games WHERE id = ?", (game_id,)):
            return StoredGame(*game)
        raise UsageError(f"{self.path} has no game {game_id}")

    def moves(self, game_id: int) -> list[MoveRecord]:
        added = ("COALESCE(time_limit, 0), cpu, COALESCE(note, '')"
                 if self._has("moves", "note") else "0, NULL, ''")
        rows = self.db.execute(
            f"SELECT ply, mover, state, seconds, wall, {added} FROM moves WHERE game = ?"
            " ORDER BY ply", (game_id,))
        return [MoveRecord(*row) for row in rows]

    def move_columns(self) -> str:
        """SQL for (time_limit, cpu, note) of `moves m`, NULLs where an old file lacks them."""
        return ("m.time_limit, m.cpu, m.note" if self._has("moves", "note")
                else "NULL, NULL, NULL")


def _check_path(path: Path, must_exist: bool) -> bool:
    """UsageError unless `path` is a regular file or a new file; True if it has content."""
    if path.is_dir():
        raise UsageError(f"{path} is a directory, not an arena database")
    if not path.exists():
        if must_exist:
            raise UsageError(f"no such database: {path}")
        if not path.parent.is_dir():
            raise UsageError(f"directory for database does not exist: {path.parent}")
        return False
    if not stat.S_ISREG(path.stat().st_mode):
        raise UsageError(f"{path} is not a regular file, not an arena database")
    if path.stat().st_size == 0:
        if must_exist:
            raise UsageError(f"{path} is empty, not an arena database "
                             "(start a tournament with `aviary arena run`)")
        return False
    return True


def _read_only(path: Path) -> sqlite3.Connection:
    """A connection that cannot write. Without a -wal beside it (nothing uncommitted), also
    `immutable`, so SQLite creates no -wal/-shm files next to somebody else's file."""
    wal = path.with_name(path.name + "-wal")
    options = "mode=ro" if wal.exists() else "mode=ro&immutable=1"
    uri = f"file:{quote(str(path.resolve()))}?{options}"
    return sqlite3.connect(uri, uri=True, timeout=30, isolation_level=None)


def _check_ours(path: Path, db: sqlite3.Connection) -> None:
    """UsageError unless `path` is an undamaged arena database (or an SQLite file with no
    tables yet). Databases from before the application id are known by their tables."""
    with open(path, "rb") as handle:
        if handle.read(len(_SQLITE_MAGIC)) != _SQLITE_MAGIC:
            raise UsageError(f"{path} is not an SQLite database, so not an arena database; "
                             "choose another --db")
    try:
        application_id = db.execute("PRAGMA application_id").fetchone()[0]
        tables = {row[0] for row in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
        if application_id not in (0, APPLICATION_ID) or (
                application_id == 0 and tables and not _CORE_TABLES <= tables <= _TABLES):
            shown = ", ".join(sorted(tables)[:5]) or "none"
            raise UsageError(f"{path} is not an arena database (another program's SQLite file; "
                             f"tables: {shown}); it was left untouched; use another file")
        problems = [row[0] for row in db.execute("PRAGMA quick_check(3)")]
    except sqlite3.DatabaseError as error:
        problems = [str(error)]
    if problems != ["ok"]:
        raise UsageError(f"{path} is a damaged arena database ({problems[0]}); it was left "
                         "untouched: restore it from a copy, or start again with another file")


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
