"""docs/openspiel.md's examples run as written: each ``python`` block is one script."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pyspiel", reason="OpenSpiel is not installed "
                                      "(pip install 'aviary[openspiel]')")

PAGE = Path(__file__).resolve().parents[2] / "docs" / "openspiel.md"
BLOCKS = re.findall(r"```python\n(.*?)```", PAGE.read_text(), re.DOTALL)


NAMES = ["load", "program", "play", "train"]


def test_the_page_has_its_four_examples():
    assert len(BLOCKS) == len(NAMES)


@pytest.mark.parametrize("block", BLOCKS, ids=NAMES[:len(BLOCKS)])
def test_each_python_example_runs(block, tmp_path):
    script = tmp_path / "example.py"
    script.write_text(block)
    run = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip()
