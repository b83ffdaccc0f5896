"""`aviary warm start | stop | status`: a warm engine process that course commands reuse.

A course command is a fresh process per move, and a fresh process spends most of a
one-second move loading numba and the compiled search (about 0.5 s of CPU; two to
four times that in wall-clock time on a busy machine). Like `dmypy`, a warm engine
server keeps every registered game's engine loaded and answers course commands over
a Unix socket: the command prints its quick answer, sends the position, and relays
the engines's better answers as they come, within milliseconds of starting.

The server is started explicitly (`aviary warm start`) and ends after `--idle`
minutes without a request, or on `aviary warm stop`. A course command that finds no
server runs its engine in a child process as before. The socket lives in a private
directory of the user (`/tmp/aviary-UID/`, or `AVIARY_WARM_DIR`; mode 0700, ownership
checked before use).

Protocol: one JSON line per connection, {"game", "settings", "state", "deadline"}
(deadline on the system's monotonic clock, which all processes share), answered by
one answer line per completed depth; {"command": "stop" | "status"} for control.
A client that goes away stops its search (the next write fails and sets its flag).
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import stat
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from aviary.errors import ArgumentParser, UsageError

IDLE_MINUTES = 30.0


def socket_path() -> Path:
    """The server's socket: in `AVIARY_WARM_DIR` if set, else `/tmp/aviary-UID/`."""
    directory = os.environ.get("AVIARY_WARM_DIR") or f"/tmp/aviary-{os.getuid()}"
    return Path(directory) / "warm.sock"


def _private_directory() -> Path:
    directory = socket_path().parent
    directory.mkdir(mode=0o700, exist_ok=True)
    info = directory.stat()
    if info.st_uid != os.getuid() or stat.S_IMODE(info.st_mode) & 0o077:
        raise UsageError(f"{directory} is not a private directory of this user; remove it")
    return directory


def connect(timeout: float = 0.05) -> socket.socket | None:
    """A connection to this user's warm server, or None when none is running."""
    path = socket_path()
    try:
        info = path.parent.stat()
        if info.st_uid != os.getuid() or stat.S_IMODE(info.st_mode) & 0o077:
            return None  # not ours: never talk to it
        client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        client.settimeout(timeout)
        client.connect(str(path))
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


class Server:
    """Answers search requests, one thread per connection, engines loaded once per game."""

    def __init__(self, idle_minutes: float) -> None:
        self.idle = idle_minutes * 60
        self.last_request = time.monotonic()
        self.served = 0
        self.engines: dict[tuple[str, str], Any] = {}
        self.lock = threading.Lock()
        self.running = True

    def engine(self, name: str, settings: dict[str, Any]) -> Any:
        from aviary.games import registry

        spec = registry.spec(name)
        game = spec.make(**settings)
        key = (name, json.dumps(game.settings, sort_keys=True))
        with self.lock:
            if key not in self.engines:
                self.engines[key] = spec.engine(spec.main_engine, game)
            return self.engines[key]

    def preload(self) -> None:
        """Load every registered game's main engine before the first request."""
        from aviary.games import registry

        for spec in registry.board_games():
            engine = self.engine(spec.name, {})
            if hasattr(engine, "warmup"):
                engine.warmup()

    def handle(self, connection: socket.socket) -> None:
        import numpy as np

        from aviary.search.clock import Limit

        with connection:
            try:
                line = next(_lines(connection), "")
                message = json.loads(line)
                if message.get("command") == "stop":
                    self.running = False
                    connection.sendall(b"stopping\n")
                    return
                if message.get("command") == "status":
                    connection.sendall(json.dumps({
                        "pid": os.getpid(), "served": self.served,
                        "engines": sorted(f"{name} {settings}"
                                          for name, settings in self.engines)}).encode() + b"\n")
                    return
                engine = self.engine(message["game"], message["settings"])
                state = engine.game.decode(message["state"])
                remaining = float(message["deadline"]) - time.monotonic()
                with self.lock:
                    self.served += 1
                if remaining <= 0.01:
                    return
                stop = np.zeros(1, dtype=np.int64)
                for report in engine.think(state, Limit(time=remaining), stop=stop):
                    try:
                        connection.sendall(report.answer.encode() + b"\n")
                    except OSError:
                        stop[0] = 1  # the command is gone: stop its search
                        break
            except (OSError, ValueError, KeyError, StopIteration):
                return  # a broken request ends its connection, never the server

    def serve(self, listener: socket.socket) -> None:
        listener.settimeout(1.0)
        while self.running:
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                if time.monotonic() - self.last_request > self.idle:
                    break
                continue
            self.last_request = time.monotonic()
            threading.Thread(target=self.handle, args=(connection,), daemon=True).start()


def _start(idle_minutes: float, foreground: bool) -> int:
    if connect() is not None:
        print("a warm engine server is already running", file=sys.stderr)
        return 0
    directory = _private_directory()
    path = socket_path()
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
    if not foreground and os.fork() > 0:  # the caller returns once the server listens
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if connect() is not None:
                print(f"warm engine server listening on {path}")
                return 0
            time.sleep(0.1)
        raise UsageError("the warm engine server did not start within 120 s")
    if not foreground:
        os.setsid()
        devnull = os.open(os.devnull, os.O_RDWR)
        for stream in (0, 1, 2):
            os.dup2(devnull, stream)
    server = Server(idle_minutes)
    server.preload()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    os.chmod(path, 0o600)
    listener.listen(16)
    try:
        server.serve(listener)
    finally:
        listener.close()
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
        del directory
    if not foreground:
        os._exit(0)
    return 0


def main(argv: list[str]) -> int:
    parser = ArgumentParser(prog="aviary warm", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True, parser_class=ArgumentParser)
    start = commands.add_parser("start", help="start the server in the background")
    start.add_argument("--idle", type=float, default=IDLE_MINUTES,
                       help=f"exit after this many idle minutes (default {IDLE_MINUTES:g})")
    start.add_argument("--foreground", action="store_true", help="do not detach")
    commands.add_parser("stop", help="stop the running server")
    commands.add_parser("status", help="is a server running, and what has it served")
    args = parser.parse_args(argv)
    if args.command == "start":
        if not 0 < args.idle < float("inf"):
            raise UsageError(f"--idle must be a positive number of minutes, got {args.idle}")
        return _start(args.idle, args.foreground)
    reply = request({"command": args.command})
    if reply is None:
        print("no warm engine server is running")
        return 1 if args.command == "status" else 0
    print("\n".join(reply))
    return 0
