"""Sebastian (solitaire Yahtzee, course rules): exact solver, optimal player, course driver.

`from aviary.games.sebastian import SebastianAutoPlayer` is the course drop-in; it
is imported on first use so that `aviary sebastian --help` stays quick.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from aviary.games.sebastian.player import OptimalPlayer, SebastianAutoPlayer

__all__ = ["OptimalPlayer", "SebastianAutoPlayer"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from aviary.games.sebastian import player

        return getattr(player, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
