"""The web server's limits against a careless or hostile client: each is refused, nothing breaks.

A WebSocket message that is not JSON, a megabyte of illegal move, a board beyond the
game's declared maximum, and a client that opens game after game.
"""

from __future__ import annotations

import pytest

from aviary.games.pikachu.rules import MAX_N
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


def test_a_client_opening_many_games_ends_only_its_own():
    sessions = Sessions(workers=1, most=6, most_per_client=3)
    others = sessions.create("pikachu", {"n": "7"}, owner="10.0.0.2")
    mine = [sessions.create("pikachu", {"n": "7"}, owner="10.0.0.1") for _ in range(3)]
    sessions.get(mine[0].id)  # used: the least recently used of mine is now mine[1]
    fourth = sessions.create("pikachu", {"n": "7"}, owner="10.0.0.1")
    with pytest.raises(SessionError):
        sessions.get(mine[1].id)
    for kept in (others, mine[0], mine[2], fourth):
        assert sessions.get(kept.id) is kept
    assert len(sessions) == 4


def test_a_full_server_refuses_new_games_rather_than_ending_others():
    sessions = Sessions(workers=1, most=4, most_per_client=3)
    games = [sessions.create("pikachu", {}, owner=f"10.0.0.{k}") for k in range(4)]
    with pytest.raises(SessionError) as refused:
        sessions.create("pikachu", {}, owner="10.0.0.9")
    assert refused.value.status == 503 and "try again" in str(refused.value)
    assert all(sessions.get(game.id) is game for game in games)
    sessions.reclaim(now=games[0].last_used + sessions.idle_seconds + 1)  # all idle: closed
    assert sessions.create("pikachu", {}, owner="10.0.0.9") is not None
