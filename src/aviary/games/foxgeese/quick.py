"""A move in milliseconds from rules.py alone: the answer printed before numba has loaded.

Two plies of material and the foxes' freedom: the foxes take what is free and
keep room to move; the geese leave no goose to be jumped and take squares from
the foxes. Ends of the game found in those two plies count as won or lost.
"""

from __future__ import annotations

from aviary.games.foxgeese import rules

WON = 1e6


def value(position: rules.Position) -> float:
    """The position for the foxes: material, then the foxes' legal moves."""
    ended = rules.result(position)
    if ended is not None:
        winner = ended[0]
        return 0.0 if winner is None else (WON if winner == "f" else -WON)
    board = position.board
    score = 4.5 * board.count("F") - board.count("G") - 2.6 * board.count("E")
    foxes = [p for p, piece in enumerate(board) if piece == "F"]
    freedom = sum(len(rules.piece_moves(board, p)) for p in foxes)
    return score + 0.12 * freedom


def best_move(position: rules.Position) -> rules.Move:
    """The choice after each reply (the reply best for the opponent by `value`)."""
    moves = rules.legal_moves(position)
    if not moves:
        raise ValueError(f"player {position.player} has no legal move")
    sign = 1 if position.player == "f" else -1

    def worth(move: rules.Move) -> float:
        after = rules.play(position, move)
        if rules.outcome(after) is not None:
            ended = rules.outcome(after)
            assert ended is not None
            winner = ended[0]
            return 0.0 if winner is None else (WON if winner == position.player else -WON)
        replies = rules.legal_moves(after)
        return min(sign * value(rules.play(after, reply)) for reply in replies)

    return max(moves, key=worth)


def evaluate(position: rules.Position) -> float:
    """`value`, for the foxes (player 0): the fallback search's static value."""
    return value(position)
