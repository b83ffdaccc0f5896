"""`aviary serve`: the web app on 127.0.0.1:8000 unless told otherwise."""

from __future__ import annotations

import contextlib
import importlib
import math
import signal
import socket
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from aviary.errors import ArgumentParser, UsageError


def _parser() -> ArgumentParser:
    parser = ArgumentParser(
        prog="aviary serve",
        description="Play every game in the browser; classify, horizon, arena results.")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address to listen on (default 127.0.0.1: this machine only)")
    parser.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    parser.add_argument("--workers", type=int, default=8,
                        help="engine processes: searches that run at once (default 8)")
    parser.add_argument("--idle-minutes", type=float, default=30.0,
                        help="a game untouched this long is closed (default 30)")
    parser.add_argument("--arena", type=Path, metavar="DB",
                        help="arena SQLite file to show on /arena (opened read-only)")
    parser.add_argument("--grades", type=Path, action="append", default=[], metavar="DIR",
                        help="a leaderboard written by `aviary grade --out DIR`, to show on "
                             "/grades/ (repeatable; its files are served as they are)")
    model = parser.add_mutually_exclusive_group()
    model.add_argument("--classify-model", type=Path, metavar="MODEL",
                       help="a model saved by `aviary classify fit`, for /classify")
    model.add_argument("--classify-train", type=Path, metavar="TRAIN",
                       help="train /classify's model at start from TRAIN ('LABEL text' lines)")
    parser.add_argument("--upload-mb", type=float, default=8.0,
                        help="largest horizon photo accepted, in MB (default 8); its pixels "
                             "are limited too: 25 million, as for `aviary horizon`")
    return parser


WEB_PACKAGES = ("fastapi", "uvicorn", "websockets")  # the `web` extra in pyproject.toml


def missing_web_packages() -> list[str]:
    """The web extra's packages that cannot be imported: only `aviary serve` needs them,
    so a plain install leaves them out (websockets carries the thinking socket)."""
    missing = []
    for name in WEB_PACKAGES:
        try:
            importlib.import_module(name)
        except ImportError:
            missing.append(name)
    return missing


def load_classifier(model: Path | None, train: Path | None) -> Any:
    """The fitted classifier `serve` was given (a model file or a training file), or None."""
    if model is not None:
        from aviary.classify.model_file import load_model

        try:
            return load_model(model)
        except (OSError, ValueError) as error:
            raise UsageError(f"aviary serve: cannot read model {model}: {error}") from None
    if train is not None:
        from aviary.classify.data import read_labeled
        from aviary.classify.naive_bayes import NaiveBayes

        data = read_labeled(train)
        if len(set(data.labels)) < 2:
            raise UsageError(f"aviary serve: {train} needs at least two classes to train on")
        return NaiveBayes().fit(data.texts, data.labels)
    return None


def listen(host: str, port: int) -> socket.socket:
    """The listening socket, bound before anything starts: a host that does not resolve or a
    port in use is one line (uvicorn would report it after the engine processes had started)."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    except (socket.gaierror, UnicodeError) as error:
        raise UsageError(f"aviary serve: cannot listen on {host}:{port}: --host does not "
                         f"resolve ({error})") from None
    listener = socket.socket(family, kind, proto)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(address)
        listener.listen(2048)
    except OSError as error:
        listener.close()
        reason = error.strerror or str(error)
        raise UsageError(f"aviary serve: cannot listen on {host}:{port}: {reason}") from None
    return listener


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    if not 0 < args.port < 65536:
        raise UsageError(f"aviary serve: --port must be 1-65535, got {args.port}")
    if args.workers < 1:
        raise UsageError("aviary serve: --workers must be at least 1")
    for name, value in (("--idle-minutes", args.idle_minutes), ("--upload-mb", args.upload_mb)):
        if not (value > 0 and math.isfinite(value)):
            raise UsageError(f"aviary serve: {name} must be a positive number, got {value}")
    if args.arena is not None and not args.arena.is_file():
        raise UsageError(f"aviary serve: no such arena database: {args.arena}")
    for folder in args.grades:
        if not (folder / "index.html").is_file():
            raise UsageError(f"aviary serve: --grades {folder}: no leaderboard there (no "
                             "index.html; `aviary grade ... --out DIR` writes one)")
    missing = missing_web_packages()
    if missing:
        raise UsageError(f"aviary serve: the web app needs {', '.join(missing)}, the web extra: "
                         f"pip install 'aviary[web]' (in a clone: pip install -e '.[web]')")
    import uvicorn

    from aviary.web.app import create_app
    from aviary.web.config import AppConfig

    _Server = _server_class()
    classifier = load_classifier(args.classify_model, args.classify_train)
    config = AppConfig(workers=args.workers, idle_seconds=60 * args.idle_minutes,
                       arena_db=args.arena, grades=tuple(args.grades),
                       classify_model=classifier,
                       upload_limit=int(args.upload_mb * 1024 * 1024), warmup=True)
    listener = listen(args.host, args.port)
    print(f"aviary serve: http://{args.host}:{args.port}/", file=sys.stderr, flush=True)
    server = _Server(uvicorn.Config(create_app(config), log_level="warning"))
    server.run(sockets=[listener])
    if server.stopped_by:
        name = signal.Signals(server.stopped_by).name
        print(f"aviary serve: {name}: stopped", file=sys.stderr, flush=True)
        return 128 + server.stopped_by
    return 0


def _server_class() -> Any:
    import uvicorn

    class Server(uvicorn.Server):
        """uvicorn's server, except that a signal is not raised again once it has stopped.

        uvicorn re-raises SIGTERM after its graceful shutdown, and the default action kills
        the process before Python's exit handlers run: the engine processes' queues would
        then be reported as "leaked semaphore objects". Here `main` exits 128 + signal.
        """

        stopped_by = 0

        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            before = {number: signal.signal(number, self.handle_exit)
                      for number in (signal.SIGINT, signal.SIGTERM)}
            try:
                yield
            finally:
                for number, handler in before.items():
                    signal.signal(number, handler)
                captured = getattr(self, "_captured_signals", [])
                self.stopped_by = int(captured[0]) if captured else 0

    return Server
