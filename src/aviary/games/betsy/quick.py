"""A move in milliseconds from rules.py alone: the answer printed before numba has loaded.

One ply plus the opponent's best immediate capture: take the Kingfisher when it
hangs, never leave ours where it is taken next move, otherwise win material and
do not leave a piece en prise.
"""

from __future__ import annotations

from aviary.games.betsy import rules

VALUE = {"P": 1, "N": 3, "B": 3, "R": 5, "Q": 9, "K": 1000}


def material(position: rules.Position, player: rules.Player) -> float:
    """Chess values, the Kingfisher priceless, plus a little for advanced Parakeets."""
    total = 0.0
    for square, piece in enumerate(position.board):
        if rules.owner(piece) != player:
            continue
        total += VALUE[piece.upper()]
        if piece in "Pp":
            row = square // 8
            total += 0.05 * (row if player == "w" else 7 - row)
    return total


def best_move(position: rules.Position) -> rules.Move:
    """The greedy choice; raises ValueError when there is no legal move."""
    me, them = position.player, rules.opponent(position.player)
    moves = rules.legal_moves(position)
    if not moves:
        raise ValueError(f"player {me} has no legal move")

    def value(move: rules.Move) -> float:
        after = rules.play(position, move)
        if rules.winner(after) == me:
            return 1e9
        score = material(after, me) - material(after, them)
        victims = [after.board[reply.end] for reply in rules.legal_moves(after)]
        score -= max((VALUE[victim.upper()] for victim in victims if victim != "."), default=0)
        return score

    return max(moves, key=value)


def evaluate(position: rules.Position) -> float:
    """Material for White minus Black's, plus pressure on the Kingfishers: the fallback
    search's static value (for player 0). Pressure (pieces near the enemy Kingfisher,
    and that Kingfisher near an edge when behind) makes a shallow search close in on
    it instead of shuffling pieces while the material stays level."""
    board = position.board
    kingfishers = {"w": board.find("K"), "b": board.find("k")}
    total = material(position, "w") - material(position, "b")
    lead = total
    for player, sign in (("w", 1.0), ("b", -1.0)):
        target = kingfishers[rules.opponent(player)]
        if target < 0:
            continue
        row, col = divmod(target, 8)
        near = 0.0
        for square, piece in enumerate(board):
            if piece in "PpKk." or rules.owner(piece) != player:
                continue
            r, c = divmod(square, 8)
            near += 7 - max(abs(r - row), abs(c - col))
        edge = 3 - min(row, col, 7 - row, 7 - col)  # 0 in the centre, 3 on an edge
        ahead = sign * lead > 2
        total += sign * (0.03 * near + (0.15 * edge if ahead else 0.0))
    return total
