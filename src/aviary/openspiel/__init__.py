"""aviary's board games inside OpenSpiel, and OpenSpiel's players in aviary.

Importing this package registers every board game of the registry as an
OpenSpiel Python game `aviary_NAME`, its options as game parameters:

    import pyspiel
    import aviary.openspiel  # registers aviary_pikachu, aviary_betsy, ...
    game = pyspiel.load_game("aviary_pikachu(n=10)")

`aviary.openspiel.players` turns OpenSpiel's MCTS and alpha-beta into aviary
players (`aviary:mcts`, `aviary:openspiel-ab` in the arena);
`aviary.openspiel.native` turns OpenSpiel's own games into aviary games
(`--game openspiel:connect_four`); `aviary.openspiel.command` runs OpenSpiel's
scripts with the games registered (`aviary openspiel run MODULE`). Needs the
optional extra: `pip install 'aviary[openspiel]'`.
"""

from __future__ import annotations

from aviary.openspiel.games import GAME_PREFIX, AviaryGame, AviaryState, load, register_all

__all__ = ["GAME_PREFIX", "AviaryGame", "AviaryState", "load", "register_all"]

register_all()
