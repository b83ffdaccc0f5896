"""Players: external programs (a fresh process per move) and in-process aviary engines.

A player is written on the command line as one string:
- `aviary:ENGINE?key=value&...` is an engine run inside the arena's worker:
  one of the game's registered engines (`aviary:engine?depth=4`,
  `aviary:textbook?time=0.5`; `aviary:GAME` is the game's main engine) or
  `aviary:random?seed=7` (random works for any game);
- anything else is a command line, split like a shell would
  (`python3 my_player.py`), called as `COMMAND ARGS...` with the game's
  course arguments (`Game.command_args`).
Either form may be prefixed by `NAME=` to name the player in the standings.

Every spec is checked before any game starts (`check`), so a missing or
non-executable program is one clear line, not a tournament of forfeits.

What a program says is never trusted as text: its notes and the output kept with a
loss are cut to length and stripped of control characters (`plain`).
"""

from __future__ import annotations

import os
import random
import re
import resource
import shlex
import shutil
import signal
import tempfile
import time
import traceback
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

from aviary.arena.games import Engine, engine_names, make_engine
from aviary.arena.isolation import Jail, copy_folder
from aviary.arena.sandbox import Limits, RunResult, clean_environment, moves_root, run_program
from aviary.errors import UsageError
from aviary.games import registry
from aviary.games.base import Game
from aviary.search.clock import check_seconds

_NAME = re.compile(r"^([A-Za-z0-9_.+-]+)=(.+)$")
_DETAIL = 300  # characters of offending output kept with a loss
_NOTE = 200  # characters of a program's last stderr line kept with its move


@dataclass(frozen=True)
class PlayerSpec:
    """A player as configured: a display name and the spec string it was built from."""

    name: str
    spec: str

    @property
    def in_process(self) -> bool:
        return self.spec.startswith("aviary:")


@dataclass(frozen=True)
class Answer:
    """A player's answer to one move: a line, or the reason it has none (and lost)."""

    line: str | None
    seconds: float  # when the counted line arrived (or the failure happened)
    failure: str | None = None  # timeout | crash | no-output
    detail: str = ""
    wall: float | None = None  # how long the program ran, if longer than `seconds`
    cpu: float | None = None  # CPU seconds the move cost (all threads / child processes)
    note: str = ""  # what the player says about its move: a program's last stderr line


def plain(text: str, *, lines: bool = False) -> str:
    """`text` without control characters (each becomes a space; with `lines`, newlines
    stay): what a program printed is stored and shown as plain text only."""
    return "".join(char if char.isprintable() or (lines and char == "\n") else " "
                   for char in text)


def truncate(text: str, limit: int = _DETAIL) -> str:
    text = plain(text, lines=True).strip()
    return text if len(text) <= limit else "..." + text[-limit:]


def parse_specs(arguments: list[str]) -> list[PlayerSpec]:
    """PlayerSpecs with unique names (a repeated name gets `#2`, `#3`, ...)."""
    specs: list[PlayerSpec] = []
    seen: dict[str, int] = {}
    for argument in arguments:
        match = _NAME.match(argument)
        if match:
            name, spec = match.group(1), match.group(2)
        else:
            name, spec = _default_name(argument), argument
        if not spec.strip():
            raise UsageError(f"player {argument!r} has an empty command")
        count = seen[name] = seen.get(name, 0) + 1
        specs.append(PlayerSpec(name if count == 1 else f"{name}#{count}", spec))
    return specs


def _default_name(spec: str) -> str:
    if spec.startswith("aviary:"):
        return spec.removeprefix("aviary:")
    words = _split(spec) if spec.strip() else [""]
    script = next((w for w in reversed(words) if not w.startswith("-") and "." in w), words[0])
    return Path(script).name or spec


class Contestant:
    """A seat in the arena: answers moves as the referee times them (an `Answer`: the line,
    its time, or why it lost). Built once per worker process; must be cheap to call
    repeatedly. Not a `Player` (`aviary.games.base`, the one player protocol): an
    external program is none, and an in-process contestant wraps one (`InProcessPlayer`).

    `seconds`: the player's own time per move (`aviary:engine?time=0.1`: time odds), or
    None to take the tournament's."""

    seconds: float | None = None

    def move(self, state: Any, seconds: float, history: Sequence[Any] = ()) -> Answer:
        """The answer to `state`; `history` is the game's positions before it (oldest first)."""
        raise NotImplementedError

    def begin_game(self, seed: str | None = None) -> None:
        """Called before the player's first move of a game; `seed` names the game and the
        seat (`Engine.new_game`): None where the game has no seed (draws from the OS)."""

    def end_game(self) -> None:
        """Called when the game is over (or abandoned), whatever happened."""


class ExternalPlayer(Contestant):
    """A program run once per move under the course contract: the last complete line counts.

    With a `jail`, each move runs in the sandbox, in a copy of the program's folder made
    for the game (`begin_game`) and removed after it (`end_game`)."""

    def __init__(self, argv: list[str], game: Game, grace: float, memory_mb: int | None,
                 jail: Jail | None = None) -> None:
        self.argv, self.game = argv, game
        self.grace, self.memory_mb, self.jail = grace, memory_mb, jail
        self.env = clean_environment(jailed=jail is not None)
        self.game_folder: str | None = None  # holds this game's copy of the player's folder
        self.own_copy: str | None = None

    def begin_game(self, seed: str | None = None) -> None:  # a program draws its own
        self.end_game()
        if self.jail is not None and self.jail.own_folder is not None:
            self.game_folder = tempfile.mkdtemp(prefix="game-", dir=moves_root())
            self.own_copy = copy_folder(self.jail, os.path.join(self.game_folder, "folder"))

    def end_game(self) -> None:
        if self.game_folder is not None:
            shutil.rmtree(self.game_folder, ignore_errors=True)
        self.game_folder = self.own_copy = None

    def move(self, state: Any, seconds: float, history: Sequence[Any] = ()) -> Answer:
        limits = Limits(seconds=seconds, grace=self.grace, memory_mb=self.memory_mb)
        if self.jail is not None and self.jail.own_folder is not None and self.own_copy is None:
            self.begin_game()  # a move outside a game (a single call): its own copy
        before = _children_cpu()
        run = run_program(self.argv, self.game.command_args(state, seconds), limits, self.env,
                          self.jail, self.own_copy)
        cpu, note = _children_cpu() - before, _last_line(run.stderr_tail)
        answer = self._judge(run, seconds)
        return replace(answer, cpu=round(cpu, 4), note=truncate(plain(note), _NOTE))

    def _judge(self, run: RunResult, seconds: float) -> Answer:
        if run.start_error is not None:
            return Answer(None, 0.0, "crash", truncate(f"could not start: {run.start_error}"))
        if run.out_of_memory:
            return Answer(None, run.wall, "crash",
                          f"used more than its memory ({self.memory_mb} MB for the move, all "
                          "its processes together)" + _tail(" stderr", run.stderr_tail))
        used = run.line_time if run.line_time is not None else run.wall
        if run.timed_out and run.last_line is None:
            return Answer(None, run.wall, "timeout",
                          f"no complete line within {seconds:g}+{self.grace:g}s"
                          + _tail(" stdout", run.stdout_tail) + _tail(" stderr", run.stderr_tail))
        if run.status is not None and run.status != 0:
            how = (f"killed by {_signal_name(-run.status)}" if run.status < 0
                   else f"exit status {run.status}")
            return Answer(None, run.wall, "crash", how + _tail(" stderr", run.stderr_tail)
                          + _tail(" stdout", run.stdout_tail))
        if run.last_line is None:
            return Answer(None, run.wall, "no-output",
                          "exited without a complete line" + _tail(" stdout", run.stdout_tail))
        return Answer(run.last_line, used, wall=run.wall)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _tail(label: str, text: str) -> str:
    return f";{label}: {truncate(text, 150)!r}" if text.strip() else ""


class InProcessPlayer(Contestant):
    """An in-process player (`aviary.games.base.Player`, through its arena form `Engine`:
    `aviary.arena.games.make_engine`) called directly; it loses on time if it overruns
    seconds + grace."""

    def __init__(self, engine: Engine, grace: float, seconds: float | None = None) -> None:
        self.engine, self.grace, self.seconds = engine, grace, seconds

    def begin_game(self, seed: str | None = None) -> None:
        self.engine.new_game(seed)

    def move(self, state: Any, seconds: float, history: Sequence[Any] = ()) -> Answer:
        start, cpu = time.monotonic(), time.process_time()
        try:
            line = self.engine(state, seconds, history)
        except Exception:  # a bug in an engine loses its game, not the tournament
            return Answer(None, time.monotonic() - start, "crash",
                          truncate(traceback.format_exc()))
        used, cpu = time.monotonic() - start, round(time.process_time() - cpu, 4)
        if used > seconds + self.grace:
            return Answer(None, used, "timeout", f"answered after {used:.2f}s", cpu=cpu)
        note = truncate(str(getattr(self.engine, "note", "")), _NOTE)  # e.g. OpenSpiel's MCTS
        return Answer(line, used, cpu=cpu, note=note)


class SeededDraws:
    """A player's random draws: each game's from that game's seed (mixed with the player's
    own `seed=`, so that two players of one game draw apart), else one stream from its own
    `seed=` or the OS."""

    def __init__(self, game: Game, seed: str | None = None) -> None:
        self.game, self.seed = game, seed
        self.rng = random.Random(seed)

    def new_game(self, seed: str | None = None) -> None:
        if seed is not None:
            self.rng = random.Random(seed if self.seed is None else f"{self.seed}:{seed}")

    def random_answer(self, state: Any) -> str:
        return self.rng.choice(sorted(self.game.answers(state)))


class RandomMover(SeededDraws):
    """A legal-move-uniform player (`aviary:random`)."""

    def __call__(self, state: Any, seconds: float, history: Sequence[Any] = ()) -> str:
        return self.random_answer(state)


def random_engine(game: Game, params: dict[str, str]) -> Engine:
    """A legal-move-uniform player; seeded by `seed` and each game's seed (`SeededDraws`)."""
    return RandomMover(game, params.get("seed"))


def _split_engine_spec(spec: str) -> tuple[str, dict[str, str]]:
    body = spec.removeprefix("aviary:")
    name, _, query = body.partition("?")
    try:
        params = dict(parse_qsl(query, keep_blank_values=True, strict_parsing=bool(query)))
    except ValueError:
        raise UsageError(f"{spec!r}: settings must look like ?depth=4&time=0.5") from None
    return name, params


def build_engine(spec: str, game: Game, *, warm: bool = True) -> Engine:
    """The in-process engine a spec names (warmed unless `warm` is False); UsageError for
    unknown names or settings."""
    name, params = _split_engine_spec(spec)
    if name == "random":
        unknown = set(params) - {"seed"}
        if unknown:
            raise UsageError(f"{spec!r}: aviary:random takes only seed=, not {sorted(unknown)}")
        return random_engine(game, params)
    if name in registry.PLAYERS:  # players for every game (OpenSpiel's: aviary/openspiel)
        return registry.player(name, game, params)
    engines = engine_names(game)
    if name == game.name:  # `aviary:GAME` is the game's main engine
        name = engines[0]
    if name not in engines:
        known = ", ".join(f"aviary:{known}"
                          for known in [game.name, *engines, "random", *registry.PLAYERS])
        raise UsageError(f"unknown engine {spec!r} for {game.name}; known: {known}")
    unknown = set(params) - set(ENGINE_SETTINGS)
    if unknown:
        raise UsageError(f"{spec!r}: engines take {', '.join(f'{key}=' for key in ENGINE_SETTINGS)}"
                         f" not {sorted(unknown)}")
    if "seed" in params and "random" not in params:
        raise UsageError(f"{spec!r}: seed= goes with random= (the engine itself draws nothing)")
    engine = make_engine(game, name, _int_param(params, "depth"), _int_param(params, "nodes"),
                         warm=warm)
    share = _share_param(params, "random")
    return engine if not share else diluted(engine, game, share, params.get("seed"))


# `random=P`: a random legal move instead of the engine's, with probability P (the ladder's
# weaker levels, `aviary.arena.ladder`); `seed=` seeds those draws
ENGINE_SETTINGS = ("time", "depth", "nodes", "random", "seed")


class Diluted(SeededDraws):
    """`engine`, except that a share of its moves (drawn move by move) are uniformly random
    legal ones: a strength between the engine's and the random mover's that does not
    depend on the machine (the ladder's weak levels)."""

    def __init__(self, engine: Engine, game: Game, share: float, seed: str | None = None
                 ) -> None:
        super().__init__(game, seed)
        self.engine, self.share = engine, share

    def __call__(self, state: Any, seconds: float, history: Sequence[Any] = ()) -> str:
        if self.rng.random() < self.share:
            return self.random_answer(state)
        return self.engine(state, seconds, history)

    def new_game(self, seed: str | None = None) -> None:
        super().new_game(seed)
        self.engine.new_game(seed)


def diluted(engine: Engine, game: Game, share: float, seed: str | None = None) -> Engine:
    """`engine` with a share of random moves (`Diluted`)."""
    return Diluted(engine, game, share, seed)


def _share_param(params: dict[str, str], key: str) -> float | None:
    if key not in params:
        return None
    try:
        value = float(params[key])
    except ValueError:
        raise UsageError(f"{key}={params[key]!r} must be a share from 0 to 1") from None
    if not 0 <= value <= 1:
        raise UsageError(f"{key} must be a share from 0 to 1, got {params[key]}")
    return value


def own_seconds(spec: str) -> float | None:
    """The player's own time per move (`aviary:engine?time=0.1`), None for the tournament's."""
    if not spec.startswith("aviary:"):
        return None
    return _float_param(_split_engine_spec(spec)[1], "time")


def _int_param(params: dict[str, str], key: str) -> int | None:
    if key not in params:
        return None
    try:
        value = int(params[key])
    except ValueError:
        raise UsageError(f"{key}={params[key]!r} must be a whole number") from None
    if value < 1:
        raise UsageError(f"{key} must be at least 1, got {value}")
    return value


def _float_param(params: dict[str, str], key: str) -> float | None:
    if key not in params:
        return None
    try:
        return check_seconds(params[key], f"{key}=")
    except ValueError as error:
        raise UsageError(str(error)) from None


def _split(spec: str) -> list[str]:
    try:
        words = shlex.split(spec)
    except ValueError as error:
        raise UsageError(f"cannot split player command {spec!r}: {error}") from None
    if not words:
        raise UsageError(f"player {spec!r} has an empty command")
    return words


def resolve_command(spec: str) -> list[str]:
    """The argv for a command spec, with paths made absolute (moves run in a temp dir).

    UsageError, before any game, when the program is missing or not executable, cannot
    be run by the kernel (a script without a `#!` line), or when an argument that names
    a script file (`x.py`, `dir/x`) does not exist.
    """
    words = _split(spec)
    program = words[0]
    if os.sep in program:
        if os.path.isdir(program):
            raise UsageError(f"player program is a directory: {program}")
        if not os.path.isfile(program):
            raise UsageError(f"player program not found: {program}")
        if not os.access(program, os.X_OK):
            raise UsageError(f"player program is not executable: {program} (chmod +x?)")
        program = os.path.abspath(program)
    else:
        found = shutil.which(program)
        if found is None:
            raise UsageError(f"player program not found on PATH: {program}")
        program = found
    problem = _cannot_run(program)
    if problem:
        raise UsageError(f"player program {words[0]} cannot run: {problem}")
    argv = [program]
    for word in words[1:]:
        looks_like_file = not word.startswith("-") and (
            os.sep in word or re.search(r"\.(py|sh|pl|rb|js|jar)$", word) is not None)
        if looks_like_file:
            if not os.path.exists(word):
                raise UsageError(f"file named by player {spec!r} not found: {word}")
            word = os.path.abspath(word)
        argv.append(word)
    return argv


def _cannot_run(program: str) -> str | None:
    """Why the kernel would refuse to run `program` (an executable must be a binary, or a
    script whose first line names its interpreter), or None."""
    try:
        with open(program, "rb") as handle:
            start = handle.read(256)
    except OSError as error:
        return error.strerror or str(error)
    if start.startswith(b"\x7fELF"):
        return None
    if not start.startswith(b"#!"):
        return ("it is neither a binary nor a script with a #! line (add one, e.g. "
                "#!/usr/bin/env python3, or name its interpreter: 'python3 FILE')")
    words = start[2:].split(b"\n")[0].decode(errors="replace").split()
    if not words or not os.path.isfile(words[0]) or not os.access(words[0], os.X_OK):
        return f"its #! line names no program that exists: {' '.join(words) or '(empty)'}"
    return None


def check(spec: PlayerSpec, game: Game) -> None:
    """Raise UsageError if `spec` cannot be built for `game` (before any game starts). An
    in-process player is built but not warmed here: the workers that play warm their own."""
    if spec.in_process:
        build_engine(spec.spec, game, warm=False)
        own_seconds(spec.spec)
    else:
        resolve_command(spec.spec)


def make_player(spec: PlayerSpec, game: Game, grace: float, memory_mb: int | None,
                jail: Jail | None = None) -> Contestant:
    if spec.in_process:
        return InProcessPlayer(build_engine(spec.spec, game), grace, own_seconds(spec.spec))
    return ExternalPlayer(resolve_command(spec.spec), game, grace, memory_mb, jail)
