"""Every command against broken arguments and files: exit 2, one line, inputs unchanged.

Wrong counts, missing files, directories, empty, binary, corrupt, special and huge
files, for each subcommand of `aviary`. Each case runs through the real dispatcher
(`aviary.cli.main`) in this process, so it is quick; the cases whose regression
would block for ever (a FIFO, an endless device) run as subprocesses with a timeout.
Before and after every case the inputs' checksums are compared, and the working
directory must stay empty (no output, no -wal or -shm written beside anything).
"""

from __future__ import annotations

import hashlib
import os
import random
import sqlite3
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from aviary.cli import main as cli_main

START8 = "." * 8 + "w" * 8 * 2 + "." * 8 * 2 + "b" * 8 * 2 + "." * 8


def _png(path: Path, width: int, height: int, pixels: bool = True) -> None:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    raw = b"".join(b"\0" + b"\x80" * 3 * width for _ in range(height)) if pixels else b"\0"
    path.write_bytes(b"\x89PNG\r\n\x1a\n"
                     + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
                     + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> Path:
    """Every kind of broken input, once."""
    root = tmp_path_factory.mktemp("inputs")
    rng = random.Random(15)
    (root / "dir").mkdir()
    (root / "empty.txt").touch()
    (root / "blank.txt").write_text("\n  \n\t\n")
    (root / "binary.bin").write_bytes(rng.randbytes(65536))
    (root / "oneclass.txt").write_text("East a b\nEast c d\n")
    (root / "train.txt").write_text("East snow bagels\nWest surf tacos\nEast subway\n")
    (root / "nolabel.txt").write_text("East fine\n  no label here\n")
    (root / "longline.txt").write_bytes(b"East " + b"x" * (2 << 20) + b"\n")
    (root / "model.json").write_text('{"format": "aviary-naive-bayes", "version": 1, "cl')
    _png(root / "photo.png", 40, 30)
    (root / "truncated.png").write_bytes((root / "photo.png").read_bytes()[:60])
    _png(root / "huge.png", 20000, 20000, pixels=False)
    other = root / "other.sqlite"
    with sqlite3.connect(other) as connection:
        connection.execute("CREATE TABLE notes (text TEXT)")
    connection.close()
    arena_db = root / "arena.sqlite"
    subprocess.run([sys.executable, "-m", "aviary", "arena", "run", "--n", "7", "--games", "2",
                    "--max-plies", "4", "--jobs", "1", "--db", str(arena_db),
                    "aviary:random?seed=1", "aviary:random?seed=2"],
                   check=True, capture_output=True, timeout=120)
    data = bytearray(arena_db.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    data[page:] = rng.randbytes(len(data) - page)
    (root / "corrupt.sqlite").write_bytes(bytes(data))
    os.mkfifo(root / "fifo")
    (root / "earlier").mkdir()  # what `aviary horizon photo.png 5 5 --out earlier` left
    for name in ("output_simple.jpg", "output_map.jpg", "output_human.jpg", "edges.jpg"):
        (root / "earlier" / name).write_bytes(rng.randbytes(64))
    return root


def checksums(root: Path) -> dict[str, str]:
    return {str(path.relative_to(root)): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(root.rglob("*")) if path.is_file()}


# (command line with {in} standing for the inputs folder, words the one line must hold)
CASES: list[tuple[str, str]] = [
    # pikachu: the course command line
    ("pikachu", "usage: aviary pikachu"),
    ("pikachu 8 w", "got 2 arguments"),
    (f"pikachu x w {START8} 1", "N must be an integer"),
    (f"pikachu 8 q {START8} 1", "player must be 'w' or 'b'"),
    ("pikachu 8 w ... 1", "BOARD must have"),
    (f"pikachu 8 w {START8} -1", "SECONDS must be a number of seconds above 0"),
    (f"pikachu 8 w {START8} inf", "SECONDS must be a number of seconds above 0"),
    (f"pikachu 8 w {START8} 1_0", "SECONDS must be a number of seconds above 0"),  # not 10
    (f"pikachu 8 w {START8} nan", "SECONDS must be a number of seconds above 0"),
    # SECONDS beyond a day (the clocks' arithmetic overflows near 1e308)
    (f"pikachu 8 w {START8} 1e308",
     "SECONDS must be a number of seconds above 0 and at most 86400"),
    ("betsy w RNBQKBNRPPPPPPPP" + "." * 32 + "pppppppprnbqkbnr 1e308",
     "SECONDS must be a number of seconds above 0 and at most 86400"),
    ("foxgeese f ##...####...##..........F...GGGGGGG##GGG####GGG## 1e308",
     "SECONDS must be a number of seconds above 0 and at most 86400"),
    ("ijk move + A" + "." * 35 + " det 1e308",
     "SECONDS must be a number of seconds above 0 and at most 86400"),
    ("ijk move + A" + "." * 35 + " det 1_0", "SECONDS must be a number of seconds above 0"),
    # sebastian
    ("sebastian", "required"),
    ("sebastian play --games 0", "--games must be at least 1"),
    ("sebastian play --seed -1", "--seed must be from 0"),
    ("sebastian play --games x", "invalid int value"),
    ("sebastian advise --dice 1 2 3 --roll 1", "exactly five values"),
    ("sebastian advise --dice 1 2 3 4 5 --roll 4", "--roll must be 1, 2 or 3"),
    ("sebastian solve extra", "unrecognized arguments"),
    # classify: the course form
    ("classify", "required: TRAIN"),
    ("classify {in}/missing.txt {in}/train.txt", "no such file"),
    ("classify {in}/dir {in}/train.txt", "is a directory"),
    ("classify {in}/empty.txt {in}/train.txt", "is empty"),
    ("classify {in}/blank.txt {in}/train.txt", "is empty"),
    ("classify {in}/binary.bin {in}/train.txt", "NUL byte"),
    ("classify {in}/oneclass.txt {in}/train.txt", "only one class"),
    ("classify {in}/nolabel.txt {in}/train.txt", "line 2 has no label"),
    ("classify {in}/longline.txt {in}/train.txt", "longer than"),
    ("classify {in}/train.txt {in}/train.txt --cv 1", "--cv K needs K >= 2"),
    ("classify {in}/train.txt {in}/train.txt --alpha -1", "--alpha must be a positive"),
    ("classify {in}/train.txt {in}/train.txt --predictions {in}/dir", "is a directory"),
    ("classify {in}/train.txt {in}/train.txt --predictions {in}/photo.png", "exists"),
    ("classify {in}/train.txt {in}/train.txt --predictions {in}/nodir/p.txt",
     "does not exist"),
    # classify fit / predict
    ("classify fit --model {in}/m.json", "required: TRAIN"),
    ("classify fit {in}/binary.bin --model m.json", "NUL byte"),
    ("classify fit {in}/train.txt --model {in}/dir", "is a directory"),
    ("classify fit {in}/train.txt --model {in}/model.json", "exists"),
    ("classify fit {in}/train.txt --model {in}/train.txt --force", "input file"),
    ("classify predict --model {in}/missing.json {in}/train.txt", "no such model file"),
    ("classify predict --model {in}/dir {in}/train.txt", "not a regular file"),
    ("classify predict --model {in}/model.json {in}/train.txt", "not a usable model"),
    ("classify predict --model {in}/binary.bin {in}/train.txt", "not a usable model"),
    ("classify predict --model {in}/empty.txt {in}/train.txt", "not a usable model"),
    # horizon
    ("horizon", "required: image"),
    ("horizon {in}/missing.png", "no such file"),
    ("horizon {in}/dir", "is a directory"),
    ("horizon {in}/empty.txt", "not a readable image"),
    ("horizon {in}/binary.bin", "not a readable image"),
    ("horizon {in}/truncated.png", "not a readable image"),
    ("horizon {in}/huge.png", "the limit is 25"),
    ("horizon {in}/photo.png 5", "give both ROW and COL"),
    ("horizon {in}/photo.png 99 5", "outside the image"),
    ("horizon {in}/photo.png --point 1,2,3", "--point wants ROW,COL"),
    ("horizon {in}/photo.png --point 3,4 --point 9,4", "share column 4"),
    ("horizon {in}/photo.png --out {in}/photo.png", "exists and is not a folder"),
    # arena
    ("arena", "required"),
    ("arena run --db r.sqlite aviary:random", "at least two players"),
    ("arena run --db {in}/dir aviary:random aviary:random", "is a directory"),
    ("arena run --db {in}/binary.bin aviary:random aviary:random", "not an SQLite database"),
    ("arena run --db {in}/other.sqlite aviary:random aviary:random", "not an arena database"),
    ("arena run --db {in}/corrupt.sqlite aviary:random aviary:random", "damaged"),
    ("arena run --db {in}/arena.sqlite aviary:random aviary:random", "already holds"),
    ("arena run --db r.sqlite --time inf aviary:random aviary:random",
     "--time must be a number of seconds above 0 and at most 86400"),
    ("arena run --db r.sqlite aviary:engine?time=1e308 aviary:random",
     "time= must be a number of seconds above 0 and at most 86400"),
    ("arena run --db r.sqlite aviary:engine?nodes=0 aviary:random", "nodes must be at least 1"),
    ("arena export {in}/arena.sqlite", "required: --out"),
    ("arena export {in}/missing.sqlite --out x.jsonl", "no such database"),
    ("arena import {in}/empty.txt --db new.sqlite", "not an arena export"),
    ("arena import {in}/binary.bin --db new.sqlite", "not a readable arena export"),
    ("arena page {in}/empty.txt --out page.md", "not an arena export"),
    ("arena run --db r.sqlite --opening-plies 1000 aviary:random aviary:random", "end before"),
    ("arena run --db r.sqlite {in}/dir aviary:random", "is a directory"),
    ("arena run --db r.sqlite {in}/missing aviary:random", "not found"),
    ("arena resume", "required: db"),
    ("arena resume {in}/missing.sqlite", "no such database"),
    ("arena resume {in}/dir", "is a directory"),
    ("arena resume {in}/empty.txt", "is empty"),
    ("arena resume {in}/binary.bin", "not an SQLite database"),
    ("arena resume {in}/other.sqlite", "not an arena database"),
    ("arena resume {in}/corrupt.sqlite", "damaged"),
    ("arena report {in}/corrupt.sqlite", "damaged"),
    ("arena report {in}/other.sqlite", "not an arena database"),
    ("arena report {in}/arena.sqlite --csv {in}/nodir/x.csv", "does not exist"),
    ("arena report {in}/arena.sqlite --json {in}/dir", "is a directory"),
    ("arena report {in}/arena.sqlite --json {in}/photo.png", "exists"),
    ("arena game {in}/arena.sqlite", "required: id"),
    ("arena game {in}/arena.sqlite 99", "has no game 99"),
    ("arena game {in}/arena.sqlite x", "invalid int value"),
    ("arena game {in}/corrupt.sqlite 1", "damaged"),
    # warmup
    ("warmup --fast", "unrecognized arguments"),
    # huge numbers: a day is the longest time a move may have, 64 the largest Pikachu board
    ("play pikachu --time 1e308", "--time must be a number of seconds above 0 and at most 86400"),
    ("play pikachu --time nan", "--time must be a number of seconds above 0 and at most 86400"),
    ("play pikachu --time 1_0", "--time must be a number of seconds above 0 and at most 86400"),
    ("play pikachu --option n=100000", "option n must be at most 64, got 100000"),
    ("play pikachu --option n=2000 --human none", "option n must be at most 64, got 2000"),
    ("ijk ai ai det --seconds 1e308", "--seconds must be a number of seconds above 0"),
    ("ijk ai ai det --seconds 1_0", "--seconds must be a number of seconds above 0"),
    ("ijk ai ai det --max-moves -1", "--max-moves must be at least 1, got -1"),
    ("ijk ai ai det --max-moves 0", "--max-moves must be at least 1, got 0"),
    ("arena run --game betsy --time 1e308 --db r.sqlite aviary:random aviary:random",
     "--time must be a number of seconds above 0 and at most 86400"),
    ("arena run --game pikachu --option n=100000 --db r.sqlite aviary:random aviary:random",
     "option n must be at most 64"),
    (f"pikachu 100000 w {START8} 1", "N must be an integer from 7 to 64, got 100000"),
    (f"pikachu 65 w {START8} 1", "N must be an integer from 7 to 64, got 65"),
    # an impossible board: the centre never closes
    ("foxgeese f ##...####...##..#.......F...GGGGGGG##GGG####GGG## 1",
     "is in the centre, which never closes"),
    # the web server's own arguments
    ("serve --upload-mb nan", "--upload-mb must be a positive number, got nan"),
    ("serve --upload-mb -1", "--upload-mb must be a positive number"),
    ("serve --idle-minutes inf", "--idle-minutes must be a positive number, got inf"),
    # horizon without a point beside an earlier run's output_human.jpg: refused, kept
    ("horizon {in}/photo.png --json --out {in}/earlier", "is from an earlier run with a point"),
]

# Inputs that block or never end if a check regresses: subprocesses, with a timeout.
BLOCKING: list[tuple[str, str]] = [
    ("classify {in}/fifo {in}/train.txt", "not a regular file"),
    ("classify /dev/zero {in}/train.txt", "not a regular file"),
    ("classify predict --model {in}/fifo {in}/train.txt", "not a regular file"),
    ("classify {in}/train.txt {in}/train.txt --predictions {in}/fifo --force",
     "not a regular file"),
    ("horizon {in}/fifo", "not a regular file"),
    ("arena resume {in}/fifo", "not a regular file"),
    ("arena report {in}/arena.sqlite --csv {in}/fifo --force", "not a regular file"),
    # resolving a host could wait on the network: a subprocess with a timeout
    ("serve --host bogus.invalid", "cannot listen on bogus.invalid:8000: --host does not resolve"),
]


def _argv(case: str, root: Path) -> list[str]:
    return [word.replace("{in}", str(root)) for word in case.split()]


@pytest.fixture
def workdir(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("case, words", CASES, ids=[case for case, _ in CASES])
def test_bad_input_is_one_line_exit_2_and_touches_nothing(case, words, inputs, workdir, capsys):
    before = checksums(inputs)
    capsys.readouterr()
    status = cli_main(_argv(case, inputs))
    err = capsys.readouterr().err
    assert status == 2, err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith(f"aviary {case.split()[0]}") and words in lines[0], lines[0]
    name = case.split()[0]
    assert not lines[0].startswith(f"aviary {name}: aviary {name}")  # the prefix only once
    assert checksums(inputs) == before
    assert list(workdir.iterdir()) == []


@pytest.mark.parametrize("case, words", BLOCKING, ids=[case for case, _ in BLOCKING])
def test_special_files_are_refused_without_blocking(case, words, inputs, workdir):
    before = checksums(inputs)
    result = subprocess.run([sys.executable, "-m", "aviary", *_argv(case, inputs)],
                            capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and words in lines[0], result.stderr
    assert checksums(inputs) == before
    assert list(workdir.iterdir()) == []


def test_arena_run_help_describes_players_game_and_backend(capsys):
    with pytest.raises(SystemExit):
        cli_main(["arena", "run", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "PLAYER two or more: a command, or aviary:ENGINE" in text
    assert "--game GAME the game to play" in text
    assert "--backend {local,ray} local: a process pool here" in text


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.slow
@pytest.mark.parametrize("argv", [
    ["play", "pikachu", "--human", "none", "--time", "60"],
    ["ijk", "ai", "ai", "det", "--seconds", "60"],
], ids=["play", "ijk"])
def test_ctrl_c_while_the_engine_thinks_stops_at_once(argv, workdir):
    """A minute a move: before, Ctrl-C waited for the move's whole time."""
    import signal
    import time

    command = subprocess.Popen(
        [sys.executable, "-m", "aviary", *argv], stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 120
    while _cpu_seconds(command.pid) < 4.0:  # past start-up and loading: the engine searches
        assert command.poll() is None and time.monotonic() < deadline
        time.sleep(0.05)
    command.send_signal(signal.SIGINT)
    sent = time.monotonic()
    _, err = command.communicate(timeout=60)
    assert time.monotonic() - sent < 10  # a bound on a hang, far under the minute a move
    assert command.returncode == 130 and err == f"aviary {argv[0]}: interrupted\n", err


def test_a_human_quits_ijk_with_q_and_end_of_input_is_one_line(workdir):
    quit_ = subprocess.run([sys.executable, "-m", "aviary", "ijk", "human", "human", "det"],
                           input="u\nq\n", capture_output=True, text=True, timeout=60)
    assert quit_.returncode == 0 and quit_.stderr == "", quit_.stderr
    assert quit_.stdout.splitlines()[-1].endswith("- quit")
    ended = subprocess.run([sys.executable, "-m", "aviary", "ijk", "human", "human", "det"],
                           input="", capture_output=True, text=True, timeout=60)
    assert ended.returncode == 2
    assert ended.stderr == ("aviary ijk: input ended before the game did (type q to quit)\n")


def test_horizon_says_what_it_replaces_and_force_removes_an_earlier_human_line(inputs, workdir,
                                                                              capsys):
    out = workdir / "out"
    assert cli_main(["horizon", str(inputs / "photo.png"), "5", "5", "--out", str(out)]) == 0
    first = capsys.readouterr().err
    assert first.startswith("wrote output_simple.jpg, output_map.jpg, output_human.jpg")
    assert "replacing" not in first
    assert cli_main(["horizon", str(inputs / "photo.png"), "--json", "--force",
                     "--out", str(out)]) == 0
    said = capsys.readouterr()
    assert '"map": [' in said.out  # stdout stays the JSON alone
    assert said.err == (f"wrote output_simple.jpg, output_map.jpg, edges.jpg to {out} "
                        "(replacing the earlier output_simple.jpg, output_map.jpg, edges.jpg); "
                        "removed the earlier run's output_human.jpg (--force)\n")
    assert sorted(path.name for path in out.iterdir()) == [
        "edges.jpg", "output_map.jpg", "output_simple.jpg"]
