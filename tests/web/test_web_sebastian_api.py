"""Sebastian's page API (the registry's `web` module) through the TestClient; the table is
solved once into a temporary cache directory."""

from __future__ import annotations

import pytest

from aviary.games.sebastian.rules import BONUS_POINTS, CATEGORIES, NUMBERS


@pytest.fixture(scope="module")
def seb(client, session_cache):
    def call(action, body, status=200):
        response = client.post(f"/api/sebastian/{action}", json=body)
        assert response.status_code == status, response.text
        return response.json()

    return call


def test_the_page_is_served_and_listed(client):
    assert client.get("/sebastian").status_code == 200
    assert "sebastian" in [page["name"] for page in client.get("/api/pages").json()]


def test_rules_name_the_thirteen_categories(seb):
    assert seb("rules", {})["categories"] == list(CATEGORIES)


def test_a_first_roll_throws_five_dice_and_a_reroll_keeps_the_rest(seb):
    dice = seb("roll", {})["dice"]
    assert len(dice) == 5 and all(1 <= d <= 6 for d in dice)
    again = seb("roll", {"dice": [6, 6, 6, 1, 2], "reroll": [3, 4]})["dice"]
    assert again[:3] == [6, 6, 6]


@pytest.mark.parametrize("body", [
    {"dice": [1, 2, 3], "reroll": []},
    {"dice": [1, 2, 3, 4, 7], "reroll": []},
    {"dice": [1, 2, 3, 4, 5], "reroll": [5]},
    {"dice": [1, 2, 3, 4, 5], "reroll": [1, 1]},
])
def test_bad_rolls_are_refused(seb, body):
    assert "detail" in seb("roll", body, status=400)


def test_unknown_actions_and_bodies_that_are_not_json_objects_are_refused(client):
    assert client.post("/api/sebastian/cheat", json={}).status_code == 404
    assert client.post("/api/sebastian/roll", content=b"not json").status_code == 400
    assert client.post("/api/sebastian/roll", json=[1, 2]).status_code == 400


def test_advice_before_the_first_turn_is_the_games_exact_optimum(seb):
    advice = seb("advice", {"dice": [1, 1, 2, 5, 6], "roll": 1, "scorecard": {}})
    assert advice["before"] == pytest.approx(245.87, abs=0.01)
    expected = [k["expected"] for k in advice["keeps"]]
    assert expected == sorted(expected, reverse=True)
    assert max(expected) >= advice["before"] - 60  # a real value, not a placeholder
    for option in advice["keeps"]:
        kept = [d for i, d in enumerate([1, 1, 2, 5, 6]) if i not in option["reroll"]]
        assert sorted(kept) == option["keep"]


def test_advice_on_the_last_turn_is_exactly_the_points_still_to_score(seb):
    card = {name: 0 for name in CATEGORIES if name != "pandemonium"}
    advice = seb("advice", {"dice": [1, 2, 3, 4, 6], "roll": 3, "scorecard": card})
    assert advice["categories"] == [{"category": "pandemonium", "points": 16,
                                     "expected": 16.0}]


def test_the_bonus_counts_once_the_numbers_are_filled_with_63_or_more(seb):
    card = {name: 3 * face for name, face in NUMBERS.items() if name != "sextus"}
    scored = seb("score", {"dice": [6, 6, 6, 6, 1], "category": "sextus", "scorecard": card})
    assert scored["points"] == 24 and scored["bonus"] == BONUS_POINTS
    assert scored["total"] == sum(card.values()) + 24 + BONUS_POINTS
    assert not scored["over"]


@pytest.mark.parametrize("body, message", [
    ({"dice": [1, 1, 1, 1, 1], "category": "primis", "scorecard": {"primis": 3}},
     "already filled"),
    ({"dice": [1, 1, 1, 1, 1], "category": "yahtzee", "scorecard": {}}, "unknown category"),
    ({"dice": [1, 1, 1, 1, 1], "category": "primis", "scorecard": {"secundus": 3}},
     "cannot add up"),
])
def test_bad_scoring_requests_are_refused(seb, body, message):
    assert message in seb("score", body, status=400)["detail"]


def test_advice_refuses_a_bad_roll_number_and_a_finished_game(seb):
    assert seb("advice", {"dice": [1, 2, 3, 4, 5], "roll": 4, "scorecard": {}},
               status=400)["detail"] == "roll must be 1, 2 or 3"
    full = {name: 0 for name in CATEGORIES}
    assert "game is over" in seb("advice", {"dice": [1, 2, 3, 4, 5], "roll": 1,
                                            "scorecard": full}, status=400)["detail"]


def test_rules_say_what_each_category_scores_as_the_rules_score_it(seb):
    from aviary.games.sebastian.rules import score

    answer = seb("rules", {})
    described = dict(zip(answer["categories"], answer["scores"], strict=True))
    for category, dice in [("company", [1, 2, 3, 4, 5]), ("prattle", [1, 2, 3, 4, 6]),
                           ("squadron", [2, 2, 3, 3, 3]), ("quintuplicatam", [4] * 5)]:
        assert described[category].startswith(f"{score(dice, category)} for ")
    assert described["tertium"] == "the sum of the 3s" and score([3, 3, 1, 2, 5], "tertium") == 6
