"""A move in milliseconds from rules.py alone: the answer printed before numba has loaded.

One ply plus the opponent's best immediate capture: take what is free, promote,
advance, and do not leave a piece where it is captured next move. Also the
player for boards larger than the kernels support.
"""

from __future__ import annotations

from aviary.games.pikachu import rules

_VALUE = {"w": 1, "b": 1, "W": 5, "B": 5}


def material(position: rules.Position, player: rules.Player) -> float:
    """Pichus 1, Pikachus 5, plus a little for each row a Pichu has advanced."""
    n = position.n
    total = 0.0
    for square, piece in enumerate(position.board):
        if rules.owner(piece) != player:
            continue
        total += _VALUE[piece]
        if piece.islower():
            row = square // n
            advanced = row if player == "w" else n - 1 - row
            total += 0.05 * advanced
    return total


def best_move(position: rules.Position) -> rules.Move:
    """The greedy choice; raises ValueError when there is no legal move."""
    me, them = position.player, rules.opponent(position.player)
    moves = rules.legal_moves(position)
    if not moves:
        raise ValueError(f"player {me} has no legal move")
    look_ahead = len(moves) * position.n * position.n <= 200_000

    def value(move: rules.Move) -> float:
        after = rules.play(position, move)
        score = material(after, me) - material(after, them)
        if look_ahead:
            replies = rules.legal_moves(after)
            if not replies:
                return 1e9  # the opponent cannot move (or has no piece left): a win
            victims = [after.board[r.captured] for r in replies if r.captured is not None]
            score -= max((_VALUE[victim] for victim in victims), default=0)
        return score

    return max(moves, key=value)
