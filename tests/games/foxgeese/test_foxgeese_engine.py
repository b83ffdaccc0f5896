"""The engine, the textbook opponent and the depth-2 player on hand-made positions, and legal
play to the end."""

import random

import pytest

from aviary.errors import NoMoveError
from aviary.games import registry
from aviary.games.foxgeese import depth2, engine, kernels, quick, rules
from aviary.games.foxgeese.rules import Move
from aviary.search.clock import Limit

ENGINE = registry.spec("foxgeese").engine("engine", rules.FoxGeese())  # kept by the registry


def at(row: int, col: int) -> int:
    return row * 7 + col


EMPTY = "##...##" "##...##" "......." "......." "......." "##...##" "##...##"


def position(player: str, variant: str = "classic", **placed: str) -> rules.Position:
    cells = list(EMPTY)
    for where, piece in placed.items():
        row, col = (int(part) for part in where[1:].split("c"))
        cells[at(row, col)] = piece
    return rules.parse("".join(cells), player, variant)


# the fox can take the fourth-last goose (and so win) or step away
LAST_CAPTURE = position("f", r3c3="F", r3c4="G", r6c2="G", r6c3="G", r6c4="G")
# the fox on d1 has one way out, to e1: the goose on e2 stepping up traps it
TRAP = position("g", r0c3="F", r0c2="G", r1c3="G", r2c3="G", r1c4="G", r3c4="G", r6c2="G")


def test_engine_takes_the_winning_capture():
    assert ENGINE.best_move(LAST_CAPTURE, depth=2) == Move(at(3, 3), at(3, 5), at(3, 4))


def test_engine_as_geese_traps_the_fox():
    move = ENGINE.best_move(TRAP, depth=3)
    after = rules.play(TRAP, move)
    assert rules.outcome(after) == ("g", "no-foxes")


def test_depth2_and_textbook_take_the_winning_capture_and_trap_the_fox():
    assert depth2.best_move(LAST_CAPTURE) == Move(at(3, 3), at(3, 5), at(3, 4))
    assert rules.outcome(rules.play(TRAP, depth2.best_move(TRAP))) == ("g", "no-foxes")
    textbook = engine.make_textbook(rules.FoxGeese())
    for depth in (1, 3):
        assert textbook.best_move(LAST_CAPTURE, depth=depth) == Move(at(3, 3), at(3, 5), at(3, 4))
        after = rules.play(TRAP, textbook.best_move(TRAP, depth=depth))
        assert rules.outcome(after) == ("g", "no-foxes")


def test_quick_player_takes_the_winning_capture_and_traps_the_fox():
    assert quick.best_move(LAST_CAPTURE) == Move(at(3, 3), at(3, 5), at(3, 4))
    assert rules.outcome(rules.play(TRAP, quick.best_move(TRAP))) == ("g", "no-foxes")


def test_engine_sees_the_pincer_win_with_two_foxes():
    # pinching the second-last elephant leaves one elephant and no geese: the foxes win
    pos = position("f", "elephants", r3c2="F", r3c3="E", r2c4="F", r6c3="E")
    move = ENGINE.best_move(pos, depth=3)
    assert rules.outcome(rules.play(pos, move)) == ("f", "one-elephant")


def test_think_reports_each_depth_with_a_legal_board_and_principal_variation():
    start = rules.start_position("elephants", shrink=True)
    reports = list(ENGINE.think(start, Limit(depth=5)))
    assert [r.depth for r in reports] == [1, 2, 3, 4, 5]
    legal = rules.successors(start)
    for report in reports:
        assert report.answer in legal and report.pv[0] == report.move
        here = start
        for move in report.pv:
            assert move in rules.legal_moves(here)
            here = rules.play(here, move)


@pytest.mark.parametrize("variant", rules.VARIANTS)
@pytest.mark.parametrize("shrink", [False, True])
def test_engine_textbook_and_depth2_play_legal_games_to_the_end(variant, shrink):
    game = registry.make("foxgeese", variant=variant, shrink=shrink)
    names = ("engine", "textbook") if shrink else ("textbook", "depth2")
    players = [registry.spec("foxgeese").engine(name, game) for name in names]
    seed = rules.VARIANTS.index(variant) * 2 + shrink  # fixed: the same games every run
    rng = random.Random(seed)
    state = game.opening(rng, 4)
    order = players if rng.random() < 0.5 else players[::-1]
    limit = game.max_plies()
    assert limit is not None  # the rules' move limit: every game ends by it
    for _ in range(limit):
        if game.outcome(state) is not None:
            break
        move = order[game.to_move(state)].best_move(state, depth=2)
        assert move in game.legal_moves(state)
        state = game.play(state, move)
    ended = game.outcome(state)
    assert ended is not None, f"no outcome after the rules' {limit} moves"
    assert ended.winner in (0, 1, None) and ended.reason, ended


def test_best_move_raises_when_there_is_no_legal_move():
    walled = position("f", r0c2="F", r0c3="G", r0c4="G", r1c2="G", r2c2="G", r6c2="G")
    with pytest.raises(NoMoveError):
        ENGINE.best_move(walled, depth=2)
    with pytest.raises(NoMoveError):
        depth2.best_move(walled)
    with pytest.raises(NoMoveError):
        engine.make_textbook(rules.FoxGeese()).best_move(walled, depth=2)


def test_the_side_that_must_make_progress_counts_going_on_far_above_a_return():
    """A return to an earlier position scores 0 in the search; the contempt is how far
    above it each side counts going on: far above for the lone fox of the classic game
    and for the geese while they have elephants. Geese only on the bottom row: their
    climb value, which also differs between the sides' searches, is 0 there."""

    def contempts(pos: rules.Position) -> int:
        state = kernels.search_state(pos)  # the foxes to move: their search
        foxes = engine.evaluate(state)
        state[kernels.ROOT_SIDE] = -1  # the same position in a geese search
        return foxes - engine.evaluate(state)

    lone_fox = position("f", r3c3="F", r6c2="G", r6c3="G", r6c4="G")
    assert contempts(lone_fox) == engine.FOX_CONTEMPT + engine.CONTEMPT
    with_elephants = position("f", "elephants", r2c0="F", r2c6="F", r6c2="E", r6c3="G",
                              r6c4="E")
    assert contempts(with_elephants) == engine.CONTEMPT + engine.GEESE_CONTEMPT
    assert engine.FOX_CONTEMPT > 2 * engine.CONTEMPT
    assert engine.GEESE_CONTEMPT > 2 * engine.CONTEMPT


def test_the_elephant_geese_go_on_rather_than_return_to_an_earlier_position():
    """Game 40 of both elephant figures as measured on 2026-11-27 and 28: the geese, two
    geese down after the random opening but with three elephants, walked an elephant
    g5-g4 and back (a fox a3-a4 and back) for 590 plies to a draw on the move limit.
    Their evaluation there is below 0 by more than the old contempt, and the search
    scores a return as 0. Here are four plies of that cycle: the geese must play
    something new."""
    cycle = ["##...####...##F.........F...E.GEGGE##GG.####GGG##",
             "##...####...##F.........F..EE.GEGG.##GG.####GGG##",
             "##...####...##.......F..F..EE.GEGG.##GG.####GGG##",
             "##...####...##.......F..F...E.GEGGE##GG.####GGG##"]
    history = [rules.Position(board, "gf"[i % 2], 299 + i, True)  # type: ignore[arg-type]
               for i, board in enumerate(cycle)]
    now = rules.Position(cycle[0], "g", 303, True)
    seen = {(state.board, state.player) for state in history}
    move = ENGINE.best_move(now, depth=6, history=history)
    after = rules.play(now, move)
    assert (after.board, after.player) not in seen, move


def _pocket(pos: rules.Position) -> int:
    state = kernels.search_state(pos)
    foxes, open_ = state[kernels.FOXES], state[kernels.OPEN]
    empty = open_ & ~(foxes | state[kernels.GEESE] | state[kernels.ELEPHANTS])
    return int(engine.room_and_pocket(foxes, empty, open_)[1])


def test_a_fox_cut_off_from_the_other_is_measured_by_its_room():
    """The elephant geese win by cutting one fox off and closing in: `pocket` is the
    cut-off fox's room, -1 while the foxes' regions join."""
    ring = dict(r2c3="G", r3c2="G", r3c4="G", r4c3="G", r6c2="E", r6c3="E")
    assert _pocket(position("g", "elephants", r0c3="F", r3c3="F", **ring)) == 0
    # the same ring opened upward: the fox below reaches the other's region
    opened = {k: v for k, v in ring.items() if k != "r2c3"}
    assert _pocket(position("g", "elephants", r0c3="F", r3c3="F", **opened)) == -1
    # a fox in the bottom arm behind a full row 4: two points of its own
    bottom = dict(r4c0="G", r4c1="G", r4c2="G", r4c3="G", r4c4="G", r4c5="G", r4c6="G",
                  r6c2="G", r6c3="E", r6c4="E")
    assert _pocket(position("g", "elephants", r0c3="F", r5c3="F", **bottom)) == 2
    # side by side the foxes are one region, however small
    assert _pocket(position("g", "elephants", r5c2="F", r5c3="F", **bottom)) == -1


def _reachable(fox: int, empty: set[int]) -> set[int]:
    """The empty points a fox on `fox` reaches by steps alone, breadth first."""
    seen, frontier = set(), [fox]
    while frontier:
        point = frontier.pop()
        for d in range(4):
            step = int(kernels.NEXT[point, d])
            if step >= 0 and step in empty and step not in seen:
                seen.add(step)
                frontier.append(step)
    return seen


@pytest.mark.parametrize("variant", rules.VARIANTS)
def test_room_and_pocket_equal_a_plain_count_of_each_foxs_reach(variant):
    """One flood fill per fox gives both figures: the room is the union of the foxes'
    reach, the pocket the smaller reach when neither fox can step into the other's."""
    game = registry.make("foxgeese", variant=variant)
    rng = random.Random(7)
    checked = 0
    for _ in range(6):
        state = game.opening(rng, 4)
        while game.outcome(state) is None and checked < 400:
            bits = kernels.search_state(state)
            foxes, open_ = bits[kernels.FOXES], bits[kernels.OPEN]
            taken = foxes | bits[kernels.GEESE] | bits[kernels.ELEPHANTS]
            empty = {p for p in range(rules.CELLS) if (open_ >> p) & 1 and not (taken >> p) & 1}
            reach = [_reachable(p, empty) for p in range(rules.CELLS) if (foxes >> p) & 1]
            room, pocket = engine.room_and_pocket(foxes, open_ & ~taken, open_)
            assert room == len(set().union(*reach))
            fox_points = [p for p in range(rules.CELLS) if (foxes >> p) & 1]
            apart = len(reach) == 2 and not any(
                int(kernels.NEXT[p, d]) in reach[1] | {fox_points[1]}
                for p in reach[0] | {fox_points[0]} for d in range(4))
            assert pocket == (min(len(r) for r in reach) if apart else -1)
            checked += 1
            state = game.play(state, rng.choice(game.legal_moves(state)))
    assert checked >= 200


def test_a_fox_whose_one_way_out_the_geese_cannot_reach_is_not_counted_cornered():
    """A fox in the geese's front row with its one step into the top arm (the elephant
    game's fortress) is not nearly trapped; with a goose beside that step it is."""
    front = dict(r2c3="G", r2c5="E", r3c4="G", r3c3="G", r3c5="G", r6c3="E")
    foxes = dict(r0c2="F", r2c4="F")
    herd = kernels.search_state(position("g", "elephants", **front, **foxes))
    herd_bits = herd[kernels.GEESE] | herd[kernels.ELEPHANTS]
    empty = herd[kernels.OPEN] & ~(herd[kernels.FOXES] | herd_bits)
    assert not engine.closable(at(2, 4), herd_bits, empty)
    guarded = kernels.search_state(position("g", "elephants", r0c4="G", **front, **foxes))
    herd_bits = guarded[kernels.GEESE] | guarded[kernels.ELEPHANTS]
    empty = guarded[kernels.OPEN] & ~(guarded[kernels.FOXES] | herd_bits)
    assert engine.closable(at(2, 4), herd_bits, empty)
