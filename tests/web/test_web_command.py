"""`aviary serve`'s command line: bad input is one line and exit status 2, nothing started."""

from __future__ import annotations

import pytest

from aviary import cli


@pytest.mark.parametrize("argv, message", [
    (["--port", "70000"], "--port must be 1-65535"),
    (["--workers", "0"], "--workers must be at least 1"),
    (["--arena", "/nonexistent/results.db"], "no such arena database"),
    (["--classify-model", "/nonexistent/model.json"], "cannot read model"),
    (["--bogus"], "unrecognized arguments"),
])
def test_bad_serve_arguments_are_one_line_and_exit_2(capsys, argv, message):
    assert cli.main(["serve", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("aviary serve: ") and message in err and err.count("\n") == 1


def test_a_training_file_with_one_class_is_refused(capsys, tmp_path):
    train = tmp_path / "train.txt"
    train.write_text("Boston,_MA one\nBoston,_MA two\n")
    assert cli.main(["serve", "--classify-train", str(train)]) == 2
    assert "at least two classes" in capsys.readouterr().err


def test_serve_is_listed_among_the_commands(capsys):
    assert cli.main(["--help"]) == 0
    assert "serve" in capsys.readouterr().out
