"""`aviary classify` as a user runs it: real processes, real files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

TRAIN = (
    "EastCoast snow in brooklyn #nyc\n"
    "EastCoast bagels and the subway\n"
    "EastCoast boston harbor snow\n"
    "WestCoast surf in la #california\n"
    "WestCoast tacos and sunshine\n"
    "WestCoast golden gate fog\n"
)
TEST = "EastCoast brooklyn bagels\nWestCoast surf and tacos\n"


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "aviary", "classify", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "train.txt").write_text(TRAIN)
    (tmp_path / "test.txt").write_text(TEST)
    return tmp_path


def assert_refused(result: subprocess.CompletedProcess[str], *words: str) -> None:
    assert result.returncode == 2, result.stdout + result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    assert "Traceback" not in result.stderr
    for word in words:
        assert word in result.stderr


def test_course_form_prints_accuracy_and_writes_predictions(files):
    result = run("train.txt", "test.txt", "--predictions", "out.txt", cwd=files)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "Classification accuracy = 100.00%"
    assert (files / "out.txt").read_text() == "EastCoast\nWestCoast\n"


def test_predictions_never_overwrite_an_existing_file(files):
    (files / "out.txt").write_text("keep me\n")
    assert_refused(run("train.txt", "test.txt", "--predictions", "out.txt", cwd=files),
                   "exists")
    assert (files / "out.txt").read_text() == "keep me\n"


def test_messy_bytes_crlf_and_blank_lines_are_read(files):
    (files / "messy.txt").write_bytes(
        b"EastCoast caf\xe9 brooklyn\r\n\r\nWestCoast surf \xff tacos\r\n"
    )
    result = run("train.txt", "messy.txt", cwd=files)
    assert result.returncode == 0, result.stderr
    assert "Classification accuracy = 100.00%" in result.stdout


def test_cross_validation_reports_a_standard_error(files):
    result = run("train.txt", "--cv", "3", cwd=files)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("3-fold cross-validation accuracy = ")
    assert "standard error" in result.stdout


def test_explain_lists_telling_words_and_one_prediction(files):
    result = run("train.txt", "--explain", "--explain-text", "surf at the beach", cwd=files)
    assert result.returncode == 0, result.stderr
    assert "Most telling words for EastCoast" in result.stdout
    assert "Most telling words for WestCoast" in result.stdout
    assert "-> WestCoast" in result.stdout and "surf" in result.stdout


def test_fit_then_predict_round_trip(files):
    fitted = run("fit", "train.txt", "--model", "m.json", cwd=files)
    assert fitted.returncode == 0, fitted.stderr
    assert json.loads((files / "m.json").read_text())["classes"] == ["EastCoast", "WestCoast"]
    (files / "texts.txt").write_text("brooklyn snow\n\nsurf and tacos\n")
    predicted = run("predict", "--model", "m.json", "texts.txt", cwd=files)
    assert predicted.returncode == 0, predicted.stderr
    assert predicted.stdout == "EastCoast\nWestCoast\n"
    labeled = run("predict", "--model", "m.json", "--labeled", "test.txt", cwd=files)
    assert labeled.stdout == "EastCoast\nWestCoast\n"
    assert "Classification accuracy = 100.00%" in labeled.stderr


def test_fit_never_overwrites_a_model_without_force(files):
    (files / "m.json").write_text("{}")
    assert_refused(run("fit", "train.txt", "--model", "m.json", cwd=files), "--force")
    assert (files / "m.json").read_text() == "{}"
    assert run("fit", "train.txt", "--model", "m.json", "--force", cwd=files).returncode == 0


def test_a_training_file_named_fit_is_read_as_the_course_form(files):
    (files / "fit").write_text(TRAIN)
    result = run("fit", "test.txt", cwd=files)
    assert result.returncode == 0, result.stderr
    assert "Classification accuracy = 100.00%" in result.stdout


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("absent.txt", "test.txt"), ("no such file", "absent.txt")),
        (("empty.txt", "test.txt"), ("empty",)),
        (("nolabel.txt", "test.txt"), ("line 2 has no label",)),
        (("oneclass.txt", "test.txt"), ("only one class",)),
        (("train.txt", "unseen.txt"), ("never seen", "NorthCoast")),
        (("train.txt", "test.txt", "--cv", "1"), ("--cv",)),
        (("train.txt", "test.txt", "--cv", "99"), ("99",)),
        (("train.txt", "test.txt", "--alpha", "0"), ("--alpha",)),
        (("train.txt", "test.txt", "--alpha", "best"), ("--alpha", "auto")),
        (("train.txt", "test.txt", "--char-ngrams", "5-3"), ("--char-ngrams",)),
        (("train.txt",), ("give TEST",)),
        (("predict", "--model", "absent.json", "test.txt"), ("no such model file",)),
        (("predict", "--model", "test.txt", "test.txt"), ("not a usable model",)),
        (("predict", "--model", "bad.json", "test.txt"), ("not a usable model", "format")),
        (("fit", "train.txt"), ("--model",)),
    ],
)
def test_bad_input_is_one_line_and_exit_2(files, args, words):
    (files / "empty.txt").write_bytes(b"\n\n")
    (files / "nolabel.txt").write_text("EastCoast snow\n  words with no label\n")
    (files / "oneclass.txt").write_text("EastCoast snow\nEastCoast rain\n")
    (files / "unseen.txt").write_text("NorthCoast moose\n")
    (files / "bad.json").write_text('{"weights": [1]}')
    assert_refused(run(*args, cwd=files), *words)


def test_twelve_city_files_with_bare_crs_and_latin1_are_classified(tmp_path):
    from aviary.classify.defaults import ALPHA_CHOICES, AUTO_EVENT_MODELS
    from aviary.classify.evaluate import accuracy, choose_settings
    from aviary.classify.naive_bayes import NaiveBayes
    from aviary.classify.synthetic import generate, write_tweet_file

    train, test = generate(1200, seed=21), generate(300, seed=22)
    write_tweet_file(tmp_path / "train.txt", train)
    write_tweet_file(tmp_path / "test.txt", test)
    result = run("train.txt", "test.txt", "--predictions", "out.txt", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    predicted = (tmp_path / "out.txt").read_text().splitlines()
    assert len(predicted) == len(test.labels)     # one prediction per LF-terminated record
    choice = choose_settings(NaiveBayes(), train.texts, train.labels, AUTO_EVENT_MODELS,
                             ALPHA_CHOICES, k=5)
    expected = choice.model.predict([t.replace("\r", " ") for t in test.texts])
    assert predicted == expected
    assert result.stdout.strip() == (
        f"Classification accuracy = {100 * accuracy(predicted, test.labels):.2f}%")
    assert accuracy(predicted, test.labels) > 0.3   # twelve classes: chance is below 0.25


def test_fit_reports_the_settings_cross_validation_chose(files):
    result = run("fit", "train.txt", "--model", "m.json", cwd=files)
    assert result.returncode == 0, result.stderr
    saved = json.loads((files / "m.json").read_text())
    assert f"{saved['event_model']}, alpha {saved['alpha']:g}" in result.stdout
    fixed = run("fit", "train.txt", "--model", "m2.json", "--alpha", "0.7", "--event-model",
                "bernoulli", cwd=files)
    assert "bernoulli, alpha 0.7" in fixed.stdout
