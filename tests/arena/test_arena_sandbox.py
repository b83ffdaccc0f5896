"""The arena's sandbox, tried the way a hostile submission would try it.

Everything is real: `aviary arena run` as a subprocess, bubblewrap, the cgroups the
machine gives, a real TCP listener on 127.0.0.1, a real SQLite file. Each hostile
program also plays a legal move, so the games go on and its every move is tried.
What a program found is judged from the outside (the listener, the files, the
database, the processes left), never from what the program says.
"""

from __future__ import annotations

import hashlib
import os
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from arena_programs import assert_no_process_mentions

from aviary.arena import isolation
from aviary.arena.referee import FORFEITS
from aviary.arena.sandbox import Limits, run_program

try:
    isolation.check_available()
    SANDBOX = ""
except isolation.SandboxUnavailable as error:
    SANDBOX = str(error)
needs_sandbox = pytest.mark.skipif(bool(SANDBOX), reason=f"no sandbox here: {SANDBOX}")

START = "........wwwwwwwwwwwwwwww................bbbbbbbbbbbbbbbb........"
PLAY_RANDOM = """
from aviary.games.pikachu import rules
n, player, board = int(sys.argv[1]), sys.argv[2], sys.argv[3]
print(random.choice(sorted(rules.successors(rules.parse(n, board, player)))), flush=True)
"""


def arena(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "aviary", "arena", *args],
                          capture_output=True, text=True, timeout=timeout)


def write_program(folder: Path, body: str) -> Path:
    folder.mkdir(parents=True)
    path = folder / "player.py"
    path.write_text(f"#!{sys.executable}\nimport os, random, sys\n{body}\n{PLAY_RANDOM}")
    path.chmod(0o755)
    return path


class Listener:
    """A TCP listener on 127.0.0.1 that counts the connections it accepts."""

    def __init__(self) -> None:
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(16)
        self.server.settimeout(0.2)
        self.port = self.server.getsockname()[1]
        self.accepted = 0
        self.running = True
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while self.running:
            try:
                connection, _ = self.server.accept()
            except OSError:
                continue
            self.accepted += 1
            connection.close()

    def close(self) -> None:
        self.running = False
        self.thread.join(timeout=5)
        self.server.close()


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@needs_sandbox
@pytest.mark.slow
def test_a_gauntlet_of_four_hostile_programs_reaches_nothing_and_the_honest_player_scores(
        tmp_path, monkeypatch):
    course = tmp_path / "course"
    subs = course / "submissions"
    db = course / "results.sqlite"
    listener = Listener()
    honest = subs / "honest" / "player.sh"
    honest.parent.mkdir(parents=True)
    honest.write_text(f"#!/bin/sh\nexec {sys.executable} -m aviary pikachu \"$@\"\n")
    honest.chmod(0o755)
    secret = subs / "honest" / "notes.txt"
    secret.write_text("the honest player's secret\n")
    outside = tmp_path / "outside.txt"
    outside.write_text("untouched\n")
    snoop = write_program(subs / "snoop", f"""
found = []
for path in ({str(secret)!r}, {str(honest)!r}, {str(db)!r}):
    try:
        found.append(open(path, 'rb').read(200))
    except OSError:
        pass
for pid in os.listdir('/proc'):  # the arena's command line names the database
    try:
        line = open(f'/proc/{{pid}}/cmdline', 'rb').read()
    except OSError:
        continue
    if b'arena' in line:
        found.append(line)
for path in ({str(outside)!r}, {str(tmp_path / 'escaped.txt')!r}, '/etc/escaped'):
    try:
        open(path, 'a').write('escaped\\n')
    except OSError:
        pass
import socket
try:
    socket.create_connection(('127.0.0.1', {listener.port}), timeout=0.3).close()
except OSError:
    pass
print('found', found, '\\x1b[31mred\\x07', file=sys.stderr)
""")
    forger = write_program(subs / "forger", f"""
import sqlite3
try:
    db = sqlite3.connect({str(db)!r}, timeout=1)
    db.execute("UPDATE games SET result = 0.5, winner = NULL, reason = 'forged'")
    db.execute("INSERT INTO games VALUES (999, 0, 'forger', 'x', '', 1, 0, 'forged', '', 0,"
               " 0, '', 0, 0, '')")
    db.commit()
except Exception as error:
    print('no database:', error, file=sys.stderr)
""")
    forker = write_program(subs / "forker", """
import time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        while True:
            time.sleep(0.05)
    os._exit(0)
time.sleep(0.01)
""")
    vandal = write_program(subs / "vandal", f"""
import signal
for path in ({str(honest)!r}, {str(db)!r}):
    try:
        open(path, 'w').write('#!/bin/sh\\nexit 1\\n')
    except OSError:
        pass
for pid in os.listdir('/proc'):
    if pid.isdigit() and int(pid) > 2 and int(pid) != os.getpid():
        try:
            os.kill(int(pid), signal.SIGKILL)
        except OSError:
            pass
""")
    before = {path: digest(path) for path in (honest, secret, outside)}
    monkeypatch.chdir(course)
    try:
        result = arena(
            "run", "--game", "pikachu", "--option", "n=8", "--mode", "gauntlet",
            "--time", "0.5", "--grace", "0.5", "--max-plies", "12", "--jobs", "2",
            "--db", str(db), f"honest={honest}", f"snoop={snoop}", f"forger={forger}",
            f"forker={forker}", f"vandal={vandal}")
    finally:
        listener.close()
    assert result.returncode == 0, result.stderr
    assert listener.accepted == 0
    assert {path: digest(path) for path in before} == before
    assert not (tmp_path / "escaped.txt").exists() and not Path("/etc/escaped").exists()
    with sqlite3.connect(db) as connection:
        rows = connection.execute(
            "SELECT id, first, second, winner, reason FROM games ORDER BY id").fetchall()
        notes = [note for (note,) in connection.execute("SELECT note FROM moves")]
    assert [row[0] for row in rows] == list(range(1, 9))  # no forged game
    assert all(reason != "forged" for *_, reason in rows)
    for _, first, second, winner, reason in rows:
        loser = None if winner is None else (first, second)[1 - winner]
        assert not (loser == "honest" and reason in FORFEITS), (first, second, reason)
    snoop_notes = [note for note in notes if note.startswith("found")]
    assert snoop_notes and all(note.startswith("found []") for note in snoop_notes)
    assert all(note.isprintable() for note in notes)  # the colour codes and bell are gone
    report = arena("report", str(db))
    assert report.returncode == 0 and "honest" in report.stdout
    assert_no_process_mentions(str(subs))


@needs_sandbox
def test_a_move_cannot_hold_more_memory_than_its_limit_across_its_processes(tmp_path):
    """Four processes of 200 MB each under a 512 MB limit: the kernel stops the move."""
    if not isolation.cgroups_work():
        pytest.skip("no cgroup can be made here: memory is limited per process only")
    program = write_program(tmp_path / "hog", """
import time
children = []
for _ in range(4):
    pid = os.fork()
    if pid == 0:
        hoard = bytearray(200 << 20)  # touched: real memory
        time.sleep(5)
        os._exit(0)
    children.append(pid)
killed = 0
for pid in children:
    _, status = os.waitpid(pid, 0)
    killed += os.WIFSIGNALED(status)
if not killed:  # under cgroup v1 the kernel kills some children and this process goes on
    print('all four held their memory', file=sys.stderr)
""")
    jail = isolation.plan_jails([isolation.Program("hog", (str(program),))], [], 64, 512)["hog"]
    run = run_program([str(program)], ["8", "w", START, "5"],
                      Limits(seconds=5, grace=0.5, memory_mb=512), jail=jail,
                      own_copy=str(tmp_path / "hog"))
    assert run.out_of_memory
    assert "all four held" not in run.stderr_tail


@needs_sandbox
@pytest.mark.parametrize("cgroups", ["1", "0"])
def test_a_fork_bomb_stops_at_the_process_limit_and_leaves_nothing(tmp_path, monkeypatch,
                                                                   cgroups):
    """By the move's cgroup where there is one, else by RLIMIT_NPROC in its user namespace."""
    if cgroups == "1" and not isolation.cgroups_work():
        pytest.skip("no cgroup can be made here")
    if cgroups == "0" and os.getuid() == 0:
        pytest.skip("Linux does not apply RLIMIT_NPROC to root's processes: the fallback "
                    "limits processes only for an arena run as an ordinary user")
    monkeypatch.setenv("AVIARY_SANDBOX_CGROUPS", cgroups)
    program = write_program(tmp_path / "bomb", """
import time
made = 0
for _ in range(200):
    try:
        if os.fork() == 0:
            time.sleep(30)
            os._exit(0)
        made += 1
    except OSError:
        break
print('children', made, file=sys.stderr, flush=True)
""")
    jail = isolation.plan_jails([isolation.Program("bomb", (str(program),))], [], 64, 512)["bomb"]
    started = time.monotonic()
    run = run_program([str(program)], ["8", "w", START, "2"],
                      Limits(seconds=2, grace=0.5, memory_mb=512), jail=jail,
                      own_copy=str(tmp_path / "bomb"))
    made = int(run.stderr_tail.split("children")[1].split()[0])
    assert 0 < made < 64
    assert run.last_line is not None and len(run.last_line) == len(START)
    assert time.monotonic() - started < 20  # the machine stayed usable
    assert_no_process_mentions(str(tmp_path / "bomb"))


@pytest.mark.slow
@pytest.mark.parametrize("signal_name", ["SIGKILL", "SIGSTOP"])
def test_a_program_that_kills_or_stops_its_worker_forfeits_and_the_tournament_goes_on(
        tmp_path, signal_name):
    """Only unisolated programs can reach their worker; the arena must survive them too."""
    killer = write_program(tmp_path / "killer", f"""
import signal
os.kill(os.getppid(), signal.{signal_name})
""")
    db = tmp_path / "results.sqlite"
    result = arena("run", "--sandbox", "none", "--time", "0.3", "--max-plies", "6",
                   "--games", "4", "--jobs", "2", "--db", str(db),
                   "aviary:random?seed=1", f"killer={killer}")
    assert result.returncode == 0, result.stderr
    assert "unisolated" in result.stderr
    with sqlite3.connect(db) as connection:
        rows = connection.execute("SELECT first, second, winner, reason, detail FROM games"
                                  ).fetchall()
    assert len(rows) == 4
    for first, second, winner, reason, detail in rows:
        assert (first, second)[1 - winner] == "killer" and reason == "crash"
        assert "worker" in detail
    resumed = arena("resume", str(db))
    assert resumed.returncode == 0, resumed.stderr
    assert_no_process_mentions(str(tmp_path / "killer"))


def test_sandbox_none_is_said_once_and_recorded(tmp_path):
    program = write_program(tmp_path / "mover", "")
    db = tmp_path / "results.sqlite"
    result = arena("run", "--sandbox", "none", "--time", "0.5", "--max-plies", "2",
                   "--games", "2", "--jobs", "1", "--db", str(db),
                   "aviary:random?seed=1", f"mover={program}")
    assert result.returncode == 0, result.stderr
    said = [line for line in result.stderr.splitlines() if "unisolated" in line]
    assert len(said) == 1
    with sqlite3.connect(db) as connection:
        config = connection.execute("SELECT value FROM meta WHERE key = 'config'").fetchone()[0]
        sittings = connection.execute(
            "SELECT value FROM meta WHERE key = 'sittings'").fetchone()[0]
    assert '"sandbox": "none"' in config and "unisolated" in sittings


def test_no_bubblewrap_is_one_line_naming_the_package_and_the_way_out(tmp_path):
    program = write_program(tmp_path / "mover", "")
    empty = tmp_path / "bin"
    empty.mkdir()
    env = {**os.environ, "PATH": str(empty)}
    result = subprocess.run(
        [sys.executable, "-m", "aviary", "arena", "run", "--db", str(tmp_path / "r.sqlite"),
         "aviary:random", f"{sys.executable} {program}"],
        capture_output=True, text=True, timeout=60, env=env)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "bubblewrap" in lines[0] and "--sandbox none" in lines[0]
    assert not (tmp_path / "r.sqlite").exists()


@pytest.mark.parametrize("player, says", [
    ("'python3 unbalanced.py", "cannot split"),
    ("noshebang", "#!"),
])
def test_programs_that_cannot_run_are_refused_before_the_first_game(tmp_path, player, says):
    script = tmp_path / "noshebang"
    script.write_text("print('x')\n")
    script.chmod(0o755)
    spec = str(script) if player == "noshebang" else player
    result = arena("run", "--db", str(tmp_path / "r.sqlite"), "aviary:random", spec)
    assert result.returncode == 2
    assert says in result.stderr and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_a_game_number_too_large_for_sqlite_is_one_line(tmp_path):
    result = arena("game", str(tmp_path / "r.sqlite"), "99999999999999999999999")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_a_deep_in_process_engine_still_answers_within_the_moves_time(tmp_path):
    db = tmp_path / "results.sqlite"
    result = arena("run", "--time", "0.2", "--max-plies", "6", "--games", "2", "--jobs", "1",
                   "--db", str(db), "aviary:engine?depth=40", "aviary:random?seed=2",
                   timeout=120)
    assert result.returncode == 0, result.stderr
    with sqlite3.connect(db) as connection:
        reasons = [reason for (reason,) in connection.execute("SELECT reason FROM games")]
    assert "timeout" not in reasons


@needs_sandbox
def test_cgroups_left_by_a_killed_worker_are_removed_by_the_next_arena():
    if not isolation.cgroups_work():
        pytest.skip("no cgroup can be made here")
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()  # a pid no process has now
    group = isolation.make_cgroup(64, 16)
    assert group is not None
    parents = [os.path.dirname(folder) for folder in group.folders]
    group.remove()
    left = [os.path.join(parent, f"aviary-{dead.pid}-0") for parent in parents]
    for folder in left:
        os.mkdir(folder)
    isolation._cleaned.clear()  # as in a new arena process
    isolation.make_cgroup(64, 16).remove()
    assert not any(os.path.exists(folder) for folder in left)
