"""Saved models: JSON round trips exactly; anything else is refused with a reason."""

from __future__ import annotations

import json
import os
import pickle

import numpy as np
import pytest

from aviary.classify.model_file import load_model, model_to_dict, save_model
from aviary.classify.naive_bayes import NaiveBayes
from aviary.classify.tokenize import Tokenizer

TEXTS = ["snow snow bagel #nyc", "bagel subway", "surf snow @joe", "tacos surf", "rain seattle"]
LABELS = ["East", "East", "West", "West", "North"]
QUERIES = ["snow surf", "bagel tacos", "unknown words only", "rain #nyc"]


@pytest.mark.parametrize("event_model", ["multinomial", "bernoulli", "complement"])
def test_saved_model_predicts_exactly_like_the_original(tmp_path, event_model):
    model = NaiveBayes(event_model=event_model, alpha=0.3,
                       tokenizer=Tokenizer(char_ngrams=(2, 4), hashtags="keep"))
    model.fit(TEXTS, LABELS)
    path = tmp_path / "model.json"
    save_model(model, path)
    loaded = load_model(path)
    assert loaded.tokenizer == model.tokenizer
    assert loaded.event_model == event_model and loaded.alpha == 0.3
    assert np.array_equal(loaded.predict_log_proba(QUERIES), model.predict_log_proba(QUERIES))
    assert list(path.parent.iterdir()) == [path]  # no temporary file left behind


def test_model_file_gets_ordinary_permissions(tmp_path):
    previous = os.umask(0o022)
    try:
        save_model(NaiveBayes().fit(TEXTS, LABELS), tmp_path / "model.json")
    finally:
        os.umask(previous)
    assert (tmp_path / "model.json").stat().st_mode & 0o777 == 0o644


def test_model_file_is_plain_json_with_integer_counts(tmp_path):
    model = NaiveBayes().fit(TEXTS, LABELS)
    path = tmp_path / "model.json"
    save_model(model, path)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["classes"] == ["East", "North", "West"]
    assert all(isinstance(n, int) for row in data["feature_count"] for n in row)


def broken(change):
    data = model_to_dict(NaiveBayes().fit(TEXTS, LABELS))
    change(data)
    return data


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        ({"weights": [1, 2]}, "not an aviary classify model"),
        (broken(lambda d: d.update(version=99)), "version"),
        (broken(lambda d: d.update(classes=["only"])), "at least two"),
        (broken(lambda d: d["feature_count"].pop()), "shape"),
        (broken(lambda d: d["feature_count"][0].__setitem__(0, -5)), "non-negative"),
        (broken(lambda d: d.update(alpha="big")), "alpha"),
        (broken(lambda d: d.update(event_model="gaussian")), "event_model"),
        (broken(lambda d: d["tokenizer"].update(stemming=True)), "tokenizer"),
        (broken(lambda d: d.update(features=d["features"][:-1] + [d["features"][0]])),
         "duplicates"),
    ],
)
def test_malformed_models_are_refused_with_a_reason(tmp_path, data, reason):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match=reason):
        load_model(path)


def test_a_pickle_is_never_unpickled(tmp_path):
    path = tmp_path / "model.json"
    path.write_bytes(pickle.dumps(NaiveBayes().fit(TEXTS, LABELS)))
    with pytest.raises(ValueError, match="not"):
        load_model(path)
