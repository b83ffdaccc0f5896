"""Where a Fox-Geese game goes: the engine's fox against the baseline, one line of events.

Plays the strength benchmark's openings (`foxgeese_strength.py`: pair K's opening is
the same here) with the engine as the fox and the textbook baseline as the geese,
and prints, for each game, every ply where the geese count, the closed arms or the
solved endings' verdict changes: `ply:gN/aBITS/V` (N geese; closed arms as bits,
right-left-bottom-top; V the tables' value for the side to move, 1 win, 0 draw,
-1 loss, `-` not covered) and, with the geese to move, `/oP` the fox's odds there.
It is how the drawn games of the shrinking board were read: where the fox stalls,
whether the tables come, and how late.

    python benchmarks/foxgeese_trace.py --pairs 13,16 --time 1.0
    python benchmarks/foxgeese_trace.py --pairs 16 --no-shrink
"""

from __future__ import annotations

import argparse

from aviary.games.foxgeese import baseline, endgame, engine, odds, rules, shapes
from foxgeese_strength import baseline_player, engine_player, opening


def event(position: rules.Position) -> tuple[tuple[int, int, int | None], str]:
    """The position's (geese, closed arms, table value) and its text for the trace."""
    geese, arms = position.board.count(rules.GOOSE), shapes.closed_arms(position.board)
    value = endgame.value(position, use="cached")
    text = f"{position.ply}:g{geese}/a{arms:04b}/{'-' if value is None else value[0]}"
    chance = odds.odds(position)
    if chance is not None:
        text += f"/o{chance:.2f}"
    return (geese, arms, None if value is None else value[0]), text


def trace(pair: int, shrink: bool, seconds: float, seed: int) -> None:
    position = opening("classic", shrink, 2 + 2 * ((pair - 1) % 4), seed + pair - 1)
    history: list[rules.Position] = []
    events: list[str] = []
    last = None
    while rules.outcome(position) is None:
        state, text = event(position)
        if state != last:
            events.append(text)
            last = state
        mover = engine_player if position.player == "f" else baseline_player
        move = mover(position, seconds, history)
        history.append(position)
        position = rules.play(position, move)
    winner, why = rules.outcome(position)
    print(f"pair {pair}: {({'f': 'foxes', 'g': 'geese', None: 'draw'})[winner]} ({why}) at "
          f"ply {position.ply}, {position.board.count(rules.GOOSE)} geese, final board "
          f"{position.board}\n  " + " ".join(events), flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", default="1", help="comma-separated pair numbers (1-based)")
    parser.add_argument("--time", type=float, default=1.0, help="seconds per move, both sides")
    parser.add_argument("--seed", type=int, default=2026, help="as in foxgeese_strength.py")
    parser.add_argument("--no-shrink", action="store_true", help="the classic game, fixed board")
    args = parser.parse_args()
    try:
        pairs = [int(word) for word in args.pairs.split(",")]
    except ValueError:
        parser.error(f"--pairs takes pair numbers like 3,7, got {args.pairs!r}")
    if any(pair < 1 for pair in pairs):
        parser.error("pair numbers start at 1")
    engine.warmup()
    baseline.warmup()
    odds.deep_warmup()  # the fox's odds (minutes, once: cached)
    for pair in pairs:
        trace(pair, not args.no_shrink, args.time, args.seed)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
