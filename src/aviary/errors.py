"""One way to refuse bad input: a single clear line on stderr and exit status 2.

Every subcommand raises `UsageError` (or uses `ArgumentParser`, which raises it)
and `aviary.cli.main` turns it into that one line, so no user ever sees a
traceback for something they typed.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, NoReturn


class UsageError(Exception):
    """Input the user gave is wrong; the message names what and why."""

    exit_status = 2


class NoMoveError(Exception):
    """The position is legal but the side to move cannot move (exit status 1)."""

    exit_status = 1


if TYPE_CHECKING:
    import argparse

    class ArgumentParser(argparse.ArgumentParser):
        def error(self, message: str) -> NoReturn: ...


def _argument_parser() -> type:
    import argparse

    class ArgumentParser(argparse.ArgumentParser):
        """argparse that reports errors as one `UsageError` line instead of usage + exit."""

        def error(self, message: str) -> NoReturn:
            raise UsageError(f"{self.prog}: {message} (see --help)")

    return ArgumentParser


def __getattr__(name: str) -> Any:
    """`ArgumentParser`, made on first use: a course command, which parses its arguments
    by hand, never imports argparse (it is on the way to the engine's first answer)."""
    if name == "ArgumentParser":
        made = _argument_parser()
        globals()[name] = made
        return made
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@contextmanager
def refused_as_usage() -> Iterator[None]:
    """Inside it, a ValueError (a checker refusing what the user typed) is a `UsageError`."""
    try:
        yield
    except ValueError as error:
        raise UsageError(str(error)) from None
