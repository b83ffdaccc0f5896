"""Small Pikachu programs for arena tests: one well-behaved, seven that misbehave.

Each is a Python script called as `PROGRAM N PLAYER BOARD SECONDS`; the tests
write them into a temporary directory, so any process still running one can
be found afterwards by that directory in its command line.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from pathlib import Path

_READ_POSITION = """
import sys
from aviary.games.pikachu import rules
n, player, board, seconds = sys.argv[1:]
position = rules.parse(int(n), board, player)
legal = sorted(rules.successors(position))
"""

PROGRAMS = {
    # well-behaved: a random legal move, after an optional pause (seconds in the file name)
    "random_mover": _READ_POSITION + "import random, time\ntime.sleep(0.02)\n"
    "print('thinking...')\nprint(random.choice(legal))\n",
    # well-behaved, slow while a file `slow` lies beside it: games are in progress when a
    # test interrupts the arena, and quick once the test removes the file to resume
    "slow_mover": _READ_POSITION + "import os, random, time\n"
    "if os.path.exists(os.path.join(os.path.dirname(__file__), 'slow')):\n"
    "    time.sleep(0.3)\nprint(random.choice(legal))\n",
    # the seven misbehaving programs, with the reason each must lose by
    "garbage": "print('hello, grader')\n",
    "sleeper": "import time\ntime.sleep(60)\n",
    "forker": (
        "import os, time\n"
        "if os.fork() == 0:\n"
        "    os.setsid()  # escape the process group too\n"
        "    while True:\n"
        "        print('still here', flush=True)\n"
        "        time.sleep(0.01)\n"
        "time.sleep(60)\n"
    ),
    "crasher": "raise RuntimeError('boom')\n",
    # anonymous mappings: the address space grows without the time it takes to touch pages
    "memory_hog": (
        "import mmap\nhoard = []\nwhile True:\n    hoard.append(mmap.mmap(-1, 1 << 27))\n"
    ),
    "illegal": _READ_POSITION + "print(board)  # passing is not a move\n",
    "no_newline": _READ_POSITION + "sys.stdout.write(legal[0])\n",
}

EXPECTED_REASON = {
    "garbage": "illegal",
    "sleeper": "timeout",
    "forker": "illegal",  # killed at the limit; its last complete line is not a board
    "crasher": "crash",
    "memory_hog": "crash",
    "illegal": "illegal",
    "no_newline": "no-output",
}


def write_programs(directory: Path) -> dict[str, str]:
    """Write every program; returns name -> command line using this interpreter."""
    commands = {}
    for name, source in PROGRAMS.items():
        path = directory / f"{name}.py"
        path.write_text(source)
        commands[name] = f"{sys.executable} {path}"
    return commands


def processes_mentioning(text: str, *, environment: bool = False) -> list[int]:
    """Live (non-zombie) processes whose command line (or, with `environment`, also
    their environment) contains `text` (a /proc scan)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            seen = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ")
            if environment:
                seen += Path(f"/proc/{entry}/environ").read_bytes()
            state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if text.encode() in seen and state != "Z":
            found.append(int(entry))
    return found


def assert_no_process_mentions(text: str, wait: float = 2.0) -> None:
    """Fail (after killing them) if processes mentioning `text` survive `wait` seconds."""
    deadline = time.monotonic() + wait
    while (left := processes_mentioning(text)) and time.monotonic() < deadline:
        time.sleep(0.05)
    for pid in left:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    assert not left, f"processes left running: {left}"


def check_tournament(db: Path, directory: Path) -> bool:
    """Print every program's losses by reason against the expected one; True if all right."""
    import sqlite3

    with sqlite3.connect(db) as connection:
        rows = connection.execute("SELECT first, second, winner, reason FROM games").fetchall()
    losses: dict[str, list[str]] = {}
    for first, second, winner, reason in rows:
        if winner is not None:
            losses.setdefault(second if winner == 0 else first, []).append(reason)
    right = True
    for name, expected in EXPECTED_REASON.items():
        ok = bool(losses.get(name)) and set(losses[name]) == {expected}
        right &= ok
        print(f"{name:<11} lost {len(losses.get(name, []))}: {losses.get(name)}"
              f"  expected {expected}: {'ok' if ok else 'WRONG'}")
    others = {name: reasons for name, reasons in losses.items() if name not in EXPECTED_REASON}
    print(f"other players' losses: {others}")
    left = processes_mentioning(str(directory))
    print(f"processes left running: {left}")
    return right and not left


if __name__ == "__main__":
    # python tests/arena/arena_programs.py DIR          write the programs, print NAME=COMMAND lines
    # python tests/arena/arena_programs.py DIR DB       check a finished tournament's reasons
    folder = Path(sys.argv[1]).resolve()
    if len(sys.argv) == 2:
        folder.mkdir(parents=True, exist_ok=True)
        written = write_programs(folder)
        print("\n".join(f"{name}={written[name]}" for name in EXPECTED_REASON))
    else:
        sys.exit(0 if check_tournament(Path(sys.argv[2]), folder) else 1)
