"""`aviary warm start | stop | status`: a warm engine process that course commands reuse.

A course command is a fresh process per move, and a fresh process spends most of a
one-second move loading numba and the compiled search (about 0.5 s of CPU; two to
four times that in wall-clock time on a busy machine). Like `dmypy`, a warm engine
server keeps every registered game's engine loaded and answers course commands over
a Unix socket: the command prints its quick answer, sends the position, and relays
the engines's better answers as they come, within milliseconds of starting.

The server starts itself: a course command that finds none starts one as it exits
(`AVIARY_NO_WARM=1` turns this off; it ends after AUTO_IDLE_MINUTES idle; the
command holds the folder's lock from its start and hands it to the server). `aviary
warm start` starts one by hand (ends after `--idle` minutes); `aviary warm stop` ends
it. A course command that finds no server runs its engine in a child process. The
socket lives in a private directory of the user (`/tmp/aviary-UID/`, or
`AVIARY_WARM_DIR`; mode 0700, ownership checked before use), beside `warm.lock` (one
server per directory) and `warm.log`.

Protocol: one JSON line per connection, {"game", "settings", "state", "history",
"deadline", "code"} (history: the game's earlier positions, oldest first, as
`aviary.course.memory` recalls them; deadline on the system's monotonic clock, which
all processes share; code: `code_digest()`), answered by one JSON line per completed
depth ({"answer", "depth", "score", "nodes", "history"}) and {"done": true} when the search ends
by itself; a request with another code digest gets {"refused": ...} (and a server
whose own files changed on disk stops). {"command": "stop" | "status"} for control. A
client that goes away stops its search (the next write fails and sets its flag).
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import hashlib
import json
import os
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from aviary.errors import ArgumentParser, UsageError

IDLE_MINUTES = 30.0
AUTO_IDLE_MINUTES = 10.0  # a server a course command started stops sooner
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


def _lock(directory: Path) -> int | None:
    """An open file holding the server's lock, or None when another server holds it."""
    descriptor = os.open(directory / "warm.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(descriptor)
        return None
    return descriptor


def claim_start() -> int | None:
    """For a course command that found no server: the folder's lock, held, so that this
    command (and no other) starts one as it exits (`start_detached`); None with
    AVIARY_NO_WARM=1, a bad AVIARY_WARM_DIR, or a server already starting."""
    if os.environ.get("AVIARY_NO_WARM") == "1" or _problem() is not None:
        return None
    try:
        return _lock(private_directory())
    except (OSError, UsageError):
        return None


def start_detached(lock: int) -> None:
    """Start a server in its own session, output to nowhere, and return at once. It
    inherits the held `lock`: from this moment until it stops, no other one starts."""
    with contextlib.suppress(OSError):
        subprocess.Popen(
            [sys.executable, "-m", "aviary", "warm", "start", "--foreground",
             "--idle", f"{AUTO_IDLE_MINUTES:g}", "--started-by", "a course command",
             "--lock-fd", str(lock)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            start_new_session=True, pass_fds=(lock,))
    os.close(lock)


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


def json_objects(lines: Iterable[bytes | str]) -> list[dict[str, Any]]:
    """The lines that are JSON objects, decoded; anything else (a cut or foreign line) is
    skipped. The engine child's and the server's answers and the memory file's lines."""
    objects = []
    for line in lines:
        try:
            found = json.loads(line)
        except (ValueError, RecursionError):  # RecursionError: "[[[[..." nested too deep
            continue
        if isinstance(found, dict):
            objects.append(found)
    return objects


def engine_line(report: Any, history: int) -> bytes:
    """One engine answer as the engine child and the warm server send it: a JSON line
    (`history`: how many earlier positions of the game the search knew)."""
    mate = report.mate_in
    score = (f"win in {mate}" if mate is not None and mate > 0 else
             f"loss in {-mate}" if mate is not None else f"{report.score:+d}")
    return json.dumps({"answer": report.answer, "depth": report.depth, "score": score,
                       "nodes": report.nodes, "history": history}).encode() + b"\n"


DONE = b'{"done": true}\n'  # the engine's search ended by itself (a proven result, max depth)


class Server:
    """Answers search requests, one thread per connection, engines loaded once per game."""

    def __init__(self, idle_minutes: float, started_by: str) -> None:
        self.idle = idle_minutes * 60
        self.idle_minutes = idle_minutes
        self.started_by = started_by
        self.code = code_digest()  # before any engine loads: the code it will run
        self.last_request = time.monotonic()
        self.served = 0
        self.refused = 0
        self.engines: dict[tuple[str, str], Any] = {}
        self.lock = threading.Lock()
        self.running = True
        self.socket_inode: int | None = None

    def engine(self, name: str, settings: dict[str, Any]) -> tuple[Any, Any]:
        """(the game, its main engine), the engine built once per settings by the registry."""
        from aviary.games import registry

        spec = registry.spec(name)
        game = spec.make(**settings)
        engine = spec.engine(spec.main_engine, game)
        with self.lock:
            self.engines[name, json.dumps(game.settings, sort_keys=True)] = engine
        return game, engine

    def preload(self) -> None:
        """Load every registered game's main engine before the first request."""
        from aviary.games import registry

        for spec in registry.board_games():
            self.engine(spec.name, {})[1].warmup()

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
                "served": self.served, "refused": self.refused,
                "engines": sorted(f"{name} {settings}" for name, settings in self.engines)}

    def handle(self, connection: socket.socket) -> None:
        from aviary.search.clock import Deadline, Limit

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
                if message.get("code") != self.code:
                    with self.lock:
                        self.refused += 1
                    connection.sendall(json.dumps(
                        {"refused": f"this server runs code {self.code}"}).encode() + b"\n")
                    if _hash_code() != self.code:  # our code changed on disk: we are stale
                        self.shut()
                    return
                game, engine = self.engine(message["game"], message["settings"])
                state = game.decode(message["state"])
                history = [game.decode(text) for text in message.get("history", [])]
                deadline = Deadline(time.monotonic(), float(message["deadline"]))
                with self.lock:
                    self.served += 1
                if deadline.remaining() <= 0.01:
                    connection.sendall(DONE)
                    return
                import numpy as np

                stop = np.zeros(1, dtype=np.int64)
                for report in engine.think(state, Limit(deadline=deadline), stop=stop,
                                           history=history):
                    try:
                        connection.sendall(engine_line(report, len(history)))
                    except OSError:
                        stop[0] = 1  # the command is gone: stop its search
                        return
                connection.sendall(DONE)
            except (OSError, ValueError, KeyError, TypeError, AttributeError, StopIteration):
                return  # a broken request ends its connection, never the server

    def serve(self, listener: socket.socket) -> None:
        listener.settimeout(0.5)
        while self.running:
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                if time.monotonic() - self.last_request > self.idle:
                    break
                continue
            if not self.running:
                connection.close()
                break
            self.last_request = time.monotonic()
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
           lock: int | None = None) -> int:
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
    held = _lock(directory) if lock is None else lock
    if held is None:
        print("a warm engine server is already running or starting", file=sys.stderr)
        return _exit(0, foreground)
    try:
        server = Server(idle_minutes, started_by)
        if preload:
            server.preload()
        with contextlib.suppress(FileNotFoundError):
            path.unlink()  # a socket left by a killed server: the lock says none runs
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(str(path))
        os.chmod(path, 0o600)
        server.socket_inode = path.stat().st_ino
        listener.listen(16)
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


def _exit(code: int, foreground: bool) -> int:
    if not foreground:
        os._exit(code)
    return code


def _wait_for(child: int, directory: Path) -> int:
    """Wait until the forked server listens (0) or dies; then say why from its log."""
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        if connect() is not None:
            print(f"warm engine server listening on {socket_path()}")
            return 0
        done, _ = os.waitpid(child, os.WNOHANG)
        if done:
            if connect() is not None:
                print("a warm engine server is already running", file=sys.stderr)
                return 0
            raise UsageError(f"the warm engine server did not start: {_last_log(directory)}")
        time.sleep(0.1)
    raise UsageError("the warm engine server did not start within 300 s "
                     f"(see {directory / 'warm.log'})")


def _last_log(directory: Path) -> str:
    try:
        lines = (directory / "warm.log").read_text().splitlines()
    except OSError:
        return "no log"
    return lines[-1].split(": ", 1)[-1] if lines else "no log"


def main(argv: list[str]) -> int:
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
    commands.add_parser("stop", help="stop the running server")
    commands.add_parser("status", help="is a server running, and what has it served")
    args = parser.parse_args(argv)
    if args.command == "start":
        if not 0 < args.idle <= 7 * 24 * 60:
            raise UsageError(f"--idle must be a number of minutes above 0 and at most a week "
                             f"({7 * 24 * 60}), got {args.idle}")
        return _start(args.idle, args.foreground, not args.lazy, args.started_by, args.lock_fd)
    problem = _problem()
    if problem is not None:
        raise UsageError(problem)
    reply = request({"command": args.command})
    if reply is None:
        print("no warm engine server is running")
        return 1 if args.command == "status" else 0
    print("\n".join(reply))
    return 0
