"""Solved Pikachu endings: indexing, moves and values checked against rules.py; cache; use.

The values are checked against plain minimax over rules.py on positions the tables
say are won or lost in a few plies, and against their own children (each position's
value is the best of its moves' values, moves from rules.py) everywhere sampled.
"""

from __future__ import annotations

import functools
import os
import random
import re
import subprocess
import sys

import numpy as np
import pytest

from aviary.games import registry
from aviary.games.pikachu import endgame, rules
from aviary.games.pikachu import endgame_kernels as kernels
from aviary.search.clock import Limit
from aviary.search.retrograde import TERMINAL, exit_distance, exit_result

MATERIALS = [(1, 1), (2, 1), (1, 2), (3, 1), (1, 3), (2, 2)]
BINOMIALS = kernels.binomials(64)


def main_engine(n: int):
    """The engine (`aviary:engine`) of the n x n game, as the registry keeps it."""
    return registry.spec("pikachu").engine("engine", rules.Pikachu(n=n))


def random_position(mover: int, other: int, chooser: random.Random) -> rules.Position:
    squares = chooser.sample(range(64), mover + other)
    player = chooser.choice("wb")
    cells = ["."] * 64
    for k, square in enumerate(squares):
        cells[square] = player.upper() if k < mover else rules.opponent(player).upper()
    return rules.Position(8, "".join(cells), player)  # type: ignore[arg-type]


def value(position: rules.Position) -> tuple[int, int]:
    group, index = endgame.index_of(position)
    table = endgame.load(group)
    return endgame._value(table, index)


@functools.cache
def wins_within(position: rules.Position, plies: int) -> bool:
    """Plain minimax over rules.py: can the side to move force a win within `plies`?"""
    for move in rules.legal_moves(position):
        after = rules.play(position, move)
        if rules.winner(after) == position.player:
            return True
        if plies >= 3 and loses_within(after, plies - 1):
            return True
    return False


@functools.cache
def loses_within(position: rules.Position, plies: int) -> bool:
    """Plain minimax over rules.py: does the side to move lose within `plies` whatever it does?"""
    if rules.winner(position) == rules.opponent(position.player):
        return True
    if plies < 2:
        return False
    return all(wins_within(rules.play(position, move), plies - 1)
               for move in rules.legal_moves(position))


# ---- indexing and moves: the kernels against the plain-Python twin and rules.py ----


@pytest.mark.parametrize("mover,other", MATERIALS)
def test_rank_and_unrank_agree_between_python_and_kernels(mover, other):
    chooser = random.Random(mover * 10 + other)
    size = endgame.part_size(mover, other)
    movers = np.zeros(8, dtype=np.int64)
    others = np.zeros(8, dtype=np.int64)
    for index in [0, size - 1, *(chooser.randrange(size) for _ in range(300))]:
        mine, theirs = endgame.unrank(index, mover, other)
        assert len(set(mine + theirs)) == mover + other
        assert endgame.rank(mine, theirs) == index
        kernels.unrank(index, mover, other, 64, BINOMIALS, movers, others)
        assert list(movers[:mover]) == mine and list(others[:other]) == theirs
        assert kernels.rank(movers, mover, others, other, 64, BINOMIALS) == index


def test_every_one_against_one_position_has_its_own_index():
    seen = {endgame.index_of(rules.Position(8, board, "w"))[1]
            for board in ("".join("W" if s == w else "B" if s == b else "." for s in range(64))
                          for w in range(64) for b in range(64) if w != b)}
    assert seen == set(range(64 * 63))


def _data(group):
    a, b = group
    empty = np.zeros(0, dtype=np.int16)

    def exits(mover, other):
        if mover == 0:
            return empty
        table = np.asarray(endgame.load(endgame.group_of(mover, other)))
        start = endgame.part_offset(mover, other)
        return table[start : start + endgame.part_size(mover, other)]

    return (8, a, b, 64, BINOMIALS, exits(b - 1, a), exits(a - 1, b))


@pytest.mark.parametrize("mover,other", [(2, 1), (1, 2), (1, 1)])
def test_kernel_moves_are_the_rules_moves_and_predecessors_invert_them(mover, other):
    chooser = random.Random(7 + mover)
    out = np.zeros(64, dtype=np.int64)
    back = np.zeros(64, dtype=np.int64)
    for _ in range(200):
        position = random_position(mover, other, chooser)
        group, index = endgame.index_of(position)
        data = _data(group)
        count = kernels.children(index, out, data)
        assert count != TERMINAL
        expected = []
        for move in rules.legal_moves(position):
            after = rules.play(position, move)
            if rules.winner(after) == position.player:
                expected.append(("exit", -1, 0))
            elif move.captured is not None:
                there, plies = value(after)
                expected.append(("exit", there, plies))
            else:
                assert endgame.index_of(after)[0] == group
                expected.append(("in", endgame.index_of(after)[1], 0))
        got = []
        for child in out[:count]:
            if child >= 0:
                got.append(("in", int(child), 0))
                # the child lists this position among its predecessors, once per move
                listed = kernels.predecessors(int(child), back, data)
                assert list(back[:listed]).count(index) == 1
            else:
                got.append(("exit", int(exit_result(child)), int(exit_distance(child))))
        assert sorted(got) == sorted(expected)
        # and every predecessor has a move into this position
        for parent in back[: kernels.predecessors(index, back, data)]:
            listed = kernels.children(int(parent), out, data)
            assert index in list(out[:listed])


# ---- values: the tables against plain minimax over rules.py, and against themselves ----


def _indices_with(group, result, distance, count, seed):
    table = np.asarray(endgame.load(group))
    found = np.flatnonzero(table == (distance << 2 | (result + 1)))
    chooser = random.Random(seed)
    return [int(i) for i in chooser.sample(list(found), min(count, len(found)))]


@pytest.mark.slow
@pytest.mark.parametrize("group", [(1, 1), (2, 1), (3, 1), (2, 2)])
def test_short_wins_and_losses_are_exactly_what_minimax_finds(endgame_tables, group):
    checked = 0
    for result, distance, count in [(1, 1, 3), (1, 3, 3), (1, 5, 2), (-1, 0, 2), (-1, 2, 3),
                                     (-1, 4, 2), (0, 0, 4)]:
        for index in _indices_with(group, result, distance, count, seed=distance):
            position = endgame.position_at(group, index, player=random.Random(index).choice("wb"))
            assert value(position) == (result, distance)
            if result == 1:
                assert wins_within(position, distance), position
                assert distance < 3 or not wins_within(position, distance - 2), position
            elif result == -1:
                assert loses_within(position, distance), position
                assert distance < 2 or not loses_within(position, distance - 2), position
            else:
                assert not wins_within(position, 3) and not loses_within(position, 2), position
            checked += 1
    assert checked >= 6


@pytest.mark.parametrize("mover,other", MATERIALS)
def test_each_value_is_the_best_of_its_moves_values(endgame_tables, mover, other):
    chooser = random.Random(100 * mover + other)
    for _ in range(150):
        position = random_position(mover, other, chooser)
        result, distance = value(position)
        children = []
        for move in rules.legal_moves(position):
            after = rules.play(position, move)
            children.append((-1, 0) if rules.winner(after) == position.player else value(after))
        wins = [plies + 1 for there, plies in children if there == -1]
        if wins:
            assert (result, distance) == (1, min(wins))
        elif any(there == 0 for there, _ in children):
            assert (result, distance) == (0, 0)
        else:
            assert (result, distance) == (-1, max((plies + 1 for _, plies in children), default=0))
        verdict = endgame.probe(position)
        assert verdict is not None and (verdict.result, verdict.distance) == (result, distance)
        if result != 0:  # the table's move keeps the value: the other side's d - 1
            after = rules.play(position, verdict.move)
            there = (-1, 0) if rules.winner(after) == position.player else value(after)
            assert there == (-result, distance - 1)


def test_in_a_drawn_position_the_table_move_draws_and_sets_the_most_traps(endgame_tables):
    chooser = random.Random(5)
    checked = 0
    while checked < 12:
        position = random_position(*chooser.choice([(3, 1), (2, 1), (2, 2)]), chooser)
        verdict = endgame.probe(position)
        assert verdict is not None
        if verdict.result != 0:
            continue
        shares = {}
        for move in rules.legal_moves(position):
            after = rules.play(position, move)
            if endgame.value(after) == (0, 0):
                replies = rules.legal_moves(after)
                losing = [r for r in replies if endgame.value(rules.play(after, r))[0] == 1]
                shares[move] = len(losing) / len(replies)
        assert verdict.move in shares and shares[verdict.move] == max(shares.values())
        checked += 1


def test_value_of_a_finished_game_and_of_positions_outside_the_tables(endgame_tables):
    assert endgame.value(rules.Position(8, "W" + "." * 63, "b")) == (-1, 0)
    assert endgame.value(rules.Position(8, "W" + "." * 63, "w")) is None
    assert endgame.value(rules.Position(8, "WB" + "." * 62, "w"), use="off") is None
    assert endgame.value(rules.Position(8, "Wb" + "." * 62, "w")) is None


def test_which_positions_the_tables_cover():
    lone = "." * 63
    assert endgame.covers(rules.Position(8, "W" + "B" + lone[1:], "b"))
    assert not endgame.covers(rules.Position(8, "w" + "B" + lone[1:], "w"))  # a Pichu
    assert not endgame.covers(rules.Position(8, "W" + lone, "w"))  # the game is over
    assert not endgame.covers(rules.Position(8, "WWWB" + "B" + "." * 59, "w"))  # five
    assert not endgame.covers(rules.Position(7, "WB" + "." * 47, "w"))  # not n = 8


# ---- the cache ----


@pytest.fixture
def fresh_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("AVIARY_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(endgame, "_loaded", {})
    return tmp_path


def test_tables_are_saved_and_read_back_without_a_new_solve(fresh_cache, capsys):
    stale = fresh_cache / "pikachu-endgame-n8-2v1-0123456789ab.npz"  # older rules' table
    stale.write_bytes(b"old")
    built = np.array(endgame.load((2, 1)))
    assert not stale.exists()
    assert "solved Pikachu endings 2 v 1" in capsys.readouterr().err
    assert endgame.table_path((2, 1)).exists() and endgame.table_path((1, 1)).exists()
    endgame._loaded.clear()
    again = endgame.load((2, 1))
    assert capsys.readouterr().err == ""
    np.testing.assert_array_equal(again, built)


@pytest.mark.parametrize("damage", ["truncate", "flip", "garbage"])
def test_a_damaged_table_file_is_rebuilt_with_a_notice(fresh_cache, capsys, damage):
    built = np.array(endgame.load((2, 1)))
    path = endgame.table_path((2, 1))
    data = bytearray(path.read_bytes())
    if damage == "truncate":
        data = data[: len(data) // 2]
    elif damage == "flip":
        data[len(data) // 2] ^= 0xFF
    else:
        data = bytearray(b"not a table at all")
    path.write_bytes(bytes(data))
    capsys.readouterr()
    endgame._loaded.clear()
    rebuilt = endgame.load((2, 1))
    err = capsys.readouterr().err
    assert "rebuilding the corrupt Pikachu endgame table" in err and len(err.splitlines()) == 2
    np.testing.assert_array_equal(rebuilt, built)
    endgame._loaded.clear()
    np.testing.assert_array_equal(endgame.load((2, 1)), built)  # and saved again, whole


def test_cached_use_never_builds(fresh_cache):
    position = rules.Position(8, "W" + "." * 8 + "B" + "." * 54, "w")
    assert endgame.probe(position, use="cached") is None
    assert endgame.probe(position, use="off") is None
    assert not list(fresh_cache.iterdir())
    assert endgame.probe(position) is not None


def test_engine_under_a_time_limit_reads_tables_but_never_builds_them(fresh_cache):
    position = rules.Position(8, "W" + "." * 8 + "B" + "." * 54, "w")
    reports = list(main_engine(position.n).think(position, Limit(time=0.3)))
    assert reports and reports[-1].nodes > 0  # searched: no table yet
    assert not list(fresh_cache.iterdir())
    # no time limit: built first
    reports = list(main_engine(position.n).think(position, Limit(depth=3)))
    assert len(reports) == 1 and reports[0].nodes == 0
    assert reports[0].move == endgame.probe(position).move
    assert endgame.table_path((1, 1)).exists()
    reports = list(main_engine(position.n).think(position, Limit(time=0.3)))  # now cached: read
    assert len(reports) == 1 and reports[0].nodes == 0


def test_a_change_to_the_rules_or_solver_changes_the_file_name():
    key = endgame.table_key()
    assert len(key) == 12 and endgame.table_path((2, 1)).name.endswith(f"-{key}.npz")
    assert {path.name for path in endgame._SOURCES} == {
        "rules.py", "endgame_kernels.py", "retrograde.py"}
    assert all(path.exists() for path in endgame._SOURCES)


# ---- the engine and the course command use the tables ----


def _won_position(group, distance, player="w"):
    index = _indices_with(group, 1, distance, 1, seed=1)[0]
    return endgame.position_at(group, index, player=player)


def test_engine_plays_the_table_move_and_reports_the_distance(endgame_tables):
    position = _won_position((3, 1), 7, player="b")
    verdict = endgame.probe(position)
    assert verdict is not None and verdict.describe() == "win in 7"
    reports = list(main_engine(position.n).think(position, Limit(time=0.5)))
    assert len(reports) == 1 and reports[0].mate_in == 7 and reports[0].move == verdict.move
    assert main_engine(position.n).best_move(position, time=0.5) == verdict.move
    # defending a lost position: the longest resistance
    after = rules.play(position, verdict.move)
    defence = main_engine(after.n).best_move(after, time=0.5)
    assert value(rules.play(after, defence)) == (1, 5)
    assert list(main_engine(after.n).think(after, Limit(depth=2)))[0].mate_in == -6


def test_engine_without_tables_searches(endgame_tables):
    position = _won_position((3, 1), 7)
    reports = list(main_engine(position.n).think(position, Limit(depth=3), tables="off"))
    assert [report.depth for report in reports] == [1, 2, 3] and reports[-1].nodes > 0


def test_course_command_answers_from_the_table_with_a_stderr_line(endgame_tables):
    position = _won_position((2, 2), 7)
    verdict = endgame.probe(position)
    assert verdict is not None
    result = subprocess.run(
        [sys.executable, "-m", "aviary", "pikachu", "8", position.player, position.board, "1"],
        capture_output=True, text=True, timeout=60,
        env={**os.environ, "AVIARY_CACHE_DIR": str(endgame_tables)},
    )
    assert result.returncode == 0
    assert result.stderr == "table (win in 7)\n"
    assert result.stdout.splitlines()[-1] == rules.play(position, verdict.move).board


def test_a_cached_table_is_probed_without_loading_numpy(endgame_tables):
    position = _won_position((3, 1), 5)
    script = (
        "import sys\n"
        "from aviary.games.pikachu import endgame, rules\n"
        f"verdict = endgame.probe(rules.parse(8, {position.board!r}, {position.player!r}), "
        "use='cached')\n"
        "print(verdict.describe(), 'numpy' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            timeout=60, env={**os.environ, "AVIARY_CACHE_DIR": str(endgame_tables)})
    assert result.stdout == "win in 5 False\n", result.stderr


def test_course_command_without_the_table_searches_and_builds_nothing(tmp_path):
    board = "W" + "." * 8 + "B" + "." * 54
    result = subprocess.run(
        [sys.executable, "-m", "aviary", "pikachu", "8", "w", board, "1"],
        capture_output=True, text=True, timeout=60,
        env={**os.environ, "AVIARY_CACHE_DIR": str(tmp_path)},
    )
    assert result.returncode == 0
    assert re.fullmatch(r"(engine|fallback) \(.+\)\n", result.stderr), result.stderr  # no table
    position = rules.Position(8, board, "w")
    assert all(rules.is_legal_successor(position, line) for line in result.stdout.splitlines())
    assert not list(tmp_path.iterdir())  # nothing built
