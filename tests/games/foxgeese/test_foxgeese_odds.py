"""The fox's odds against a depth-2 defender: the model is `aviary:depth2`, and the fox plays by
it.

Built on the four-geese table alone (about 40 s): a jump out of it is the fox's win.
"""

import random

import numpy as np
import pytest

from aviary.games.base import DRAW, WIN
from aviary.games.foxgeese import (
    depth2,
    endgame,
    endgame_kernels,
    odds,
    odds_kernels,
    rules,
    shapes,
)

CLOSED = 5  # a shape with two arms closed (top and left), for the shrinking board


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    """The four-geese models and odds of the open cross and the `CLOSED` shape, by shape,
    built into a temporary cache."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("AVIARY_CACHE_DIR", str(tmp_path_factory.mktemp("aviary-cache")))
        endgame._loaded.clear()
        odds._loaded.clear()
        built = {shape: odds_kernels.Model((4,), shape) for shape in (0, CLOSED)}

        def the_one_built(counts=endgame.COUNTS, shape=0):
            assert tuple(counts) == (4,), counts
            return built[shape]

        with pytest.MonkeyPatch.context() as once:  # `build` makes its own: the slow part
            once.setattr(odds_kernels, "Model", the_one_built)
            odds.build((4,))
            odds.build((4,), CLOSED)
        yield built
        endgame._loaded.clear()
        odds._loaded.clear()


def position_of(index: int, count: int = 4, ply: int = 10, shape: int = 0) -> rules.Position:
    """The table's position `index` as a rules position (`ply` or the one after it, for
    the parity of the side to move)."""
    points = shapes.shape_points(shape)
    geese = np.empty(8, dtype=np.int64)
    side, fox = endgame_kernels.decode(index, count, geese, len(points))
    cells = ["." if p in points else "#" for p in range(rules.CELLS)]
    cells[points[fox]] = rules.FOX
    for k in range(count):
        cells[points[geese[k]]] = rules.GOOSE
    return rules.Position("".join(cells), "fg"[side], ply + (ply + side) % 2, False)


def drawn_geese_to_move(rng: random.Random, want: int, shape: int = 0) -> list[int]:
    """Indices of geese-to-move positions of the four-geese table drawn with best play."""
    table = np.asarray(endgame.load(4, shape))
    half = endgame.table_size(4, shape) // 2
    found: list[int] = []
    while len(found) < want:
        index = half + rng.randrange(half)
        position = position_of(index, shape=shape)
        if (table[index] & 3) - 1 == DRAW and rules.outcome(position) is None:
            found.append(index)
    return found


@pytest.mark.parametrize("shape", [0, CLOSED])
def test_the_model_holds_every_move_the_depth2_player_plays(model, shape):
    # the depth-2 player breaks ties by a generator seeded from the position and its ply:
    # over many plies it plays each tied reply, and the model must list each of them
    half = endgame.table_size(4, shape) // 2
    for index in drawn_geese_to_move(random.Random(7), 40 if shape == 0 else 20, shape):
        position = position_of(index, shape=shape)
        listed = {int(child) for child in model[shape].replies[4][index - half]
                  if child != odds_kernels.UNUSED}
        for ply in range(1, 41, 2):
            at_ply = rules.Position(position.board, "g", ply)
            after = rules.play(at_ply, depth2.best_move(at_ply))
            ending = endgame.locate(after)
            assert ending is not None and ending.shape == shape, "the geese keep their four"
            assert ending.index in listed, (position.board, ply)


@pytest.mark.parametrize("shape", [0, CLOSED])
def test_a_forced_win_is_a_sure_win_against_the_defender(model, shape):
    table = np.asarray(endgame.load(4, shape))
    half = endgame.table_size(4, shape) // 2
    chances = model[shape].iterate(30, 1.0)[4]
    result = (table[:half] & 3).astype(np.int64) - 1
    distance = table[:half] >> 2
    won_in_time = (result == WIN) & (distance <= 30)
    assert won_in_time.sum() > 1000
    assert (chances[:half][won_in_time] == 1.0).all()
    # and the drawn positions are mostly won against this defender, given time
    assert chances[:half][result == DRAW].mean() > 0.5


@pytest.mark.parametrize("shape", [0, CLOSED])
def test_the_fox_keeps_the_draw_and_picks_the_best_odds(model, shape):
    rng = random.Random(11)
    table = np.asarray(endgame.load(4, shape))
    checked = 0
    while checked < 25:
        index = rng.randrange(endgame.table_size(4, shape) // 2)  # the fox to move
        position = position_of(index, shape=shape)
        if (table[index] & 3) - 1 != DRAW or rules.outcome(position) is not None:
            continue
        verdict = odds.probe(position, "cached")
        assert verdict is not None and verdict.result == DRAW and verdict.move is not None
        keeping: dict[rules.Move, float] = {}
        for move in rules.legal_moves(position):
            after = rules.play(position, move)
            if rules.outcome(after) is None and endgame.value(after, use="cached")[0] == DRAW:
                chance = odds.odds(after)
                assert chance is not None
                keeping[move] = chance
        assert verdict.move in keeping, "the fox never leaves the draw"
        assert keeping[verdict.move] == max(keeping.values())
        checked += 1


def test_without_odds_the_fox_falls_back_to_the_share_of_losing_replies(model, monkeypatch):
    monkeypatch.setattr(odds, "_disabled", True)
    position = position_of(drawn_geese_to_move(random.Random(3), 1)[0])
    assert odds.odds(position) is None
    monkeypatch.setattr(odds, "_disabled", False)
    assert odds.odds(position) is not None
    assert odds.odds(rules.Position(position.board, "f", 10)) is None, "geese to move only"


def test_the_odds_are_saved_and_read_back(model):
    saved = odds.load(4)
    odds._loaded.clear()
    again = odds.load(4)
    assert again is not None and saved is not None
    assert np.array_equal(np.asarray(again), np.asarray(saved))
    assert odds.table_path(4).exists()
