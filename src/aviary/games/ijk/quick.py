"""A move in milliseconds from rules.py alone: the answer printed before numba has loaded.

One ply, greedy: the slide that leaves the mover the most letter value
(2**level per tile, the highest letter counted again), the opponent's least.
"""

from __future__ import annotations

from aviary.games.ijk import rules


def value(board: str, player: rules.Player) -> int:
    """The mover's letter value minus the opponent's (2**level per tile, highest twice)."""
    total = 0
    for letter in board:
        if letter == rules.EMPTY:
            continue
        worth = 2 ** (rules.UPPER.index(letter.upper()) + 1)
        total += worth if rules.owner(letter) == player else -worth
    high = rules.highest(board, player) - rules.highest(board, rules.opponent(player))
    return total + 4 * high


def best_move(position: rules.Position) -> rules.Move:
    """The greedy slide (U, D, L or R); ValueError at a chance node."""
    if position.chance:
        raise ValueError("the new tile is still to be placed: no player moves here")
    me = position.player
    return max(rules.DIRECTIONS, key=lambda move: value(rules.slide(position.board, move, me), me))


def evaluate(position: rules.Position) -> float:
    """`value` for `+` (player 0): the fallback search's static value."""
    return float(value(position.board, "+"))
