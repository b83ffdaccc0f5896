"""One full solve per test session, in the session's cache folder (never the user's)."""

import pytest


@pytest.fixture(scope="session")
def solution(session_cache):
    from aviary.games.sebastian.cache import load_solution

    return load_solution()
