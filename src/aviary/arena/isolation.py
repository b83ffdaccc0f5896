"""The sandbox an external program's move runs in: bubblewrap namespaces and cgroup limits.

`arena/sandbox.py` runs one move as a process (deadline, last line, process
hygiene); this module decides what that process may see and use, the way
judges do it (IOI's isolate, nsjail, flatpak's bubblewrap), with bubblewrap
(`bwrap`, Debian package `bubblewrap`), never home-made seccomp code:

- its own user namespace (uid 1000 inside, no capabilities outside), pid
  namespace (the arena's /proc is out of reach, and every process of the move
  dies with it: when the program's first process ends or is killed, the kernel
  kills the namespace), network namespace (no network, not even 127.0.0.1),
  ipc and uts namespaces; no nested user namespaces;
- the disk read-only, with folders hidden behind empty read-only ones: the
  arena's working folder, the database's folder, the home folder, /tmp, /run and
  every other player's folder (a file, where two players share a folder); what
  the program's interpreter needs inside a hidden folder (a virtualenv, the
  packages its `.pth` files name) is shown again, read-only;
- its own folder as a writable copy that lasts for one game (made before the
  game's first move, removed after it), a private /tmp for each move;
- limits for the move as a whole: memory and processes (threads count) by a
  cgroup where the arena may make one (cgroup v1 or v2), else by the documented
  fallback: address space per process (RLIMIT_AS) and processes by RLIMIT_NPROC,
  which a fresh user namespace counts for the move alone; file size and open
  files by rlimits.

Not isolated: time (a program sees the clock and the machine's load, so it can
tell how busy its opponent is) and what any user may read on the disk outside
the hidden folders.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aviary.cache import cache_dir

SANDBOXES = ("bwrap", "none")
INSIDE_UID = 1000
COPY_LIMIT_BYTES = 200 * 1024 * 1024  # a player's folder is copied for each game
COPY_LIMIT_FILES = 20_000
# never hidden: hiding one of these (or a folder holding one) would hide the system
_SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt",
           "/nix", "/snap")
_ALWAYS_HIDDEN = ("/tmp", "/var/tmp", "/run", "/dev/shm", "/mnt", "/media")
_INSTALL = "install it (Debian: apt-get install bubblewrap)"


class SandboxUnavailable(Exception):
    """No sandbox can run here; the message says what to install (or `--sandbox none`)."""


@functools.cache
def check_available() -> None:
    """Raise SandboxUnavailable unless bubblewrap runs here with the namespaces we use."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise SandboxUnavailable(f"the arena's sandbox needs bubblewrap, which is not "
                                 f"installed: {_INSTALL}, or run the programs unisolated "
                                 "with --sandbox none")
    trial = [bwrap, *_NAMESPACES, "--ro-bind", "/", "/", "--proc", "/proc", "--", "true"]
    try:
        done = subprocess.run(trial, capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise SandboxUnavailable(f"bubblewrap did not run ({error}); --sandbox none runs the "
                                 "programs unisolated") from None
    if done.returncode != 0:
        why = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["no reason"]
        raise SandboxUnavailable(f"bubblewrap cannot make its namespaces here ({why[0]}; are "
                                 "user namespaces turned off?); --sandbox none runs the "
                                 "programs unisolated")


_NAMESPACES = ("--unshare-user", "--uid", str(INSIDE_UID), "--gid", str(INSIDE_UID),
               "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
               "--disable-userns", "--die-with-parent", "--new-session", "--cap-drop", "ALL")


@dataclass(frozen=True)
class Jail:
    """What one player's moves may see and use: planned once, before any game."""

    own_folder: str | None  # seen as a writable copy; the program's working folder
    hidden: tuple[str, ...]  # folders replaced by empty read-only ones
    masked: tuple[str, ...]  # files replaced by an empty file (another player's, nearby)
    needed: tuple[str, ...]  # folders shown again, read-only, inside hidden ones
    processes: int  # processes and threads of the move together
    memory_mb: int | None  # memory of the move together; None: unlimited
    file_mb: int = 256  # largest file it may write
    open_files: int = 256

    @classmethod
    def from_dict(cls, fields: dict[str, Any]) -> Jail:
        """A jail from its JSON form (`dataclasses.asdict`): lists back to tuples."""
        return cls(own_folder=fields["own_folder"], hidden=tuple(fields["hidden"]),
                   masked=tuple(fields["masked"]), needed=tuple(fields["needed"]),
                   processes=int(fields["processes"]), memory_mb=fields["memory_mb"],
                   file_mb=int(fields["file_mb"]), open_files=int(fields["open_files"]))

    def command(self, argv: Sequence[str], own_copy: str | None,
                count_processes: bool = True) -> list[str]:
        """The bwrap command that runs `argv` inside this jail (`own_copy`: this game's
        copy of the player's folder); `count_processes`: limit them by RLIMIT_NPROC
        (where no cgroup does)."""
        bwrap = shutil.which("bwrap") or "bwrap"
        args = [bwrap, *_NAMESPACES, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
        for folder in _outermost_first(self.hidden):
            if folder == "/tmp":  # the move's private /tmp, the one writable tmpfs
                args += ["--size", str((self.memory_mb or 1024) << 20)]
            args += ["--tmpfs", folder]
        for path in self.masked:
            if os.path.isfile(path):
                args += ["--ro-bind", "/dev/null", path]
        for folder in _outermost_first(self.needed):
            if _inside_any(folder, self.hidden):
                args += ["--ro-bind", folder, folder]
        # hidden things inside what was shown again stay hidden
        for folder in _outermost_first(self.hidden):
            if _inside_any(folder, self.needed, strict=True):
                args += ["--tmpfs", folder]
        if self.own_folder is not None and own_copy is not None:
            args += ["--bind", own_copy, self.own_folder, "--chdir", self.own_folder]
        else:
            args += ["--chdir", "/tmp"]
        for folder in _outermost_first(self.hidden):
            if folder != "/tmp":
                args += ["--remount-ro", folder]
        prlimit = shutil.which("prlimit")
        limits = []
        if prlimit is not None and count_processes:  # counted in the new user namespace
            limits = [prlimit, f"--nproc={self.processes}", "--"]
        return [*args, "--", *limits, *argv]


def _outermost_first(paths: Iterable[str]) -> list[str]:
    return sorted(set(paths), key=lambda path: (path.count("/"), path))


def _inside(path: str, folder: str, strict: bool = False) -> bool:
    if path == folder:
        return not strict
    return path.startswith(folder.rstrip("/") + "/")


def _inside_any(path: str, folders: Iterable[str], strict: bool = False) -> bool:
    return any(_inside(path, folder, strict) for folder in folders)


def own_folder(argv: Sequence[str]) -> str | None:
    """The player's folder: that of the first argument naming a file (`python3 sub/a.py`),
    else the program's own folder unless it is on PATH, a `bin` folder (an installed
    command, `aviary GAME`, or an interpreter, `python -m mod`, has no folder of its
    own) or a system folder."""
    for word in argv[1:]:
        if os.path.isabs(word) and os.path.isfile(word):
            return _unless_system(os.path.dirname(word))
    program = os.path.dirname(argv[0])
    on_path = {os.path.realpath(entry) for entry in os.environ.get("PATH", "").split(os.pathsep)
               if entry}
    if os.path.realpath(program) in on_path or os.path.basename(program) == "bin":
        return None
    return _unless_system(program)


def _unless_system(folder: str) -> str | None:
    folder = os.path.normpath(folder)
    if folder == "/" or any(_inside(folder, system) or _inside(system, folder)
                            for system in _SYSTEM):
        return None
    return folder


def interpreter_paths(argv: Sequence[str]) -> set[str]:
    """Folders the program's interpreter needs: each executable's prefix (the folder above
    its `bin`), a virtualenv's base Python, and the folders its `.pth` files name."""
    found: set[str] = set()
    programs = [argv[0], *_shebang(argv[0])]
    for program in programs:
        for path in {program, os.path.realpath(program)}:
            prefix = os.path.dirname(os.path.dirname(path))
            if prefix and prefix != "/":
                found.add(prefix)
                found |= _venv_paths(Path(prefix))
    return {path for path in found if os.path.isdir(path)}


def _shebang(program: str) -> list[str]:
    """The interpreter a script names in its `#!` line (through `env`), if any."""
    try:
        with open(program, "rb") as handle:
            first = handle.readline(512)
    except OSError:
        return []
    if not first.startswith(b"#!"):
        return []
    words = first[2:].decode(errors="replace").split()
    if not words:
        return []
    if os.path.basename(words[0]) == "env":
        rest = [word for word in words[1:] if not word.startswith("-") and "=" not in word]
        found = shutil.which(rest[0]) if rest else None
        return [found] if found else []
    return [words[0]]


def _venv_paths(prefix: Path) -> set[str]:
    config = prefix / "pyvenv.cfg"
    if not config.is_file():
        return set()
    found: set[str] = set()
    with contextlib.suppress(OSError):
        for line in config.read_text(errors="replace").splitlines():
            key, _, value = line.partition("=")
            if key.strip() == "home" and value.strip():
                found.add(os.path.dirname(os.path.realpath(value.strip())))
    for site in prefix.glob("lib/python*/site-packages"):
        for pth in site.glob("*.pth"):
            with contextlib.suppress(OSError):
                for line in pth.read_text(errors="replace").splitlines():
                    line = line.strip()
                    if line.startswith("/") and os.path.isdir(line):
                        found.add(os.path.normpath(line))
        for finder in site.glob("__editable__*finder.py"):  # setuptools' editable installs
            with contextlib.suppress(OSError):
                for word in finder.read_text(errors="replace").split("'"):
                    if word.startswith("/") and os.path.isdir(word):
                        found.add(os.path.dirname(os.path.normpath(word)))
    return found


@dataclass(frozen=True)
class Program:
    """A player's resolved command, for planning the jails of all players together."""

    name: str
    argv: tuple[str, ...]
    folder: str | None = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "folder", own_folder(self.argv))

    @property
    def files(self) -> list[str]:
        return [word for word in self.argv if os.path.isabs(word) and os.path.isfile(word)]


def plan_jails(programs: Sequence[Program], hide: Iterable[str], processes: int,
               memory_mb: int | None, needed: Iterable[str] = (),
               secret: Iterable[str] = ()) -> dict[str, Jail]:
    """Each program's jail: the `hide` folders (the arena's working folder, the database's
    folder, the home folder) and the other programs' folders hidden from it, and the
    `secret` files (the database) wherever they are, its own folder included."""
    always = [os.path.normpath(path) for path in (*_ALWAYS_HIDDEN, *hide)]
    secret = [os.path.abspath(path) for path in secret]
    jails = {}
    for program in programs:
        hidden, masked = [], list(secret)
        for path in always:
            if _unless_system(path) is not None:
                hidden.append(path)
        for other in programs:
            if other is program:
                continue
            if other.folder is not None and not (
                    program.folder is not None and _inside(program.folder, other.folder)):
                hidden.append(other.folder)
            else:  # its folder holds ours: hide its files
                masked += [path for path in other.files if path not in program.files]
        shown = set(interpreter_paths(program.argv)) | {os.path.normpath(p) for p in needed}
        jails[program.name] = Jail(
            own_folder=program.folder, hidden=tuple(sorted(set(hidden))),
            masked=tuple(sorted(set(masked))), needed=tuple(sorted(shown)),
            processes=processes, memory_mb=memory_mb)
    return jails


def arena_jails(programs: Sequence[Program], database: Path, processes: int,
                memory_mb: int | None) -> dict[str, Jail]:
    """The arena's jails: hidden from each program are the arena's working folder, the
    database's folder (and the database itself, wherever it is), the home folder and the
    other programs' folders; the arena's own Python (a wrapper script may run it) and
    aviary's solved tables (the course commands read them) stay readable."""
    database = database.resolve()
    needed = python_prefixes()
    if cache_dir().is_dir():
        needed.add(str(cache_dir()))
    hide = [os.getcwd(), str(database.parent), os.path.expanduser("~")]
    return plan_jails(programs, hide, processes, memory_mb, needed=needed,
                      secret=[str(database)])


def folder_size_problem(folder: str) -> str | None:
    """Why a player's folder is too big to copy for every game, or None."""
    total, count = 0, 0
    for root, _, files in os.walk(folder):
        for name in files:
            count += 1
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(root, name)).st_size
            if count > COPY_LIMIT_FILES or total > COPY_LIMIT_BYTES:
                return (f"its folder {folder} holds more than {COPY_LIMIT_FILES:,} files or "
                        f"{COPY_LIMIT_BYTES >> 20} MB, and is copied for every game; give "
                        "each program a folder of its own")
    return None


def copy_folder(jail: Jail, into: str) -> str | None:
    """This game's writable copy of the player's folder, without what is hidden from it."""
    if jail.own_folder is None:
        return None
    excluded = set(jail.hidden) | set(jail.masked)
    into = os.path.abspath(into)

    def ignore(directory: str, names: list[str]) -> list[str]:
        left_out = []
        for name in names:
            path = os.path.join(directory, name)
            sqlite_side_file = name.endswith(("-wal", "-shm", "-journal")) and (
                path[: path.rfind("-")] in excluded)
            if path in excluded or sqlite_side_file or _inside(into, path):
                left_out.append(name)  # hidden, or the folder the copy goes into
        return left_out

    shutil.copytree(jail.own_folder, into, symlinks=True, ignore=ignore)
    return into


# ---- cgroups: memory and processes of a move together ------------------------------------------
_counter = itertools.count()
_cgroup_lock = threading.Lock()


@dataclass(frozen=True)
class Cgroup:
    """One move's cgroup(s): a v2 folder, or the v1 memory and pids folders."""

    folders: tuple[str, ...]
    version: int

    def procs_files(self) -> list[str]:
        return [os.path.join(folder, "cgroup.procs") for folder in self.folders]

    def out_of_memory(self) -> bool:
        """Whether the kernel killed a process of the move for exceeding its memory."""
        for folder in self.folders:
            name = "memory.events" if self.version == 2 else "memory.oom_control"
            with contextlib.suppress(OSError), open(os.path.join(folder, name)) as handle:
                for line in handle:
                    key, _, value = line.partition(" ")
                    if key in ("oom_kill", "oom") and value.strip() not in ("", "0"):
                        return True
        return False

    def remove(self) -> None:
        for folder in self.folders:
            for _ in range(50):  # the namespace's last processes may still be exiting
                try:
                    os.rmdir(folder)
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    _kill_all(os.path.join(folder, "cgroup.procs"))
                    threading.Event().wait(0.01)


def _kill_all(procs: str) -> None:
    with contextlib.suppress(OSError), open(procs) as handle:
        for line in handle:
            with contextlib.suppress(OSError, ValueError):
                os.kill(int(line), 9)


def _own_cgroup(controller: str) -> str | None:
    """This process's cgroup folder for `controller` ("" for v2), if it may make children
    (the first time in a process, after removing what ended processes left there)."""
    with contextlib.suppress(OSError), open("/proc/self/cgroup") as handle:
        for line in handle:
            _, names, path = line.rstrip("\n").split(":", 2)
            if (controller == "" and names == "") or controller in names.split(","):
                base = "/sys/fs/cgroup" if controller == "" else f"/sys/fs/cgroup/{controller}"
                folder = os.path.normpath(base + path)
                if os.path.isdir(folder) and os.access(folder, os.W_OK):
                    if folder not in _cleaned:
                        _cleaned.add(folder)
                        _remove_abandoned(folder)
                    return folder
    return None


def _remove_abandoned(parent: str) -> None:
    """Remove the move cgroups of processes that have ended (a worker killed mid-move
    cannot remove its own); an empty cgroup is removed by rmdir."""
    with contextlib.suppress(OSError):
        for entry in os.scandir(parent):
            name = entry.name.split("-")
            if len(name) != 3 or name[0] != "aviary" or not name[1].isdigit():
                continue
            try:
                os.kill(int(name[1]), 0)
                continue  # its process still runs
            except ProcessLookupError:
                pass
            except OSError:
                continue
            _kill_all(os.path.join(entry.path, "cgroup.procs"))
            with contextlib.suppress(OSError):
                os.rmdir(entry.path)


_cleaned: set[str] = set()


def make_cgroup(memory_mb: int | None, processes: int) -> Cgroup | None:
    """A fresh cgroup for one move with its limits, or None where the arena may make none
    (or `AVIARY_SANDBOX_CGROUPS=0` says not to: the rlimit fallback)."""
    if os.environ.get("AVIARY_SANDBOX_CGROUPS") == "0":
        return None
    with _cgroup_lock:
        name = f"aviary-{os.getpid()}-{next(_counter)}"
    v2 = _own_cgroup("")
    if v2 is not None and os.path.exists(os.path.join(v2, "cgroup.subtree_control")):
        with contextlib.suppress(OSError), open(os.path.join(v2, "cgroup.subtree_control")) as h:
            if {"memory", "pids"} <= set(h.read().split()):
                folder = os.path.join(v2, name)
                try:
                    os.mkdir(folder)
                    _write(folder, "pids.max", str(processes))
                    _write(folder, "memory.max",
                           "max" if memory_mb is None else str(memory_mb << 20))
                    _write(folder, "memory.swap.max", "0", optional=True)
                    return Cgroup((folder,), 2)
                except OSError:
                    with contextlib.suppress(OSError):
                        os.rmdir(folder)
    memory, pids = _own_cgroup("memory"), _own_cgroup("pids")
    if memory is None or pids is None:
        return None
    made: list[str] = []
    try:
        for parent in (memory, pids):
            folder = os.path.join(parent, name)
            os.mkdir(folder)
            made.append(folder)
        _write(made[1], "pids.max", str(processes))
        if memory_mb is not None:
            _write(made[0], "memory.limit_in_bytes", str(memory_mb << 20))
            _write(made[0], "memory.memsw.limit_in_bytes", str(memory_mb << 20), optional=True)
        return Cgroup(tuple(made), 1)
    except OSError:
        for folder in made:
            with contextlib.suppress(OSError):
                os.rmdir(folder)
        return None


def _write(folder: str, name: str, value: str, optional: bool = False) -> None:
    try:
        with open(os.path.join(folder, name), "w") as handle:
            handle.write(value)
    except OSError:
        if not optional:
            raise


@functools.cache
def cgroups_work() -> bool:
    """Whether moves get a cgroup here (else the rlimit fallback limits each process)."""
    group = make_cgroup(64, 16)
    if group is None:
        return False
    group.remove()
    return True


def describe() -> str:
    """One line for the record: how moves are limited on this machine."""
    group = make_cgroup(64, 16)
    if group is None:
        limits = "rlimits (address space per process, processes per move)"
    else:
        group.remove()
        limits = f"cgroup v{group.version} (memory and processes of a move together)"
    return f"bubblewrap {_bwrap_version()}, limits by {limits}"


@functools.cache
def _bwrap_version() -> str:
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return "missing"
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        done = subprocess.run([bwrap, "--version"], capture_output=True, text=True, timeout=10,
                              check=False)
        return done.stdout.strip().removeprefix("bubblewrap ") or "?"
    return "?"


def python_prefixes() -> set[str]:
    """The arena's own interpreter's folders (aviary's course commands run on it)."""
    return interpreter_paths([sys.executable])
