"""The course's tweet files, with default settings: above the issue's bars.

Skipped when ../shared/data (next to the repository) is absent: the course
files are not the project's to commit.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from aviary.classify.data import read_labeled
from aviary.classify.evaluate import accuracy, cross_validate
from aviary.classify.naive_bayes import NaiveBayes

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
TRAIN = DATA / "tweets.location.train.txt"
TEST = DATA / "tweets.location.test.txt"


@pytest.fixture(scope="module")
def train():
    if not (TRAIN.exists() and TEST.exists()):
        pytest.skip(f"course tweet files not found in {DATA}")
    return read_labeled(TRAIN)


def test_default_settings_score_at_least_85_percent_on_the_course_test_file(train):
    test = read_labeled(TEST)
    model = NaiveBayes().fit(train.texts, train.labels)
    assert accuracy(model.predict(test.texts), test.labels) >= 0.850


def test_default_settings_cross_validate_at_least_83_5_percent(train):
    result = cross_validate(NaiveBayes(), train.texts, train.labels, k=5, seed=0)
    assert result.mean >= 0.835
    assert 0 < result.standard_error < 0.01
