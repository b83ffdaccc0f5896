"""How `aviary serve` was started: what the app and its routes read."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass
class AppConfig:
    """How `aviary serve` was started: pool size, idle timeout, and the tools' inputs."""

    workers: int = 8  # engine processes
    idle_seconds: float = 1800.0
    arena_db: Path | None = None
    grades: tuple[Path, ...] = ()  # leaderboards of `aviary grade --out DIR`, for /grades/
    classify_model: Any = None  # a fitted aviary.classify NaiveBayes, or None
    upload_limit: int = 8 * 1024 * 1024  # bytes, for horizon photos
    reap_every: float = 60.0
    warmup: bool = False  # compile (or load) every board game's engine at start, in the pool
