"""The README's and the docs' examples run as written.

Every fenced ``sh`` block of README.md and of every page under docs/ is split into
commands (a line ending in ``\\`` continues on the next); each block runs top to bottom in one fresh
temporary directory (a later command may use what an earlier one wrote), with the
virtual environment's ``bin`` first on PATH, as the README asks the reader to
have it, and the user's own cache directory (so the Sebastian table and compiled
kernels a previous run left are reused, as for a reader). Every command must exit
0; where it is cheap to say, its output must have the expected shape (`EXPECT`).

Commands that cannot run here, offline and in seconds, are listed in `SKIP` with
the reason; `SKIP` entries that match no README command fail the test, so the list
cannot go stale. The ``python`` blocks run too, each as one script.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").rglob("*.md"))]
BIN = Path(sys.executable).parent

# A README command starting with one of these is not run, for the reason given.
SKIP = {
    "python3 -m venv .venv": "creates a virtual environment and installs into it (network, "
                             "minutes): the setup the test suite itself runs in; the commands "
                             "after the install are run from the sections below",
    "aviary warmup": "compiles every kernel and solves the endgame tables (about 2 min cold); "
                     "tests/test_warmup.py covers it",
    "aviary play": "an interactive game in the terminal; tests/test_play.py plays it in tmux",
    "aviary ijk ai human": "an interactive game (a human types moves); tests/games/ijk cover it",
    "aviary serve": "a web server that runs until stopped; tests/web drive it",
    "aviary arena run --game pikachu --option n=8 --time 1 --games 40": "a real match (an "
        "hour); the quick run in docs/arena.md is the same command, fewer, faster games",
    "aviary arena export pikachu-1s.sqlite": "exports the hour-long match above",
    "pip install -e": "installs into the environment (network, a clone's folder): the test "
                      "extra the suite runs in already has it",
    "aviary arena page benchmarks/results": "writes the committed benchmarks page; "
        "tests/arena/test_benchmarks_page.py checks it is what this command writes",
}

# A README command containing the key must print output in which the pattern is found
# (re.search, multiline): the shape of its answer, not just exit status 0.
BOARD = r"(?m)^[.wWbB]{64}\n?\Z"
EXPECT = {
    "aviary pikachu 8 w": BOARD,
    "aviary betsy w ": r"(?m)^[.RNBQKPrnbqkp]{64}\n?\Z",
    "aviary betsy b ": r"(?m)^[.RNBQKPrnbqkp]{64}\n?\Z",
    "aviary foxgeese f '##...####...##......": r"(?m)^[#.FGE]{49}\n?\Z",
    "aviary ijk move": r"(?m)^[UDLRS]\n?\Z",
    "aviary sebastian solve": r"245\.87",
    "aviary sebastian play --games 1000": r"1000",
    "aviary sebastian advise": r"\d+\.\d",
    "python -m aviary.classify.synthetic": r"wrote train\.txt",
    "aviary classify train.txt test.txt": r"Classification accuracy = \d+\.\d\d%",
    "aviary classify train.txt --cv 5": r"accuracy = \d+\.\d\d% \(standard error",
    "aviary classify --help": r"usage",
    "python -m aviary.horizon.synthetic": r"wrote photo\.jpg",
    "aviary horizon photo.jpg --json": r'"map": \[',
    "aviary arena report": r"(?i)elo",
    "aviary openspiel run open_spiel.python.examples.mcts": r"Overall returns \[",
}

# Files a command must leave behind (checked after the command).
FILES = {
    "aviary classify train.txt test.txt --predictions out.txt": ["out.txt"],
    "aviary classify fit train.txt --model m.json": ["m.json"],
    "aviary horizon photo.jpg 73 127": ["output_simple.jpg", "output_map.jpg",
                                       "output_human.jpg", "edges.jpg"],
    "aviary horizon photo.jpg --point": ["results/output_overlay.jpg"],
    "aviary arena run": ["results.sqlite"],
    "aviary arena report": ["standings.csv", "all.json"],
}


@dataclass(frozen=True)
class Block:
    page: str  # the page, relative to the repository
    line: int  # where the block starts in it
    language: str
    commands: tuple[str, ...]  # sh: one logical command each; python: the whole script

    @property
    def name(self) -> str:
        return f"{self.page}:{self.line}"


def readme_blocks() -> list[Block]:
    """The fenced ``sh`` and ``python`` blocks of the README and the docs."""
    return [block for page in PAGES for block in page_blocks(page)]


def page_blocks(page: Path) -> list[Block]:
    blocks: list[Block] = []
    name = page.relative_to(ROOT).as_posix()
    lines = page.read_text().splitlines()
    k = 0
    while k < len(lines):
        opening = re.fullmatch(r"```(\w+)\s*", lines[k])
        if not opening:
            k += 1
            continue
        start, body = k + 1, []
        k += 1
        while k < len(lines) and not lines[k].startswith("```"):
            body.append(lines[k])
            k += 1
        k += 1
        language = opening.group(1)
        if language == "python":
            blocks.append(Block(name, start, language, ("\n".join(body),)))
        elif language in ("sh", "bash", "shell"):
            blocks.append(Block(name, start, language, tuple(shell_commands(body))))
    return blocks


def shell_commands(body: list[str]) -> list[str]:
    """Logical commands: continuation lines joined; blank and comment-only lines dropped."""
    commands: list[str] = []
    pending = ""
    for raw in body:
        line = raw.rstrip()
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        commands.append(pending + line)
        pending = ""
    if pending:
        commands.append(pending)
    return commands


def skip_reason(command: str) -> str | None:
    for prefix, reason in SKIP.items():
        if command.startswith(prefix):
            return reason
    return None


def environment() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(BIN.parent)
    env.pop("PYTHONPATH", None)
    return env


BLOCKS = readme_blocks()


def test_the_readme_has_runnable_examples_and_every_skip_is_used():
    commands = [c for block in BLOCKS if block.language != "python" for c in block.commands]
    in_readme = [c for block in BLOCKS if block.page == "README.md" for c in block.commands]
    assert len(in_readme) >= 12, "README.md lost its examples?"
    assert len(commands) >= 40, "the docs lost their examples?"
    for prefix in SKIP:
        assert any(c.startswith(prefix) for c in commands), f"SKIP entry {prefix!r} is stale"
    for key in [*EXPECT, *FILES]:
        assert any(key in c for c in commands), f"no README command contains {key!r}"


@pytest.mark.parametrize("block", BLOCKS, ids=lambda block: block.name)
def test_readme_block_runs_as_written(block: Block, tmp_path: Path):
    runnable = [c for c in block.commands if skip_reason(c) is None]
    if not runnable:
        pytest.skip("; ".join(sorted({skip_reason(c) or "" for c in block.commands})))
    if block.language == "python":
        run(block, [sys.executable, "-c", block.commands[0]], "the python block", tmp_path)
        return
    for command in runnable:
        result = run(block, ["bash", "-c", command], command, tmp_path)
        for key, pattern in EXPECT.items():
            if key in command:
                assert re.search(pattern, result.stdout), (
                    f"{block.name}: `{command}` printed:\n{result.stdout[-2000:]}")
        for key, paths in FILES.items():
            if key in command:
                for path in paths:
                    assert (tmp_path / path).is_file(), f"{block.name}: `{command}` left no {path}"


def run(block: Block, argv: list[str], what: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(argv, cwd=cwd, env=environment(), capture_output=True, text=True,
                            timeout=300, stdin=subprocess.DEVNULL)
    assert result.returncode == 0, (
        f"{block.name}: `{what}` exited {result.returncode}\n"
        f"stdout: {result.stdout[-1500:]}\nstderr: {result.stderr[-1500:]}")
    return result
