"""classify, horizon and arena routes through the TestClient: a model trained on small
generated data, generated photos, a real arena database played by `aviary arena run`."""

from __future__ import annotations

import io
import sqlite3
import warnings

import numpy as np
import pytest
from PIL import Image

from aviary.classify.naive_bayes import NaiveBayes
from aviary.horizon import synthetic
from aviary.web.app import create_app
from aviary.web.config import AppConfig

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

TRAIN = [
    ("Boston,_MA", "wicked cold in boston harbor today fenway"),
    ("Boston,_MA", "red sox at fenway park tonight boston"),
    ("Boston,_MA", "commuting on the T in boston again"),
    ("Chicago,_IL", "deep dish pizza in chicago loop"),
    ("Chicago,_IL", "windy city cubs at wrigley chicago"),
    ("Chicago,_IL", "lake michigan shore chicago morning"),
]


def png(rgb: np.ndarray) -> bytes:
    out = io.BytesIO()
    Image.fromarray(rgb).save(out, format="PNG")
    return out.getvalue()


@pytest.fixture(scope="module")
def tools(arena_db):
    model = NaiveBayes().fit([t for _, t in TRAIN], [label for label, _ in TRAIN])
    config = AppConfig(workers=2, classify_model=model, arena_db=arena_db,
                       upload_limit=200_000)
    with TestClient(create_app(config)) as client:
        yield client


@pytest.fixture(scope="module")
def bare(client):
    return client  # the session's app: no model, no arena


def test_classify_names_the_class_its_probability_and_the_words_that_drove_it(tools):
    info = tools.get("/api/classify").json()
    assert info == {"ready": True, "classes": ["Boston,_MA", "Chicago,_IL"]}
    answer = tools.post("/api/classify", json={"text": "pizza by the lake in chicago"}).json()
    assert answer["predicted"] == "Chicago,_IL" and answer["runner_up"] == "Boston,_MA"
    probabilities = [p["probability"] for p in answer["probabilities"]]
    assert probabilities[0] > 0.5 and sum(probabilities) == pytest.approx(1)
    tokens = {item["token"]: item for item in answer["evidence"]}
    assert tokens["chicago"]["weight"] > 0 and tokens["chicago"]["for"] == "Chicago,_IL"
    weights = [abs(item["weight"]) for item in answer["evidence"]]
    assert weights == sorted(weights, reverse=True)


def test_classify_refuses_empty_and_oversized_text_and_a_missing_model(tools, bare):
    assert tools.post("/api/classify", json={"text": "  "}).status_code == 400
    assert tools.post("/api/classify", json={"text": "a" * 5000}).status_code == 413
    assert tools.post("/api/classify", json={}).status_code == 422
    missing = bare.post("/api/classify", json={"text": "hello"})
    assert missing.status_code == 503 and "--classify-train" in missing.json()["detail"]
    assert bare.get("/api/classify").json() == {"ready": False, "classes": []}


def test_horizon_finds_three_lines_and_the_human_one_passes_through_the_click(tools):
    photo = synthetic.generate(3, height=96, width=128)
    uploaded = tools.post("/api/horizon/photos", content=png(photo.rgb))
    assert uploaded.status_code == 201
    assert (uploaded.json()["height"], uploaded.json()["width"]) == (96, 128)
    photo_id = uploaded.json()["id"]
    plain = tools.get(f"/api/horizon/photos/{photo_id}/ridges").json()
    assert len(plain["simple"]) == len(plain["map"]) == 128 and plain["human"] is None
    assert np.median(np.abs(np.array(plain["map"]) - photo.ridge)) <= 3
    row, col = int(photo.ridge[40]) + 10, 40
    clicked = tools.get(f"/api/horizon/photos/{photo_id}/ridges?row={row}&col={col}").json()
    assert clicked["human"][col] == row and clicked["point"] == {"row": row, "col": col}


def test_horizon_refuses_oversized_uploads_non_images_bad_points_and_unknown_photos(tools):
    big = np.random.default_rng(0).integers(0, 255, (400, 400, 3), dtype=np.uint8)
    too_big = tools.post("/api/horizon/photos", content=png(big))
    assert too_big.status_code == 413 and "too large" in too_big.json()["detail"]
    assert tools.post("/api/horizon/photos", content=b"not an image").status_code == 400
    assert tools.post("/api/horizon/photos", content=b"").status_code == 400
    photo_id = tools.post("/api/horizon/photos",
                          content=png(synthetic.generate(4, 64, 80).rgb)).json()["id"]
    outside = tools.get(f"/api/horizon/photos/{photo_id}/ridges?row=500&col=3")
    assert outside.status_code == 400 and "outside" in outside.json()["detail"]
    assert tools.get(f"/api/horizon/photos/{photo_id}/ridges?row=5").status_code == 400
    assert tools.get("/api/horizon/photos/nosuchphoto/ridges").status_code == 404
    assert tools.get("/api/horizon").json() == {"upload_limit": 200_000}


def test_arena_standings_and_a_replay_read_from_the_database(tools, arena_db):
    before = arena_db.read_bytes()
    arena = tools.get("/api/arena").json()
    assert arena["game"] == "pikachu" and arena["played"] == 4
    rows = {row["player"]: row for row in arena["standings"]}
    assert set(rows) == {"engine", "random"}
    assert rows["engine"]["games"] == 4
    assert rows["engine"]["wins"] + rows["engine"]["draws"] + rows["engine"]["losses"] == 4
    with sqlite3.connect(arena_db) as db:
        first_id, plies = db.execute("SELECT id, plies FROM games ORDER BY id").fetchone()
    replay = tools.get(f"/api/arena/games/{first_id}").json()
    assert len(replay["frames"]) == plies + 1
    assert (replay["rows"], replay["cols"]) == (7, 7)
    assert all(len(frame["board"]) == 49 for frame in replay["frames"])
    assert replay["frames"][0]["mover"] is None
    assert arena_db.read_bytes() == before  # read-only: not a byte changed


def test_arena_refuses_unknown_games_and_a_server_without_a_database(tools, bare):
    assert tools.get("/api/arena/games/9999").status_code == 404
    assert bare.get("/api/arena").status_code == 404
    assert "--arena" in bare.get("/api/arena").json()["detail"]


@pytest.mark.parametrize("path", ["/classify", "/horizon", "/arena"])
def test_tool_pages_are_served(bare, path):
    assert bare.get(path).status_code == 200


def test_classify_answers_log_probabilities_that_still_differ_when_p_rounds_to_one(tools):
    short = tools.post("/api/classify", json={"text": "chicago"}).json()
    long = tools.post("/api/classify", json={"text": "chicago " * 40 + "deep dish pizza"}).json()
    for answer in (short, long):
        rows = answer["probabilities"]
        assert [r["log_probability"] for r in rows] == sorted(
            (r["log_probability"] for r in rows), reverse=True)
        assert rows[0]["log_probability"] <= 0
    # more evidence: the runner-up falls further behind, even where P shows 1.000 for both
    assert (long["probabilities"][1]["log_probability"]
            < short["probabilities"][1]["log_probability"])


def test_horizon_says_in_plain_words_that_a_file_is_not_an_image(tools):
    refused = tools.post("/api/horizon/photos", content=b"plain text, not a photo")
    assert refused.status_code == 400
    detail = refused.json()["detail"]
    assert detail.startswith("this file is not a photo aviary can read")
    assert "BytesIO" not in detail and "0x" not in detail


def test_the_server_says_which_tools_it_was_started_with(tools, bare):
    assert tools.get("/api/tools").json() == {"classify": True, "horizon": True, "arena": True}
    assert bare.get("/api/tools").json() == {"classify": False, "horizon": True, "arena": False}
