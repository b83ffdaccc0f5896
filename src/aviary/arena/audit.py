"""Results that follow from their moves: each stored game re-played under the game's rules.

Only the arena writes the database, and the sandbox keeps programs away from it;
this is the check that does not trust either. A game is flagged when a stored
position is not reached by one legal move (or chance event) from the one before,
when a move is stored for the wrong side, or when the stored result does not
follow from the last position: a finished game must end as the rules say, a forfeit
must be lost by the side to move, and a draw on the ply limit must have reached it.
"""

from __future__ import annotations

from typing import Any

from aviary.arena.referee import DRAW_BY_PLY_LIMIT, FORFEITS, MoveRecord
from aviary.arena.schedule import Config
from aviary.arena.store import Store, StoredGame
from aviary.games.base import CHANCE, Game


def audit(store: Store) -> dict[int, str]:
    """Game id -> what is wrong with it, for every stored game whose record is not sound."""
    config = store.config()
    game = config.make_game()
    problems = {stored.id: "no game the tournament planned (its number or players are not "
                           "those of any planned game)" for stored in store.foreign_games()}
    for stored in store.games():
        problem = game_problem(game, config, stored, store.moves(stored.id))
        if problem is not None:
            problems[stored.id] = problem
    return dict(sorted(problems.items()))


def game_problem(game: Game[Any, Any], config: Config, stored: StoredGame,
                 moves: list[MoveRecord]) -> str | None:
    """Why `stored` does not follow from its moves under the rules, or None."""
    try:
        state = game.decode(stored.opening)
    except Exception:
        return "its opening is not a position of the game"
    for move in moves:
        mover = game.to_move(state)
        if game.outcome(state) is not None:
            return f"ply {move.ply} is played after the game was over"
        if move.mover != mover:
            return f"ply {move.ply} is stored for player {move.mover}, but {mover} was to move"
        options = ([outcome for outcome, _ in game.chance_outcomes(state)] if mover == CHANCE
                   else game.legal_moves(state))
        reached = None
        for option in options:
            after = game.play(state, option)
            if game.encode(after) == move.state:
                reached = after
                break
        if reached is None:
            return f"ply {move.ply} is not a legal move from the position before it"
        state = reached
    return _result_problem(game, config, stored, state, len(moves))


def _result_problem(game: Game[Any, Any], config: Config, stored: StoredGame, state: Any,
                    plies: int) -> str | None:
    expected_result = 0.5 if stored.winner is None else float(stored.winner == 0)
    if stored.result != expected_result or stored.plies != plies:
        return "its result, winner and number of plies disagree with each other"
    ended = game.outcome(state)
    if stored.reason in FORFEITS:
        if ended is not None or stored.winner is None:
            return f"a forfeit ({stored.reason}) of a game that was over or drawn"
        if stored.winner != 1 - game.to_move(state):
            return f"a forfeit ({stored.reason}) by the side that was not to move"
        return None
    if stored.reason == DRAW_BY_PLY_LIMIT:
        if ended is not None or stored.winner is not None or plies < config.max_plies:
            return "a draw on the ply limit before the limit, or of a finished game"
        return None
    if ended is None:
        return f"the result ({stored.reason}) of a game that was not over"
    if ended.winner != stored.winner:
        return f"the last position is won by {ended.winner}, but {stored.winner} is stored"
    return None
