"""`aviary pikachu N PLAYER BOARD SECONDS`: the course command line, deadline-safe.

Contract (the course grader kills the program at SECONDS and takes the last line):
every printed line is a complete, flushed board; the first comes from rules.py in
milliseconds (before numba has even loaded), then an engine process prints each
better board as its search deepens and this process passes on each legal one; it
exits on its own `margin(SECONDS)` before SECONDS have passed since the *process*
started, interpreter start-up included (measured: 0.16-0.44 s to spare for SECONDS
of 1-10 on this 2-core machine at load 9).

A Pikachu-only ending in the solved tables (`endgame.py`) is answered from the
cached table instead of the engine: the exact move, and one line on stderr such as
`table: win in 7` (plies). A table not built yet is never built here (no deadline
could pay for it); the engine searches as usual and stderr says so.
"""

from __future__ import annotations

import math
import os
import select
import subprocess
import sys
import time

from aviary.errors import NoMoveError, UsageError
from aviary.games.pikachu import endgame, quick, rules
from aviary.search.clock import process_age

USAGE = "usage: aviary pikachu N PLAYER BOARD SECONDS"
MAX_KERNEL_N = 32  # kernels.MAX_N, repeated here so that numba is not imported to read it


def margin(seconds: float) -> float:
    """How long before the limit we stop: room for a late wake-up on a busy machine and exit."""
    return min(0.25 + 0.03 * seconds, 2.0)


def parse_arguments(argv: list[str]) -> tuple[rules.Position, float]:
    """The position and the time limit, or UsageError naming the first thing wrong."""
    if len(argv) != 4:
        raise UsageError(f"{USAGE} (got {len(argv)} arguments)")
    size, player, board, limit = argv
    try:
        n = int(size)
    except ValueError:
        raise UsageError(f"N must be an integer >= {rules.MIN_N}, got {size!r}") from None
    if n < rules.MIN_N:
        raise UsageError(f"N must be an integer >= {rules.MIN_N}, got {n}")
    if player not in ("w", "b"):
        raise UsageError(f"PLAYER must be 'w' or 'b', got {player!r}")
    if len(board) != n * n:
        raise UsageError(f"BOARD must have N*N = {n * n} characters, got {len(board)}")
    bad = sorted(set(board) - set(rules.PIECES + rules.EMPTY))
    if bad:
        raise UsageError(f"BOARD may contain only '.wbWB', found {''.join(bad)!r}")
    try:
        seconds = float(limit)
    except ValueError:
        raise UsageError(f"SECONDS must be a positive number, got {limit!r}") from None
    if not (math.isfinite(seconds) and seconds > 0):
        raise UsageError(f"SECONDS must be a positive number, got {limit!r}")
    return rules.parse(n, board, player), seconds


class Printer:
    """Prints whole boards, each at most once in a row, flushed at once."""

    def __init__(self) -> None:
        self.last: str | None = None

    def board(self, board: str) -> None:
        if board != self.last:
            print(board, flush=True)
            self.last = board


def _die_with_parent() -> None:
    """Ask Linux to kill this engine process if the command process dies (e.g. is killed)."""
    try:
        import ctypes
        import signal

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
        if os.getppid() == 1:  # the parent died before the request took effect
            os._exit(0)
    except (OSError, AttributeError):
        pass  # not Linux: the child still stops at the deadline on its own


def think(argv: list[str]) -> int:
    """The engine process: print each deeper search's board until the deadline.

    Runs as `python -m aviary.games.pikachu.command --think N PLAYER BOARD DEADLINE`
    (DEADLINE on the system's monotonic clock, which parent and child share).
    """
    _die_with_parent()
    from aviary.games.pikachu import engine  # slow: numba import and cache load
    from aviary.search.clock import Limit

    size, player, board, deadline = argv
    position = rules.parse(int(size), board, player)
    remaining = float(deadline) - time.monotonic()
    if remaining > 0.01:
        for report in engine.think(position, Limit(time=remaining), tables="cached"):
            print(report.board, flush=True)
    return 0


def relay(position: rules.Position, deadline: float, printer: Printer) -> None:
    """Run the engine in a child process and pass on its legal boards until the deadline.

    A child process, not a thread: loading numba's cached code holds the GIL for long
    stretches, which could make a thread-based watchdog wake up late. This process only
    waits in `select`, so it stops on time however busy the engine is, and kills it.
    """
    command = [
        sys.executable, "-m", "aviary.games.pikachu.command", "--think",
        str(position.n), position.player, position.board, repr(deadline),
    ]
    child = subprocess.Popen(command, stdout=subprocess.PIPE)
    assert child.stdout is not None
    legal = rules.successors(position)
    pending = b""
    try:
        while (remaining := deadline - time.monotonic()) > 0:
            ready, _, _ = select.select([child.stdout], [], [], remaining)
            if not ready:
                break
            chunk = os.read(child.stdout.fileno(), 1 << 16)
            if not chunk:
                break
            *lines, pending = (pending + chunk).split(b"\n")
            for line in lines:
                board = line.decode(errors="replace").strip()
                if board in legal:
                    printer.board(board)
    finally:
        child.kill()  # not waited for: tearing down its memory is the kernel's business


def main(argv: list[str]) -> int:
    if argv in (["-h"], ["--help"]):
        print(f"{USAGE}\n\nPrints better and better boards; the last line is the move.\n"
              "Pikachu-only endings (n = 8, up to 4 pieces) are answered from the solved\n"
              "tables `aviary warmup` builds, with `table: win in D` (or draw, loss) on stderr.")
        return 0
    started = time.monotonic() - process_age()
    position, seconds = parse_arguments(argv)
    if rules.pieces(position, position.player) == 0:
        raise NoMoveError(f"player {position.player} has no pieces on the board")
    if not rules.legal_moves(position):
        raise NoMoveError(f"player {position.player} has no legal move")
    deadline = started + seconds - margin(seconds)

    printer = Printer()
    printer.board(rules.format_board(rules.play(position, quick.best_move(position))))
    if endgame.covers(position):
        verdict = endgame.probe(position, use="cached")
        if verdict is not None and verdict.move is not None:
            print(f"table: {verdict.describe()}", file=sys.stderr, flush=True)
            printer.board(rules.format_board(rules.play(position, verdict.move)))
            return 0
        print("table: not built yet (aviary warmup builds it)", file=sys.stderr, flush=True)
    if position.n <= MAX_KERNEL_N and deadline - time.monotonic() > 0.05:
        relay(position, deadline, printer)
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--think"]:
        sys.exit(think(sys.argv[2:]))
