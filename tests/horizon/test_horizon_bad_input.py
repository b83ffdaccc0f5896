"""`aviary horizon` refuses what it cannot do well with one line, before writing anything."""

import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
from PIL import Image

from aviary.cli import main as cli_main
from aviary.horizon.synthetic import generate


def horizon(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "aviary", "horizon", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture
def in_process(capsys, monkeypatch):
    """`aviary horizon ARGS` through the dispatcher in this process (numba loads once)."""
    def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
        monkeypatch.chdir(cwd)
        capsys.readouterr()
        status = cli_main(["horizon", *args])
        out, err = capsys.readouterr()
        return subprocess.CompletedProcess(args, status, out, err)
    return run


def png_header(path: Path, width: int, height: int) -> None:
    """A PNG that claims width x height (a decompression bomb's header; no real pixels)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr)
                     + chunk(b"IDAT", zlib.compress(b"\0" * 100)) + chunk(b"IEND", b""))


@pytest.fixture
def photo(tmp_path: Path) -> Path:
    path = tmp_path / "photo.png"
    Image.fromarray(generate(11, height=90, width=120).rgb).save(path)
    return path


def one_line(result: subprocess.CompletedProcess[str], *words: str) -> None:
    assert result.returncode == 2, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("aviary horizon: "), result.stderr
    assert all(word in lines[0] for word in words), lines[0]


@pytest.mark.parametrize("size", [(20000, 20000), (6000, 5000)])
def test_a_huge_photo_is_refused_from_its_header(tmp_path, size, in_process):
    png_header(tmp_path / "huge.png", *size)
    one_line(in_process("huge.png", cwd=tmp_path), "limit is 25")  # before: a traceback
    assert sorted(p.name for p in tmp_path.iterdir()) == ["huge.png"]


def test_a_directory_among_the_outputs_stops_before_any_is_written(photo, tmp_path, in_process):
    (tmp_path / "output_map.jpg").mkdir()
    one_line(in_process(str(photo), cwd=tmp_path), "output_map.jpg is a directory")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["output_map.jpg", "photo.png"]


def test_a_symlinked_output_is_refused_and_the_link_kept(photo, tmp_path, in_process):
    (tmp_path / "edges.jpg").symlink_to("/dev/null")
    one_line(in_process(str(photo), cwd=tmp_path), "edges.jpg is a symbolic link")
    assert (tmp_path / "edges.jpg").is_symlink()
    assert not (tmp_path / "output_simple.jpg").exists()


def test_two_points_in_one_column_are_refused(photo, tmp_path, in_process):
    one_line(in_process(str(photo), "--point", "10,50", "--point", "60,50", cwd=tmp_path),
             "(10, 50) and (60, 50) share column 50")


def test_points_no_line_can_join_are_named_and_nothing_is_written(photo, tmp_path, in_process):
    one_line(in_process(str(photo), "--point", "2,50", "--point", "85,51", cwd=tmp_path),
             "no ridge line passes through every point", "cannot be joined")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["photo.png"]


def test_a_large_photo_gets_a_line_per_stage(photo, tmp_path, in_process, monkeypatch):
    from aviary.horizon import command

    monkeypatch.setattr(command, "LARGE_MEGAPIXELS", 0.001)  # the 120x90 photo counts as large
    result = in_process(str(photo), "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    stages = result.stderr.splitlines()
    assert "120x90" in stages[0] and "takes a while" in stages[0]
    assert stages[1:3] == ["aviary horizon: finding the ridge lines...",
                           "aviary horizon: writing the images..."]
