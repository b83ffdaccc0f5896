"""The course command line, once for every game: `aviary GAME [course arguments] SECONDS`.

Contract (the course grader kills the program at SECONDS and takes the last line):
every printed line is a complete, flushed answer (for board games, the board after
the move); the first comes from the game's rules-only quick player in milliseconds,
before numba has even loaded; then an engine process prints a better answer after
each deeper search and this process passes on each legal one. It exits on its own
`margin(SECONDS)` before SECONDS have passed since the *process* started,
interpreter start-up included. Bad input: one line, exit 2; a finished game or a
player with no legal move: one line, exit 1.

A game takes part by its registry entry: its `Game.parse_course` reads the
arguments, its `quick` player gives the first answer, its main engine thinks: in a
warm engine server if one runs (`aviary warm start`, see `aviary.warm`), else in a
child process started first thing (its cost is loading numba: about 0.5 s of CPU).
"""

from __future__ import annotations

import json
import os
import select
import socket
import subprocess
import sys
import time
from typing import Any

from aviary import warm
from aviary.errors import NoMoveError, UsageError
from aviary.games import registry
from aviary.games.base import Game, OptionError
from aviary.search.clock import process_age

# AVIARY_COURSE_TRACE=1: a line on stderr for each answer the engine relays (benchmarks)
TRACE = os.environ.get("AVIARY_COURSE_TRACE") == "1"


def margin(seconds: float) -> float:
    """How long before the limit we stop: room for a late wake-up on a busy machine and exit."""
    return min(0.25 + 0.03 * seconds, 2.0)


def usage(name: str) -> str:
    game = registry.spec(name).game_class()
    return f"usage: aviary {name} {game.course_usage}"


def parse_arguments(name: str, argv: list[str]) -> tuple[Game[Any, Any], Any, float]:
    """The game, position and time limit, or UsageError naming the first thing wrong."""
    try:
        return registry.spec(name).game_class().parse_course(argv)
    except (ValueError, OptionError) as error:
        raise UsageError(str(error)) from None


class Printer:
    """Prints whole answer lines, each at most once in a row, flushed at once."""

    def __init__(self) -> None:
        self.last: str | None = None

    def line(self, text: str) -> None:
        if text != self.last:
            print(text, flush=True)
            self.last = text


def _die_with_parent() -> None:
    """Ask Linux to kill this engine process if the command process dies (e.g. is killed)."""
    try:
        import ctypes
        import signal

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        if os.getppid() == 1:  # the parent died before the request took effect
            os._exit(0)
    except (OSError, AttributeError):
        pass  # not Linux: the child still stops at the deadline on its own


class _NoScipy:
    """An import hook refusing scipy: numba probes it for BLAS at import (0.15 s of CPU,
    more under load), and no search kernel needs it. Used in the engine child only."""

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        if name == "scipy" or name.startswith("scipy."):
            raise ImportError("scipy is not loaded by the course engine process")


def _without_scipy() -> None:
    sys.meta_path.insert(0, _NoScipy())


def think(argv: list[str]) -> int:
    """The engine process: print each deeper search's answer until the deadline.

    Runs as `python -m aviary.course --think GAME SETTINGS STATE DEADLINE` (SETTINGS as
    JSON, STATE as `Game.encode`, DEADLINE on the monotonic clock parent and child share).
    """
    _die_with_parent()
    _without_scipy()
    from aviary.search.clock import Limit

    name, settings, encoded, deadline = argv
    spec = registry.spec(name)
    game = spec.make(**json.loads(settings))
    state = game.decode(encoded)
    engine = spec.engine(spec.main_engine, game)  # slow: numba import and cache load
    remaining = float(deadline) - time.monotonic()
    if remaining > 0.01:
        for report in engine.think(state, Limit(time=remaining), tables="cached"):
            print(report.answer, flush=True)
    return 0


class EngineChild:
    """The engine in a child process, started as early as possible: loading numba is its cost.

    A child process, not a thread: loading numba's cached code holds the GIL for long
    stretches, which could make a thread-based watchdog wake up late.
    """

    def __init__(self, name: str, game: Game[Any, Any], state: Any, deadline: float) -> None:
        command = [
            sys.executable, "-m", "aviary.course", "--think", name,
            json.dumps(game.settings), game.encode(state), repr(deadline),
        ]
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE)
        assert self.process.stdout is not None
        self.fd = self.process.stdout.fileno()

    def read(self) -> bytes:
        return os.read(self.fd, 1 << 16)

    def close(self) -> None:
        self.process.kill()
        self.process.wait()  # reaped: no zombie left behind for whoever runs us


class WarmEngine:
    """The same answers from a warm engine server (`aviary warm start`), when one runs."""

    def __init__(self, connection: socket.socket, name: str, game: Game[Any, Any], state: Any,
                 deadline: float) -> None:
        self.connection = connection
        self.fd = connection.fileno()
        message = {"game": name, "settings": game.settings, "state": game.encode(state),
                   "deadline": deadline}
        connection.sendall((json.dumps(message) + "\n").encode())

    def read(self) -> bytes:
        try:
            return self.connection.recv(1 << 16)
        except OSError:
            return b""

    def close(self) -> None:
        self.connection.close()  # the server stops this search at its next write


def relay(source: EngineChild | WarmEngine, game: Game[Any, Any], state: Any, deadline: float,
          printer: Printer) -> None:
    """Pass on the engine's legal answers until the deadline, then close the engine.

    This process only waits in `select`, so it stops on time however busy the engine is.
    """
    try:
        legal = game.answers(state)
        pending = b""
        while (remaining := deadline - time.monotonic()) > 0:
            ready, _, _ = select.select([source.fd], [], [], remaining)
            if not ready:
                break
            chunk = source.read()
            if not chunk:
                break
            *lines, pending = (pending + chunk).split(b"\n")
            for line in lines:
                answer = line.decode(errors="replace").strip()
                if answer in legal:
                    printer.line(answer)
                    if TRACE:
                        print(f"engine answer at {process_age():.3f} s", file=sys.stderr)
    finally:
        source.close()


def _answer_from_tables(probe_name: str, game: Game[Any, Any], state: Any,
                        printer: Printer) -> bool:
    """Answer from the solved endgame tables when they hold `state` (never building one).

    True when they answered: the exact move, and `table: win in 7` (or draw, loss) on
    stderr. A covered position whose table is not built yet is searched as usual.
    """
    verdict = registry.load(probe_name)(state, "cached")
    if verdict is None or verdict.move is None:
        return False
    print(f"table: {verdict.describe()}", file=sys.stderr, flush=True)
    printer.line(game.answer(state, verdict.move))
    return True


def run(name: str, argv: list[str]) -> int:
    """`aviary NAME ...` for a game whose command is the course runner."""
    if argv in (["-h"], ["--help"]):
        print(f"{usage(name)}\n\nPrints better and better answers; the last line is the move.")
        return 0
    started = time.monotonic() - process_age()
    game, state, seconds = parse_arguments(name, argv)
    ended = game.outcome(state)
    if ended is not None:
        raise NoMoveError(f"the game is over ({ended.reason}); player {game.label(state)} "
                          "has no move to make")
    if game.is_chance(state) or not game.legal_moves(state):
        raise NoMoveError(f"player {game.label(state)} has no legal move")
    deadline = started + seconds - margin(seconds)

    search = game.kernels_reach(state) and deadline - time.monotonic() > 0.05
    child: EngineChild | WarmEngine | None = None
    if search:
        connection = warm.connect()
        child = (WarmEngine(connection, name, game, state, deadline) if connection is not None
                 else EngineChild(name, game, state, deadline))
    printer = Printer()
    try:
        spec = registry.spec(name)
        quick = registry.load(spec.quick) if spec.quick else None
        first = quick(state) if quick is not None else game.legal_moves(state)[0]
        printer.line(game.answer(state, first))
        solved = spec.tables is not None and _answer_from_tables(spec.tables, game, state, printer)
        if solved and child is not None:  # the exact answer is given: no search to wait for
            child.close()
            child = None
    finally:
        if child is not None:
            relay(child, game, state, deadline, printer)
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--think"]:
        sys.exit(think(sys.argv[2:]))
