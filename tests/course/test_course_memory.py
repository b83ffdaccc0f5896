"""The course command's memory of the game it plays (`aviary.course.memory`): a move's line
links to its own game's previous move, games side by side keep apart, the engine
searches with the recalled positions (in a child and in the warm server), and a
repetition it would have walked into is avoided.

The positions are from a match in which the command, told only each position, shuffled
the elephant game's foxes through the same four positions for 500 plies (issue 27).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time

import pytest

from aviary.course import memory
from aviary.games import registry
from aviary.search.clock import Limit

# the cycle: the foxes (f) to move, then the position after each side's move
CYCLE = ["f ##...####...##......E..FF...EG..GG.##GGG####GGG##",
         "g ##...####...##..F...E...F...EG..GG.##GGG####GGG##",
         "f ##...####...##..F.......F..EEG..GG.##GGG####GGG##",
         "g ##...####...##.........FF..EEG..GG.##GGG####GGG##"]
GAME = registry.make("foxgeese", variant="elephants")


def position(text: str):
    return GAME.decode(text)


def course_text(state) -> str:
    return f"{GAME.label(state)} {GAME.format(state)}"


@pytest.fixture
def folder(tmp_path, monkeypatch):
    directory = tmp_path / "aviary"
    monkeypatch.setenv("AVIARY_WARM_DIR", str(directory))
    monkeypatch.delenv("AVIARY_NO_MEMORY", raising=False)
    return directory


def reply(state, index: int = 0):
    """The opponent's `index`-th answer to the position our move made."""
    return list(GAME.successors(state).values())[index]


def test_a_move_follows_its_own_games_last_answer_and_games_keep_apart(folder):
    first = position(CYCLE[0])
    made = position(CYCLE[1])
    assert memory.recall("foxgeese", GAME, first) == memory.Recall()  # nothing yet
    memory.remember("foxgeese", GAME, first, made, None)

    # another game beside it, same settings: its lines never join this game's
    other = GAME.start()
    other_made = reply(other)
    memory.remember("foxgeese", GAME, other, other_made, None)

    second = position(CYCLE[2])  # the geese's answer to `made`
    recalled = memory.recall("foxgeese", GAME, second)
    assert [course_text(position(text)) for text in recalled.history] == CYCLE[:2]
    assert recalled.parent is not None
    memory.remember("foxgeese", GAME, second, position(CYCLE[3]), recalled.parent)

    again = memory.recall("foxgeese", GAME, position(CYCLE[0]))  # back where it began
    assert [course_text(position(text)) for text in again.history] == CYCLE
    beside = memory.recall("foxgeese", GAME, reply(other_made))
    assert [course_text(position(text)) for text in beside.history] == [
        course_text(other), course_text(other_made)]

    # a position no answer leads to, or the same board in another variant: no history
    assert memory.recall("foxgeese", GAME, GAME.start()).history == ()
    classic = registry.make("foxgeese", variant="classic")
    assert memory.recall("foxgeese", classic, classic.start()).history == ()
    assert (folder / memory.FILE_NAME).stat().st_mode & 0o777 == 0o600


def test_old_lines_are_not_recalled(folder):
    memory.remember("foxgeese", GAME, position(CYCLE[0]), position(CYCLE[1]), None)
    path = folder / memory.FILE_NAME
    line = json.loads(path.read_text())
    line["time"] = time.time() - memory.MAX_AGE_SECONDS - 1
    path.write_text(json.dumps(line) + "\n")
    assert memory.recall("foxgeese", GAME, position(CYCLE[2])) == memory.Recall()


def test_the_file_is_cut_back_to_its_newest_lines(folder, monkeypatch):
    monkeypatch.setattr(memory, "KEEP_BYTES", 4000)
    state, parent = position(CYCLE[0]), None
    for _ in range(60):  # a long game: every line links to the one before
        made = reply(state)
        memory.remember("foxgeese", GAME, state, made, parent)
        state = reply(made, -1)
        parent = memory.recall("foxgeese", GAME, state).parent
        assert parent is not None
    size = (folder / memory.FILE_NAME).stat().st_size
    assert size <= 4000
    lines = (folder / memory.FILE_NAME).read_text().splitlines()
    assert all(json.loads(line) for line in lines)  # whole lines only
    recalled = memory.recall("foxgeese", GAME, state)
    assert len(recalled.history) == 2 * len(lines)  # back to the oldest line kept


def test_no_memory_when_turned_off_or_for_a_chance_game(folder, monkeypatch):
    nondet = registry.make("ijk", mode="nondet")
    assert not memory.enabled(nondet)
    assert memory.enabled(registry.make("ijk", mode="det"))
    monkeypatch.setenv("AVIARY_NO_MEMORY", "1")
    memory.remember("foxgeese", GAME, position(CYCLE[0]), position(CYCLE[1]), None)
    assert not (folder / memory.FILE_NAME).exists()


def test_a_bad_folder_leaves_the_command_without_memory(tmp_path, monkeypatch):
    monkeypatch.setenv("AVIARY_WARM_DIR", str(tmp_path / "missing" / "deeper"))
    memory.remember("foxgeese", GAME, position(CYCLE[0]), position(CYCLE[1]), None)
    assert memory.recall("foxgeese", GAME, position(CYCLE[2])) == memory.Recall()


def bad_lines(good: dict) -> list[bytes]:
    """Lines a memory file may hold besides `remember`'s: edited by hand, cut by a killed
    command, written by another version, or junk; each keeps the good line's game key
    and time where it has them, so that it reaches the code that reads its fields."""
    def edited(**fields) -> bytes:
        return json.dumps({**good, "id": "bad", **fields}).encode()

    return [edited(time="abc"), b"null", b"[1]", edited(made=5), edited(given=5),
            json.dumps(good).encode()[:40],  # half a line
            bytes(range(256)) + b"\xff\xfe", b"[" * 100_000,  # binary junk, deep nesting
            edited(time=None), edited(time=float("nan")), edited(time=True), edited(id=[1]),
            edited(key=None), edited(parent=7), edited(made="x"), edited(made="f ##"),
            edited(parent=good["id"], given="no position", made="nor this")]


def test_bad_lines_are_skipped_and_the_good_ones_still_recalled(folder):
    memory.remember("foxgeese", GAME, position(CYCLE[0]), position(CYCLE[1]), None)
    path = folder / memory.FILE_NAME
    good = path.read_bytes()
    for bad in bad_lines(json.loads(good)):
        for content in (bad + b"\n" + good, good + bad + b"\n"):
            path.write_bytes(content)
            recalled = memory.recall("foxgeese", GAME, position(CYCLE[2]))
            assert [course_text(position(text)) for text in recalled.history] == CYCLE[:2], bad
        # a bad line linking to the good one gives no history of its own
        path.write_bytes(good + bad + b"\n")
        assert memory.recall("foxgeese", GAME, GAME.start()).history == ()


def test_the_course_command_answers_and_exits_0_over_a_bad_memory_file(tmp_path):
    """The real command (its own engine child, no server), with every bad line of
    `bad_lines` in its memory file: it answers, exits 0 without a traceback, and adds
    its own line."""
    folder = tmp_path / "aviary"
    folder.mkdir(mode=0o700)
    good = {"id": "0123456789ab", "key": memory._key("foxgeese", GAME),
            "given": CYCLE[0] + " 0", "made": CYCLE[1] + " 1", "parent": None,
            "time": time.time()}
    path = folder / memory.FILE_NAME
    path.write_bytes(b"\n".join(bad_lines(good)) + b"\n")
    env = dict(os.environ, AVIARY_WARM_DIR=str(folder), AVIARY_NO_WARM="1")
    env.pop("AVIARY_NO_MEMORY", None)
    result = course("f", CYCLE[2].split()[1], "2", "--variant", "elephants", env=env)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    answer = result.stdout.split()[-1]
    assert GAME.format(GAME.decode("g " + answer)) == answer
    added = json.loads(path.read_bytes().splitlines()[-1])
    assert added["given"].startswith(CYCLE[2]) and added["parent"] is None


def test_the_recalled_history_turns_the_engine_from_the_repetition():
    """At a fixed node budget, each search in a new thread (its own transposition table):
    told a game in which the position its move makes has already stood (the foxes' move,
    a geese step, both stepped back: the shuffle of the match above), the foxes' search
    chooses another move (depth 12 both)."""
    spec = registry.spec("foxgeese")
    engine = spec.engine(spec.main_engine, GAME)
    start = position(CYCLE[0])

    def search(history: list):
        """The move of a search on a thread of its own (a transposition table of its own)."""
        found: list = []
        thread = threading.Thread(target=lambda: found.append(
            list(engine.think(start, Limit(nodes=700_000), history=history))[-1].move))
        thread.start()
        thread.join()
        return found[0]

    def shuffle(move) -> list:
        """The positions of a game that made `move` from `start` and came back to it."""
        after = GAME.play(start, move)
        fox_back = type(move)(move.end, move.start, None)
        for step in GAME.legal_moves(after):
            there = GAME.play(after, step)
            if step.captured is None and fox_back in GAME.legal_moves(there):
                returned = GAME.play(there, fox_back)
                geese_back = type(step)(step.end, step.start, None)
                if geese_back in GAME.legal_moves(returned):
                    assert GAME.format(GAME.play(returned, geese_back)) == GAME.format(start)
                    return [start, after, there, returned]
        raise AssertionError("no shuffle back to the start")

    without = search([])
    assert search(shuffle(without)) != without


def course(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "aviary", "foxgeese", *args], env=env,
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("warm", [False, True], ids=["engine child", "warm server"])
def test_course_commands_link_their_moves_and_the_engine_searches_with_them(tmp_path, warm):
    folder = tmp_path / "aviary"
    env = dict(os.environ, AVIARY_WARM_DIR=str(folder))
    env.pop("AVIARY_NO_MEMORY", None)
    env.pop("AVIARY_NO_WARM", None)
    if not warm:
        env["AVIARY_NO_WARM"] = "1"
    else:
        started = subprocess.run([sys.executable, "-m", "aviary", "warm", "start"], env=env,
                                 capture_output=True, text=True, timeout=300)
        assert started.returncode == 0, started.stderr
    # the warm server answers at once; an engine child first loads numba and the cached
    # kernels, which on a loaded machine (CI's other worker) can take most of 2 s
    seconds = "2" if warm else "6"
    try:
        # the first two moves of the cycle, as the foxes' course command answers them
        first = course("f", CYCLE[0].split()[1], seconds, "--variant", "elephants", env=env)
        assert first.returncode == 0, first.stderr
        answer = position("g " + first.stdout.split()[-1])
        second_state = reply(answer)
        second = course("f", GAME.format(second_state), seconds, "--variant", "elephants",
                        env=env)
        assert second.returncode == 0, second.stderr
        lines = [json.loads(line) for line in (folder / memory.FILE_NAME).read_text()
                 .splitlines()]
        assert [line["parent"] for line in lines] == [None, lines[0]["id"]]
        # the engine searched with the first move's two positions
        assert second.stderr.strip().splitlines()[-1].startswith("engine (")
        assert second.stderr.strip().splitlines()[-1].endswith(", history 2)")
        assert first.stderr.strip().splitlines()[-1].endswith(", history 0)")
    finally:
        if warm:
            subprocess.run([sys.executable, "-m", "aviary", "warm", "stop"], env=env,
                           capture_output=True, timeout=60)
