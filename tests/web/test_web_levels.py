"""The ladder's levels as the engine's strength in the web app: offered where the game's
settings have a calibrated ladder, refused with a message elsewhere, and played by a real
engine process as the arena plays them (a node budget, not the page's seconds)."""

from __future__ import annotations

import pytest

from aviary.arena import ladder
from aviary.games import registry

WITH_LADDER = [(spec.name, found) for spec in registry.board_games()
               for found in ladder.available(spec.name)]
if not WITH_LADDER:
    pytest.skip("no game has a calibrated ladder yet", allow_module_level=True)
NAME, LADDER = WITH_LADDER[0]
OPTIONS = {key: str(value).lower() if isinstance(value, bool) else str(value)
           for key, value in LADDER.settings.items()}


def test_the_game_lists_its_ladders_levels_with_their_elo(client):
    described = client.get(f"/api/games/{NAME}").json()
    ladders = described["ladders"]
    mine = next(found for found in ladders if found["settings"] == OPTIONS)
    assert [level["name"] for level in mine["levels"]] == [level.name for level in LADDER.levels]
    assert mine["levels"][0]["elo"] == 0 and mine["levels"][0]["player"] == "random mover"
    assert all(level["elo"] is not None for level in mine["levels"])


def test_a_bad_level_is_refused_with_one_message(client):
    answer = client.post(f"/api/games/{NAME}/sessions", json={"options": OPTIONS,
                                                                 "level": "L99"})
    assert answer.status_code == 400
    detail = answer.json()["detail"]
    assert "no level 'L99'" in detail and LADDER.levels[-1].name in detail


def test_a_level_on_settings_without_a_ladder_is_refused(client):
    spec = registry.GAMES[NAME]
    game_class = spec.game_class()
    other = None
    for option in game_class.options:  # another value of an option: a configuration unladdered
        for value in (*option.choices, option.minimum, option.maximum):
            if value is None:
                continue
            candidate = {**OPTIONS, option.name: str(value)}
            if candidate != OPTIONS and all(found.settings != candidate for _, found in
                                            WITH_LADDER):
                other = candidate
                break
        if other:
            break
    if other is None:
        pytest.skip("every configuration of the game has a ladder")
    answer = client.post(f"/api/games/{NAME}/sessions", json={"options": other, "level": "L1"})
    assert answer.status_code == 400
    assert answer.json()["detail"].startswith("no levels here: no ladder for")


@pytest.mark.parametrize("level", [LADDER.levels[0].name, LADDER.levels[-1].name])
def test_the_engine_plays_as_a_level_even_at_a_short_page_time(client, level):
    made = client.post(f"/api/games/{NAME}/sessions",
                       json={"options": OPTIONS, "level": level, "humans": [1]})
    assert made.status_code == 201, made.text
    view = made.json()
    assert view["level"]["name"] == level
    with client.websocket_connect(f"/api/sessions/{view['id']}/think") as socket:
        socket.send_json({"type": "go", "seconds": 0.05})
        while (message := socket.receive_json())["type"] == "thought":
            pass
    assert message["type"] == "moved", message
    assert message["view"]["decisions"] == 1 and message["move"]
    # the level's move is legal and it is the person's turn now
    assert message["view"]["to_move"] == 1


def test_a_level_begins_afresh_at_each_new_game_and_not_within_one(monkeypatch):
    """As in the arena (`Engine.new_game`): the web worker starts a level's new game when
    a move does not go on from the level's last one."""
    import queue

    from aviary.web import workers

    monkeypatch.setattr(workers, "_reports", queue.Queue())
    spec = registry.GAMES[NAME]
    settings = tuple(sorted(LADDER.settings.items()))
    game = spec.make(**LADDER.settings)
    level = LADDER.levels[-1].spec
    key = (spec.name, level, settings)
    began: list[int] = []

    def move(position, history: list[str]) -> str:
        text, _ = workers.run_level(1, spec, level, settings, game.encode(position),
                                    [game.encode(state) for state in history])
        return text

    start = game.start()
    first = move(start, [])
    engine = workers._levels[key]
    new_game = engine.new_game
    monkeypatch.setattr(engine, "new_game",
                        lambda seed=None: (began.append(1), new_game(seed)))
    after = game.play(start, game.parse_move(start, first))
    again = game.play(after, game.legal_moves(after)[0])
    move(again, [start, after])  # the same game goes on
    assert began == []
    move(start, [])  # a new game
    assert began == [1]
