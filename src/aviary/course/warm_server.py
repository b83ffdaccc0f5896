"""`aviary warm start | stop | status`: a warm engine process that course commands reuse.

A course command is a fresh process per move, and a fresh process spends most of a
one-second move loading numba and the compiled search (about 0.5 s of CPU; two to
four times that in wall-clock time on a busy machine). Like `dmypy`, a warm engine
server keeps every registered game's engine loaded and answers course commands over
a Unix socket: the command prints its quick answer, sends the position, and relays
the engines's better answers as they come, within milliseconds of starting. Where
`aviary warmup` compiled a game's search ahead of time, the server loads that
(`engine_host.load`): no numba, so one a course command just started answers sooner.

The server starts itself: a course command that finds none starts one for its game
first thing, handing it a connected socket that carries its own request
(`start_detached`; `AVIARY_NO_WARM=1` turns this off; it ends after AUTO_IDLE_MINUTES
without a search). Such a server listens at once and loads the engine of its game
first, the others' when asked. `aviary warm start` starts one by hand, loading every
engine before it listens (ends after `--idle` minutes); `aviary warm stop` ends it,
while it starts too (by the pid in `warm.lock`). A server of other code is replaced
by the command it refuses (`replace`). With AVIARY_NO_WARM=1 a course command that
finds no server runs its engine in a child process. The
socket lives in a private directory of the user (`/tmp/aviary-UID/`, or
`AVIARY_WARM_DIR`; mode 0700, ownership checked before use), beside `warm.lock` (one
server per directory) and `warm.log`.

Protocol: one JSON line per connection, the engine host's request
(`aviary.course.engine_host`: {"game", "settings", "state", "history", "time",
"code"}; time: the move's deadline as the seconds remaining and spent and when they were
measured, `Deadline.to_wire`, capped at MAX_SECONDS; code: `code_digest()`), served
by the engine host as an engine child's is: one JSON line per completed depth
({"answer", "depth", "score", "nodes", "history"}) and {"done": true} when the search
ends by itself. The protocol is versioned by the code digest: a request with another
one (an older client, another install) gets {"refused": ...} (and a server whose own
files changed on disk stops). {"command": "stop" | "status"} for control. A client
that goes away stops its search within WATCH_SECONDS (`_watch`).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import select
import signal
import socket
import stat
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from aviary.course import engine_host as host
from aviary.errors import UsageError

IDLE_MINUTES = 30.0
AUTO_IDLE_MINUTES = 10.0  # a server a course command started stops sooner
REPLACE_WAIT_SECONDS = 30.0  # a replacing server waits this long for the old one to let go
START_WAIT_SECONDS = 300.0  # `aviary warm start` waits this long for its server to listen
SOCKET_PATH_BYTES = 107  # the longest Unix socket path Linux takes (108 with the final NUL)
_digest: str | None = None


def socket_path() -> Path:
    """The server's socket: in `AVIARY_WARM_DIR` if set, else `/tmp/aviary-UID/`."""
    directory = os.environ.get("AVIARY_WARM_DIR") or f"/tmp/aviary-{os.getuid()}"
    return Path(directory) / "warm.sock"


def _problem() -> str | None:
    """What is wrong with the socket's place, in one line, or None (nothing is created)."""
    path = socket_path()
    directory = path.parent
    size = len(os.fsencode(path))
    if size > SOCKET_PATH_BYTES:
        return (f"AVIARY_WARM_DIR is too long: the socket path {path} has {size} bytes, "
                f"a Unix socket path at most {SOCKET_PATH_BYTES}")
    if directory.exists() and not directory.is_dir():
        return f"AVIARY_WARM_DIR {directory} is not a directory"
    if not directory.exists() and not directory.parent.is_dir():
        return f"AVIARY_WARM_DIR {directory}: its folder {directory.parent} does not exist"
    if directory.exists():
        info = directory.stat()
        if info.st_uid != os.getuid() or stat.S_IMODE(info.st_mode) & 0o077:
            return f"{directory} is not a private directory of this user; remove it"
    if path.is_symlink() or (path.exists() and not stat.S_ISSOCK(path.stat().st_mode)):
        return f"{path} is not a socket; remove it"
    return None


def private_directory() -> Path:
    """This user's private aviary folder (made if missing, mode 0700; the warm server's
    socket and the course command's memory live there), else UsageError saying why not."""
    problem = _problem()
    if problem is not None:
        raise UsageError(problem)
    directory = socket_path().parent
    try:
        directory.mkdir(mode=0o700, exist_ok=True)
    except OSError as error:
        raise UsageError(f"AVIARY_WARM_DIR {directory}: {error.strerror}") from None
    problem = _problem()  # created by someone else meanwhile?
    if problem is not None:
        raise UsageError(problem)
    return directory


def code_digest() -> str:
    """What code this process runs: a hash of aviary's source files and the interpreter.

    A warm server answers only commands with its own digest, so that an engine from
    another install, or from before an upgrade or an edit, never plays.
    """
    global _digest
    if _digest is None:
        _digest = _hash_code()
    return _digest


def _hash_code() -> str:
    package = Path(__file__).resolve().parents[1]  # aviary/, this file being aviary/course/
    digest = hashlib.sha256(f"{sys.version}\0{sys.prefix}\0".encode())
    for path in sorted(package.rglob("*.py")):
        digest.update(str(path.relative_to(package)).encode() + b"\0")
        with contextlib.suppress(OSError):
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def _lock(directory: Path, wait: float = 0.0) -> int | None:
    """An open file holding the server's lock, or None when another server holds it
    (after waiting up to `wait` seconds for it to let go). The file is emptied: it
    holds the pid of the server that runs (`_own`), never a course command's."""
    descriptor = os.open(directory / "warm.lock", os.O_RDWR | os.O_CREAT, 0o600)
    began = time.monotonic()
    while True:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except OSError:
            if time.monotonic() - began >= wait:
                os.close(descriptor)
                return None
            time.sleep(0.05)
    os.ftruncate(descriptor, 0)
    return descriptor


def _own(lock: int, state: str) -> None:
    """Write this server's pid and state (`starting`, `listening`) into its held lock file:
    `aviary warm stop` stops a server that is starting by its pid."""
    os.ftruncate(lock, 0)
    os.pwrite(lock, f"{os.getpid()} {state}".encode(), 0)


def _starting_pid(directory: Path) -> int | None:
    """The pid of a server that holds the lock but does not listen yet (it loads its
    engines), or None (no server starting, or a course command holding the lock for a
    moment before it starts one)."""
    path = directory / "warm.lock"
    if not path.exists():
        return None
    held = _lock(directory)
    if held is not None:  # nobody holds it: nothing is starting
        os.close(held)
        return None
    try:
        pid, state = (path.read_text().split() + ["", ""])[:2]
        if state != "starting":
            return None  # a course command's claim, or a server that is stopping
        with open(f"/proc/{int(pid)}/cmdline", "rb") as cmdline:
            words = cmdline.read().split(b"\0")
    except (OSError, ValueError):
        return None
    return int(pid) if b"warm" in words and b"start" in words else None


def claim_start() -> int | None:
    """For a course command that found no server: the folder's lock, held, so that this
    command (and no other) starts one (`start_detached`); None with
    AVIARY_NO_WARM=1, a bad AVIARY_WARM_DIR, or a server already starting."""
    if os.environ.get("AVIARY_NO_WARM") == "1" or _problem() is not None:
        return None
    try:
        return _lock(private_directory())
    except (OSError, UsageError):
        return None


def start_detached(lock: int | None, game: str, settings: dict[str, Any],
                   serve_now: bool = False) -> socket.socket | None:
    """Start a server for `game` in its own session, output to nowhere, and return at once.

    It loads `game`'s engine (with these settings) first and the others' when asked.
    It inherits the held `lock`: from this moment until it stops, no other one starts
    (None: it waits for the lock itself, as when it replaces a server that is stopping).
    `serve_now`: the command's own engine is this server: the returned socket is
    already connected to it (a request sent on it is served as soon as the engine has
    loaded, which costs what an engine child's start costs); None if it did not start.
    """
    ours, theirs = socket.socketpair() if serve_now else (None, None)
    command = [sys.executable, "-m", "aviary", "warm", "start", "--foreground",
               "--idle", f"{AUTO_IDLE_MINUTES:g}", "--started-by", "a course command",
               "--game", game, "--settings", json.dumps(settings)]
    passed = []
    if lock is not None:
        command += ["--lock-fd", str(lock)]
        passed.append(lock)
    else:
        command += ["--wait-lock", f"{REPLACE_WAIT_SECONDS:g}"]
    if theirs is not None:
        command += ["--connection-fd", str(theirs.fileno())]
        passed.append(theirs.fileno())
    import subprocess  # here: only the command that starts a server needs it

    try:
        subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True,
                         pass_fds=tuple(passed))
    except OSError:
        if ours is not None:
            ours.close()
        ours = None
    finally:
        if lock is not None:
            os.close(lock)
        if theirs is not None:
            theirs.close()
    return ours


def replace(game: str, settings: dict[str, Any]) -> None:
    """Stop the server that refused a course command (it runs other code: another install,
    or code from before an edit) and start one of this code for `game` in its place; it
    takes over the folder's lock once the old one has let go. Not with AVIARY_NO_WARM=1."""
    if os.environ.get("AVIARY_NO_WARM") == "1" or _problem() is not None:
        return
    request({"command": "stop"})
    start_detached(None, game, settings)


def connect(timeout: float = 0.05) -> socket.socket | None:
    """A connection to this user's warm server, or None when none is running."""
    path = socket_path()
    try:
        if len(os.fsencode(path)) > SOCKET_PATH_BYTES:
            return None
        info = path.parent.stat()
        if info.st_uid != os.getuid() or stat.S_IMODE(info.st_mode) & 0o077:
            return None  # not ours: never talk to it
        client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        client.settimeout(timeout)
        try:
            client.connect(str(path))
        except OSError:
            client.close()
            raise
        client.settimeout(None)
        return client
    except OSError:
        return None


def request(message: dict[str, Any], timeout: float = 5.0) -> list[str] | None:
    """Send one control message; the server's reply lines, or None when no server runs."""
    client = connect()
    if client is None:
        return None
    with client:
        try:
            client.settimeout(timeout)
            client.sendall((json.dumps(message) + "\n").encode())
            return list(_lines(client))
        except OSError:
            return None  # a server that is going away


def _lines(connection: socket.socket) -> Iterator[str]:
    pending = b""
    while True:
        chunk = connection.recv(1 << 16)
        if not chunk:
            break
        *lines, pending = (pending + chunk).split(b"\n")
        yield from (line.decode(errors="replace") for line in lines)


WATCH_SECONDS = 0.1  # how often a search checks that its command is still there


def _watch(connection: socket.socket, stop: Any, searched: threading.Event,
           gone_event: threading.Event | None = None) -> None:
    """Set `stop[0]` (and `gone_event`) once the command at the other end of `connection`
    has gone (it sends nothing after its request, so the socket turns readable only at
    its end)."""
    poller = select.poll()
    poller.register(connection, select.POLLIN | select.POLLHUP | select.POLLERR)
    while not searched.is_set():
        if poller.poll(WATCH_SECONDS * 1000):
            try:
                gone = connection.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b""
            except BlockingIOError:
                continue
            except OSError:
                gone = True
            if gone:
                stop[0] = 1
                if gone_event is not None:
                    gone_event.set()
                return
            searched.wait(WATCH_SECONDS)  # bytes after the request: not an end


class Server:
    """Answers search requests, one thread per connection, engines loaded once per game."""

    def __init__(self, idle_minutes: float, started_by: str) -> None:
        self.idle = idle_minutes * 60
        self.idle_minutes = idle_minutes
        self.started_by = started_by
        self.code = code_digest()  # before any engine loads: the code it will run
        self.last_request = time.monotonic()  # of the last request served (not refused)
        self.searching = 0  # searches running now: the server does not stop idle under them
        self.served = 0
        self.refused = 0
        self.engines: dict[tuple[str, str], Any] = {}
        self.lock = threading.Lock()
        self.running = True
        self.socket_inode: int | None = None

    def engine(self, name: str, settings: dict[str, Any]) -> tuple[Any, Any]:
        """(the game, its main engine), the engine built once per settings by the registry."""
        game, engine = host.load(name, settings)
        with self.lock:
            self.engines[name, json.dumps(game.settings, sort_keys=True)] = engine
        return game, engine

    def preload(self) -> None:
        """Load every registered game's main engine before the first request."""
        from aviary.games import registry

        for spec in registry.board_games():
            self.engine(spec.name, {})[1].warmup()

    def load(self, name: str, settings: dict[str, Any]) -> None:
        """Load one game's engine now (the game a course command started the server for),
        in a thread of its own while the server already listens; a request for that game
        meanwhile waits for it, one for another game loads its own."""
        from aviary.search.clock import process_age

        try:
            self.engine(name, settings)[1].warmup()
            _log(socket_path().parent, f"loaded {name} {json.dumps(settings)} "
                                       f"{process_age():.2f} s after its start")
        except Exception as error:  # noqa: BLE001 - a request for the game will say it too
            _log(socket_path().parent, f"could not load {name}: {type(error).__name__}: {error}")

    def shut(self) -> None:
        """Stop taking connections at once: the socket goes (only if it is still ours)."""
        self.running = False
        path = socket_path()
        with contextlib.suppress(OSError):
            if self.socket_inode is not None and path.stat().st_ino == self.socket_inode:
                path.unlink()

    def status(self) -> dict[str, Any]:
        return {"pid": os.getpid(), "started_by": self.started_by,
                "idle_minutes": self.idle_minutes, "code": self.code,
                "served": self.served, "refused": self.refused, "searching": self.searching,
                "engines": sorted(f"{name} {settings}" for name, settings in self.engines)}

    def handle(self, connection: socket.socket) -> None:
        with connection:
            try:
                line = next(_lines(connection), "")
                message = json.loads(line)
                if message.get("command") == "stop":
                    self.shut()
                    connection.sendall(b"stopping\n")
                    return
                if message.get("command") == "status":
                    connection.sendall(json.dumps(self.status()).encode() + b"\n")
                    return
                if message.get("code") != self.code:  # not counted as activity: idle on
                    with self.lock:
                        self.refused += 1
                    connection.sendall(json.dumps(
                        {"refused": f"this server runs code {self.code}"}).encode() + b"\n")
                    if _hash_code() != self.code:  # our code changed on disk: we are stale
                        self.shut()
                    return
                request = host.read_request(message)  # its time capped at MAX_SECONDS
                with self.lock:
                    self.served += 1
                    self.searching += 1
                    self.last_request = time.monotonic()
                try:
                    self.search(connection, request)
                finally:
                    with self.lock:
                        self.searching -= 1
                        self.last_request = time.monotonic()
            except (OSError, ValueError, KeyError, TypeError, AttributeError, IndexError,
                    StopIteration):
                return  # a broken request ends its connection, never the server

    def search(self, connection: socket.socket, request: host.Request) -> None:
        """Serve `request` (`engine_host.serve`) until its deadline, or until the command
        goes away (`_watch`: noticed within WATCH_SECONDS, not at the next depth)."""
        import numpy as np

        stop = np.zeros(1, dtype=np.int64)  # set by `_watch` (the deadline has its own flag)
        searched, gone = threading.Event(), threading.Event()
        threading.Thread(target=_watch, args=(connection, stop, searched, gone),
                         daemon=True).start()
        try:
            host.serve(request, self.engine, connection.sendall, stop, gone.is_set)
        except OSError:
            stop[0] = 1  # the command is gone: stop its search
        finally:
            searched.set()

    def serve(self, listener: socket.socket) -> None:
        listener.settimeout(0.5)
        while self.running:
            with self.lock:  # idle: no search served for `idle` seconds (refusals do not count)
                if not self.searching and time.monotonic() - self.last_request > self.idle:
                    break
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                continue
            if not self.running:
                connection.close()
                break
            threading.Thread(target=self.handle, args=(connection,), daemon=True).start()


def _log(directory: Path, text: str) -> None:
    """A line in the server's log (`warm.log` beside the socket): why it stopped or failed."""
    line = f"{time.strftime('%Y-%m-%d %H:%M:%S')} pid {os.getpid()}: {text}\n"
    with contextlib.suppress(OSError):
        descriptor = os.open(directory / "warm.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND,
                             0o600)
        try:
            os.write(descriptor, line.encode())
        finally:
            os.close(descriptor)


def _start(idle_minutes: float, foreground: bool, preload: bool, started_by: str,
           lock: int | None = None, game: tuple[str, dict[str, Any]] | None = None,
           connection: socket.socket | None = None, wait_lock: float = 0.0) -> int:
    """Start a server: `preload` every game's engine before it listens, else listen at
    once and load `game`'s first (in the background), the others' when asked.
    `connection`: a course command's, whose request it serves first (`start_detached`)."""
    directory = private_directory()
    if connect() is not None:
        print("a warm engine server is already running", file=sys.stderr)
        return 0
    path = socket_path()
    if not foreground:
        child = os.fork()
        if child > 0:  # the caller returns once the server listens, or says why not
            return _wait_for(child, directory)
        os.setsid()
        devnull = os.open(os.devnull, os.O_RDWR)
        for stream in (0, 1, 2):
            os.dup2(devnull, stream)
    held = _lock(directory, wait_lock) if lock is None else lock
    if held is None:
        print("a warm engine server is already running or starting", file=sys.stderr)
        return _exit(0, foreground)
    _own(held, "starting")  # `aviary warm stop` finds it by this pid while it starts
    host.as_engine_process()
    try:
        server = Server(idle_minutes, started_by)
        if connection is not None:
            threading.Thread(target=server.handle, args=(connection,), daemon=True).start()
        if game is not None:
            threading.Thread(target=server.load, args=game, daemon=True).start()
        if preload:
            server.preload()
        listener = _listen(path)
        server.socket_inode = path.stat().st_ino
        _own(held, "listening")
    except Exception as error:
        _log(directory, f"did not start: {type(error).__name__}: {error}")
        raise
    _log(directory, f"listening on {path} ({started_by}, code {server.code})")
    signal.signal(signal.SIGTERM, lambda *_: server.shut())  # `kill`: a clean stop too
    try:
        server.serve(listener)
    finally:
        listener.close()
        server.shut()
        _log(directory, f"stopped after serving {server.served} requests")
        os.close(held)
    return _exit(0, foreground)


def _listen(path: Path) -> socket.socket:
    """The server's listening socket at `path` (mode 0600), else UsageError saying why."""
    problem = _problem()  # made meanwhile: a directory or file where the socket goes
    if problem is not None:
        raise UsageError(problem)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()  # a socket left by a killed server: the lock says none runs
        listener.bind(str(path))
        os.chmod(path, 0o600)
        listener.listen(16)
    except OSError as error:
        listener.close()
        raise UsageError(f"cannot listen on {path}: {error.strerror or error}") from None
    return listener


def _exit(code: int, foreground: bool) -> int:
    if not foreground:
        os._exit(code)
    return code


def _wait_for(child: int, directory: Path) -> int:
    """Wait until the forked server listens (0) or dies; then say why from its log."""
    began = time.monotonic()
    while time.monotonic() - began < START_WAIT_SECONDS:
        if connect() is not None:
            print(f"warm engine server listening on {socket_path()}")
            return 0
        done, how = os.waitpid(child, os.WNOHANG)
        if done:
            if connect() is not None:
                print("a warm engine server is already running", file=sys.stderr)
                return 0
            if os.WIFSIGNALED(how):
                raise UsageError("the warm engine server was stopped while it started "
                                 f"(signal {os.WTERMSIG(how)})")
            raise UsageError(f"the warm engine server did not start: {_last_log(directory)}")
        time.sleep(0.1)
    raise UsageError(f"the warm engine server did not start within {START_WAIT_SECONDS:g} s "
                     f"(see {directory / 'warm.log'})")


def _last_log(directory: Path) -> str:
    try:
        lines = (directory / "warm.log").read_text().splitlines()
    except OSError:
        return "no log"
    return lines[-1].split(": ", 1)[-1] if lines else "no log"


def main(argv: list[str]) -> int:
    import argparse

    from aviary.errors import ArgumentParser

    parser = ArgumentParser(prog="aviary warm", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True, parser_class=ArgumentParser)
    start = commands.add_parser("start", help="start the server in the background")
    start.add_argument("--idle", type=float, default=IDLE_MINUTES,
                       help=f"exit after this many idle minutes (default {IDLE_MINUTES:g})")
    start.add_argument("--foreground", action="store_true", help="do not detach")
    start.add_argument("--lazy", action="store_true",
                       help="load each game's engine on its first request, not before listening")
    start.add_argument("--started-by", default="aviary warm start", help=argparse.SUPPRESS)
    start.add_argument("--lock-fd", type=int, default=None, help=argparse.SUPPRESS)
    start.add_argument("--game", default=None, help=argparse.SUPPRESS)
    start.add_argument("--settings", default="{}", help=argparse.SUPPRESS)
    start.add_argument("--connection-fd", type=int, default=None, help=argparse.SUPPRESS)
    start.add_argument("--wait-lock", type=float, default=0.0, help=argparse.SUPPRESS)
    commands.add_parser("stop", help="stop the running server")
    commands.add_parser("status", help="is a server running, and what has it served")
    args = parser.parse_args(argv)
    if args.command == "start":
        if not 0 < args.idle <= 7 * 24 * 60:
            raise UsageError(f"--idle must be a number of minutes above 0 and at most a week "
                             f"({7 * 24 * 60}), got {args.idle}")
        game = None if args.game is None else (args.game, json.loads(args.settings))
        connection = (None if args.connection_fd is None
                      else socket.socket(fileno=args.connection_fd))
        return _start(args.idle, args.foreground, not args.lazy and game is None,
                      args.started_by, args.lock_fd, game, connection, args.wait_lock)
    problem = _problem()
    if problem is not None:
        raise UsageError(problem)
    reply = request({"command": args.command})
    if reply is None:
        starting = _starting_pid(socket_path().parent)
        if starting is not None and args.command == "stop":
            with contextlib.suppress(ProcessLookupError):
                os.kill(starting, signal.SIGTERM)  # it loads its engines: it dies at once
            print(f"stopping the warm engine server that was starting (pid {starting})")
            return 0
        if starting is not None:
            print(f"a warm engine server is starting (pid {starting})")
            return 1
        print("no warm engine server is running")
        return 1 if args.command == "status" else 0
    print("\n".join(reply))
    return 0
