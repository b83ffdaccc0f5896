"""One app per test session (engines stay compiled), an endgame to play."""

from __future__ import annotations

import subprocess
import sys
import warnings

import pytest

with warnings.catch_warnings():  # starlette's note that it would rather use httpx2
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from aviary.web.app import AppConfig, create_app


def endgame_board() -> str:
    """Pikachu n=7: a white Pichu on d1 against a black Pikachu on d7 and a Pichu on f6."""
    cells = ["."] * 49
    cells[3], cells[45], cells[40] = "w", "B", "b"
    return "".join(cells)


@pytest.fixture(scope="session")
def app_config():
    return AppConfig(workers=4)


@pytest.fixture(scope="session")
def client(app_config):
    with TestClient(create_app(app_config)) as test_client:
        yield test_client


@pytest.fixture(scope="session")
def arena_db(tmp_path_factory):
    """A real tournament: the engine against random moves, four games on a 7x7 board."""
    path = tmp_path_factory.mktemp("arena") / "results.db"
    subprocess.run(
        [sys.executable, "-m", "aviary", "arena", "run", "--db", str(path), "--n", "7",
         "--time", "0.05", "--games", "4", "--max-plies", "80", "--jobs", "1",
         "aviary:engine", "aviary:random"],
        check=True, capture_output=True, timeout=600)
    return path
