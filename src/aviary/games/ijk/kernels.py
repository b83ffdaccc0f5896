"""IJK as numba kernels over one int64 array: the speed behind `rules.py`'s truth.

The array holds a header and a stack of frames, one per ply of the search path:
`make` copies the current frame to the next one and plays the move there, so
`unmake` is a single decrement (a 6x6 board of 23-valued cells does not fit one
undo word). Kernels follow the contract of `aviary.search.alphabeta` (generate,
make, unmake, key, terminal) and `aviary.search.expectimax` (chance); the
engine's evaluation lives in `engine.py`, the textbook one (`plain_evaluate`) here.
`tests/games/ijk` checks them against `rules.py`.

Header: N (4 or 6), VARIANT (0 course, 1 handout), DET (1 deterministic), FRAME
(index of the current frame). Frame: N*N cells, then side, pending, last, key.
Cells: 0 empty, +1..+11 `A`..`K`, -1..-11 `a`..`k`. Side: +1 `+`, -1 `-`.
Pending: the new tile for `side` is still to be placed (a chance node).
Last: the cell of the tile just added for `side` (handout Skip), -1 if none.
Moves: 0 U, 1 D, 2 L, 3 R, 4 S (skip); a chance outcome is CELL_MOVE + cell.

A line slides and merges in place in one pass from its leading edge (the
write index never passes the read index): a tile waits until the next tile
shows whether the two merge.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from aviary.games.ijk import rules
from aviary.search.alphabeta import MATE, NOT_OVER

N_SLOT, VARIANT_SLOT, DET_SLOT, FRAME_SLOT = 0, 1, 2, 3
FRAMES = 8  # the first frame starts here
CELLS = 36
SIDE, PENDING, LAST, KEY = CELLS, CELLS + 1, CELLS + 2, CELLS + 3
FRAME_SIZE = CELLS + 4
MAX_FRAMES = 130  # the search path (MAX_PLY = 96 in aviary.search) fits with room to spare
U, D, L, R, S = 0, 1, 2, 3, 4
CELL_MOVE = 64
TOP = 11  # K

_rng = np.random.default_rng(20261123)
ZOBRIST = _rng.integers(1, 2**62, size=(2 * TOP + 1, CELLS), dtype=np.int64)
ZOBRIST[TOP, :] = 0  # empty cells contribute nothing
ZOBRIST_SIDE = np.int64(_rng.integers(1, 2**62))
ZOBRIST_PENDING = np.int64(_rng.integers(1, 2**62))
ZOBRIST_LAST = _rng.integers(1, 2**62, size=CELLS + 1, dtype=np.int64)
ZOBRIST_LAST[0] = 0  # no last tile

_LETTERS = "." + rules.UPPER
MOVE_CODES = {"U": U, "D": D, "L": L, "R": R, "S": S}
MOVE_LETTERS = "UDLRS"


def cell_value(letter: str) -> int:
    if letter == rules.EMPTY:
        return 0
    level = rules.UPPER.index(letter.upper()) + 1
    return level if letter.isupper() else -level


def cell_letter(value: int) -> str:
    letter = _LETTERS[abs(value)]
    return letter if value >= 0 else letter.lower()


def state_from_position(position: rules.Position, variant: str, deterministic: bool
                        ) -> np.ndarray:
    """The kernel array of `position` (one frame in use)."""
    state = np.zeros(FRAMES + MAX_FRAMES * FRAME_SIZE, dtype=np.int64)
    state[N_SLOT] = position.n
    state[VARIANT_SLOT] = int(variant == "handout")
    state[DET_SLOT] = int(deterministic)
    base = FRAMES
    for cell, letter in enumerate(position.board):
        state[base + cell] = cell_value(letter)
    state[base + SIDE] = 1 if position.player == "+" else -1
    state[base + PENDING] = int(position.chance)
    state[base + LAST] = -1 if position.last is None else position.last
    state[base + KEY] = full_key(state)
    return state


def position_from_state(state: np.ndarray) -> rules.Position:
    base = frame(state)
    n = int(state[N_SLOT])
    board = "".join(cell_letter(int(v)) for v in state[base:base + n * n])
    last = int(state[base + LAST])
    return rules.Position(board, "+" if state[base + SIDE] > 0 else "-",
                          bool(state[base + PENDING]), None if last < 0 else last)


def encode(move: rules.Move) -> int:
    return CELL_MOVE + move if isinstance(move, int) else MOVE_CODES[move]


def decode(code: int) -> rules.Move:
    return code - CELL_MOVE if code >= CELL_MOVE else MOVE_LETTERS[code]


@njit(cache=True, nogil=True, inline="always")
def frame(state):
    return FRAMES + state[FRAME_SLOT] * FRAME_SIZE


@njit(cache=True, nogil=True)
def full_key(state):
    """Zobrist key of the current frame from scratch (`make` calls it: 36 XORs)."""
    base = frame(state)
    n = state[N_SLOT]
    key = np.int64(0)
    for cell in range(n * n):
        key ^= ZOBRIST[state[base + cell] + TOP, cell]
    if state[base + SIDE] < 0:
        key ^= ZOBRIST_SIDE
    if state[base + PENDING]:
        key ^= ZOBRIST_PENDING
    key ^= ZOBRIST_LAST[state[base + LAST] + 1]
    return key


@njit(cache=True, nogil=True)
def slide(state, base, direction, mover):
    """Slide and merge every line of the board at `base` toward `direction`, in place."""
    n = state[N_SLOT]
    for line in range(n):
        if direction == U:
            start, step = line, n
        elif direction == D:
            start, step = (n - 1) * n + line, -n
        elif direction == L:
            start, step = line * n, 1
        else:
            start, step = line * n + n - 1, -1
        write = 0
        waiting = 0  # a tile read but not yet written: the next tile may merge with it
        for k in range(n):
            value = state[base + start + k * step]
            if value == 0:
                continue
            if waiting == 0:
                waiting = value
                continue
            if waiting == value or waiting == -value:
                level = (value if value > 0 else -value) + 1
                case = (1 if value > 0 else -1) if waiting == value else mover
                state[base + start + write * step] = level * case
                waiting = 0
            else:
                state[base + start + write * step] = waiting
                waiting = value
            write += 1
        if waiting != 0:
            state[base + start + write * step] = waiting
            write += 1
        for k in range(write, n):
            state[base + start + k * step] = 0


@njit(cache=True, nogil=True)
def has_top(state, base):
    n = state[N_SLOT]
    for cell in range(n * n):  # noqa: SIM110 (numba: no generator expressions)
        if state[base + cell] == TOP or state[base + cell] == -TOP:
            return True
    return False


@njit(cache=True, nogil=True)
def first_empty(state, base):
    n = state[N_SLOT]
    for cell in range(n * n):
        if state[base + cell] == 0:
            return cell
    return -1


@njit(cache=True, nogil=True)
def make(state, move):
    """Play `move` (a direction, S, or a chance outcome) on a new frame; undo token unused."""
    base = frame(state)
    state[FRAME_SLOT] += 1
    new = base + FRAME_SIZE
    for i in range(FRAME_SIZE):
        state[new + i] = state[base + i]
    mover = state[base + SIDE]
    if move >= CELL_MOVE:  # the chance outcome: mover's tile lands on the cell
        cell = move - CELL_MOVE
        state[new + cell] = mover
        state[new + PENDING] = 0
        state[new + LAST] = cell if state[VARIANT_SLOT] == 1 else -1
    elif move == S:
        last = state[base + LAST]
        if last >= 0:
            state[new + last] = -state[new + last]
        state[new + SIDE] = -mover
        state[new + PENDING] = 0
        state[new + LAST] = -1
    else:
        slide(state, new, move, mover)
        following = -mover
        state[new + SIDE] = following
        state[new + PENDING] = 0
        state[new + LAST] = -1
        if not has_top(state, new):
            cell = first_empty(state, new)
            if cell >= 0:
                if state[DET_SLOT]:
                    state[new + cell] = following
                    if state[VARIANT_SLOT] == 1:
                        state[new + LAST] = cell
                else:
                    state[new + PENDING] = 1
    state[new + KEY] = full_key(state)
    return 0


@njit(cache=True, nogil=True)
def unmake(state, move, undo):
    state[FRAME_SLOT] -= 1


@njit(cache=True, nogil=True)
def generate(state, out, captures_only):
    """The mover's moves (all always legal); none for quiescence or at a chance node."""
    if captures_only or state[frame(state) + PENDING]:
        return 0
    count = 5 if state[VARIANT_SLOT] == 1 else 4
    for i in range(count):
        out[i] = i
    return count


@njit(cache=True, nogil=True)
def chance(state, outcomes, weights):
    """0 at a player node; else every empty cell, equally likely."""
    base = frame(state)
    if not state[base + PENDING]:
        return 0
    n = state[N_SLOT]
    count = 0
    for cell in range(n * n):
        if state[base + cell] == 0:
            outcomes[count] = CELL_MOVE + cell
            weights[count] = 1
            count += 1
    return count


@njit(cache=True, nogil=True)
def key(state):
    return state[frame(state) + KEY]


@njit(cache=True, nogil=True)
def highest(state, base):
    """(highest `+` level, highest `-` level, empty cells) of the frame at `base`."""
    n = state[N_SLOT]
    upper = 0
    lower = 0
    empty = 0
    for cell in range(n * n):
        value = state[base + cell]
        if value == 0:
            empty += 1
        elif value > upper:
            upper = value
        elif -value > lower:
            lower = -value
    return upper, lower, empty


@njit(cache=True, nogil=True)
def dead(state, base):
    """A full board with no two equal letters side by side: no slide changes anything."""
    n = state[N_SLOT]
    for r in range(n):
        for c in range(n):
            value = abs(state[base + r * n + c])
            if c + 1 < n and abs(state[base + r * n + c + 1]) == value:
                return False
            if r + 1 < n and abs(state[base + (r + 1) * n + c]) == value:
                return False
    return True


@njit(cache=True, nogil=True)
def winner(state):
    """NOT_OVER while the game goes on, else +1 (`+` won), -1 (`-` won) or 0 (a tie)."""
    base = frame(state)
    upper, lower, empty = highest(state, base)
    if state[VARIANT_SLOT] == 1:
        if upper < TOP and lower < TOP:
            return 0 if empty == 0 and dead(state, base) else NOT_OVER
        return (upper == TOP) - (lower == TOP)
    if upper < TOP and lower < TOP and empty > 0:
        return NOT_OVER
    return (upper > lower) - (upper < lower)


@njit(cache=True, nogil=True)
def terminal(state):
    """NOT_OVER, or the result for the side to move: MATE won, -MATE lost, 0 a tie."""
    won = winner(state)
    if won == NOT_OVER:
        return NOT_OVER
    return won * state[frame(state) + SIDE] * MATE


@njit(cache=True, nogil=True)
def order(state, move):
    return 0


@njit(cache=True, nogil=True)
def plain_evaluate(state):
    """The course write-ups' evaluation: empty cells plus the letter-weighted difference
    (A = 1 ... K = 11, the side to move's letters minus the opponent's).

    In negamax form (the textbook opponent, `aviary.search.textbook`) the empty cells
    count for the side to move; the course's minimax counted them for the player
    it searched for at every leaf, which a score for the side to move cannot say
    (the two agree at the leaves where that player is to move).
    """
    base = frame(state)
    n = state[N_SLOT]
    empty = 0
    letters = 0
    for cell in range(n * n):
        value = state[base + cell]
        if value == 0:
            empty += 1
        letters += value
    return empty + state[base + SIDE] * letters


# --- for tests and benchmarks ---------------------------------------------------------


def legal_moves(state: np.ndarray) -> list[rules.Move]:
    """The kernel's moves (or chance outcomes) in rules form, [] when the game is over."""
    if winner(state) != NOT_OVER:
        return []
    out = np.zeros(CELLS, dtype=np.int64)
    weights = np.zeros(CELLS, dtype=np.int64)
    count = chance(state, out, weights)
    if count == 0:
        count = generate(state, out, False)
    return [decode(int(code)) for code in out[:count]]


@njit(cache=True, nogil=True)
def random_playout(state, moves, seed):
    """Plays random moves (and chance outcomes) from `state` until the game ends or
    `moves` plies; returns the number of moves made (frames are reused, not kept)."""
    np.random.seed(seed)
    made = 0
    out = np.zeros(CELLS, dtype=np.int64)
    weights = np.zeros(CELLS, dtype=np.int64)
    start = state[FRAME_SLOT]
    for _ in range(moves):
        if winner(state) != NOT_OVER:
            break
        count = chance(state, out, weights)
        if count == 0:
            count = generate(state, out, False)
        make(state, out[np.random.randint(count)])
        made += 1
        if state[FRAME_SLOT] >= MAX_FRAMES - 1:  # copy down to keep playing in place
            top = frame(state)
            for i in range(FRAME_SIZE):
                state[FRAMES + start * FRAME_SIZE + i] = state[top + i]
            state[FRAME_SLOT] = start
    return made
