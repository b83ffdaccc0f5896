"""Pikachu tests never touch the user's cache: endgame tables go to a session temp dir."""

import pytest


@pytest.fixture(scope="session", autouse=True)
def pikachu_cache(tmp_path_factory):
    with pytest.MonkeyPatch.context() as patch:
        path = tmp_path_factory.mktemp("aviary-cache")
        patch.setenv("AVIARY_CACHE_DIR", str(path))
        yield path


@pytest.fixture(scope="session")
def endgame_tables(pikachu_cache):
    """Every endgame table, built once per test session (about 15 s)."""
    from aviary.games.pikachu import endgame

    for group in endgame.groups():
        endgame.load(group)
    return pikachu_cache
