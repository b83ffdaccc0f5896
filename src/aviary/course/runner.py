"""The course command line, once for every game: `aviary GAME [course arguments] SECONDS`.

Contract (the course grader kills the program at SECONDS and takes the last line):
every printed line is a complete, flushed answer (for board games, the board after
the move); the first comes from the game's rules-only quick player in milliseconds,
before numba has even loaded; then the engine prints a better answer after each
deeper search and this process passes on each legal one. Until the engine's first
answer, the rules-only fallback search (`aviary.games.fallback`, in a forked process)
answers instead. It exits `exit_margin(SECONDS)` (`aviary.search.clock`) before SECONDS
have passed since the *process* started, interpreter start-up included (`course_deadline`:
also when a shell's exec dates the process too early), with one line on stderr saying
what gave the last answer: `engine (depth D, score S, nodes N, history H)` (H: the
game's earlier positions its search knew, see below), `table (win in 7)` or
`fallback (depth D, ...)`. Bad input: one line, exit 2; a
finished game or a player with no legal move: one line, exit 1. The engine searches
with the game's earlier positions (repetitions are draws) that `aviary.course.memory`
recalls from this user's earlier commands in the same game.

A game takes part by its registry entry: its `Game.parse_course` reads the
arguments, its `quick` player gives the first answer, its `evaluation` guides the
fallback, its main engine thinks: in a warm engine server if one runs (see
`aviary.course.warm_server`), else in one the command starts first thing, its own
request the server's first (its cost is loading numba: about 0.5 s of CPU); with
AVIARY_NO_WARM=1, in a child process started first thing. A server running other code
refuses the request: an engine child answers, and the command replaces that server as
it exits."""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import socket
import sys
import time
from typing import Any

from aviary.course import memory
from aviary.course import warm_server as warm
from aviary.errors import NoMoveError, UsageError
from aviary.games import registry
from aviary.games.base import Game, OptionError
from aviary.games.fallback import Fallback
from aviary.search.clock import SEARCH_SECONDS, START_SEARCH_SECONDS, Deadline, process_age

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


def _trace(what: str) -> None:
    """With AVIARY_COURSE_TRACE=1, when the engine child got this far (its own age)."""
    if TRACE:
        print(f"engine child: {what} at {process_age():.3f} s (CPU {time.process_time():.3f} s)",
              file=sys.stderr, flush=True)


def _think(name: str, game: Game[Any, Any], state: Any, at: float, history_fd: int,
           answers_fd: int) -> None:
    """The engine child's work: each deeper search's answer, a JSON line on `answers_fd`,
    until the deadline `at`; the game's earlier positions come on `history_fd`, one JSON
    list, while numba loads (the command writes them once it has recalled them)."""
    _trace("forked")
    warm.without_scipy()
    from aviary.search.clock import Limit

    spec = registry.spec(name)
    if TRACE:
        import numba  # noqa: F401 - timed apart from the game's kernels

        _trace("numba imported")
    engine = spec.engine(spec.main_engine, game)  # slow: numba's compiler, the cached kernels
    _trace("engine built (its kernel modules imported)")
    with os.fdopen(history_fd, "rb") as pipe:
        history = [game.decode(text) for text in json.loads(pipe.readline() or b"[]")]
    deadline = Deadline.until(at)
    if deadline.remaining() > SEARCH_SECONDS:  # every depth is sent: it deepens to the deadline
        # (tables: cached only)
        for report in engine.think(state, Limit(deadline=deadline), history=history):
            if report.depth <= 1:
                _trace(f"depth {report.depth} searched (the kernels' cached code loaded)")
            os.write(answers_fd, warm.engine_line(report, len(history)))
    os.write(answers_fd, warm.DONE)


class EngineChild:
    """The engine in a forked child process, started as early as possible: loading numba is
    its cost (about 0.5 s of CPU).

    A child process, not a thread: loading numba's cached code holds the GIL for long
    stretches, which could make a thread-based watchdog wake up late. Forked, not a new
    interpreter: it starts with the command's modules already imported (numba is not).
    """

    is_warm = False

    def __init__(self, name: str, game: Game[Any, Any], state: Any, deadline: float) -> None:
        history_read, history_write = os.pipe()
        answers_read, answers_write = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the engine; it never returns into the command's code
            try:
                os.close(history_write)
                os.close(answers_read)
                _die_with_parent()
                _think(name, game, state, deadline, history_read, answers_write)
            except BaseException as error:  # noqa: BLE001 - said, never silent
                _say_failed("the engine", error)
            finally:
                os._exit(0)
        os.close(history_read)
        os.close(answers_write)
        self.pid, self.fd, self.history_fd = pid, answers_read, history_write
        if TRACE:
            print(f"engine child started at {process_age():.3f} s (command's CPU "
                  f"{time.process_time():.3f} s)", file=sys.stderr, flush=True)

    def start(self, history: tuple[str, ...]) -> None:
        """Hand it the game's earlier positions (it reads them once numba has loaded)."""
        with contextlib.suppress(OSError):  # a child already gone: its first read says so
            os.write(self.history_fd, memory.history_for_pipe(history))
        self._close_history()

    def _close_history(self) -> None:
        if self.history_fd >= 0:
            with contextlib.suppress(OSError):
                os.close(self.history_fd)
            self.history_fd = -1

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
            self._close_history()
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
                 deadline: float) -> None:
        self.refused = False  # the server runs other code (`relay` sets it)
        self.connection = connection
        self.fd = connection.fileno()
        self.message = {"game": name, "settings": game.settings, "state": game.encode(state),
                        "deadline": deadline, "code": warm.code_digest()}

    def start(self, history: tuple[str, ...]) -> None:
        """Send the request, with the game's earlier positions."""
        message = {**self.message, "history": list(history)}
        with contextlib.suppress(OSError):  # a server going away: the first read says so
            self.connection.sendall((json.dumps(message) + "\n").encode())

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
                 deadline: float) -> None:
        read, write = os.pipe()
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:  # the search; it never returns into the command's code
            try:
                os.close(read)
                _die_with_parent()
                os.nice(FALLBACK_NICENESS)
                for report in Fallback(game, evaluate).think(state, deadline):
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
            given_up = time.monotonic() + REAP_SECONDS
            while os.waitpid(self.pid, os.WNOHANG) == (0, 0) and time.monotonic() < given_up:
                time.sleep(0.002)
            os.close(self.fd)
            self.pid = 0


REAP_SECONDS = 0.05


FALLBACK_NICENESS = 10


class Answers:
    """Prints whole answer lines, each at most once in a row, and remembers what gave
    the last one: the line said on stderr at exit."""

    def __init__(self) -> None:
        self.last: str | None = None
        self.source = "fallback (quick move)"

    def give(self, text: str, source: str) -> None:
        if text != self.last:
            print(text, flush=True)
            self.last = text
        self.source = source


class _Lines:
    """Whole lines from a source's chunks."""

    def __init__(self) -> None:
        self.pending = b""

    def feed(self, chunk: bytes) -> list[dict[str, Any]]:
        *lines, self.pending = (self.pending + chunk).split(b"\n")
        return warm.json_objects(lines)


def relay(engine: EngineChild | WarmEngine, fallback: FallbackChild | None, name: str,
          game: Game[Any, Any], state: Any, legal: dict[str, Any], deadline: float,
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
        while sources and (remaining := deadline - time.monotonic()) > 0:
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
                            and deadline - time.monotonic() > START_SEARCH_SECONDS):
                        engine = EngineChild(name, game, state, deadline)
                        engine.start(history)
                        sources[engine.fd] = (engine, _Lines())
    finally:
        if fallback is not None:
            fallback.stop()  # both die side by side, then both are reaped
        engine.close()
        if fallback is not None:
            fallback.close()


def _busy_seconds() -> float:
    """CPU time this process has used plus its waits for a core, in seconds: time it spent
    wanting to run, not asleep (`/proc/self/schedstat`; elsewhere its CPU time alone)."""
    try:
        with open("/proc/self/schedstat") as stat:
            ran, waited = stat.read().split()[:2]
        return (int(ran) + int(waited)) / 1e9
    except (OSError, ValueError):
        times = os.times()
        return times.user + times.system


def _ran_programs_before() -> bool:
    """Whether this process, before it became this command, waited for programs of its own:
    a shell running `a && b && aviary ...` (`bash -c`) waits for `a` and `b` in the process
    it then turns into the command. Linux keeps the page faults of waited-for children
    (`cminflt`, /proc/self/stat) across the exec; a program a grader starts has none
    (builtins such as `cd` or `true` start no program)."""
    try:
        with open("/proc/self/stat") as stat:
            return int(stat.read().rsplit(")", 1)[1].split()[8]) > 0
    except (OSError, ValueError, IndexError):
        return False


def course_deadline(seconds: float) -> Deadline:
    """This command's deadline: SECONDS from its process's start (`Deadline.for_course`),
    or from the start of its program when its process ran other programs first.

    Linux dates a process from its fork, and bash running `a && b && aviary ...` as
    `bash -c` (ssh's remote command; `sh -c` where sh is bash) runs the last command in
    its own process: the command then dates from before `a` and `b`. The README's first
    command, run that way, found its 5 s gone and answered with the quick move alone when
    `a && b` took 5 s or more; and when they took 4.4 to 5 s (`aviary warmup` with its
    caches built, on a busy machine) it still did, with no time left to search. So the
    command counts from its exec when its start lies SECONDS or more back (a grader whose
    clock started at the fork would have taken the last line by then), or when the process
    waited for programs before the exec (`_ran_programs_before`: then it was a shell's,
    not a program a grader started). Linux does not record the exec's time: the command
    counts its CPU time and its waits for a core instead. The shell's share of those is a
    few milliseconds (it slept, waiting for its commands); what they miss is the
    command's own sleeps in start-up (files read from a cold disk).
    """
    deadline = Deadline.for_course(seconds)
    gone = time.monotonic() - deadline.started
    if gone < seconds and not _ran_programs_before():
        return deadline
    slept = gone - _busy_seconds()  # the shell's wait for the commands before this one
    return Deadline(deadline.started + slept, deadline.at + slept) if slept > 0 else deadline


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
    deadline = course_deadline(seconds).at  # the monotonic clock every process shares

    reach = game.kernels_reach(state)
    search = reach and deadline - time.monotonic() > START_SEARCH_SECONDS
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
        print(answers.source, file=sys.stderr, flush=True)
    move = legal.get(answers.last or "")
    if move is not None:
        memory.remember(name, game, state, game.play(state, move), recalled.parent)
    if start_warm is not None:
        warm.start_detached(start_warm, name, game.settings)
    if server is not None and server.refused:
        warm.replace(name, game.settings)  # a server of other code: this code's takes its place
    return 0

