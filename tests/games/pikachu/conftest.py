"""Pikachu tests never touch the user's cache: endgame tables go to the session's cache
folder (`session_cache`, tests/conftest.py)."""

import pytest


@pytest.fixture(scope="session", autouse=True)
def pikachu_cache(session_cache):
    """The one cache folder every session fixture shares: with a folder of its own, the
    order of the tests (which differs between pytest-xdist's workers) would decide which
    folder AVIARY_CACHE_DIR names for the tests that come after."""
    return session_cache


@pytest.fixture(scope="session")
def endgame_tables(pikachu_cache):
    """Every endgame table, built once per test session (about 15 s)."""
    from aviary.games.pikachu import endgame

    for group in endgame.groups():
        endgame.load(group)
    return pikachu_cache
