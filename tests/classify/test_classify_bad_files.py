"""`aviary classify` with files that are not what they should be: one line, nothing replaced.

In-process through the `aviary` dispatcher (exit status and stderr as a user sees them),
on real files, symbolic links, FIFOs and random bytes.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from aviary.classify.naive_bayes import NaiveBayes
from aviary.cli import main as cli_main

TRAIN = "".join(f"{'East' if i % 2 else 'West'} {word} {i}\n" for i, word in
                enumerate(["snow brooklyn", "surf la", "bagels subway", "tacos sun"] * 3))


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "train.txt").write_text(TRAIN)
    (tmp_path / "test.txt").write_text(TRAIN)
    return tmp_path


def classify(capsys, *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    status = cli_main(["classify", *args])
    out, err = capsys.readouterr()
    return status, out, err


def refused(capsys, *args: str) -> str:
    status, _, err = classify(capsys, *args)
    assert status == 2 and err.count("\n") == 1 and err.startswith("aviary classify: "), err
    return err


def test_fit_force_never_replaces_a_symlink_or_a_device(files, capsys):
    link = files / "model.json"
    link.symlink_to(files / "test.txt")
    err = refused(capsys, "fit", str(files / "train.txt"), "--model", str(link), "--force")
    assert "symbolic link" in err and link.is_symlink()  # before: replaced by a regular file
    err = refused(capsys, "fit", str(files / "train.txt"), "--model", "/dev/null", "--force")
    assert "not a regular file" in err and Path("/dev/null").is_char_device()


def test_predictions_to_a_fifo_are_refused_not_blocked(files, capsys):
    fifo = files / "fifo"
    os.mkfifo(fifo)
    err = refused(capsys, str(files / "train.txt"), str(files / "test.txt"),
                  "--predictions", str(fifo), "--force")
    assert "not a regular file" in err


def test_predictions_replace_a_regular_file_atomically(files, capsys):
    target = files / "predicted.txt"
    target.write_text("old\n")
    status, _, err = classify(capsys, str(files / "train.txt"), str(files / "test.txt"),
                              "--predictions", str(target), "--force")
    assert status == 0, err
    assert len(target.read_text().splitlines()) == TRAIN.count("\n")
    assert sorted(p.name for p in files.iterdir()) == ["predicted.txt", "test.txt", "train.txt"]


def test_random_bytes_are_refused_at_once_as_binary(files, capsys):
    noise = files / "noise.bin"
    noise.write_bytes(random.Random(3).randbytes(5_000_000))
    status, _, err = classify(capsys, "fit", str(files / "train.txt"), "--model",
                              str(files / "m.json"))
    assert status == 0, err
    assert "NUL byte" in refused(capsys, "predict", "--model", str(files / "m.json"), str(noise))
    assert "NUL byte" in refused(capsys, str(noise), str(noise))


def test_predict_streams_a_file_longer_than_one_batch_with_the_same_answers(files, capsys):
    from aviary.classify import command

    lines = [f"{random.Random(i).choice(['snow', 'surf', 'tacos', 'bagels'])} {i}"
             for i in range(2 * command.PREDICT_BATCH + 7)]
    (files / "many.txt").write_text("\n".join(lines) + "\n")
    status, _, err = classify(capsys, "fit", str(files / "train.txt"), "--model",
                              str(files / "m.json"))
    assert status == 0, err
    status, out, err = classify(capsys, "predict", "--model", str(files / "m.json"),
                                str(files / "many.txt"))
    assert status == 0, err
    from aviary.classify.model_file import load_model

    model: NaiveBayes = load_model(files / "m.json")
    assert out.splitlines() == model.predict(lines)


def test_no_words_without_ngrams_names_the_flags(files, capsys):
    err = refused(capsys, str(files / "train.txt"), str(files / "test.txt"), "--no-words",
                  "--char-ngrams", "off")
    assert "--no-words" in err and "words=False" not in err
