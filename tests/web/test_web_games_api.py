"""The board games' JSON API and the thinking WebSocket, through FastAPI's TestClient."""

from __future__ import annotations

import time

import pytest
from conftest import endgame_board

from aviary.games import registry, views

BOARD_GAMES = [spec.name for spec in registry.board_games()]


def new(client, name="pikachu", **body):
    response = client.post(f"/api/games/{name}/sessions", json=body)
    assert response.status_code == 201, response.text
    return response.json()


def wait_until_idle(client, session_id, deadline=120.0):
    sessions = client.app.state.sessions
    end = time.monotonic() + deadline
    while sessions.get(session_id).thinking and time.monotonic() < end:
        time.sleep(0.05)
    return not sessions.get(session_id).thinking


def test_games_lists_every_registered_board_game_with_its_options(client):
    games = client.get("/api/games").json()
    assert [g["name"] for g in games] == BOARD_GAMES
    for described in games:
        game_class = registry.spec(described["name"]).game_class()
        assert [o["name"] for o in described["options"]] == [o.name for o in game_class.options]
        assert described["labels"] == list(game_class.labels)


@pytest.mark.parametrize("name", BOARD_GAMES)
def test_new_game_view_has_the_games_geometry_board_and_every_legal_move(client, name):
    view = new(client, name)
    game = registry.make(name)
    shape = game.board()
    state = game.start()
    while game.is_chance(state):  # the session plays chance events itself
        state = game.play(state, game.legal_moves(state)[0])
    assert (view["rows"], view["cols"]) == (shape.rows, shape.cols)
    assert view["holes"] == sorted(shape.holes)
    assert len(view["board"]) == shape.rows * shape.cols
    assert sorted(m["text"] for m in view["moves"]) == sorted(
        game.move_text(state, m) for m in game.legal_moves(state))
    assert view["outcome"] is None and view["decisions"] == 0


@pytest.mark.parametrize("name", BOARD_GAMES)
def test_every_listed_move_plays_and_an_illegal_one_changes_nothing(client, name):
    view = new(client, name)
    before = client.get(f"/api/sessions/{view['id']}").json()
    refused = client.post(f"/api/sessions/{view['id']}/move", json={"move": "no such move"})
    assert refused.status_code == 400
    assert "not a legal move" in refused.json()["detail"]
    assert client.get(f"/api/sessions/{view['id']}").json() == before
    played = client.post(f"/api/sessions/{view['id']}/move",
                         json={"move": view["moves"][0]["text"]})
    assert played.status_code == 200
    assert played.json()["decisions"] == 1
    first = played.json()["history"][0]
    assert (first["text"], first["chance"], first["mover"]) == (view["moves"][0]["text"], False, 0)


def test_pikachu_moves_carry_their_squares_from_the_notation(client):
    view = new(client, options={"n": 8})
    for move in view["moves"]:
        start, end = move["text"].split("-")
        assert move["start"] == views.square_index(start, views.Board(8, 8))
        assert move["end"] == views.square_index(end, views.Board(8, 8))
        assert view["board"][move["start"]] == "w" and view["board"][move["end"]] == "."


def test_piece_owners_are_learnt_from_who_moves_them(client):
    learnt = views.piece_owners(registry.spec("pikachu").game_class(), (("n", 8),))
    assert learnt["w"] == 0 and learnt["b"] == 1
    assert [views.owner_of(c, learnt) for c in "wWbB."] == [0, 0, 1, 1, None]
    view = new(client, options={"n": 7}, board=endgame_board(), player="w")
    assert view["owners"] == {"w": 0, "b": 1, "B": 1}


def test_arrow_keys_are_offered_only_for_direction_moves():
    assert views.keyboard(["U", "D", "L", "R"]) == {
        "ArrowUp": "U", "ArrowDown": "D", "ArrowLeft": "L", "ArrowRight": "R"}
    assert views.keyboard(["a2-a3", "b2-b3"]) == {}


def test_squares_come_from_the_board_difference_when_the_notation_has_none():
    game = registry.make("pikachu", n=7)
    state = game.start()
    move = game.legal_moves(state)[0]
    assert views.move_squares(game, state, move, "?", game.board()) == (move.start, move.end)


def test_unknown_game_is_404_everywhere(client):
    assert client.get("/api/games/nosuchgame").status_code == 404
    response = client.post("/api/games/nosuchgame/sessions", json={})
    assert response.status_code == 404 and "unknown board game" in response.json()["detail"]
    assert client.get("/play/nosuchgame").status_code == 404  # the page, saying so
    assert client.get("/api/sessions/nosuchsession").status_code == 404


def test_bad_options_and_bad_bodies_are_400_or_422(client):
    assert client.post("/api/games/pikachu/sessions",
                       json={"options": {"n": 3}}).json()["detail"] == (
        "option n must be at least 7, got 3")
    unknown = client.post("/api/games/pikachu/sessions", json={"options": {"size": 8}})
    assert unknown.status_code == 400 and "no option 'size'" in unknown.json()["detail"]
    assert client.post("/api/games/pikachu/sessions",
                       json={"max_plies": -1}).status_code == 400
    assert client.post("/api/games/pikachu/sessions", json={"options": "n=8"}).status_code == 422
    view = new(client)
    assert client.post(f"/api/sessions/{view['id']}/move", json={}).status_code == 422


def test_a_malformed_pasted_board_is_refused_and_changes_nothing(client):
    view = new(client, options={"n": 7})
    for board, player in (("xx", "w"), ("z" * 49, "w"), (endgame_board(), "q")):
        response = client.post(f"/api/sessions/{view['id']}/position",
                               json={"board": board, "player": player})
        assert response.status_code == 400
        assert response.json()["detail"].startswith("not a pikachu position")
    assert client.get(f"/api/sessions/{view['id']}").json()["board"] == view["board"]
    created = client.post("/api/games/pikachu/sessions",
                          json={"options": {"n": 7}, "board": "w" * 10, "player": "w"})
    assert created.status_code == 400


def test_a_pasted_position_becomes_the_game_and_reads_back_as_the_same_string(client):
    view = new(client, options={"n": 7})
    pasted = client.post(f"/api/sessions/{view['id']}/position",
                         json={"board": endgame_board(), "player": "b"}).json()
    assert pasted["board"] == endgame_board() and pasted["player"] == "b"
    assert pasted["history"] == []


def test_undo_takes_moves_back_and_refuses_more_than_were_played(client):
    view = new(client)
    session = view["id"]
    after_one = client.post(f"/api/sessions/{session}/move",
                            json={"move": view["moves"][0]["text"]}).json()
    client.post(f"/api/sessions/{session}/move", json={"move": after_one["moves"][0]["text"]})
    too_many = client.post(f"/api/sessions/{session}/undo", json={"count": 3})
    assert too_many.status_code == 400
    assert client.get(f"/api/sessions/{session}").json()["decisions"] == 2
    undone = client.post(f"/api/sessions/{session}/undo", json={"count": 2}).json()
    assert undone["board"] == view["board"] and undone["decisions"] == 0
    assert client.post(f"/api/sessions/{session}/undo", json={"count": 0}).status_code == 400


def test_the_move_limit_ends_the_game_as_a_draw(client):
    view = new(client, max_plies=1)
    after = client.post(f"/api/sessions/{view['id']}/move",
                        json={"move": view["moves"][0]["text"]}).json()
    assert after["outcome"]["winner"] is None
    assert after["outcome"]["reason"] == "move-limit"
    assert after["moves"] == []
    refused = client.post(f"/api/sessions/{view['id']}/move", json={"move": "a1-a2"})
    assert refused.status_code == 409


def test_engine_thinks_over_the_websocket_deepening_then_plays_and_the_game_ends(client):
    view = new(client, options={"n": 7}, board=endgame_board(), player="w")
    human = client.post(f"/api/sessions/{view['id']}/move", json={"move": "d1-d2"}).json()
    assert human["player"] == "b"
    with client.websocket_connect(f"/api/sessions/{view['id']}/think") as socket:
        socket.send_json({"type": "go", "seconds": 0.2})
        thoughts = []
        while (message := socket.receive_json())["type"] == "thought":
            thoughts.append(message)
    assert message["type"] == "moved"
    assert thoughts and [t["depth"] for t in thoughts] == sorted({t["depth"] for t in thoughts})
    assert message["move"] == thoughts[-1]["move"] == thoughts[-1]["pv"][0]
    # the black Pikachu on d7 jumps the last white piece (on d2) and lands on d1
    assert message["move"] == "d7-d1"
    assert message["view"]["outcome"] == {"winner": 1, "reason": "captured-all",
                                          "text": "b wins (captured-all)"}
    assert message["view"]["history"][-1]["text"] == "d7-d1"
    over = client.get(f"/api/sessions/{view['id']}").json()
    assert over == message["view"]


def test_move_now_plays_the_best_move_found_so_far(client):
    view = new(client)
    with client.websocket_connect(f"/api/sessions/{view['id']}/think") as socket:
        socket.send_json({"type": "go", "seconds": 600})
        first = socket.receive_json()
        assert first["type"] == "thought"
        # a move while the engine thinks is refused and changes nothing
        busy = client.post(f"/api/sessions/{view['id']}/move",
                           json={"move": view["moves"][0]["text"]})
        assert busy.status_code == 409
        socket.send_json({"type": "go", "seconds": 1})
        socket.send_json({"type": "stop"})
        messages = []
        while (message := socket.receive_json())["type"] in ("thought", "error"):
            messages.append(message)
    assert any(m["type"] == "error" and m["status"] == 409 for m in messages)
    thoughts = [first] + [m for m in messages if m["type"] == "thought"]
    assert message["type"] == "moved" and message["move"] == thoughts[-1]["move"]
    assert message["view"]["decisions"] == 1


def test_closing_the_socket_stops_the_search_and_plays_nothing(client):
    view = new(client)
    with client.websocket_connect(f"/api/sessions/{view['id']}/think") as socket:
        socket.send_json({"type": "go", "seconds": 600})
        assert socket.receive_json()["type"] == "thought"
    assert wait_until_idle(client, view["id"])
    assert client.get(f"/api/sessions/{view['id']}").json()["decisions"] == 0


def test_undo_while_thinking_drops_the_search(client):
    view = new(client)
    client.post(f"/api/sessions/{view['id']}/move", json={"move": view["moves"][0]["text"]})
    with client.websocket_connect(f"/api/sessions/{view['id']}/think") as socket:
        socket.send_json({"type": "go", "seconds": 600})
        assert socket.receive_json()["type"] == "thought"
        undone = client.post(f"/api/sessions/{view['id']}/undo", json={"count": 1})
        assert undone.status_code == 200
        while (message := socket.receive_json())["type"] == "thought":
            pass
    assert message["type"] == "dropped"
    assert message["view"]["decisions"] == 0 and message["view"]["board"] == view["board"]


def test_websocket_refuses_bad_messages_finished_games_and_unknown_sessions(client):
    view = new(client, max_plies=1)
    with client.websocket_connect(f"/api/sessions/{view['id']}/think") as socket:
        socket.send_json({"type": "dance"})
        assert socket.receive_json()["status"] == 400
        socket.send_json({"type": "go", "seconds": "soon"})
        assert socket.receive_json()["status"] == 400
        socket.send_json({"type": "go", "seconds": -1})
        assert socket.receive_json()["status"] == 400
    client.post(f"/api/sessions/{view['id']}/move", json={"move": view["moves"][0]["text"]})
    with client.websocket_connect(f"/api/sessions/{view['id']}/think") as socket:
        socket.send_json({"type": "go", "seconds": 0.1})
        refused = socket.receive_json()
        assert refused["status"] == 409 and refused["message"] == "the game is over"
    with client.websocket_connect("/api/sessions/nosuchsession/think") as socket:
        message = socket.receive_json()
        assert message["status"] == 404


def test_an_idle_session_is_reclaimed_and_a_closed_one_is_gone(client):
    sessions = client.app.state.sessions
    idle = new(client)
    closed = new(client)
    assert client.delete(f"/api/sessions/{closed['id']}").status_code == 204
    assert client.get(f"/api/sessions/{closed['id']}").status_code == 404
    sessions.get(idle["id"]).last_used -= sessions.idle_seconds + 1
    assert sessions.reclaim() >= 1
    assert client.get(f"/api/sessions/{idle['id']}").status_code == 404


@pytest.mark.parametrize("path", ["/", "/play/pikachu", "/static/board.js", "/static/style.css"])
def test_pages_and_their_files_are_served(client, path):
    response = client.get(path)
    assert response.status_code == 200 and response.content


def test_an_engine_that_fails_is_reported_and_the_game_goes_on(client):
    from aviary.games.registry import GAMES, GameSpec

    GAMES["brokenengine"] = GameSpec(
        name="brokenengine", summary="Pikachu with an engine that cannot be loaded",
        game="aviary.games.pikachu.rules:Pikachu",
        engines={"engine": "aviary.web.no_such_module:make_engine"})
    try:
        view = new(client, "brokenengine")
        with client.websocket_connect(f"/api/sessions/{view['id']}/think") as socket:
            socket.send_json({"type": "go", "seconds": 0.1})
            message = socket.receive_json()
        assert message["status"] == 500
        assert message["message"].startswith("the engine failed: ModuleNotFoundError")
        assert wait_until_idle(client, view["id"])
        played = client.post(f"/api/sessions/{view['id']}/move",
                             json={"move": view["moves"][0]["text"]})
        assert played.status_code == 200
    finally:
        del GAMES["brokenengine"]


# --- a game that lasts: replayed from its record, resigned, hinted -------------------------------


@pytest.mark.parametrize("name", BOARD_GAMES)
def test_a_recorded_game_replays_into_a_new_session_with_the_same_position(client, name):
    """What a reload, a shared link and a reclaimed session do: the plies make the game again."""
    view = new(client, name, seed=7)
    for _ in range(4):
        if view["outcome"] is not None:
            break
        view = client.post(f"/api/sessions/{view['id']}/move",
                           json={"move": view["moves"][-1]["text"]}).json()
    plies = [ply["text"] for ply in view["history"]]
    again = new(client, name, moves=plies)
    assert again["id"] != view["id"]
    assert (again["board"], again["player"], again["history"]) == (
        view["board"], view["player"], view["history"])
    assert again["positions"] == view["positions"] and len(again["positions"]) == len(plies) + 1


def test_a_nondet_ijk_record_replays_its_random_tiles_exactly(client):
    view = new(client, "ijk", options={"mode": "nondet"}, seed=3)
    for key in ("U", "L", "D", "R"):
        view = client.post(f"/api/sessions/{view['id']}/move", json={"move": key}).json()
    assert sum(ply["chance"] for ply in view["history"]) >= 4  # a tile after every move
    again = new(client, "ijk", options={"mode": "nondet"}, seed=99,
                moves=[ply["text"] for ply in view["history"]])
    assert again["board"] == view["board"] and again["history"] == view["history"]


def test_a_record_from_a_pasted_position_replays_from_that_position(client):
    view = new(client, options={"n": 7}, board=endgame_board(), player="w")
    view = client.post(f"/api/sessions/{view['id']}/move", json={"move": "d1-d2"}).json()
    assert view["origin"] == {"board": endgame_board(), "player": "w"}
    again = new(client, options={"n": 7}, board=endgame_board(), player="w", moves=["d1-d2"])
    assert again["board"] == view["board"] and again["player"] == "b"


def test_a_record_with_an_illegal_ply_is_refused_naming_the_ply(client):
    response = client.post("/api/games/pikachu/sessions",
                           json={"options": {"n": 7}, "moves": ["a3-a4", "a4-a9"]})
    assert response.status_code == 400
    assert response.json()["detail"].startswith("ply 2 of the game: 'a4-a9' is not a legal move")


def test_resigning_ends_the_game_and_undo_takes_the_resignation_back(client):
    view = new(client, options={"n": 7})
    view = client.post(f"/api/sessions/{view['id']}/move", json={"move": "a3-a4"}).json()
    resigned = client.post(f"/api/sessions/{view['id']}/resign", json={"player": 1}).json()
    assert resigned["outcome"]["winner"] == 0 and resigned["outcome"]["reason"] == "resigned"
    assert resigned["moves"] == [] and resigned["resigned"] == 1
    again = new(client, options={"n": 7}, moves=["a3-a4"], resigned=1)
    assert again["outcome"] == resigned["outcome"]
    back = client.post(f"/api/sessions/{view['id']}/undo", json={"count": 1}).json()
    assert back["outcome"] is None and back["decisions"] == 1 and back["player"] == "b"


def test_a_hint_names_a_legal_move_and_plays_nothing(client):
    view = new(client, options={"n": 7}, board=endgame_board(), player="b")
    hint = client.post(f"/api/sessions/{view['id']}/hint", json={"seconds": 0.2})
    assert hint.status_code == 200, hint.text
    found = hint.json()
    assert found["move"] in [m["text"] for m in view["moves"]]
    assert (found["start"], found["end"]) == next(
        (m["start"], m["end"]) for m in view["moves"] if m["text"] == found["move"])
    assert client.get(f"/api/sessions/{view['id']}").json()["decisions"] == 0
    assert client.post(f"/api/sessions/{view['id']}/hint",
                       json={"seconds": 0}).status_code == 400


def test_an_engine_move_keeps_its_score_from_the_first_players_point_of_view(client):
    view = new(client, options={"n": 7}, board=endgame_board(), player="w")
    client.post(f"/api/sessions/{view['id']}/move", json={"move": "d1-d2"})
    with client.websocket_connect(f"/api/sessions/{view['id']}/think") as socket:
        socket.send_json({"type": "go", "seconds": 0.2})
        while (message := socket.receive_json())["type"] == "thought":
            pass
    engine_ply = message["view"]["history"][-1]
    assert engine_ply["mover"] == 1 and engine_ply["text"] == "d7-d1"
    # black (the second player) wins at once: a won score for black is negative for white
    assert engine_ply["mate_in"] is not None and engine_ply["mate_in"] < 0
    assert (engine_ply["start"], engine_ply["end"]) == (45, 3)


def test_an_unknown_game_gets_the_page_with_status_404_and_a_favicon_is_served(client):
    response = client.get("/play/chess")
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("text/html")
    assert "<title>" in response.text
    icon = client.get("/favicon.ico")
    assert icon.status_code == 200 and icon.headers["content-type"].startswith("image/svg")


def test_each_game_describes_how_to_play_it(client):
    for described in client.get("/api/games").json():
        assert len(described["how_to_play"]) >= 3, described["name"]
    betsy = client.get("/api/games/betsy").json()
    assert betsy["piece_names"]["K"] == "white Kingfisher"
    assert betsy["piece_names"]["n"] == "black Nighthawk"


def test_a_player_whose_clock_ran_out_loses_on_time_and_the_record_keeps_it(client):
    view = new(client, options={"n": 7})
    lost = client.post(f"/api/sessions/{view['id']}/resign", json={"player": 0, "reason": "time"})
    assert lost.json()["outcome"]["text"] == "b wins (time)"
    again = new(client, options={"n": 7}, moves=[], resigned=0, ending="time")
    assert again["outcome"] == lost.json()["outcome"] and again["ending"] == "time"
    assert client.post(f"/api/sessions/{view['id']}/resign",
                       json={"player": 1, "reason": "boredom"}).status_code == 400


def test_an_agreed_draw_ends_the_game_without_a_winner(client):
    view = new(client, options={"n": 7})
    drawn = client.post(f"/api/sessions/{view['id']}/resign",
                        json={"player": 0, "reason": "agreed"}).json()
    assert drawn["outcome"] == {"winner": None, "reason": "agreed", "text": "draw (agreed)"}
    again = new(client, options={"n": 7}, moves=[], resigned=0, ending="agreed")
    assert again["outcome"] == drawn["outcome"]


def test_a_move_for_the_engines_side_and_a_search_on_the_persons_turn_are_409s(client):
    view = client.post("/api/games/pikachu/sessions",
                       json={"options": {"n": 7}, "humans": [1]}).json()
    refused = client.post(f"/api/sessions/{view['id']}/move",
                           json={"move": view["moves"][0]["text"]})
    assert refused.status_code == 409 and "engine's turn" in refused.json()["detail"]
    sides = client.post(f"/api/sessions/{view['id']}/sides", json={"humans": [0]})
    assert sides.status_code == 200 and sides.json()["humans"] == [0]
    with client.websocket_connect(f"/api/sessions/{view['id']}/think") as socket:
        socket.send_json({"type": "go", "seconds": 0.1})
        answer = socket.receive_json()
    assert answer["type"] == "error" and answer["status"] == 409, answer
    assert "your turn" in answer["message"]
    assert client.post(f"/api/sessions/{view['id']}/sides",
                       json={"humans": [2]}).status_code == 400


def test_the_engine_takes_a_draw_only_when_it_is_behind_and_people_always_agree(client):
    winning = new(client, options={"n": 7}, board=endgame_board(), player="w", humans=[0])
    declined = client.post(f"/api/sessions/{winning['id']}/draw", json={"player": 0})
    assert declined.status_code == 200, declined.text
    answer = declined.json()
    assert not answer["accepted"] and answer["view"]["outcome"] is None, answer
    assert answer["mate_in"] is not None and answer["mate_in"] > 0 or answer["score"] > 0, answer
    even = new(client, options={"n": 7}, humans=[0])  # the start: not behind, so no draw
    assert not client.post(f"/api/sessions/{even['id']}/draw",
                           json={"player": 0}).json()["accepted"]
    losing = new(client, options={"n": 7}, board=endgame_board(), player="b", humans=[1])
    taken = client.post(f"/api/sessions/{losing['id']}/draw", json={"player": 1}).json()
    assert taken["accepted"], taken
    assert taken["view"]["outcome"]["text"] == "draw (agreed)"
    people = new(client, options={"n": 7}, humans=[0, 1])
    agreed = client.post(f"/api/sessions/{people['id']}/draw", json={"player": 0}).json()
    assert agreed["accepted"] and agreed["score"] is None
    engine_side = client.post(f"/api/sessions/{even['id']}/draw", json={"player": 1})
    assert engine_side.status_code == 409


def test_a_position_already_over_and_empty_values_are_refused_with_a_clear_message(client):
    refused = client.post("/api/games/pikachu/sessions",
                          json={"options": {"n": 7}, "board": "w" * 49, "player": "w"})
    assert refused.status_code == 400
    assert refused.json()["detail"] == ("that pikachu position is already over "
                                        "(b wins (no-move)): set one where the game goes on")
    empty = client.post("/api/games/pikachu/sessions", json={"options": {"n": ""}})
    assert empty.json()["detail"] == "option n is empty: give a whole number"
    view = new(client, options={"n": 7})
    no_player = client.post(f"/api/sessions/{view['id']}/position",
                            json={"board": view["board"], "player": ""})
    assert no_player.json()["detail"] == "not a pikachu position: player is empty: give 'w' or 'b'"
