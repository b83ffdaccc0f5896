"""A move in milliseconds from rules.py alone: the answer printed before numba has loaded.

One ply plus the opponent's best immediate capture: take what is free, promote,
advance, and do not leave a piece where it is captured next move. Also the
player for boards larger than the kernels support, so its cost must not grow
with the board's area per move: each move is valued by what it changes (the
piece taken, the promotion, the rows advanced), and the opponent's replies are
only looked at where that stays cheap.
"""

from __future__ import annotations

from aviary.games.pikachu import rules

_VALUE = {"w": 1, "b": 1, "W": 5, "B": 5}
_ADVANCE = 0.05  # per row a Pichu has advanced
_LOOK_AHEAD_WORK = 200_000  # moves x squares above which replies are not examined


def material(position: rules.Position, player: rules.Player) -> float:
    """Pichus 1, Pikachus 5, plus a little for each row a Pichu has advanced."""
    n = position.n
    total = 0.0
    for square, piece in enumerate(position.board):
        if rules.owner(piece) != player:
            continue
        total += _VALUE[piece]
        if piece.islower():
            total += _ADVANCE * _advanced(n, square, player)
    return total


def _advanced(n: int, square: int, player: rules.Player) -> int:
    row = square // n
    return row if player == "w" else n - 1 - row


def gain(position: rules.Position, move: rules.Move) -> float:
    """How much `move` changes material(me) - material(them), computed from the move alone."""
    n, board, me = position.n, position.board, position.player
    piece = board[move.start]
    change = 0.0
    if move.captured is not None:
        victim = board[move.captured]
        change += _VALUE[victim]
        if victim.islower():
            change += _ADVANCE * _advanced(n, move.captured, rules.opponent(me))
    if piece.islower():
        change -= _ADVANCE * _advanced(n, move.start, me)
        if move.end // n == rules.far_row(n, me):
            change += _VALUE[piece.upper()] - _VALUE[piece]
        else:
            change += _ADVANCE * _advanced(n, move.end, me)
    return change


def best_move(position: rules.Position) -> rules.Move:
    """The greedy choice; raises ValueError when there is no legal move."""
    moves = rules.legal_moves(position)
    if not moves:
        raise ValueError(f"player {position.player} has no legal move")
    look_ahead = len(moves) * position.n * position.n <= _LOOK_AHEAD_WORK

    def value(move: rules.Move) -> float:
        score = gain(position, move)
        if look_ahead:
            after = rules.play(position, move)
            replies = rules.legal_moves(after)
            if not replies:
                return 1e9  # the opponent cannot move (or has no piece left): a win
            victims = [after.board[r.captured] for r in replies if r.captured is not None]
            score -= max((_VALUE[victim] for victim in victims), default=0)
        return score

    return max(moves, key=value)


def evaluate(position: rules.Position) -> float:
    """Material for White minus Black's: the fallback search's static value (for player 0)."""
    return material(position, "w") - material(position, "b")
