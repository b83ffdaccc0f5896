"""Rules-only Betsy, no numpy or numba: what answers before numba has loaded.

`best_move`, the quick player: one ply plus the opponent's best immediate capture
(take the Kingfisher when it hangs, never leave ours where it is taken next move,
otherwise win material and do not leave a piece en prise). `evaluate`: the static
value the fallback search (`aviary.games.fallback`) deepens, with the endgame
knowledge a search of a few plies needs to hunt a Kingfisher down.
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


_SIGNED = {piece: VALUE[piece.upper()] * (1 if piece.isupper() else -1)
           for piece in "PNBRQKpnbrqk"}
_PRESSING = frozenset("NBRQnbrq")  # the pieces whose nearness to a Kingfisher counts


def evaluate(position: rules.Position) -> float:
    """`material` for White minus Black's, plus pressure on the Kingfishers: the fallback
    search's static value (for player 0). Pressure (pieces near the enemy Kingfisher,
    and that Kingfisher near an edge when a piece or more behind) makes a shallow search close in on
    it instead of shuffling pieces while the material stays level. One pass over the
    board: the fallback calls this at every leaf."""
    board = position.board
    targets = (board.find("k"), board.find("K"))  # white presses black's, black white's
    rows_cols = [divmod(target, 8) if target >= 0 else None for target in targets]
    lead = 0  # in whole pieces: Parakeets' advance aside
    total = 0.0
    near = [0, 0]
    for square, piece in enumerate(board):
        if piece == ".":
            continue
        lead += _SIGNED[piece]
        if piece == "P":
            total += 0.05 * (square >> 3)
        elif piece == "p":
            total -= 0.05 * (7 - (square >> 3))
        elif piece in _PRESSING:
            side = 0 if piece.isupper() else 1
            target = rows_cols[side]
            if target is not None:
                row, col = square >> 3, square & 7
                near[side] += 7 - max(abs(row - target[0]), abs(col - target[1]))
    total += lead
    for side, sign in ((0, 1.0), (1, -1.0)):
        target = rows_cols[side]
        if target is None:
            continue
        row, col = target
        edge = 3 - min(row, col, 7 - row, 7 - col)  # 0 in the centre, 3 on an edge
        total += sign * 0.03 * near[side]
        if sign * lead >= 3:  # a side well ahead hunts the Kingfisher down: fewer flights
            free = room(board, targets[side], side == 0, position.diagonal)
            total += sign * (0.15 * edge - ROOM_WEIGHT * free)
    return total + (TEMPO if position.player == "w" else -TEMPO)


# the move in hand: worth something, so a capture now beats the same capture after a
# check (a shallow search otherwise delays it, checking back and forth, to the horizon)
TEMPO = 0.15


ROOM_WEIGHT = 0.2  # per square a hunted Kingfisher can step to without being taken


def room(board: str, square: int, by_white: bool, diagonal: bool) -> int:
    """The squares the Kingfisher on `square` can step to where white's (`by_white`) or
    black's pieces cannot take it (looking through the Kingfisher's own square)."""
    own = "prnbqk" if by_white else "PRNBQK"
    without = board[:square] + "." + board[square + 1:]
    return sum(1 for step in rules.KINGFISHER_STEPS[diagonal][square]
               if board[step] not in own and not rules.attacked(without, step, by_white, diagonal))
