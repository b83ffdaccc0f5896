"""The solved fox-against-geese endings agree with a plain search, and the engine uses them."""

import functools
import random

import numpy as np
import pytest

from aviary.games import registry
from aviary.games.foxgeese import endgame, rules, shapes
from aviary.games.foxgeese import endgame_kernels as kernels
from aviary.search.clock import Limit

ENGINE = registry.spec("foxgeese").engine("engine", rules.FoxGeese())  # kept by the registry


@pytest.fixture(scope="module", autouse=True)
def tables(tmp_path_factory):
    """The four-geese table, built once into a temporary cache (about 12 s)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("AVIARY_CACHE_DIR", str(tmp_path_factory.mktemp("aviary-cache")))
        endgame._loaded.clear()
        endgame.load(4)
        yield
        endgame._loaded.clear()


def random_ending(rng: random.Random, count: int = 4, arms: int = 0) -> rules.Position:
    """One fox and `count` geese anywhere on the cross with the closed `arms` (bits in the
    order of rules.ARMS), either side to move."""
    closed = set().union(*(arm for i, (_, arm) in enumerate(rules.ARMS) if arms >> i & 1))
    while True:
        cells = ["#" if p in rules.CORNERS or p in closed else "." for p in range(rules.CELLS)]
        points = [p for p in rules.POINTS if p not in closed]
        rng.shuffle(points)
        cells[points[0]] = "F"
        for point in points[1:1 + count]:
            cells[point] = "G"
        player = rng.choice("fg")
        position = rules.parse("".join(cells), player)
        if rules.outcome(position) is None:
            return position


@functools.cache
def forced(position: rules.Position, depth: int) -> int:
    """+1 the mover forces a win within `depth` plies, -1 a loss, 0 neither (plain minimax)."""
    ended = rules.outcome(position)
    if ended is not None:
        return 0 if ended[0] is None else (1 if ended[0] == position.player else -1)
    if depth == 0:
        return 0
    best = -1
    for move in rules.legal_moves(position):
        best = max(best, -forced(rules.play(position, move), depth - 1))
        if best == 1:
            break
    return best


def results_agree_with_a_plain_search(rng: random.Random, positions: int, count: int = 4,
                                      arms: int = 0) -> dict[int, int]:
    """Check `positions` random endings against a 4-ply search; how many of each result."""
    seen = {endgame.WIN: 0, endgame.DRAW: 0, endgame.LOSS: 0}
    for _ in range(positions):
        position = random_ending(rng, count, arms)
        ending = endgame.locate(position)
        assert ending is not None and ending.count == count
        assert ending.shape == shapes.orient(arms)[0]
        result, distance = endgame.value(position)
        seen[result] += 1
        expected = result if result != endgame.DRAW and distance <= 4 else 0
        assert forced(position, 4) == expected, (position, result, distance)
    return seen


def test_the_table_agrees_with_a_plain_search_on_random_positions():
    seen = results_agree_with_a_plain_search(random.Random(12), 150)
    assert seen[endgame.WIN] and seen[endgame.DRAW]


def test_the_table_move_keeps_the_value():
    rng = random.Random(3)
    for _ in range(40):
        position = random_ending(rng)
        verdict = endgame.probe(position)
        assert verdict is not None and verdict.move in rules.legal_moves(position)
        after = rules.play(position, verdict.move)
        if rules.outcome(after) is None:
            there, plies = endgame.value(after)
            assert there == -verdict.result
            if verdict.result != endgame.DRAW:
                assert plies == verdict.distance - 1


def test_numbering_round_trips_in_the_kernels_and_in_python():
    rng = random.Random(5)
    geese = np.zeros(8, dtype=np.int64)
    for _ in range(200):
        position = random_ending(rng)
        ending = endgame.locate(position)
        assert ending is not None and ending.shape == 0 and ending.count == 4
        side, fox = kernels.decode(ending.index, 4, geese, 33)
        assert side == (position.player == "g")
        assert rules.POINTS[fox] == position.board.index("F")
        points = {rules.POINTS[g] for g in geese[:4]}
        assert points == {p for p, piece in enumerate(position.board) if piece == "G"}
        assert kernels.index_of(side, fox, geese[:4].copy(), 4, 33) == ending.index


def test_every_set_of_closed_arms_turns_onto_a_solved_shape():
    for arms in range(16):
        shape, number = shapes.orient(arms)
        assert shape in shapes.SHAPES and bin(shape).count("1") == bin(arms).count("1")
        closed = [arm for i, (_, arm) in enumerate(rules.ARMS) if arms >> i & 1]
        open_cells = [p for p in rules.POINTS if not any(p in arm for arm in closed)]
        assert sorted(number) == open_cells
        assert sorted(number.values()) == list(range(len(open_cells)))
        # a turn or a mirror keeps neighbours neighbours, so the moves are the same
        step, _ = kernels.shape_graph(shape)
        for p in open_cells:
            for q in open_cells:
                near = abs(p // 7 - q // 7) + abs(p % 7 - q % 7) == 1
                assert near == (number[q] in step[number[p]]), (arms, p, q)


@pytest.mark.parametrize("arms", [1, 2, 4, 8, 3, 12, 5, 10, 7, 14, 15])
def test_closed_board_tables_agree_with_a_plain_search(arms):
    seen = results_agree_with_a_plain_search(random.Random(arms), 40, arms=arms)
    assert seen[endgame.DRAW] and seen[endgame.WIN] + seen[endgame.LOSS]


@pytest.mark.parametrize("arms", [5, 7])
def test_six_geese_tables_agree_with_a_plain_search(arms):
    """The six-geese tables (their jumps land in the five-geese ones) on two of the
    smaller shapes: the open cross's is 60 M positions, the same kernels with a bigger
    count. (On the 3x3 centre six geese always trap the fox: nothing to compare.)"""
    seen = results_agree_with_a_plain_search(random.Random(60 + arms), 15, count=6, arms=arms)
    assert seen[endgame.DRAW] and seen[endgame.WIN] + seen[endgame.LOSS]


def test_turned_and_mirrored_positions_have_one_value():
    rng = random.Random(17)
    turns = (lambda r, c: (c, 6 - r), lambda r, c: (r, 6 - c), lambda r, c: (c, r))
    for _ in range(60):
        position = random_ending(rng, arms=rng.randrange(16))
        for turn in turns:
            cells = ["#"] * rules.CELLS
            for p, piece in enumerate(position.board):
                r, c = turn(*divmod(p, 7))
                cells[r * 7 + c] = piece
            turned = rules.Position("".join(cells), position.player, position.ply, False)
            assert endgame.value(turned) == endgame.value(position)


def test_probe_applies_the_move_limit():
    rng = random.Random(8)
    while True:
        position = random_ending(rng)
        result, distance = endgame.value(position)
        if result != endgame.DRAW and distance >= 3:
            break
    ply = rules.MOVE_LIMIT - distance + 1
    ply += ply % 2 != (position.player == "g")  # the foxes move at even plies
    near = rules.Position(position.board, position.player, ply, False)
    far = rules.Position(position.board, position.player, position.ply, False)
    assert endgame.probe(far).result == result
    assert endgame.probe(near).result == endgame.DRAW


def test_what_the_tables_do_not_cover():
    start = rules.start_position("elephants")
    assert not endgame.covers(start)
    assert not endgame.covers(rules.start_position("classic"))  # 13 geese
    seven_geese = "##...##" "##...##" + "..F...." + ".GGGG.." + ".GGG..." + "##...##" "##...##"
    assert not endgame.covers(rules.parse(seven_geese, "f"))
    six_geese = seven_geese.replace("GGGG", "GGG.")
    assert endgame.covers(rules.parse(six_geese, "f"))
    two_foxes = "##...##" "##...##" + "..F.F.." + ".GG...." + ".GG...." + "##...##" "##...##"
    assert not endgame.covers(rules.parse(two_foxes, "f", "elephants"))
    with_elephant = "##...##" "##...##" + "..F...." + ".GG...." + ".GGE..." + "##...##" "##...##"
    assert not endgame.covers(rules.parse(with_elephant, "f", "elephants"))
    closed = "#######" "#######" + "..F...." + ".GG...." + ".GG...." + "##...##" "##...##"
    assert endgame.covers(rules.parse(closed, "f"))  # the top arm closed: shape 1


def test_the_engine_answers_from_the_table_with_its_exact_result():
    rng = random.Random(21)
    while True:
        position = random_ending(rng)
        result, distance = endgame.value(position)
        if result == endgame.WIN:
            break
    reports = list(ENGINE.think(position, Limit(depth=4)))
    assert len(reports) == 1 and reports[0].mate_in == distance
    assert reports[0].move == endgame.probe(position).move
