"""Routes of the tools' pages: classify, horizon and the arena."""

from __future__ import annotations

from fastapi import FastAPI

from aviary.web.app import AppConfig


def add_routes(app: FastAPI, config: AppConfig) -> None:
    """Add the tools' API routes to `app`."""
