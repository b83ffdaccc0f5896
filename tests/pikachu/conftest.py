"""Pikachu tests never touch the user's cache: endgame tables go to a session temp dir."""

import os

import pytest


@pytest.fixture(scope="session", autouse=True)
def pikachu_cache(tmp_path_factory):
    path = tmp_path_factory.mktemp("aviary-cache")
    previous = os.environ.get("AVIARY_CACHE_DIR")
    os.environ["AVIARY_CACHE_DIR"] = str(path)
    yield path
    if previous is None:
        os.environ.pop("AVIARY_CACHE_DIR", None)
    else:
        os.environ["AVIARY_CACHE_DIR"] = previous


@pytest.fixture(scope="session")
def endgame_tables(pikachu_cache):
    """Every endgame table, built once per test session (about 15 s)."""
    from aviary.games.pikachu import endgame

    for group in endgame.groups():
        endgame.load(group)
    return pikachu_cache
