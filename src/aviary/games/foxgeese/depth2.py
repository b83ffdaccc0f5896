"""Fox-Geese's depth-2 player (`aviary:depth2`): the original course project's move-table player.

What the original course project did: a depth-2 minimax over a table that scores
each move for the side making it, ties broken at random. It is kept under its own
name because the classic fox's odds (`odds.py`) model exactly this defender, its
tie-breaking included; the yardstick for strength is the textbook opponent
(`aviary:textbook`, `aviary.search.textbook`), which uses its clock.

    foxes: captured elephant 500, captured goose 250,
           can capture an elephant 300, can capture a goose 200;
    geese: captured fox 500, fox partly blocked 250,
           an elephant can capture a fox 250;
    any other move 50.

The original game let pieces take each other in ways our rules do not, so the
table is read in our rules' terms: the foxes "capture an elephant" by pinching
it (it has two foxes beside it after the move) and "can capture" one when a fox
step next move would pinch one; they "can capture a goose" when a jump is open
after the move. The geese "capture a fox" when their move traps one (it is
removed); a fox is "partly blocked" when the move takes away some of the foxes'
legal moves; "an elephant can capture a fox" when an elephant's step next move
would trap one. A move earns every entry that applies (50 if none does). The
value of a move is its score minus the best reply's score; a move that ends the
game is worth a win or a loss outright. It runs on the engine's compiled move
generator, so comparisons at equal time measure play, not the speed of Python.
"""

from __future__ import annotations

import random

import numpy as np
from numba import njit

from aviary.errors import NoMoveError
from aviary.games.engine import MovePlayer
from aviary.games.foxgeese import kernels, rules
from aviary.games.foxgeese.kernels import (
    ELEPHANTS,
    FOXES,
    GEESE,
    MAX_MOVES,
    NOT_OVER,
    OPEN,
    SIDE_SLOT,
    popcount,
)

WIN = 1_000_000


@njit(cache=True, nogil=True)
def _fox_mobility(state):
    foxes, geese, elephants = state[FOXES], state[GEESE], state[ELEPHANTS]
    empty = state[OPEN] & ~(foxes | geese | elephants)
    total = 0
    for i in range(kernels.POINTS.shape[0]):
        p = kernels.POINTS[i]
        if foxes & kernels.bit(p):
            total += kernels.fox_moves(p, foxes, geese, empty)
    return total


@njit(cache=True, nogil=True)
def _threat(state, side, scratch):
    """Could `side` remove a piece with its next move (pinch an elephant / trap a fox)?

    Returns (jump available, removal available) for the foxes, (0, elephant traps) for
    the geese.
    """
    saved = state[SIDE_SLOT]
    state[SIDE_SLOT] = side
    count = kernels.generate(state, scratch, False)
    jump = 0
    removal = 0
    for i in range(count):
        move = scratch[i]
        start = move & 1023
        end = (move >> 10) & 1023
        gap = abs(end - start)
        if side > 0 and (gap == 2 or gap == 14):
            jump = 1
            continue
        if side < 0 and not state[ELEPHANTS] & kernels.bit(start):
            continue
        before = popcount(state[ELEPHANTS]) if side > 0 else popcount(state[FOXES])
        undo = kernels.make(state, move)
        after = popcount(state[ELEPHANTS]) if side > 0 else popcount(state[FOXES])
        kernels.unmake(state, move, undo)
        if after < before:
            removal = 1
    state[SIDE_SLOT] = saved
    return jump, removal


@njit(cache=True, nogil=True)
def move_score(state, move, scratch):
    """The table's score of `move` for the side making it (WIN / -WIN if the game ends)."""
    side = state[SIDE_SLOT]
    foxes, geese, elephants = popcount(state[FOXES]), popcount(state[GEESE]), popcount(
        state[ELEPHANTS])
    mobility = _fox_mobility(state)
    undo = kernels.make(state, move)
    over = kernels.terminal(state)
    score = 0
    if over != NOT_OVER:
        # the result is for the side to move now, the mover's opponent
        score = 0 if over == 0 else (-WIN if over > 0 else WIN)
    elif kernels.generate(state, scratch, False) == 0:
        score = WIN  # the opponent cannot move: it loses
    elif side > 0:
        if popcount(state[ELEPHANTS]) < elephants:
            score += 500
        if popcount(state[GEESE]) < geese:
            score += 250
        jump, pinch = _threat(state, side, scratch)
        score += 300 * pinch + 200 * jump
    else:
        if popcount(state[FOXES]) < foxes:
            score += 500
        if _fox_mobility(state) < mobility:
            score += 250
        _, trap = _threat(state, side, scratch)
        score += 250 * trap
    if score == 0 and over == NOT_OVER:
        score = 50
    kernels.unmake(state, move, undo)
    return score


@njit(cache=True, nogil=True)
def root_values(state, moves, count, values, buffers):
    """values[i] = score of moves[i] minus the best reply's score (depth-2 minimax)."""
    scratch = buffers[0]
    replies = buffers[1]
    for i in range(count):
        move = moves[i]
        mine = move_score(state, move, scratch)
        if mine >= WIN or mine <= -WIN or (mine == 0):
            values[i] = mine
            continue
        undo = kernels.make(state, move)
        n = kernels.generate(state, replies, False)
        best_reply = -2 * WIN
        for j in range(n):
            reply = move_score(state, replies[j], scratch)
            if reply > best_reply:
                best_reply = reply
        kernels.unmake(state, move, undo)
        values[i] = mine - best_reply
    return count


def best_move(position: rules.Position, *, time: float | None = None,
              depth: int | None = None) -> rules.Move:
    """The depth-2 move (depth 2 whatever `time` and `depth` say: the odds model this player).

    Ties are broken by a generator seeded from the position, so a game replays alike.
    Raises NoMoveError when the side to move has no legal move.
    """
    moves = rules.legal_moves(position)
    if not moves:
        raise NoMoveError(f"player {position.player} has no legal move")
    if len(moves) == 1:
        return moves[0]
    state = kernels.state_from_position(position)
    codes = np.array([kernels.encode(move) for move in moves], dtype=np.int64)
    values = np.zeros(len(moves), dtype=np.int64)
    buffers = np.zeros((2, MAX_MOVES), dtype=np.int64)
    root_values(state, codes, len(moves), values, buffers)
    top = int(values.max())
    tied = [move for move, value in zip(moves, values, strict=True) if value == top]
    chooser = random.Random(f"{position.board}{position.player}{position.ply}")
    return chooser.choice(tied)


def make_engine(game: rules.FoxGeese) -> MovePlayer[rules.Position, rules.Move]:
    """The depth-2 player as a registered player (`aviary:depth2` in the arena)."""
    return MovePlayer(game, best_move, warmup, name="aviary:depth2")


def warmup() -> None:
    """Compile (or load from cache) the depth-2 player's kernels."""
    for variant in rules.VARIANTS:
        best_move(rules.start_position(variant, shrink=True))
