"""The web server's limits against a careless or hostile client: each is refused, nothing breaks.

A WebSocket message that is not JSON, a megabyte of illegal move, a board beyond the
game's declared maximum, a server full of games, bodies too large or nested too deep.
"""

from __future__ import annotations

import numpy as np
import pytest

from aviary.games.pikachu.rules import MAX_N
from aviary.web.app import BODY_LIMIT
from aviary.web.sessions import SessionError, Sessions


def new(client, **options) -> dict:
    response = client.post("/api/games/pikachu/sessions", json={"options": options})
    assert response.status_code == 201, response.text
    return response.json()


@pytest.mark.parametrize("garbage", ["garbage", "", "[1, 2]", b"\x00\xff binary"])
def test_a_message_that_is_not_json_is_answered_and_the_socket_stays(client, garbage):
    view = new(client, n=7)
    with client.websocket_connect(f"/api/sessions/{view['id']}/think") as socket:
        if isinstance(garbage, bytes):
            socket.send_bytes(garbage)
        else:
            socket.send_text(garbage)
        answer = socket.receive_json()
        assert answer["type"] == "error" and answer["status"] == 400, answer
        socket.send_json({"type": "go", "seconds": 0.1})  # the same connection still works
        while (message := socket.receive_json())["type"] == "thought":
            pass
        assert message["type"] == "moved", message


def test_a_megabyte_illegal_move_is_not_echoed_back(client):
    view = new(client, n=7)
    response = client.post(f"/api/sessions/{view['id']}/move", json={"move": "x" * (1 << 20)})
    assert response.status_code == 400
    detail = response.json()["detail"]
    assert "is not a legal move" in detail and "1048576 characters" in detail
    assert len(detail) < 2000, len(detail)


def test_the_largest_board_is_declared_and_one_more_is_refused(client):
    pikachu = client.get("/api/games/pikachu").json()
    assert [option["maximum"] for option in pikachu["options"]] == [MAX_N]
    assert new(client, n=MAX_N)["rows"] == MAX_N
    for n in (MAX_N + 1, 100_000):
        response = client.post("/api/games/pikachu/sessions", json={"options": {"n": n}})
        assert response.status_code == 400
        assert response.json()["detail"] == f"option n must be at most {MAX_N}, got {n}"


def test_a_full_server_closes_its_least_recently_used_game_and_locks_nobody_out():
    """50 games from each of 10 visitors fill a server of 500: an 11th visitor still gets a
    game, and the game closed for it is the one least recently used, whoever made it."""
    sessions = Sessions(workers=1, most=500)
    games = [sessions.create("pikachu", {"n": "7"}) for _ in range(10 * 50)]
    sessions.get(games[0].id)  # used: the least recently used is now games[1]
    newcomer = sessions.create("pikachu", {"n": "7"})
    assert len(sessions) == 500
    with pytest.raises(SessionError) as closed:
        sessions.get(games[1].id)
    assert closed.value.status == 404
    for kept in (games[0], games[2], games[-1], newcomer):
        assert sessions.get(kept.id) is kept


def test_a_thinking_game_is_not_closed_and_only_a_server_of_thinking_games_refuses():
    sessions = Sessions(workers=1, most=3)
    games = [sessions.create("pikachu", {}) for _ in range(3)]
    for game in games:
        game.stop = np.zeros(1, dtype=np.int64)  # as while its search runs
    with pytest.raises(SessionError) as refused:
        sessions.create("pikachu", {})
    assert refused.value.status == 503 and "try again" in str(refused.value)
    games[1].stop = None  # its search ended
    sessions.create("pikachu", {})
    assert [game.id in sessions._sessions for game in games] == [True, False, True]


def nested(depth: int) -> bytes:
    return b'{"a": ' + b"[" * depth + b"]" * depth + b"}"


@pytest.mark.parametrize("path", ["/api/sebastian/advise", "/api/games/pikachu/sessions",
                                  "/api/classify"])
def test_json_nested_a_thousand_deep_is_a_400(client, path):
    response = client.post(path, content=nested(1000),
                           headers={"Content-Type": "application/json"})
    assert response.status_code == 400, response.text  # refused, not a 500


def test_a_body_over_the_limit_is_a_413_declared_or_streamed(client):
    big = b'{"move": "' + b"x" * (BODY_LIMIT + 10) + b'"}'
    declared = client.post("/api/sebastian/advise", content=big,
                           headers={"Content-Type": "application/json"})
    assert declared.status_code == 413, declared.text
    assert declared.json()["detail"] == f"request body too large: at most {BODY_LIMIT // 1024} KB"
    sent = []

    def chunks():  # no Content-Length: the body is counted as it streams
        for _ in range(40):
            sent.append(1)
            yield b" " * (256 * 1024)

    streamed = client.post("/api/sebastian/advise", content=chunks(),
                           headers={"Content-Type": "application/json"})
    assert streamed.status_code == 413, streamed.text
    view = new(client, n=7)  # and a body under the limit is read as before
    moved = client.post(f"/api/sessions/{view['id']}/move",
                        json={"move": view["moves"][0]["text"]})
    assert moved.status_code == 200
