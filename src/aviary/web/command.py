"""`aviary serve`: the web app on 127.0.0.1:8000 unless told otherwise."""

from __future__ import annotations

import sys
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
    model = parser.add_mutually_exclusive_group()
    model.add_argument("--classify-model", type=Path, metavar="MODEL",
                       help="a model saved by `aviary classify fit`, for /classify")
    model.add_argument("--classify-train", type=Path, metavar="TRAIN",
                       help="train /classify's model at start from TRAIN ('LABEL text' lines)")
    parser.add_argument("--upload-mb", type=float, default=8.0,
                        help="largest horizon photo accepted, in MB (default 8)")
    return parser


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


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    if not 0 < args.port < 65536:
        raise UsageError(f"aviary serve: --port must be 1-65535, got {args.port}")
    if args.workers < 1:
        raise UsageError("aviary serve: --workers must be at least 1")
    if args.idle_minutes <= 0 or args.upload_mb <= 0:
        raise UsageError("aviary serve: --idle-minutes and --upload-mb must be positive")
    if args.arena is not None and not args.arena.is_file():
        raise UsageError(f"aviary serve: no such arena database: {args.arena}")
    try:
        import uvicorn

        from aviary.web.app import create_app
        from aviary.web.config import AppConfig
    except ImportError as error:  # pragma: no cover - the web extra is part of the install
        raise UsageError(f"aviary serve: the web app needs fastapi and uvicorn ({error})") from None
    classifier = load_classifier(args.classify_model, args.classify_train)
    config = AppConfig(workers=args.workers, idle_seconds=60 * args.idle_minutes,
                       arena_db=args.arena, classify_model=classifier,
                       upload_limit=int(args.upload_mb * 1024 * 1024), warmup=True)
    print(f"aviary serve: http://{args.host}:{args.port}/", file=sys.stderr, flush=True)
    uvicorn.run(create_app(config), host=args.host, port=args.port, log_level="warning")
    return 0
