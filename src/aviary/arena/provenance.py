"""Where a figure comes from: the code that played, the commit, the machine and its load.

A strength figure is only worth what its record says about it, so every stored game
carries the fingerprint of the code that played it, and every export carries the
commit, the machine (processor, cores, Python), the versions of the packages that run
the engines, and the load. The fingerprint is a digest of the source files that decide
how a game is played, and only those: the search core, the game protocol and generic
engines (`games/*.py`, of the registry only the shared code and this game's own entry,
so registering another game changes no figure), the game's own folder, the arena's
move loop and its players' wrapper (`arena/players.py`: it builds in-process players
and parses `time=`); with a program among the players (an `aviary` course command,
say) also the course command's folder (its runner, warm server and memory of the
game) and the sandbox; with a player for every game (OpenSpiel's MCTS) also that
player's folder. It is computed from the installed package, so a figure can be
checked against the code of today's checkout: equal means the code it measured is
still the code here. It is taken over the code's text without comments, docstrings
and blank lines (`significant_text`): a corrected sentence is not a new engine, and
must not make its figures stale.

`FINGERPRINT` numbers this rule; an export says which rule its games' codes follow.
(Rule 1 hashed the whole registry and left `arena/players.py` out for in-process
players; the committed exports were moved to rule 2 where rule 1 called them current,
`arena/players.py` being the same at every one of their commits.)
"""

from __future__ import annotations

import ast
import hashlib
import importlib
import io
import os
import platform
import subprocess
import tokenize
from collections.abc import Iterable
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any

import aviary
from aviary.games import registry

_PACKAGE = Path(aviary.__file__).resolve().parent
# Besides the game's own folder: what every game's play goes through.
_SHARED = ("search", "games/*.py", "cache.py", "arena/referee.py", "arena/games.py",
           "arena/players.py")
_PROGRAMS = ("course", "arena/sandbox.py", "arena/isolation.py")
_REGISTRY = "games/registry.py"
FINGERPRINT = 2  # the rule `code_fingerprint` follows (see the module's docstring)


def _game_folder(game: str) -> str:
    """The package folder that holds game `game`'s modules (from the registry)."""
    target = registry.spec(game).game
    module = target.partition(":")[0].split(".")
    return "/".join(module[1:-1])


def player_code(players: Iterable[str]) -> tuple[str, ...]:
    """Besides the game's code, the package's files that play for these player specs: a
    program (a command line, a process a move) goes through the course runner and the
    sandbox; a player for every game (`aviary:mcts`) is its module's folder."""
    parts: set[str] = set()
    for spec in players:
        if not spec.startswith("aviary:"):
            parts.update(_PROGRAMS)
            continue
        name = spec.removeprefix("aviary:").partition("?")[0]
        if name in registry.PLAYERS:
            module = registry.PLAYERS[name].partition(":")[0].split(".")
            parts.add("/".join(module[1:-1]))
    return tuple(sorted(parts))


def code_files(game: str, players: tuple[str, ...] = (), package: Path = _PACKAGE
               ) -> list[Path]:
    """Every source file that decides how `game` is played by these player specs (in
    `package`, the installed one unless a test gives a copy)."""
    files: set[Path] = set()
    for pattern in (*_SHARED, *player_code(players), _game_folder(game)):
        for path in package.glob(pattern):
            files.update(path.rglob("*.py") if path.is_dir() else [path])
    return sorted(path for path in files
                  if "__pycache__" not in path.parts and path.suffix == ".py")


def significant_text(source: str) -> str:
    """`source` without what cannot change how it runs: comments, docstrings, blank lines
    and trailing spaces. Indentation and every other character stay.

    Text, not a syntax tree: `ast.dump` and the tokens of an f-string differ between
    Python versions, and a figure measured on one must be checkable on another.
    """
    lines = source.split("\n")
    cuts: list[tuple[int, int, int, int]] = []  # first line, column, last line, column
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            first = node.body[0] if node.body else None
            if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                    and isinstance(first.value.value, str) and first.end_lineno is not None
                    and first.end_col_offset is not None):
                cuts.append((first.lineno, _column(lines[first.lineno - 1], first.col_offset),
                             first.end_lineno,
                             _column(lines[first.end_lineno - 1], first.end_col_offset)))
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            cuts.append((*token.start, *token.end))
    for first_line, start, last_line, end in sorted(cuts, reverse=True):  # from the end
        head, tail = lines[first_line - 1][:start], lines[last_line - 1][end:]
        lines[first_line - 1:last_line] = [head + tail]
    return "\n".join(line.rstrip() for line in lines if line.strip())


def _column(line: str, offset: int) -> int:
    """The character column of `ast`'s UTF-8 byte offset in `line`."""
    return len(line.encode()[:offset].decode())


@cache
def code_fingerprint(game: str, players: tuple[str, ...] = (), package: Path = _PACKAGE) -> str:
    """16 hex digits over `code_files`' significant text: the game's code and that of the
    players that are not the game's (`player_code`: a program's course command,
    OpenSpiel's players); of the registry, the shared code and `game`'s entry only."""
    digest = hashlib.sha256()
    for path in code_files(game, players, package):
        stat = path.stat()
        relative = path.relative_to(package).as_posix()
        digest.update(relative.encode() + b"\0")
        if relative == _REGISTRY:
            text = registry_entry_text(path.read_text(encoding="utf-8"), game)
            digest.update(hashlib.sha256(significant_text(text).encode()).digest())
        else:
            digest.update(_significant_digest(path, stat.st_mtime_ns, stat.st_size))
    return digest.hexdigest()[:16]


def registry_entry_text(source: str, game: str) -> str:
    """The registry's `source` with every game's entry in `GAMES` cut out but `game`'s:
    what one game's play depends on, which a new game's entry does not change. (Where
    the entries cannot be found, the whole text: a fingerprint covers too much, never
    too little.)"""
    entries = _registry_entries(source)
    kept = [entry for entry in entries if entry[0] == game]
    if not entries or len(kept) != 1:
        return source
    lines = source.split("\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)

    def offset(line: int, column: int) -> int:
        return starts[line - 1] + _column(lines[line - 1], column)

    first, last = entries[0], entries[-1]
    _, start, end = kept[0]
    return (source[:offset(*first[1])] + source[offset(*start):offset(*end)]
            + source[offset(*last[2]):])


def _registry_entries(source: str) -> list[tuple[str, tuple[int, int], tuple[int, int]]]:
    """(game name, start, end) of each entry of the registry's `GAMES` tuple, in order."""
    for node in ast.parse(source).body:
        if (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
                and node.target.id == "GAMES" and isinstance(node.value, ast.DictComp)
                and isinstance(node.value.generators[0].iter, ast.Tuple)):
            found = []
            for call in node.value.generators[0].iter.elts:
                name = _entry_name(call)
                if name is None or call.end_lineno is None or call.end_col_offset is None:
                    return []
                found.append((name, (call.lineno, call.col_offset),
                              (call.end_lineno, call.end_col_offset)))
            return found
    return []


def _entry_name(call: ast.expr) -> str | None:
    """A registry entry's game name: `board_game("NAME", ...)` or `GameSpec(name="NAME")`."""
    if not isinstance(call, ast.Call):
        return None
    named = [keyword.value for keyword in call.keywords if keyword.arg == "name"]
    for value in (*call.args[:1], *named):
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            return value.value
    return None


@cache
def _significant_digest(path: Path, mtime_ns: int, size: int) -> bytes:
    """One file's share of the fingerprint, read once a process (the figures of many
    games share the search core's files)."""
    return hashlib.sha256(significant_text(path.read_text(encoding="utf-8")).encode()).digest()


def git_commit() -> str:
    """The checkout's commit (`+dirty` when files differ from it), or "" outside git."""
    root = _PACKAGE.parent.parent
    try:
        commit = subprocess.run(["git", "-C", str(root), "rev-parse", "--short=12", "HEAD"],
                                capture_output=True, text=True, timeout=10, check=True)
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--",
                                "src"], capture_output=True, text=True, timeout=10, check=True)
    except (OSError, subprocess.SubprocessError):
        return ""
    return commit.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")


def machine() -> dict[str, Any]:
    """What the figures ran on: processor, cores, memory, Python and its platform."""
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as info:
            names = [line.split(":", 1)[1].strip() for line in info
                     if line.startswith("model name")]
        model = names[0] if names else model
    except OSError:
        pass
    try:
        memory = round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1)
    except (ValueError, OSError, AttributeError):
        memory = None
    return {"processor": model, "cores": os.cpu_count() or 1, "memory_gb": memory,
            "python": platform.python_version(), "system": platform.platform(terse=True)}


PACKAGES = ("numba", "numpy", "open_spiel")  # what runs the engines and OpenSpiel's players


def packages() -> dict[str, str | None]:
    """Python's version and the installed versions of `PACKAGES` (None: not installed): the
    same code plays at another speed under another numba."""
    found: dict[str, str | None] = {"python": platform.python_version()}
    for name in PACKAGES:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = None
    return found


def deep_tables(game: str) -> dict[str, bool]:
    """Whether each of `game`'s `aviary warmup --deep` tables is built on this machine.

    An engine plays from such a table only where it is built (building takes far longer
    than a move), so the same code plays differently without it: a figure says which."""
    found = {}
    for name in registry.spec(game).deep_warmup:
        built = getattr(importlib.import_module(name), "built", None)
        if built is not None:
            found[name] = bool(built())
    return found


def load() -> float:
    """The 1-minute load average now."""
    return round(os.getloadavg()[0], 2)
