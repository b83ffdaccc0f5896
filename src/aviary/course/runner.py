"""The course command line, once for every game: `aviary GAME [course arguments] SECONDS`.

Contract (the course grader kills the program at SECONDS and takes the last line):
every printed line is a complete, flushed answer (for board games, the board after
the move); the first comes from the game's rules-only quick player in milliseconds,
before numba has even loaded; then the engine prints a better answer after each
deeper search and this process passes on each legal one. Until the engine's first
answer, the rules-only fallback search (`aviary.games.fallback`, in a forked process)
answers instead. It exits `exit_margin(SECONDS)` (`aviary.search.clock`) before SECONDS
have passed since the *process* started, interpreter start-up included
(`engine_host.deadline_from_start`: also when a shell's exec dates the process too
early), with one line on stderr saying
what gave the last answer: `engine (depth D, score S, nodes N, history H)` (H: the
game's earlier positions its search knew, see below), `table (win in 7)` or
`fallback (depth D, ...)` (with a note when the engine child found no search compiled
ahead of time for these sources: `aviary warmup` builds it). Bad input: one line, exit 2; a
finished game or a player with no legal move: one line, exit 1. The engine searches
with the game's earlier positions (repetitions are draws) that `aviary.course.memory`
recalls from this user's earlier commands in the same game.

A game takes part by its registry entry: its `Game.parse_course` reads the
arguments, its `quick` player gives the first answer, its `evaluation` guides the
fallback, its main engine thinks: in a warm engine server if one runs (see
`aviary.course.warm_server`), else in one the command starts first thing, its own
request the server's first (its cost is loading numba: about 0.5 s of CPU); with
AVIARY_NO_WARM=1, in a child process started first thing, which takes the game's search
compiled ahead of time where `aviary warmup` built it (`_load_engine`: no numba loaded).
Both are sent the same request and serve it the same way (`aviary.course.engine_host`):
the deadline goes whole, as its remaining time and when it was measured. A server running
other code refuses the request: an engine child answers, and the command replaces that
server as it exits."""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import socket
import sys
import time
from collections.abc import Callable
from typing import Any

from aviary.course import engine_host as host
from aviary.course import memory
from aviary.course import warm_server as warm
from aviary.errors import NoMoveError, UsageError
from aviary.games import registry
from aviary.games.base import Game, OptionError, Player
from aviary.games.fallback import Fallback
from aviary.search.clock import START_SEARCH_SECONDS, Deadline, process_age

# AVIARY_COURSE_TRACE=1: a line on stderr for each answer the engine relays (benchmarks)
TRACE = os.environ.get("AVIARY_COURSE_TRACE") == "1"


def usage(name: str) -> str:
    spec = registry.spec(name)
    word = f"{spec.course_subcommand} " if spec.course_subcommand else ""
    return f"usage: aviary {name} {word}{spec.game_class().course_usage()}"


def parse_arguments(name: str, argv: list[str]) -> tuple[Game[Any, Any], Any, float]:
    """The game, position and time limit, or UsageError naming the first thing wrong."""
    try:
        return registry.spec(name).game_class().parse_course(argv)
    except (ValueError, OptionError) as error:
        raise UsageError(str(error)) from None


def _die_with_parent(parent: int) -> None:
    """Ask Linux to kill this child if the command process `parent` (its pid, taken before
    the fork) dies, e.g. is killed. If it died before the request took effect, the child
    ends now: its parent is another by then (init, or a subreaper such as an arena's
    worker, so not always pid 1)."""
    try:
        import ctypes
        import signal

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return  # not Linux: the child still stops at the deadline on its own
    if os.getppid() != parent:
        os._exit(0)


def _trace(what: str) -> None:
    """With AVIARY_COURSE_TRACE=1, when the engine child got this far (its own age)."""
    if TRACE:
        print(f"engine child: {what} at {process_age():.3f} s (CPU {time.process_time():.3f} s)",
              file=sys.stderr, flush=True)


def _load_engine(name: str, settings: dict[str, Any], uncompiled: Callable[[], object]
                 ) -> tuple[Game[Any, Any], Player[Any, Any]]:
    """(the game, its main engine) for the engine child: on the game's search compiled ahead
    of time where `aviary warmup` built it (`GameSpec.compiled`: numba is never loaded),
    else numba's (`engine_host.load`: its import and compiler, the cached kernels), after
    calling `uncompiled` where the game has a compiled search but not for these sources."""
    spec = registry.spec(name)
    if TRACE:
        import numpy  # noqa: F401 - timed apart from the engine

        _trace("numpy imported")
    if spec.compiled:
        game = spec.make(**settings)
        engine = spec.compiled_engine(game)
        if engine is not None:
            _trace("engine built (compiled ahead of time: no numba)")
            return game, engine
        uncompiled()
    if TRACE:
        import numba  # noqa: F401 - timed apart from the game's kernels

        _trace("numba imported")
    loaded = host.load(name, settings)
    _trace("engine built (its kernel modules imported)")
    return loaded


def _think(name: str, settings: dict[str, Any], request_fd: int, answers_fd: int) -> None:
    """The engine child's work: load the engine (`_load_engine`) while the command recalls the
    game's earlier positions, then read its request on `request_fd` and serve it
    (`engine_host.serve`: each deeper search's answer, a JSON line on `answers_fd`)."""
    _trace("forked")
    host.as_engine_process()
    loaded = _load_engine(name, settings, lambda: os.write(answers_fd, UNCOMPILED))
    with os.fdopen(request_fd, "rb") as pipe:
        line = pipe.readline()
    if not line:
        return  # the command closed the pipe unsent: it needs no search
    request = host.read_request(json.loads(line))

    def traced(report: Any) -> None:
        if report.depth <= 1:
            _trace(f"depth {report.depth} searched")

    host.serve(request, lambda *_: loaded, lambda line: os.write(answers_fd, line),
               on_report=traced if TRACE else None)


class EngineChild:
    """The engine in a forked child process, started as early as possible: loading numba is
    its cost (about 0.5 s of CPU).

    A child process, not a thread: loading numba's cached code holds the GIL for long
    stretches, which could make a thread-based watchdog wake up late. Forked, not a new
    interpreter: it starts with the command's modules already imported (numba is not).
    """

    is_warm = False

    def __init__(self, name: str, game: Game[Any, Any], state: Any, deadline: Deadline) -> None:
        self.name, self.game, self.state, self.deadline = name, game, state, deadline
        request_read, request_write = os.pipe()
        answers_read, answers_write = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        parent = os.getpid()
        pid = os.fork()
        if pid == 0:  # the engine; it never returns into the command's code
            try:
                os.close(request_write)
                os.close(answers_read)
                _die_with_parent(parent)
                _think(name, game.settings, request_read, answers_write)
            except BaseException as error:  # noqa: BLE001 - said, never silent
                _say_failed("the engine", error)
            finally:
                os._exit(0)
        os.close(request_read)
        os.close(answers_write)
        self.pid, self.fd, self.request_fd = pid, answers_read, request_write
        if TRACE:
            print(f"engine child started at {process_age():.3f} s (command's CPU "
                  f"{time.process_time():.3f} s)", file=sys.stderr, flush=True)

    def start(self, history: tuple[str, ...]) -> None:
        """Send it its request, with the game's earlier positions (it reads it once numba
        has loaded; the pipe holds it meanwhile) and the time left now."""
        line = host.request_line(self.name, self.game.settings, self.game.encode(self.state),
                                 memory.history_for_pipe(history), self.deadline)
        with contextlib.suppress(OSError):  # a child already gone: its first read says so
            os.write(self.request_fd, line)
        self._close_request()

    def _close_request(self) -> None:
        if self.request_fd >= 0:
            with contextlib.suppress(OSError):
                os.close(self.request_fd)
            self.request_fd = -1

    def read(self) -> bytes:
        return os.read(self.fd, 1 << 16)

    def stop(self) -> None:
        """Kill it without waiting (`close` then reaps it): both searches die at once."""
        if self.pid:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)

    def close(self) -> None:
        """Kill it and reap it (no zombie left behind for whoever runs us)."""
        if self.pid:
            self.stop()
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self.pid, 0)
            os.close(self.fd)
            self._close_request()
            self.pid = 0


def _say_failed(what: str, error: BaseException) -> None:
    """A forked search's exception, one line on stderr (a killed command's is not said)."""
    if not isinstance(error, (KeyboardInterrupt, BrokenPipeError, SystemExit)):
        with contextlib.suppress(OSError):
            os.write(2, f"aviary: {what} failed: {type(error).__name__}: {error}\n".encode())


class WarmEngine:
    """The same answers from a warm engine server (`aviary warm start`), when one runs.

    The request carries this command's code digest: a server running other code
    (another install, or from before an upgrade) refuses it, and the command then
    starts its own engine.
    """

    is_warm = True

    def __init__(self, connection: socket.socket, name: str, game: Game[Any, Any], state: Any,
                 deadline: Deadline) -> None:
        self.refused = False  # the server runs other code (`relay` sets it)
        self.connection = connection
        self.fd = connection.fileno()
        self.name, self.game, self.state, self.deadline = name, game, state, deadline

    def start(self, history: tuple[str, ...]) -> None:
        """Send the request, with the game's earlier positions and the time left now."""
        line = host.request_line(self.name, self.game.settings, self.game.encode(self.state),
                                 history, self.deadline, warm.code_digest())
        with contextlib.suppress(OSError):  # a server going away: the first read says so
            self.connection.sendall(line)

    def read(self) -> bytes:
        try:
            return self.connection.recv(1 << 16)
        except OSError:
            return b""

    def stop(self) -> None:
        self.close()

    def close(self) -> None:
        self.connection.close()  # the server stops this search at its next write


class FallbackChild:
    """The rules-only fallback search (`aviary.games.fallback`) in a forked process.

    Forked, not a thread: the command process keeps waiting in `select` alone (never
    for the GIL), and the search runs at a lower priority (`FALLBACK_NICENESS`) so
    that it takes spare CPU, not the engine's while numba loads. It prints one JSON
    line per completed depth; the command kills it once the engine has answered.
    """

    def __init__(self, game: Game[Any, Any], state: Any, evaluate: Any,
                 deadline: Deadline) -> None:
        read, write = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        parent = os.getpid()
        pid = os.fork()
        if pid == 0:  # the search; it never returns into the command's code
            try:
                os.close(read)
                _die_with_parent(parent)
                os.nice(FALLBACK_NICENESS)
                for report in Fallback(game, evaluate).think(state, deadline.at):
                    line = {"answer": report.answer, "describe": report.summary,
                            "won": (report.mate_in or 0) > 0}
                    os.write(write, json.dumps(line).encode() + b"\n")
            except BaseException as error:  # noqa: BLE001 - said, never silent
                _say_failed("the fallback search", error)
            finally:
                os._exit(0)
        os.close(write)
        self.pid, self.fd = pid, read

    def read(self) -> bytes:
        return os.read(self.fd, 1 << 16)

    def stop(self) -> None:
        """Kill it without waiting (`close` then reaps it)."""
        if self.pid:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)

    def close(self) -> None:
        """Kill it and reap it, waiting at most REAP_SECONDS: at low priority on a busy
        machine a killed process may wait a while for the CPU it needs to die, and the
        command does not wait for it past its deadline (once the command has exited,
        the system reaps it)."""
        if self.pid:
            self.stop()
            began = time.monotonic()
            while (os.waitpid(self.pid, os.WNOHANG) == (0, 0)
                   and time.monotonic() - began < REAP_SECONDS):
                time.sleep(0.002)
            os.close(self.fd)
            self.pid = 0


REAP_SECONDS = 0.05


FALLBACK_NICENESS = 10

# The engine child's word that the game's search compiled ahead of time is not built for
# these sources: numba compiles or loads it inside the move, which may take the move.
UNCOMPILED = b'{"uncompiled": true}\n'
NOT_WARMED = ("; the engine had no compiled search for this code (`aviary warmup` builds it "
              "where a C compiler is at hand)")


SOURCES = ("engine", "table", "fallback")


def source_of(said: str) -> str:
    """What gave a course command's answer, read from the line it said on stderr (its
    first word, one of `SOURCES`; `none` for any other line: the line goes on with the
    answer's details and notes, and a note may name the engine)."""
    first = said.split(" ", 1)[0]
    return first if first in SOURCES else "none"


class Answers:
    """Prints whole answer lines, each at most once in a row, and remembers what gave
    the last one: the line said on stderr at exit."""

    def __init__(self) -> None:
        self.last: str | None = None
        self.source = "fallback (quick move)"
        self.uncompiled = False  # the engine child said so (`UNCOMPILED`)

    def give(self, text: str, source: str) -> None:
        if text != self.last:
            print(text, flush=True)
            self.last = text
        self.source = source

    def said(self) -> str:
        """The stderr line: what gave the last answer, and, when the fallback did because
        the engine had no compiled search for this code, that `aviary warmup` builds it
        (a course grader's replay shows why every move was the fallback's)."""
        if self.uncompiled and self.source.startswith("fallback"):
            return self.source + NOT_WARMED
        return self.source


class _Lines:
    """Whole lines from a source's chunks."""

    def __init__(self) -> None:
        self.pending = b""

    def feed(self, chunk: bytes) -> list[dict[str, Any]]:
        *lines, self.pending = (self.pending + chunk).split(b"\n")
        return host.json_objects(lines)


def relay(engine: EngineChild | WarmEngine, fallback: FallbackChild | None, name: str,
          game: Game[Any, Any], state: Any, legal: dict[str, Any], deadline: Deadline,
          answers: Answers, history: tuple[str, ...]) -> None:
    """Pass on the engine's and, until the engine's first answer, the fallback's legal
    answers until the deadline; then close both.

    This process only waits in `select`, so it stops on time however busy the
    searches are. A warm server that goes away or refuses the request (other code) is
    replaced by an engine child of our own; an engine child that dies leaves the
    fallback. A forced win found by the fallback, or an engine search that ends by
    itself, ends the command at once. `history`: the game's earlier positions, for an
    engine child started in place of a server; `legal`: the legal answers' texts.
    """
    sources: dict[int, tuple[Any, _Lines]] = {engine.fd: (engine, _Lines())}
    if fallback is not None:
        sources[fallback.fd] = (fallback, _Lines())
    try:
        while sources and (remaining := deadline.remaining()) > 0:
            ready, _, _ = select.select(list(sources), [], [], remaining)
            if not ready:
                break
            for fd in ready:
                if fd not in sources:
                    continue
                source, lines = sources[fd]
                chunk = source.read()
                if chunk and source is fallback:
                    for message in lines.feed(chunk):
                        if message.get("answer") in legal:
                            answers.give(message["answer"], f"fallback ({message['describe']})")
                            if message.get("won"):
                                return  # a forced win: nothing better to wait for
                elif chunk:
                    for message in lines.feed(chunk):
                        if message.get("uncompiled"):
                            answers.uncompiled = True
                        if message.get("done"):
                            return  # the search ended by itself: its last answer is its best
                        if "refused" in message and isinstance(source, WarmEngine):
                            source.refused = True  # it closes the connection: see below
                        if message.get("answer") in legal:
                            answers.give(message["answer"], "engine (depth {depth}, score "
                                         "{score}, nodes {nodes}, history {history})"
                                         .format_map(message))
                            if TRACE:
                                print(f"engine answer at {process_age():.3f} s",
                                      file=sys.stderr, flush=True)
                            if fallback is not None and fallback.fd in sources:
                                del sources[fallback.fd]  # the engine answers from now on
                                fallback.stop()
                else:  # the end: a finished fallback, a dead engine, a refusing server
                    del sources[fd]
                    source.close()
                    if (source is engine and engine.is_warm
                            and deadline.remaining() > START_SEARCH_SECONDS):
                        engine = EngineChild(name, game, state, deadline)
                        engine.start(history)
                        sources[engine.fd] = (engine, _Lines())
    finally:
        if fallback is not None:
            fallback.stop()  # both die side by side, then both are reaped
        engine.close()
        if fallback is not None:
            fallback.close()


def _answer_from_tables(probe_name: str, game: Game[Any, Any], state: Any,
                        answers: Answers) -> bool:
    """Answer from the solved endgame tables when they hold `state` (never building one).

    True when they answered: the exact move, said at exit as `table (win in 7)` (or
    draw, loss). A covered position whose table is not built yet is searched as usual.
    """
    verdict = registry.load(probe_name)(state, "cached")
    if verdict is None or verdict.move is None:
        return False
    answers.give(game.answer(state, verdict.move), f"table ({verdict.describe()})")
    return True


def run(name: str, argv: list[str]) -> int:
    """`aviary NAME ...` for a game whose command is the course runner."""
    if argv in (["-h"], ["--help"]):
        print(f"{usage(name)}\n\nPrints better and better answers; the last line is the move.\n"
              "At exit, one line on stderr says what gave it: engine, table or fallback.")
        return 0
    game, state, seconds = parse_arguments(name, argv)
    ended = game.outcome(state)
    if ended is not None:
        raise NoMoveError(f"the game is over ({ended.reason}); player {game.label(state)} "
                          "has no move to make")
    if game.is_chance(state) or not game.legal_moves(state):
        raise NoMoveError(f"player {game.label(state)} has no legal move")
    deadline = host.deadline_from_start(seconds)  # the course's clock: engine_host

    reach = game.kernels_reach(state)
    search = reach and deadline.remaining() > START_SEARCH_SECONDS
    connection = warm.connect() if reach else None
    start_warm = warm.claim_start() if reach and connection is None else None  # even late
    if search and start_warm is not None:  # no server: start one now, as this move's engine
        connection = warm.start_detached(start_warm, name, game.settings, serve_now=True)
        start_warm = None
    engine: EngineChild | WarmEngine | None = None
    if search:
        engine = (WarmEngine(connection, name, game, state, deadline) if connection is not None
                  else EngineChild(name, game, state, deadline))
    elif connection is not None:
        connection.close()
    server = engine if isinstance(engine, WarmEngine) else None
    answers = Answers()
    legal: dict[str, Any] = {}  # answer text -> move, once the quick answer is out
    recalled = memory.Recall()
    try:
        spec = registry.spec(name)
        quick = registry.load(spec.quick) if spec.quick else None
        first = quick(state) if quick is not None else game.legal_moves(state)[0]
        answers.give(game.answer(state, first), "fallback (quick move)")
        legal = game.answers(state)
        recalled = memory.recall(name, game, state)  # while an engine child loads numba
        if engine is not None:
            engine.start(recalled.history)
        solved = spec.tables is not None and _answer_from_tables(spec.tables, game, state, answers)
        if solved and engine is not None:  # the exact answer is given: no search to wait for
            engine.close()
            engine = None
        if engine is not None:
            fallback = (FallbackChild(game, state, registry.load(spec.evaluation), deadline)
                        if spec.evaluation else None)
            relay(engine, fallback, name, game, state, legal, deadline, answers,
                  recalled.history)
            engine = None
    finally:
        if engine is not None:
            engine.close()
        print(answers.said(), file=sys.stderr, flush=True)
    move = legal.get(answers.last or "")
    if move is not None:
        memory.remember(name, game, state, game.play(state, move), recalled.parent)
    if start_warm is not None:
        warm.start_detached(start_warm, name, game.settings)
    if server is not None and server.refused:
        warm.replace(name, game.settings)  # a server of other code: this code's takes its place
    return 0

