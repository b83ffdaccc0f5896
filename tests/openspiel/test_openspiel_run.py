"""`aviary openspiel run MODULE` and `python -m aviary.openspiel MODULE`: OpenSpiel's own
scripts, run as `python -m MODULE` would, know aviary's games.

Real subprocesses running OpenSpiel's MCTS example to a game's end (a minute on a
busy machine, hence the generous timeouts).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pyspiel", reason="OpenSpiel is not installed "
                                      "(pip install 'aviary[openspiel]')")

BIN = Path(sys.executable).parent
EXAMPLE = ["open_spiel.python.examples.mcts", "--game=aviary_pikachu(n=7)",
           "--max_simulations=5", "--seed=1", "--quiet"]


def _finished(stdout: str) -> None:
    """The example's summary of one finished game: returns of a win and a loss."""
    assert "Number of games played: 1" in stdout
    returns = [line for line in stdout.splitlines() if line.startswith("Overall returns")]
    assert returns and returns[0].split("[")[1].rstrip("]").replace(" ", "") in (
        "1.0,-1.0", "-1.0,1.0", "0.0,0.0")


def test_openspiels_mcts_example_plays_a_pikachu_game_to_its_end():
    run = subprocess.run([str(BIN / "aviary"), "openspiel", "run", *EXAMPLE],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    _finished(run.stdout)
    moves = run.stdout.split("Game actions:")[1].split("\n")[0].split()
    assert moves and all("-" in move for move in moves)  # `c3-c4`, not `action N`


def test_python_dash_m_aviary_openspiel_is_the_same():
    run = subprocess.run([sys.executable, "-m", "aviary.openspiel", *EXAMPLE],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    _finished(run.stdout)


def test_without_aviary_the_example_does_not_know_the_game():
    """What the command is for: OpenSpiel alone refuses `aviary_pikachu`."""
    run = subprocess.run([sys.executable, "-m", *EXAMPLE], capture_output=True, text=True,
                         timeout=300)
    assert run.returncode != 0 and "aviary_pikachu" in run.stderr


@pytest.mark.parametrize("command", [
    [str(BIN / "aviary"), "openspiel", "run"],
    [sys.executable, "-m", "aviary.openspiel"],
])
@pytest.mark.parametrize("module", ["open_spiel.python.examples.no_such_example",
                                    "no_such_package.example"])
def test_a_module_that_is_not_there_is_one_line_and_exit_2(command, module):
    run = subprocess.run([*command, module, "--game=tic_tac_toe"], capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 2
    assert len(run.stderr.strip().splitlines()) == 1 and module in run.stderr
    assert "Traceback" not in run.stderr and not run.stdout


def test_a_wrong_subcommand_is_one_line_and_exit_2():
    run = subprocess.run([str(BIN / "aviary"), "openspiel", "play", "x"], capture_output=True,
                         text=True, timeout=120)
    assert run.returncode == 2 and "unknown subcommand 'play'" in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1
