"""`python -m aviary.openspiel MODULE [ARGS...]`: an OpenSpiel script with aviary's games
registered (`aviary openspiel run`, `aviary.openspiel.command`)."""

from __future__ import annotations

import sys

from aviary.errors import UsageError
from aviary.openspiel.command import run_module


def main() -> int:
    try:
        return run_module(sys.argv[1:])
    except UsageError as error:
        print(f"python -m aviary.openspiel: {error}", file=sys.stderr)
        return error.exit_status


if __name__ == "__main__":
    sys.exit(main())
