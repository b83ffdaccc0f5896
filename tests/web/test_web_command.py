"""`aviary serve`'s command line: bad input is one line and exit status 2, nothing started."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from aviary import cli
from aviary.web.command import WEB_PACKAGES


@pytest.mark.parametrize("argv, message", [
    (["--port", "70000"], "--port must be 1-65535"),
    (["--workers", "0"], "--workers must be at least 1"),
    (["--arena", "/nonexistent/results.db"], "no such arena database"),
    (["--grades", "/nonexistent/site"], "--grades /nonexistent/site: no leaderboard there"),
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


HIDE_WEB = """
import importlib.abc, sys
class _Hidden(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("fastapi", "uvicorn", "websockets"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, _Hidden())
"""


def without_web_packages(tmp_path, *args: str) -> subprocess.CompletedProcess[str]:
    """`python -m aviary ARGS` in an install without the web extra (its imports refused)."""
    (tmp_path / "sitecustomize.py").write_text(HIDE_WEB)
    path = os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, "-m", "aviary", *args], capture_output=True,
                          text=True, env=dict(os.environ, PYTHONPATH=path), timeout=60,
                          stdin=subprocess.DEVNULL)


def test_without_the_web_extra_serve_says_what_to_install_and_exits_2(tmp_path):
    result = without_web_packages(tmp_path, "serve", "--port", "8765")
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert result.stderr.startswith("aviary serve: the web app needs fastapi, uvicorn, "
                                    "websockets"), result.stderr
    assert "pip install 'aviary[web]'" in result.stderr
    # everything else runs without them
    assert without_web_packages(tmp_path, "serve", "--help").returncode == 0
    course = without_web_packages(tmp_path, "ijk", "move", "+", "A" + "." * 35, "det", "1")
    assert course.returncode == 0 and course.stdout.strip(), course.stderr


def test_the_web_packages_are_the_web_extra_and_the_test_extra_keeps_them():
    project = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml")
                            .read_text())["project"]
    def names(requirements: list[str]) -> set[str]:
        return {re.split(r"[<>=\[ ;]", requirement)[0] for requirement in requirements}

    web = names(project["optional-dependencies"]["web"])
    assert web == set(WEB_PACKAGES)
    assert not web & names(project["dependencies"])
    assert web <= names(project["optional-dependencies"]["test"])
