"""Two toy games written twice -- readable rules and numba kernels -- the template for a game.

Each game here has what a real game in `aviary.games` has, in miniature:

- rules: plain Python over an immutable tuple, the truth (`moves`, `play`, `result`,
  and for chance `outcomes`), plus a plain minimax / expectimax over them;
- kernels: `@njit` functions over one int64 array, then wrapped as `cfunc`s with
  the search's fixed signatures (`alphabeta.GENERATE`, ..., `expectimax.CHANCE`)
  into `KERNELS` (`aviary.search.report.Kernels`, the kernels by name). Fixed
  signatures are what let numba cache the compiled search once for every game: a new
  game adds its small kernels, not a new search.

Games:

- Tic-tac-toe (`ttt_*`): deterministic, ends in a win, a loss or a draw. State:
  cells 0-8 (+1 X, -1 O, 0 empty), slot 9 the side to move (+1 X). A move is a cell.
  Its make/unmake also know the search's null move (`alphabeta.PASS`): a mark more
  never hurts its owner, so the game has no zugzwang and a pass is always allowed.
- Dice race (`race_*`): two players alternate; the mover picks an action and a
  chance event decides how far the mover advances: STEP +1 for sure, ROLL +0..+3
  evenly, GAMBLE +4 with weight 1 against +0 with weight 2. First to `goal` wins;
  when `turns` run out the higher total wins (equal: a draw). In "margin" mode the
  game's value is instead the final difference of totals (a bounded score, which
  lets Star1 prune). State: [0] X's total, [1] O's total, [2] turns left, [3] side
  to move, [4] pending action + 1 (0: a player node), [5] goal, [6] mode.
  After a move the turn passes at once and the chance node belongs to the next
  mover (the search's convention: a chance outcome never changes the side to move).
- Shuffle (`shuffle_*`): a one-dimensional walk that cycles, for repetition tests.
  A token on squares 0..4; each side moves it one square left or right (walls
  stop it); the evaluation is the token's square for X. Nothing ever ends the
  game, so only repetitions (draws) end the search's lines.
"""

from __future__ import annotations

from functools import cache

import numpy as np
from numba import cfunc, njit

from aviary.search import alphabeta, expectimax
from aviary.search.alphabeta import MATE, NOT_OVER
from aviary.search.report import Kernels

# ---------------------------------------------------------------- shared helpers


@njit(cache=True, nogil=True)
def _mix(value):
    """splitmix64: a key from a packed state (toy games need no incremental Zobrist)."""
    z = np.uint64(value) + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return np.int64(z >> np.uint64(1))


def from_root(result: int, ply: int) -> int:
    """A game result for the side to move, met at `ply`, scored from the root (by distance)."""
    if result > MATE // 2:
        return result - ply
    if result < -MATE // 2:
        return result + ply
    return result


# ---------------------------------------------------------------- tic-tac-toe rules

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
TttState = tuple[tuple[int, ...], int]  # cells, side to move


def ttt_start() -> TttState:
    return (0,) * 9, 1


def ttt_result(state: TttState) -> int | None:
    """None while the game goes on, else -MATE (the side to move lost) or 0 (a draw)."""
    cells, side = state
    for a, b, c in LINES:
        if cells[a] == cells[b] == cells[c] == -side:
            return -MATE
    return 0 if all(cells) else None


def ttt_moves(state: TttState) -> list[int]:
    return [i for i, cell in enumerate(state[0]) if cell == 0]


def ttt_play(state: TttState, move: int) -> TttState:
    cells, side = state
    return cells[:move] + (side,) + cells[move + 1 :], -side


def ttt_evaluate(state: TttState) -> int:
    """Open lines: a line only I occupy counts k*k for my k marks; theirs count against me."""
    cells, side = state
    score = 0
    for line in LINES:
        mine = sum(1 for i in line if cells[i] == side)
        theirs = sum(1 for i in line if cells[i] == -side)
        if theirs == 0:
            score += mine * mine
        elif mine == 0:
            score -= theirs * theirs
    return score


@cache
def ttt_solve(state: TttState) -> int:
    """Plain minimax to the end, scored by distance from `state` (memoised by position:
    a pure win/loss/draw value shifts exactly with the ply)."""
    result = ttt_result(state)
    if result is not None:
        return result
    return max(-from_root(ttt_solve(ttt_play(state, m)), 1) for m in ttt_moves(state))


def ttt_minimax(state: TttState, depth: int, ply: int = 0) -> int:
    """Plain depth-limited minimax, as the search must score it without pruning effects."""
    result = ttt_result(state)
    if result is not None:
        return from_root(result, ply)
    if depth == 0:
        return ttt_evaluate(state)
    return max(-ttt_minimax(ttt_play(state, m), depth - 1, ply + 1) for m in ttt_moves(state))


def ttt_positions() -> list[TttState]:
    """Every position reachable from the start (5478, finished ones included)."""
    found = {ttt_start()}
    frontier = [ttt_start()]
    while frontier:
        state = frontier.pop()
        if ttt_result(state) is None:
            for move in ttt_moves(state):
                after = ttt_play(state, move)
                if after not in found:
                    found.add(after)
                    frontier.append(after)
    return sorted(found)


def ttt_array(state: TttState) -> np.ndarray:
    cells, side = state
    return np.array([*cells, side], dtype=np.int64)


# ---------------------------------------------------------------- tic-tac-toe kernels

_LINES = np.array(LINES, dtype=np.int64)


@njit(cache=True, nogil=True)
def _ttt_generate(state, out, captures_only):
    if captures_only:
        return 0
    count = 0
    for i in range(9):
        if state[i] == 0:
            out[count] = i
            count += 1
    return count


@njit(cache=True, nogil=True)
def _ttt_terminal(state):
    side = state[9]
    full = True
    for i in range(9):
        if state[i] == 0:
            full = False
    for k in range(8):
        a, b, c = _LINES[k, 0], _LINES[k, 1], _LINES[k, 2]
        if state[a] == -side and state[b] == -side and state[c] == -side:
            return -MATE
    return 0 if full else NOT_OVER


@njit(cache=True, nogil=True)
def _ttt_evaluate(state):
    side = state[9]
    score = 0
    for k in range(8):
        mine = theirs = 0
        for j in range(3):
            cell = state[_LINES[k, j]]
            if cell == side:
                mine += 1
            elif cell == -side:
                theirs += 1
        if theirs == 0:
            score += mine * mine
        elif mine == 0:
            score -= theirs * theirs
    return score


@njit(cache=True, nogil=True)
def _ttt_key(state):
    packed = 0
    for i in range(9):
        packed = packed * 3 + state[i] + 1
    return _mix(packed * 2 + (state[9] > 0))


@cfunc(alphabeta.GENERATE, cache=True, nogil=True)
def ttt_generate(state, out, captures_only):
    return _ttt_generate(state, out, captures_only)


@cfunc(alphabeta.MAKE, cache=True, nogil=True)
def ttt_make(state, move):
    if move != alphabeta.PASS:
        state[move] = state[9]
    state[9] = -state[9]
    return 0


@cfunc(alphabeta.UNMAKE, cache=True, nogil=True)
def ttt_unmake(state, move, undo):
    if move != alphabeta.PASS:
        state[move] = 0
    state[9] = -state[9]


@cfunc(alphabeta.EVALUATE, cache=True, nogil=True)
def ttt_evaluate_kernel(state):
    return _ttt_evaluate(state)


@cfunc(alphabeta.KEY, cache=True, nogil=True)
def ttt_key(state):
    return _ttt_key(state)


@cfunc(alphabeta.ORDER, cache=True, nogil=True)
def ttt_order(state, move):
    return 3 if move == 4 else (2 if move in (0, 2, 6, 8) else 1)


@cfunc(alphabeta.TERMINAL, cache=True, nogil=True)
def ttt_terminal(state):
    return _ttt_terminal(state)


TTT_KERNELS = Kernels(
    ttt_generate, ttt_make, ttt_unmake, ttt_evaluate_kernel, ttt_key, ttt_order, ttt_terminal
)


# ---------------------------------------------------------------- dice race rules

STEP, ROLL, GAMBLE = 0, 1, 2
OUTCOMES = {  # action -> (advance, weight) pairs
    STEP: ((1, 1),),
    ROLL: ((0, 1), (1, 1), (2, 1), (3, 1)),
    GAMBLE: ((0, 2), (4, 1)),
}
WINS, MARGIN = 0, 1
RaceState = tuple[int, int, int, int, int, int, int]  # the kernel array's slots, as a tuple


def race_start(goal: int = 6, turns: int = 6, mode: int = WINS) -> RaceState:
    return (0, 0, turns, 1, 0, goal, mode)


def _totals(state: RaceState) -> tuple[int, int]:
    """(the side to move's total, the other side's)."""
    x, o, _, side, _, _, _ = state
    return (x, o) if side == 1 else (o, x)


def race_result(state: RaceState) -> int | None:
    """None while the game goes on; else the value for the side to move."""
    _, _, turns, _, pending, goal, mode = state
    if pending:
        return None
    mine, theirs = _totals(state)
    if theirs >= goal or mine >= goal or turns == 0:
        if mode == MARGIN:
            return mine - theirs
        return MATE if mine > theirs else -MATE if mine < theirs else 0
    return None


def race_moves(state: RaceState) -> list[int]:
    return [] if state[4] else [STEP, ROLL, GAMBLE]


def race_outcomes(state: RaceState) -> tuple[tuple[int, int], ...]:
    """(advance, weight) pairs at a chance node; () at a player node."""
    pending = state[4]
    return OUTCOMES[pending - 1] if pending else ()


def race_play(state: RaceState, code: int) -> RaceState:
    """A player's action (the turn passes) or, at a chance node, the advance it drew."""
    x, o, turns, side, pending, goal, mode = state
    if not pending:
        return (x, o, turns - 1, -side, code + 1, goal, mode)
    if side == -1:  # X moved, O is to move: X advances
        x += code
    else:
        o += code
    return (x, o, turns, side, 0, goal, mode)


def race_evaluate(state: RaceState) -> int:
    mine, theirs = _totals(state)
    return mine - theirs


def race_bounds(goal: int, mode: int) -> tuple[int, int]:
    """Bounds on every score the search can meet in this game."""
    if mode == WINS:
        return -MATE, MATE
    top = goal - 1 + 4  # the most a total can reach
    return -top, top


@cache
def race_expectimax(state: RaceState, depth: int, ply: int = 0) -> int:
    """Plain expectimax over the rules: depth counts player moves, ply every edge, a
    chance node is the floor of its weighted mean, results are scored by distance.
    (Memoised on all three arguments: the same plain recursion, computed once.)"""
    result = race_result(state)
    if result is not None:
        return from_root(result, ply)
    if depth == 0:
        return race_evaluate(state)
    outcomes = race_outcomes(state)
    if outcomes:
        total = sum(weight for _, weight in outcomes)
        weighted = sum(
            weight * race_expectimax(race_play(state, advance), depth, ply + 1)
            for advance, weight in outcomes
        )
        return weighted // total
    return max(-race_expectimax(race_play(state, m), depth - 1, ply + 1) for m in race_moves(state))


def race_positions(goal: int = 6, turns: int = 6, mode: int = WINS) -> list[RaceState]:
    """Every player node reachable from the start where the game goes on."""
    found = set()
    frontier = [race_start(goal, turns, mode)]
    seen = set(frontier)
    while frontier:
        state = frontier.pop()
        if race_result(state) is not None:
            continue
        if not state[4]:
            found.add(state)
        codes = [a for a, _ in race_outcomes(state)] or race_moves(state)
        for code in codes:
            after = race_play(state, code)
            if after not in seen:
                seen.add(after)
                frontier.append(after)
    return sorted(found)


def race_array(state: RaceState) -> np.ndarray:
    return np.array(state, dtype=np.int64)


# ---------------------------------------------------------------- dice race kernels

_ADVANCES = np.array([[1, 0, 0, 0], [0, 1, 2, 3], [0, 4, 0, 0]], dtype=np.int64)
_WEIGHTS = np.array([[1, 0, 0, 0], [1, 1, 1, 1], [2, 1, 0, 0]], dtype=np.int64)
_COUNTS = np.array([1, 4, 2], dtype=np.int64)


@njit(cache=True, nogil=True)
def _race_terminal(state):
    if state[4] != 0:
        return NOT_OVER
    if state[3] == 1:
        mine, theirs = state[0], state[1]
    else:
        mine, theirs = state[1], state[0]
    if theirs >= state[5] or mine >= state[5] or state[2] == 0:
        if state[6] == MARGIN:
            return mine - theirs
        if mine > theirs:
            return MATE
        return -MATE if mine < theirs else 0
    return NOT_OVER


@cfunc(alphabeta.GENERATE, cache=True, nogil=True)
def race_generate(state, out, captures_only):
    if captures_only or state[4] != 0:
        return 0
    for action in range(3):
        out[action] = action
    return 3


@cfunc(alphabeta.MAKE, cache=True, nogil=True)
def race_make(state, code):
    pending = state[4]
    if pending == 0:
        state[2] -= 1
        state[3] = -state[3]
        state[4] = code + 1
        return 0
    state[0 if state[3] == -1 else 1] += code
    state[4] = 0
    return pending


@cfunc(alphabeta.UNMAKE, cache=True, nogil=True)
def race_unmake(state, code, undo):
    if undo == 0:  # a player's action
        state[2] += 1
        state[3] = -state[3]
        state[4] = 0
    else:
        state[0 if state[3] == -1 else 1] -= code
        state[4] = undo


@cfunc(alphabeta.EVALUATE, cache=True, nogil=True)
def race_evaluate_kernel(state):
    return (state[0] - state[1]) * state[3]


@cfunc(alphabeta.KEY, cache=True, nogil=True)
def race_key(state):
    packed = 0
    for i in range(7):
        packed = packed * 64 + state[i] + 1
    return _mix(packed)


@cfunc(alphabeta.ORDER, cache=True, nogil=True)
def race_order(state, move):
    return move


@cfunc(alphabeta.TERMINAL, cache=True, nogil=True)
def race_terminal(state):
    return _race_terminal(state)


@cfunc(expectimax.CHANCE, cache=True, nogil=True)
def race_chance(state, outcomes, weights):
    pending = state[4]
    if pending == 0:
        return 0
    action = pending - 1
    for i in range(_COUNTS[action]):
        outcomes[i] = _ADVANCES[action, i]
        weights[i] = _WEIGHTS[action, i]
    return _COUNTS[action]


RACE_KERNELS = Kernels(
    race_generate, race_make, race_unmake, race_evaluate_kernel, race_key, race_order,
    race_terminal, chance=race_chance,
)


# ---------------------------------------------------------------- shuffle (repetitions)

SQUARES = 5
ShuffleState = tuple[int, int]  # token square, side to move


def shuffle_moves(state: ShuffleState) -> list[int]:
    """0 moves the token left, 1 right, walls permitting."""
    square = state[0]
    return [m for m, step in ((0, -1), (1, 1)) if 0 <= square + step < SQUARES]


def shuffle_play(state: ShuffleState, move: int) -> ShuffleState:
    return state[0] + (1 if move else -1), -state[1]


def shuffle_evaluate(state: ShuffleState) -> int:
    """X wants the token high, O low: 10 a square from the middle, for the side to move."""
    return (state[0] - SQUARES // 2) * state[1] * 10


def shuffle_minimax(
    state: ShuffleState, depth: int, earlier: tuple[ShuffleState, ...] = (), ply: int = 0
) -> int:
    """Plain minimax where a position met before (in `earlier`: history, then path) is a draw."""
    if ply > 0 and state in earlier:
        return 0
    if depth == 0:
        return shuffle_evaluate(state)
    line = (*earlier, state)
    return max(
        -shuffle_minimax(shuffle_play(state, m), depth - 1, line, ply + 1)
        for m in shuffle_moves(state)
    )


def shuffle_array(state: ShuffleState) -> np.ndarray:
    return np.array(state, dtype=np.int64)


@njit(cache=True, nogil=True)
def _shuffle_key(state):
    return _mix(state[0] * 2 + (state[1] > 0))


def shuffle_key(state: ShuffleState) -> int:
    return int(_shuffle_key(shuffle_array(state)))


@cfunc(alphabeta.GENERATE, cache=True, nogil=True)
def shuffle_generate(state, out, captures_only):
    if captures_only:
        return 0
    count = 0
    if state[0] > 0:
        out[count] = 0
        count += 1
    if state[0] < SQUARES - 1:
        out[count] = 1
        count += 1
    return count


@cfunc(alphabeta.MAKE, cache=True, nogil=True)
def shuffle_make(state, move):
    state[0] += 1 if move else -1
    state[1] = -state[1]
    return 0


@cfunc(alphabeta.UNMAKE, cache=True, nogil=True)
def shuffle_unmake(state, move, undo):
    state[0] -= 1 if move else -1
    state[1] = -state[1]


@cfunc(alphabeta.EVALUATE, cache=True, nogil=True)
def shuffle_evaluate_kernel(state):
    return (state[0] - SQUARES // 2) * state[1] * 10


@cfunc(alphabeta.KEY, cache=True, nogil=True)
def shuffle_key_kernel(state):
    return _shuffle_key(state)


@cfunc(alphabeta.ORDER, cache=True, nogil=True)
def shuffle_order(state, move):
    return 0


@cfunc(alphabeta.TERMINAL, cache=True, nogil=True)
def shuffle_terminal(state):
    return NOT_OVER


SHUFFLE_KERNELS = Kernels(
    shuffle_generate, shuffle_make, shuffle_unmake, shuffle_evaluate_kernel,
    shuffle_key_kernel, shuffle_order, shuffle_terminal,
)


# ---------------------------------------------------------------- no chance at all


@cfunc(expectimax.CHANCE, cache=True, nogil=True)
def no_chance(state, outcomes, weights):
    """The chance kernel of a game without chance: expectimax must then be minimax."""
    return 0
