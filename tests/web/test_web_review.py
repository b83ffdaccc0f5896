"""The review of a finished game: every ply graded by the engine at a fixed node budget."""

from __future__ import annotations

import time

import pytest

from aviary.games import registry
from aviary.web.review import GRADES, WIN, grade, worth

NAMES = ("best", *(name for name, _ in GRADES))


def new(client, name="pikachu", **body):
    response = client.post(f"/api/games/{name}/sessions", json=body)
    assert response.status_code == 201, response.text
    return response.json()


def reviewed(client, session_id: str, deadline: float = 300.0) -> tuple[dict, float, list]:
    """Start a review and poll it to its end: (the review, seconds taken, progress seen)."""
    started = time.monotonic()
    answer = client.post(f"/api/sessions/{session_id}/review", json={})
    assert answer.status_code == 202, answer.text
    progress = []
    while not (found := client.get(f"/api/reviews/{answer.json()['id']}").json())["finished"]:
        progress.append(found["done"])
        assert time.monotonic() - started < deadline, found
        time.sleep(0.05)
    return found, time.monotonic() - started, progress


def test_grades_follow_the_evaluation_lost():
    assert [grade(loss) for loss in (0, 49, 50, 99, 100, 299, 300, 5000)] == [
        "good", "good", "inaccuracy", "inaccuracy", "mistake", "mistake", "blunder", "blunder"]
    assert worth(35, None) == 35 and worth(0, 3) > worth(0, 5) > 10_000 > worth(0, -5)


@pytest.mark.parametrize("name", [spec.name for spec in registry.board_games()])
def test_every_ply_of_a_20_ply_game_is_graded(client, name):
    """20 plies (the first offered move each time), then the review: a grade, the engine's
    better move and both evaluations for every ply; progress is reported as it runs."""
    view = new(client, name)
    for _ in range(20):
        if view["outcome"] is not None:
            break
        view = client.post(f"/api/sessions/{view['id']}/move",
                           json={"move": view["moves"][0]["text"]}).json()
    found, seconds, progress = reviewed(client, view["id"])
    print(f"{name}: reviewed {view['decisions']} plies in {seconds:.2f} s")
    assert found["error"] is None, found
    decisions = [ply for ply in view["history"] if not ply["chance"]]
    assert [ply["text"] for ply in found["plies"]] == [ply["text"] for ply in decisions]
    for ply in found["plies"]:
        assert ply["grade"] in NAMES and ply["loss"] >= 0 and ply["best"], ply
        assert (ply["grade"] == "best") == (ply["loss"] == 0 or ply["text"] == ply["best"])
    assert len(found["values"]) == len(view["history"]) + 1
    assert found["done"] == found["total"] == len(view["history"]) + 1
    assert progress == sorted(progress)


def test_a_move_that_hands_over_the_game_is_a_blunder_with_a_better_move_shown(client):
    """Pikachu 7x7, a Pichu each: w's d3-d4 steps next to b's Pichu, which jumps it and wins."""
    cells = ["."] * 49
    cells[17], cells[31] = "w", "b"  # d3, d5
    view = new(client, options={"n": 7}, board="".join(cells), player="w")
    played = client.post(f"/api/sessions/{view['id']}/move", json={"move": "d3-d4"}).json()
    played = client.post(f"/api/sessions/{view['id']}/move", json={"move": "d5-d3"}).json()
    assert played["outcome"]["text"] == "b wins (captured-all)"
    found, _, _ = reviewed(client, view["id"])
    first, second = found["plies"]
    assert first["grade"] == "blunder" and first["best"] != "d3-d4", first
    assert first["best"] in [move["text"] for move in view["moves"]]
    assert first["best_start"] == 17 and first["best_end"] is not None
    assert second["grade"] == "best" and second["best"] == "d5-d3", second
    assert found["values"][-1] == -WIN  # the finished game: b won


def test_a_game_without_moves_and_an_unknown_review_are_refused(client):
    view = new(client)
    assert client.post(f"/api/sessions/{view['id']}/review", json={}).status_code == 400
    assert client.post(f"/api/sessions/{view['id']}/review",
                       json={"nodes": 10}).status_code == 400
    assert client.get("/api/reviews/nonsense").status_code == 404
