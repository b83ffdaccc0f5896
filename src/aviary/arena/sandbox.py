"""One move of an external program: a fresh, limited process, killed at the deadline.

With a `Jail` (the default in the arena) the process is bubblewrap running the
program in its sandbox (`arena/isolation.py`: what it may see, and its limits);
without one it runs as the arena's user, with the process hygiene below only.

What goes wrong when running other people's programs, and the answer here:
- Python block-buffers a pipe, so a killed program seems silent:
  `PYTHONUNBUFFERED=1` in a clean environment.
- Wrapper scripts and forks outlive the child: each move runs in its own
  session (so its own process group) and the whole group is killed. A
  grandchild that calls setsid() itself escapes the group; this process is a
  child subreaper, so such orphans are re-parented here and killed by a /proc
  scan of our new children.
- Half-written lines: output is read incrementally; only the last COMPLETE
  line counts, with the time it arrived.
- Runaway programs: address-space and CPU rlimits, no core files, a
  parent-death signal so nothing outlives the arena, no stdin, and a
  temporary working directory that is removed afterwards.
- A process killed outright (`kill -9` of the arena takes its workers with it)
  cannot remove its temporary folders: each process's moves run in folders under
  one root, and a small cleaner process, watching a pipe only this process
  writes to, removes that root when the pipe closes (this process ended, however).

Linux only (prctl, /proc).
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import math
import os
import re
import resource
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass

from aviary.arena.isolation import Cgroup, Jail, make_cgroup
from aviary.cache import cache_dir

_PR_SET_PDEATHSIG = 1
CHILD_ORPHANED = 70  # a move's child found the process that forked it gone, before exec
_PR_SET_CHILD_SUBREAPER = 36
_LIBC = ctypes.CDLL(None, use_errno=True)
_TAIL = 4096  # bytes of each stream kept for the record
_DRAIN = 0.2  # seconds to collect output already written when the program ends

# Passed through from the arena's environment; everything else is dropped.
KEPT_VARIABLES = ("PATH", "HOME", "LANG", "LC_ALL", "TZ", "USER", "LOGNAME",
                  "AVIARY_NO_WARM", "AVIARY_WARM_DIR",  # the course commands' warm server
                  "AVIARY_NO_MEMORY")  # and their memory of the game so far


@dataclass(frozen=True)
class Limits:
    """Per-move resource limits. memory_mb=None leaves the address space unlimited."""

    seconds: float
    grace: float = 0.25
    memory_mb: int | None = 2048


@dataclass(frozen=True)
class RunResult:
    """What one run of a program produced."""

    last_line: str | None  # last complete line on stdout, without its newline
    line_time: float | None  # seconds after start when that line was read
    wall: float  # seconds from start until the process ended or was killed
    timed_out: bool  # still running at the deadline (seconds + grace), so killed
    status: int | None  # exit status; negative = killed by that signal; None if we killed it
    stdout_tail: str
    stderr_tail: str
    start_error: str | None = None  # the program could not be started at all
    out_of_memory: bool = False  # the kernel killed a process of the move for its memory
    first_line_time: float | None = None  # seconds after start when the first line was read


def clean_environment(extra: dict[str, str] | None = None, *,
                      jailed: bool = False) -> dict[str, str]:
    """The environment a program's move gets. `jailed`: inside the sandbox, where its home
    and temporary folder are the move's private /tmp, and aviary's solved tables (which
    the course commands read) are named, since the home folder that holds them is hidden."""
    env = {key: os.environ[key] for key in KEPT_VARIABLES if key in os.environ}
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    env.setdefault("LANG", "C.UTF-8")
    # What a move leaves running is killed when it ends, so aviary's course command must
    # not start its warm server here; one started before the match is used.
    env.setdefault("AVIARY_NO_WARM", "1")
    env["PYTHONUNBUFFERED"] = "1"
    if jailed:
        env["AVIARY_NO_WARM"] = "1"  # no warm server's socket is reachable from the sandbox
        env.pop("AVIARY_WARM_DIR", None)
        env.update(HOME="/tmp", TMPDIR="/tmp", USER="player", LOGNAME="player",
                   AVIARY_CACHE_DIR=str(cache_dir()))
    env.update(extra or {})
    return env


def become_subreaper() -> None:
    """Orphaned descendants of our move processes get re-parented here, not to init."""
    _LIBC.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def children_of(pid: int, *, zombies: bool = False) -> set[int]:
    """Processes whose parent is `pid` (live ones, or also zombies), from /proc (no psutil)."""
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                stat = handle.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2 :].split()
        if int(fields[1]) == pid and (zombies or fields[0] != b"Z"):
            found.add(int(entry))
    return found


# Run by the cleaner: wait for end of input (the process that started it has ended),
# then remove the folder. It ignores the signals a terminal sends the whole group.
_CLEANER = """import shutil, signal, sys
for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(number, signal.SIG_IGN)
sys.stdin.buffer.read()
shutil.rmtree(sys.argv[1], ignore_errors=True)
"""
_root: tuple[int, str, subprocess.Popen[bytes]] | None = None  # (pid, folder, cleaner)
_root_lock = threading.Lock()


def moves_root() -> str:
    """This process's folder for its moves' working folders, removed when the process ends.

    Made on first use, with its cleaner (a forked worker makes its own: the pid is part
    of the key). The cleaner is in a session of its own and holds only the read end of
    a pipe whose write end this process keeps (no move inherits it: `close_fds`).
    """
    global _root
    with _root_lock:
        if _root is None or _root[0] != os.getpid():
            _remove_abandoned_roots()
            folder = tempfile.mkdtemp(prefix=f"aviary-move-{os.getpid()}-")
            cleaner = subprocess.Popen(
                [sys.executable, "-c", _CLEANER, folder], stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
                close_fds=True)
            _root = (os.getpid(), folder, cleaner)
        return _root[1]


def _remove_abandoned_roots() -> None:
    """Remove roots of ended processes whose cleaner died with them.

    Ray kills every child of a worker it stops, the cleaner included; the next
    arena on the machine then removes what that worker left.
    """
    base = tempfile.gettempdir()
    with contextlib.suppress(OSError):
        for entry in os.scandir(base):
            match = re.fullmatch(r"aviary-move-(\d+)-\w+", entry.name)
            if match is None or not entry.is_dir(follow_symlinks=False):
                continue
            with contextlib.suppress(OSError):
                if entry.stat(follow_symlinks=False).st_uid != os.getuid():
                    continue
                os.kill(int(match.group(1)), 0)  # raises when no such process
                continue
            shutil.rmtree(entry.path, ignore_errors=True)


def _limit_child(limits: Limits, jail: Jail | None, cgroup: Cgroup | None, parent: int
                 ) -> None:
    """Runs in the child between fork and exec: its cgroup, rlimits, a parent-death signal.
    A `parent` (the pid that forked it) already gone by then never sends that signal, so
    the child ends itself rather than run the program unwatched."""
    _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        os._exit(CHILD_ORPHANED)
    for number in (signal.SIGINT, signal.SIGTERM):  # the arena's workers ignore them
        signal.signal(number, signal.SIG_DFL)
    if cgroup is not None:
        for procs in cgroup.procs_files():
            with open(procs, "w") as handle:
                handle.write(str(os.getpid()))
    cpu = math.ceil(limits.seconds + limits.grace) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if jail is not None:
        size = jail.file_mb << 20
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
        resource.setrlimit(resource.RLIMIT_NOFILE, (jail.open_files, jail.open_files))
    if limits.memory_mb is not None:  # each process alone (the move's cgroup: all together)
        size = limits.memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (size, size))


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def _kill_orphans(before: set[int]) -> None:
    """Kill and reap every child that appeared during the move, zombies included.

    As a subreaper we inherit the move's orphaned descendants: escaped grandchildren,
    and children their parent killed but never waited for (a course command that does
    not wait for its engine process). Unreaped, each would stay a zombie until the worker exits.
    Repeated, since an orphan killed here may leave orphans of its own.
    """
    for _ in range(8):
        found = children_of(os.getpid(), zombies=True) - before
        if not found:
            return
        for pid in found:
            with contextlib.suppress(ProcessLookupError, ChildProcessError, PermissionError):
                os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)


class _LineReader:
    """Accumulates a stream and remembers its last complete line and when it arrived."""

    def __init__(self) -> None:
        self.partial = b""
        self.tail = b""
        self.last_line: bytes | None = None
        self.line_time: float | None = None
        self.first_time: float | None = None

    def feed(self, data: bytes, now: float) -> None:
        self.tail = (self.tail + data)[-_TAIL:]
        chunk = self.partial + data
        if b"\n" in chunk:
            complete, _, self.partial = chunk.rpartition(b"\n")
            lines = [line for line in complete.split(b"\n") if line.strip()]
            if lines:
                self.last_line, self.line_time = lines[-1].rstrip(b"\r"), now
                if self.first_time is None:
                    self.first_time = now
        else:
            self.partial = chunk[-(1 << 20):]


def run_program(argv: list[str], extra_args: list[str], limits: Limits,
                env: dict[str, str] | None = None, jail: Jail | None = None,
                own_copy: str | None = None) -> RunResult:
    """Run `argv + extra_args` once under `limits` and report its last complete line.

    With `jail`, inside the sandbox (`own_copy`: this game's copy of the player's folder)."""
    root = moves_root()  # first: its cleaner is not one of this move's orphans
    before = children_of(os.getpid())
    command = argv + extra_args
    cgroup = None
    if jail is not None:
        cgroup = make_cgroup(limits.memory_mb, jail.processes)
        command = jail.command(command, own_copy, count_processes=cgroup is None)
    parent = os.getpid()
    with tempfile.TemporaryDirectory(prefix="move-", dir=root) as workdir:
        start = time.monotonic()
        try:
            process = subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, cwd=workdir, env=env or clean_environment(),
                start_new_session=True, close_fds=True,
                preexec_fn=lambda: _limit_child(limits, jail, cgroup, parent),
            )
        except OSError as error:
            if cgroup is not None:
                cgroup.remove()
            return RunResult(None, None, 0.0, False, None, "", "", start_error=str(error))
        try:
            result = _collect(process, start, limits, before)
            if cgroup is not None and cgroup.out_of_memory():
                result = dataclasses.replace(result, out_of_memory=True)
            return result
        finally:
            _kill_group(process.pid)
            process.wait()
            _kill_orphans(before)
            for stream in (process.stdout, process.stderr):
                if stream is not None:
                    stream.close()
            if cgroup is not None:
                cgroup.remove()


def _collect(process: subprocess.Popen[bytes], start: float, limits: Limits,
             before: set[int]) -> RunResult:
    out, err = _LineReader(), _LineReader()
    assert process.stdout is not None and process.stderr is not None
    readers = {process.stdout.fileno(): out, process.stderr.fileno(): err}
    selector = selectors.DefaultSelector()
    for fd in readers:
        os.set_blocking(fd, False)
        selector.register(fd, selectors.EVENT_READ)
    deadline = start + limits.seconds + limits.grace
    status: int | None = None
    end: float | None = None
    with selector:
        while True:
            now = time.monotonic()
            if end is None:
                status = process.poll()
                if status is not None or now >= deadline:
                    # The program ended or its time is up: kill everything it left behind
                    # first, so what is still in the pipes was written before this moment.
                    end = now
                    _kill_group(process.pid)
                    process.wait()
                    _kill_orphans(before)
                    drain_until = now + _DRAIN
            elif now >= drain_until or not selector.get_map():
                break
            if not selector.get_map():  # the program closed its output but still runs
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(timeout=max(0.0, min(deadline - now, 0.05)))
                continue
            limit = drain_until if end is not None else deadline
            for key, _ in selector.select(timeout=max(0.0, min(limit - now, 0.05))):
                try:
                    data = os.read(key.fd, 65536)
                except BlockingIOError:
                    continue
                if not data:
                    selector.unregister(key.fileobj)
                    continue
                readers[key.fd].feed(data, time.monotonic() - start)
    timed_out = status is None
    return RunResult(
        last_line=None if out.last_line is None else out.last_line.decode("utf-8", "replace"),
        line_time=out.line_time,
        wall=end - start,
        timed_out=timed_out,
        status=status,
        stdout_tail=out.tail.decode("utf-8", "replace"),
        stderr_tail=err.tail.decode("utf-8", "replace"),
        first_line_time=out.first_time,
    )
