"""What a cold course command does before its engine's first answer, kept to what it needs.

At 0.5 s a move in the arena's sandbox, every move is a fresh process that exits 0.235 s
after it started: its engine child has that long to import numpy and load the search.
These tests hold the costs that were found on that way and removed (issue 52).
"""

import os
import subprocess
import sys

import pytest

from aviary import cache, warmup
from aviary.course import engine_host, runner

START8 = "........wwwwwwwwwwwwwwww................bbbbbbbbbbbbbbbb........"


def threads_after_numpy(setup: str) -> int:
    """The threads of a fresh Python once it has run `setup` and imported numpy."""
    env = {key: value for key, value in os.environ.items() if key not in engine_host.BLAS_THREADS}
    code = (f"{setup}\nimport numpy\n"
            "print([line.split()[1] for line in open('/proc/self/status')"
            " if line.startswith('Threads:')][0])")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env=env, timeout=60)
    assert result.returncode == 0, result.stderr
    return int(result.stdout)


@pytest.mark.skipif((os.cpu_count() or 1) < 2 or not os.path.exists("/proc/self/status"),
                    reason="BLAS starts no extra thread on one core; needs Linux's /proc")
def test_an_engine_process_imports_numpy_without_blas_threads():
    assert threads_after_numpy("") > 1, "numpy's BLAS no longer starts threads: drop the setup"
    assert threads_after_numpy("from aviary.course.engine_host import as_engine_process\n"
                               "as_engine_process()") == 1


def test_an_engine_process_keeps_a_blas_thread_count_the_user_set(monkeypatch):
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "3")
    for name in engine_host.BLAS_THREADS[1:]:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(sys, "meta_path", list(sys.meta_path))  # the scipy hook goes again
    engine_host.as_engine_process()
    assert os.environ["OPENBLAS_NUM_THREADS"] == "3"
    assert all(os.environ[name] == "1" for name in engine_host.BLAS_THREADS[1:])


def test_a_course_command_imports_no_module_only_other_commands_need():
    """argparse (the tools' parsers), subprocess (starting a warm server) and platformdirs
    (the cache folder off Linux) cost the engine child's first answer 15 ms when imported
    before its fork."""
    code = ("import sys\nfrom aviary import cli\n"
            f"status = cli.main(['pikachu', '8', 'w', {START8!r}, '1'])\n"
            "loaded = [name for name in ('argparse', 'subprocess', 'platformdirs', 'numpy')"
            " if name in sys.modules]\n"
            "print(status, *loaded)")
    env = dict(os.environ, AVIARY_NO_WARM="1", AVIARY_NO_MEMORY="1")
    env.pop("AVIARY_CACHE_DIR", None)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env=env, timeout=60)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) >= 2 and len(lines[0]) == 64, result.stdout  # it answered a board
    assert lines[-1] == "0", f"the command process imported {lines[-1].split()[1:]}"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the XDG rule is Linux's")
@pytest.mark.parametrize("xdg", [None, "/somewhere/cache", "relative/cache", " "])
def test_the_cache_folder_is_where_platformdirs_puts_it(xdg, monkeypatch):
    platformdirs = pytest.importorskip("platformdirs")
    monkeypatch.delenv("AVIARY_CACHE_DIR", raising=False)
    if xdg is None:
        monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    else:
        monkeypatch.setenv("XDG_CACHE_HOME", xdg)
    assert str(cache.cache_dir()) == platformdirs.user_cache_dir("aviary")


def test_warmup_writes_the_bytecode_python_reads_in_place_of_each_module():
    """Read back where Python will not write it (PYTHONDONTWRITEBYTECODE, the sandbox's
    read-only install): each module's `__pycache__` file, stamped with its source's
    modification time and size."""
    import importlib.util
    import struct
    from pathlib import Path

    import aviary

    if not warmup.byte_compile():
        pytest.skip("the install is not writable here")
    sources = list(Path(aviary.__file__).parent.rglob("*.py"))
    assert len(sources) > 50
    for source in sources:
        compiled = Path(importlib.util.cache_from_source(str(source)))
        header = compiled.read_bytes()[:16]
        assert header[:4] == importlib.util.MAGIC_NUMBER, source
        flags, mtime, size = struct.unpack("<III", header[4:16])
        stat = source.stat()
        assert flags == 0 and mtime == int(stat.st_mtime) & 0xFFFFFFFF, source
        assert size == stat.st_size & 0xFFFFFFFF, source


def test_a_fallback_answer_says_when_the_engine_had_no_compiled_search(tmp_path):
    """A build older than the sources (no `aviary warmup` since they changed) leaves the
    engine child compiling inside the move: the stderr line says so, not only `fallback`."""
    env = dict(os.environ, AVIARY_NO_WARM="1", AVIARY_NO_MEMORY="1",
               AVIARY_CACHE_DIR=str(tmp_path / "cache"),  # no search compiled ahead of time
               NUMBA_CACHE_DIR=str(tmp_path / "numba"))  # nor numba's: it compiles for 10+ s
    # 3 s: time for the child's word on a busy machine, far too little to compile
    result = subprocess.run([sys.executable, "-m", "aviary", "pikachu", "8", "w", START8, "3"],
                            capture_output=True, text=True, env=env, timeout=60)
    assert result.returncode == 0, result.stderr
    assert len(result.stdout.splitlines()[-1]) == 64, result.stdout
    said = result.stderr.splitlines()[-1]
    assert said.startswith("fallback (") and said.endswith(runner.NOT_WARMED), said


def test_the_note_goes_only_with_a_fallback_answer():
    answers = runner.Answers()
    answers.uncompiled = True
    answers.source = "engine (depth 9, score +6, nodes 100379, history 0)"
    assert answers.said() == answers.source  # the engine answered after all
    answers.source = "fallback (depth 4, score -0.00, nodes 475)"
    assert answers.said() == answers.source + runner.NOT_WARMED
    assert runner.source_of(answers.said()) == "fallback"  # though the note names the engine
    answers.uncompiled = False
    assert answers.said() == answers.source
