"""`aviary serve --grades DIR`: leaderboards served as the read-only files they are.

The folders are real leaderboards' files (the site's pages are tested in
tests/arena/test_leaderboard.py); here: they are found under /grades/NAME/, listed on
/grades/ and the index page's API, and nothing outside a folder can be read through it.
"""

from __future__ import annotations

import warnings

import pytest

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from aviary.web.app import AppConfig, create_app, grade_sites

SECRET = "the key to the grades"


def leaderboard(folder, title: str):
    (folder / "games").mkdir(parents=True)
    (folder / "index.html").write_text(f"<!doctype html><title>{title}</title><p>players</p>")
    (folder / "games" / "1.html").write_text("<p>game 1</p>")
    (folder / "style.css").write_text("body { color: black }")
    return folder


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    root = tmp_path_factory.mktemp("grades")
    (root / "secret.txt").write_text(SECRET)
    first = leaderboard(root / "pikachu n=8" / "site", "Leaderboard: pikachu n=8")
    second = leaderboard(root / "other" / "site", "Leaderboard: &lt;b&gt;x&lt;/b&gt;")
    (first / "escape.txt").symlink_to(root / "secret.txt")
    config = AppConfig(workers=1, grades=(first, second))
    with TestClient(create_app(config)) as client:
        yield client


def test_each_leaderboard_is_served_under_its_name_and_listed(served):
    listed = served.get("/api/grades").json()
    assert [site["url"] for site in listed] == ["/grades/site/", "/grades/site-2/"]
    assert listed[0]["title"] == "Leaderboard: pikachu n=8"
    assert listed[1]["title"] == "Leaderboard: <b>x</b>"  # plain text: the page escapes it
    page = served.get("/grades/site/")
    assert page.status_code == 200 and "<p>players</p>" in page.text
    assert served.get("/grades/site/games/1.html").text == "<p>game 1</p>"
    assert served.get("/grades/site-2/style.css").status_code == 200
    index = served.get("/grades/")
    assert index.status_code == 200 and 'href="/grades/site-2/"' in index.text
    assert "&lt;b&gt;x&lt;/b&gt;" in index.text and "<b>x</b>" not in index.text


@pytest.mark.parametrize("path", [
    "/grades/site/../../secret.txt", "/grades/site/%2e%2e/%2e%2e/secret.txt",
    "/grades/site/..%2f..%2fsecret.txt", "/grades/site/escape.txt",
    "/grades/site//etc/passwd", "/grades/site/%2fetc%2fpasswd",
])
def test_nothing_outside_a_leaderboard_can_be_read(served, path):
    answer = served.get(path)
    assert answer.status_code in (400, 404), path
    assert SECRET not in answer.text and "root:" not in answer.text


def test_only_reads_are_served(served):
    assert served.post("/grades/site/index.html").status_code == 405
    assert served.put("/grades/site/new.html", content=b"x").status_code == 405


def test_names_are_safe_in_an_address_and_never_shared(tmp_path):
    sites = grade_sites((tmp_path / "a b?c", tmp_path / "x" / "a b?c", tmp_path / "???"))
    assert list(sites) == ["a-b-c", "a-b-c-2", "grades"]


def test_a_server_without_leaderboards_says_how_to_start_one(client):
    assert client.get("/api/grades").json() == []
    assert "--grades" in client.get("/grades/").text
