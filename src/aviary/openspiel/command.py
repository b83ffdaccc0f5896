"""`aviary openspiel run MODULE [ARGS...]`: any OpenSpiel script or example, with aviary's games.

OpenSpiel's Python games exist only in a process that registered them, so
OpenSpiel's own scripts (`python -m open_spiel.python.examples.mcts
--game=aviary_pikachu`) do not know `aviary_pikachu`. This command registers
them (`import aviary.openspiel`) and then runs MODULE as `python -m MODULE ARGS...`
would (`runpy`, `sys.argv` set to the module and ARGS), in this process.
`python -m aviary.openspiel MODULE [ARGS...]` is the same without the `run`.
"""

from __future__ import annotations

import importlib.util
import runpy
import sys

from aviary.errors import UsageError

USAGE = "usage: aviary openspiel run MODULE [ARGS...]"


def run_module(argv: list[str]) -> int:
    """Run module `argv[0]` as `__main__` with `argv[1:]` as its arguments, aviary's games
    registered; its exit status (0 when it returns). UsageError for a module that is not
    there or OpenSpiel missing."""
    if not argv or argv[0] in ("-h", "--help"):
        raise UsageError(f"{USAGE}: runs an OpenSpiel script (python -m MODULE) with "
                         "aviary's games registered, e.g. open_spiel.python.examples.mcts "
                         "--game=aviary_pikachu(n=7)")
    module = argv[0]
    try:
        import aviary.openspiel  # noqa: F401  (registers aviary_pikachu, ...)
    except ImportError as error:
        raise UsageError(f"OpenSpiel is not installed ({error}): "
                         "pip install 'aviary[openspiel]'") from None
    try:
        found = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        found = None
    if found is None:
        raise UsageError(f"no module named {module!r} to run")
    sys.argv = [module, *argv[1:]]
    try:
        runpy.run_module(module, run_name="__main__", alter_sys=True)
    except SystemExit as done:  # absl's app.run ends by sys.exit
        code = done.code
        if code is None or isinstance(code, int):
            return code or 0
        print(code, file=sys.stderr)
        return 1
    return 0


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(f"{USAGE}\n\n{__doc__}")
        return 0
    if argv[0] != "run":
        raise UsageError(f"unknown subcommand {argv[0]!r}; {USAGE}")
    return run_module(argv[1:])
