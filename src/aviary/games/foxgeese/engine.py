"""The Fox, Geese and Elephants player: one evaluation for both sides, the shared search core.

The sides are unequal, so the evaluation is written from the foxes' point of view
(positive: good for the foxes) and negated for the geese:

- material: a goose 100 and an elephant 260 for the geese, a fox 450 for the foxes
  (losing one of two foxes usually loses the elephant game outright);
- the fox's freedom: its legal moves (a fox with none is one move from removal,
  with one it is nearly trapped) and the points it can reach by stepping through
  empty points (the room the geese have not yet closed off);
- threats: geese the foxes can jump now; with the geese to move one threat can
  usually be parried, two at once (a fork) cost a goose;
- the geese's formation: a goose is exposed along a line when both points beside
  it on that line are empty (a fox may come to one and jump to the other), a stray
  goose has no goose or elephant beside it (fork fodder); geese gain for each
  row they have climbed (the wall pushes the foxes upward, where the arms are
  narrow), a little in the foxes' searches and five times as much in their own:
  without that plan the geese of the elephant game held their ground and drew
  (the two foxes, side by side, cannot be trapped);
- the elephants' pincer: an elephant with one fox beside it is half-caught;
- with two foxes, divide and trap: two foxes side by side cannot be trapped, so the
  geese of the elephant game win by cutting one fox off from the other and closing
  in on it. A fox whose region (the empty points it can step to) is cut off from the
  other fox's counts for the geese by how small that region is (`pocket`), and a fox
  with one step left counts as cornered only if the geese can reach that step
  (`closable`). Without these the geese climbed past a fox left among them, counted
  it as cornered when it stood in their front row with its one step into the top arm
  (where the other fox was), and drew against a fortress (docs/games/foxgeese.md).

The game's end (piece counts, move limit) is the terminal kernel's business, and
captures are settled by quiescence rather than guessed here.

Two settings keep the engine from walking in circles, which the rules do not
forbid (there is no draw by repetition; only the move limit, far away): the
searching side counts itself `CONTEMPT` better than the evaluation says, so a
repetition the search sees (scored a draw) looks worse than going on; and a
small tie-break (`jitter`) that changes from one move of the game to the next
varies the choice between moves the evaluation cannot tell apart. Scores carry
the searching side's contempt, so each side searches with its own tables.

Once no elephant is on the board (the classic game) the foxes' contempt is
`FOX_CONTEMPT`, five times the geese's. The search scores a return to any earlier
position of the game as a draw (0), and with a long game behind it the geese can
return to one against almost every fox move: with the small contempt the fox's
deep searches came out at exactly 0 move after move, and it picked among them by
move order, shuffling where it had shuffled before. A return is no draw here (the
rules have none), and the fox, which must capture ten geese inside the move limit,
now counts one as far below going on: it looks for positions the game has not seen.
The classic fox on the shrinking board, pairs 11-20 of the strength benchmark at a
fixed 1,000,000 nodes a move: 70% (4 wins, 6 draws) with 60, 85% (7, 3) with 300.

The geese have the same need while an elephant stands (`GEESE_CONTEMPT`): with
elephants they are the side that wins, and their evaluation can sit below 0 by more
than `CONTEMPT` in positions they should still press (two geese down after a random
opening, with three elephants: material counts the foxes ahead). Then a return scored
0 beat every way forward: in game 40 of both elephant figures of 2026-11-27/28 the
geese walked an elephant up and back for 590 plies to a draw on the move limit.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from aviary.games.engine import Engine
from aviary.games.foxgeese import kernels, odds, quick, rules, searcher
from aviary.games.foxgeese.kernels import (
    ELEPHANTS,
    FOXES,
    GEESE,
    KEY_SLOT,
    NEXT,
    OPEN,
    POINTS,
    ROOT_PLY,
    ROOT_SIDE,
    SIDE_SLOT,
    bit,
    fox_jumps,
    fox_moves,
    popcount,
)
from aviary.games.textbook import Textbook
from aviary.search import alphabeta
from aviary.search.clock import Limit
from aviary.search.kernels import search_kernels, textbook_kernels

GOOSE = 100
ELEPHANT = 260
FOX = 450
MATERIAL_OFFSET = 13 * GOOSE - FOX  # the classic start's material is even
FOX_MOVE = 6  # per legal fox move
FOX_STUCK = 160  # a fox without a move (removed after the next move if alone)
FOX_CORNERED = 45  # a fox with one move
ROOM = 2  # per point a fox can reach
THREAT = 30  # per goose the foxes can jump (geese to move: they may parry one)
FORK = 80  # two or more jumps with the geese to move: one goose is lost
EXPOSED = 6  # per goose open to a jump along a line
STRAY = 15  # per goose with no goose or elephant beside it
CLIMB = 3  # per row a goose has climbed from the bottom (the foxes' searches)
CLIMB_GEESE = 15  # the same in the geese's own searches: their plan is to advance the wall
HALF_PINCER = 35  # an elephant with one fox beside it
PRESSURE = 25  # per jump a fox would have after one step
FORK_NEXT = 120  # a step that would attack two geese at once
POCKET = 20  # per point a fox cut off from the other lacks of POCKET_SIZE
POCKET_SIZE = 10
JITTER = 64  # a power of two: the tie-break's range (see `jitter`)
CONTEMPT = 60  # the searching side's bonus: it shuns draws (repetitions, the move limit)
FOX_CONTEMPT = 300  # the foxes' bonus once no elephant is left: they must make progress
GEESE_CONTEMPT = 300  # the geese's bonus while an elephant stands: they must make progress

COL_0 = np.int64(sum(1 << (r * 7) for r in range(7)))
COL_6 = np.int64(sum(1 << (r * 7 + 6) for r in range(7)))


@njit(cache=True, nogil=True, inline="always")
def dilate(mask, open_):
    """`mask` grown by one step in every direction, within the open points."""
    grown = mask | (mask >> 7) | (mask << 7) | ((mask >> 1) & ~COL_6) | ((mask << 1) & ~COL_0)
    return grown & open_


@njit(cache=True, nogil=True)
def region(start, empty, open_):
    """`start` and every empty point reachable from it by steps through empty points."""
    reach = start
    while True:
        grown = (dilate(reach, open_) & empty) | start
        if grown == reach:
            return reach
        reach = grown


@njit(cache=True, nogil=True)
def room_and_pocket(foxes, empty, open_):
    """The foxes' room (empty points they can reach by steps alone) and their pocket.

    The pocket is the smaller of the two foxes' regions, in empty points, if the geese
    keep them apart. Two foxes side by side cannot be trapped, and one of them free in a
    large region cannot either: the geese win the elephant game by cutting one fox off
    from the other and closing in on it. The pocket is -1 when the foxes' regions join
    (or there are not two foxes). The foxes' region is the union of each fox's, so one
    flood fill per fox gives both figures.
    """
    first = foxes & -foxes
    second = foxes ^ first
    if first == 0 or second == 0:
        return popcount(region(foxes, empty, open_) & empty), -1
    mine = region(first, empty, open_)
    theirs = region(second, empty, open_)
    room = popcount((mine | theirs) & empty)
    if dilate(mine, open_) & second:
        return room, -1
    return room, min(popcount(mine & empty), popcount(theirs & empty))


@njit(cache=True, nogil=True)
def closable(point, herd, empty):
    """Whether the geese can step into the one empty point beside the fox on `point`.

    A fox with one step left is nearly trapped only if a goose or an elephant stands
    next to that point. In the elephant game a fox in the geese's front row whose way
    out leads into the foxes' own region (the top arm, held by the other fox) is no
    such fox: counting it as cornered led the geese to climb round it into a fortress
    they cannot break (docs/games/foxgeese.md).
    """
    for d in range(4):
        q = NEXT[point, d]
        if q >= 0 and empty & bit(q):
            for e in range(4):
                r = NEXT[q, e]
                if r >= 0 and herd & bit(r):
                    return True
            return False
    return False


@njit(cache=True, nogil=True)
def jitter(key, root_ply):
    """A small score in [-JITTER, JITTER) fixed by the position and the ply the search began.

    The rules have no draw by repetition and the move limit is far, so in a position
    where no move makes visible progress a deterministic engine walks in circles;
    this tie-break differs from one move of the game to the next, so it does not.
    """
    mixed = (key ^ (root_ply * np.int64(-7046029254386353131))) * np.int64(-4658895280553007687)
    return ((mixed >> 40) & (2 * JITTER - 1)) - JITTER


@njit(cache=True, nogil=True)
def evaluate(state):
    """The position's worth for the side to move (foxes-positive inside, then signed)."""
    foxes, geese, elephants, open_ = state[FOXES], state[GEESE], state[ELEPHANTS], state[OPEN]
    empty = open_ & ~(foxes | geese | elephants)
    fox_count = popcount(foxes)
    climb = CLIMB_GEESE if state[ROOT_SIDE] < 0 else CLIMB
    score = (FOX * fox_count - GOOSE * popcount(geese) - ELEPHANT * popcount(elephants)
             + MATERIAL_OFFSET)
    threats = 0
    for i in range(POINTS.shape[0]):
        p = POINTS[i]
        b = bit(p)
        if foxes & b:
            moves = fox_moves(p, foxes, geese, empty)
            score += FOX_MOVE * moves
            jumps = fox_jumps(p, geese, empty)
            if moves == 0:
                score -= FOX_STUCK
            elif moves == 1 and (elephants == 0 or jumps or closable(p, geese | elephants, empty)):
                score -= FOX_CORNERED
            threats += jumps
            # pressure: the jumps the fox would have after one step
            for d in range(4):
                q = NEXT[p, d]
                if q >= 0 and empty & bit(q):
                    later = fox_jumps(q, geese, (empty | b) & ~bit(q))
                    score += PRESSURE * later
                    if later >= 2:
                        score += FORK_NEXT
        elif geese & b:
            score -= climb * (6 - p // 7)
            # exposed along a line: both neighbours on it empty
            up, down, left, right = NEXT[p, 0], NEXT[p, 1], NEXT[p, 2], NEXT[p, 3]
            if up >= 0 and down >= 0 and empty & bit(up) and empty & bit(down):
                score += EXPOSED
            if left >= 0 and right >= 0 and empty & bit(left) and empty & bit(right):
                score += EXPOSED
            if not dilate(b, open_) & ~b & (geese | elephants):
                score += STRAY  # no goose or elephant beside it
        elif elephants & b and fox_count > 1:
            near = 0
            for d in range(4):
                q = NEXT[p, d]
                if q >= 0 and foxes & bit(q):
                    near += 1
            if near == 1:
                score += HALF_PINCER
    room, cut_off = room_and_pocket(foxes, empty, open_)
    score += ROOM * room
    if 0 <= cut_off < POCKET_SIZE:
        score -= POCKET * (POCKET_SIZE - cut_off)
    if state[ROOT_SIDE] < 0:
        score -= CONTEMPT if elephants == 0 else GEESE_CONTEMPT
    else:
        score += FOX_CONTEMPT if elephants == 0 else CONTEMPT
    score += jitter(state[KEY_SLOT], state[ROOT_PLY])
    side = state[SIDE_SLOT]
    if side > 0:
        score += THREAT * threats
    elif threats >= 2:
        score += FORK + THREAT * threats
    else:
        score += THREAT * threats // 2
    return score * side


# The textbook opponent's plain evaluation (`aviary.search.textbook`). It lives here, not
# in kernels.py, because the solved tables' keys digest kernels.py: an evaluation they
# never use must not retire them.
PLAIN_GOOSE = 100
PLAIN_ELEPHANT = 300
PLAIN_FOX = 500
PLAIN_FOX_MOVE = 10


@njit(cache=True, nogil=True)
def plain_evaluate(state):
    """The textbook evaluation, for the side to move: material and the fox's mobility.

    From the foxes' point of view (negated for the geese): 500 per fox, minus 100 per
    goose and 300 per elephant left, plus 10 per fox step or jump. Nothing more: no
    formation, threats, room or contempt (the engine's `evaluate` has those).
    """
    foxes, geese, elephants = state[FOXES], state[GEESE], state[ELEPHANTS]
    empty = state[OPEN] & ~(foxes | geese | elephants)
    moves = 0
    for i in range(POINTS.shape[0]):
        p = POINTS[i]
        if foxes & bit(p):
            moves += fox_moves(p, foxes, geese, empty)
    score = (PLAIN_FOX * popcount(foxes) - PLAIN_GOOSE * popcount(geese)
             - PLAIN_ELEPHANT * popcount(elephants) + PLAIN_FOX_MOVE * moves)
    return score * state[SIDE_SLOT]


@njit(cache=True, nogil=True)
def order(state, move):
    """Jumps first (the search core's capture bonus), then moves toward the centre."""
    start = move & 1023
    end = (move >> 10) & 1023
    if end - start == 2 or start - end == 2 or end - start == 14 or start - end == 14:
        return alphabeta.CAPTURE_BONUS
    row, col = end // 7, end % 7
    return 6 - abs(row - 3) - abs(col - 3)


# The search core takes kernels as first-class functions (see aviary.search.kernels).
KERNELS = search_kernels(kernels, evaluate=evaluate, order=order)
# The textbook opponent (`aviary:textbook`): the same kernels with the plain evaluation.
TEXTBOOK_KERNELS = textbook_kernels(kernels, plain_evaluate)


def make_textbook(game: rules.FoxGeese) -> Textbook[rules.Position, rules.Move]:
    """The textbook opponent for `game` (`aviary.games.textbook`)."""
    return Textbook(game, FoxGeeseSearcher(), TEXTBOOK_KERNELS)


class FoxGeeseSearcher(searcher.FoxGeeseSearcher):
    """The shared Fox-Geese searcher (`searcher.py`) on numba's kernels."""

    kernels = KERNELS


def make_engine(game: rules.FoxGeese) -> Engine[rules.Position, rules.Move]:
    """The engine for `game` (any variant, with or without the shrinking board)."""
    return Engine(game, FoxGeeseSearcher(), quick.best_move, tables=odds.probe)


def warmup() -> None:
    """Compile (or load from cache) every kernel the engine uses."""
    for variant in rules.VARIANTS:
        position = rules.start_position(variant, shrink=True)
        FoxGeeseSearcher().perft(position, 2)
        kernels.legal_moves(position)
        kernels.play(position, rules.legal_moves(position)[0])
        for _ in make_engine(rules.FoxGeese()).think(position, Limit(depth=3)):
            pass
        for _ in make_textbook(rules.FoxGeese()).think(position, Limit(depth=2)):
            pass
