"""One full solve per test session, cached in a temporary directory (never the user's)."""

import os

import pytest


@pytest.fixture(scope="session")
def sebastian_cache(tmp_path_factory):
    path = tmp_path_factory.mktemp("aviary-cache")
    previous = os.environ.get("AVIARY_CACHE_DIR")
    os.environ["AVIARY_CACHE_DIR"] = str(path)
    yield path
    if previous is None:
        os.environ.pop("AVIARY_CACHE_DIR", None)
    else:
        os.environ["AVIARY_CACHE_DIR"] = previous


@pytest.fixture(scope="session")
def solution(sebastian_cache):
    from aviary.games.sebastian.cache import load_solution

    return load_solution()
