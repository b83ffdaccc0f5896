"""Random walks that prefer captures, for the kernel tests of the capturing games.

A uniform random walk rarely reaches the sparse endings (closed arms, promotions, a
lone king) where kernels and rules are most likely to disagree; taking a capture half
the time it is offered gets there. Top-level in tests/ (like `course_clock.py`) so every
game's test folder can import it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import TypeVar

Position = TypeVar("Position")
Move = TypeVar("Move")


def capture_walk(start: Position, legal_moves: Callable[[Position], Sequence[Move]],
                 play: Callable[[Position, Move], Position],
                 is_capture: Callable[[Position, Move], bool],
                 plies: int, seed: int) -> list[Position]:
    """The positions of a walk of up to `plies` random legal moves from `start` (it stops
    where the game has no move), a capture taken half the times one is offered."""
    chooser = random.Random(seed)
    position = start
    seen = [position]
    for _ in range(plies):
        moves = legal_moves(position)
        if not moves:
            break
        captures = [move for move in moves if is_capture(position, move)]
        pool = captures if captures and chooser.random() < 0.5 else moves
        position = play(position, chooser.choice(pool))
        seen.append(position)
    return seen
