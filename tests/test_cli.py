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


def test_errors_are_prefixed_once_with_the_command_and_fit_on_one_line():
    from aviary.cli import one_line

    assert one_line("classify", "classify: no such file: x") == "aviary classify: no such file: x"
    assert one_line("horizon", "aviary horizon: bad\npoint") == "aviary horizon: bad point"
    assert one_line("pikachu", "N must be an integer") == "aviary pikachu: N must be an integer"


def test_bad_input_names_the_command_on_stderr():
    result = run_aviary("pikachu", "6", "w", "abc", "1")
    assert result.returncode == 2
    assert result.stderr == "aviary pikachu: N must be an integer from 7 to 64, got 6\n"
