"""One way to refuse bad input: a single clear line on stderr and exit status 2.

Every subcommand raises `UsageError` (or uses `ArgumentParser`, which raises it)
and `aviary.cli.main` turns it into that one line, so no user ever sees a
traceback for something they typed.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NoReturn


class UsageError(Exception):
    """Input the user gave is wrong; the message names what and why."""

    exit_status = 2


class NoMoveError(Exception):
    """The position is legal but the side to move cannot move (exit status 1)."""

    exit_status = 1


class ArgumentParser(argparse.ArgumentParser):
    """argparse that reports errors as one `UsageError` line instead of usage + exit."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message} (see --help)")


@contextmanager
def refused_as_usage() -> Iterator[None]:
    """Inside it, a ValueError (a checker refusing what the user typed) is a `UsageError`."""
    try:
        yield
    except ValueError as error:
        raise UsageError(str(error)) from None
