"""The `aviary` dispatcher: help, unknown commands, one-line errors."""

import subprocess
import sys

from aviary.cli import COMMANDS, main


def run_aviary(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "aviary", *args], capture_output=True, text=True, timeout=60
    )


def test_help_lists_every_command(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for name in COMMANDS:
        assert name in out


def test_unknown_command_is_one_line_and_exit_2():
    result = run_aviary("no-such-tool")
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1
    assert "no-such-tool" in result.stderr
    assert "Traceback" not in result.stderr


def test_every_command_module_exists():
    import importlib.util

    for module, _ in COMMANDS.values():
        assert importlib.util.find_spec(module) is not None, module
