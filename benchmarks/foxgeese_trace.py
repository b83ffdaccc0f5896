"""Where a Fox-Geese game goes: the engine's fox against another's geese, one line of events.

Plays seeded openings (a few random non-capturing plies; pair K's opening is what
the old strength script's pair K was) with the engine as the fox and the textbook
opponent (or, with `--geese depth2`, the course project's depth-2 player, the
defender the fox's odds model) as the geese, and prints, for each game, every ply
where the geese count, the closed arms or the solved endings' verdict changes:
`ply:gN/aBITS/V` (N geese; closed arms as bits, right-left-bottom-top; V the tables'
value for the side to move, 1 win, 0 draw, -1 loss, `-` not covered) and, with the
geese to move, `/oP` the fox's odds there.
It is how the drawn games of the shrinking board were read: where the fox stalls,
whether the tables come, and how late.

    python benchmarks/foxgeese_trace.py --pairs 13,16 --time 1.0
    python benchmarks/foxgeese_trace.py --pairs 16 --no-shrink --geese depth2
"""

from __future__ import annotations

import random

from aviary.errors import ArgumentParser
from aviary.games.foxgeese import depth2, endgame, engine, odds, rules, shapes
from aviary.games.match import Match
from script import run_main

TEXTBOOK = engine.make_textbook(rules.FoxGeese())
ENGINE = engine.make_engine(rules.FoxGeese())


def opening(variant: str, shrink: bool, plies: int, seed: int) -> rules.Position:
    """`plies` random moves from the start (no capture, so both sides keep their material)."""
    chooser = random.Random(seed)
    position = rules.start_position(variant, shrink)
    for _ in range(plies):
        moves = [m for m in rules.legal_moves(position) if not m.is_capture]
        if not moves:
            break
        after = rules.play(position, chooser.choice(moves))
        if rules.outcome(after) is not None:
            break
        position = after
    return position


def geese_player(name: str, position: rules.Position, seconds: float) -> rules.Move:
    if name == "depth2":
        return depth2.best_move(position)
    return TEXTBOOK.best_move(position, time=seconds)


def event(position: rules.Position) -> tuple[tuple[int, int, int | None], str]:
    """The position's (geese, closed arms, table value) and its text for the trace."""
    geese, arms = position.board.count(rules.GOOSE), shapes.closed_arms(position.board)
    value = endgame.value(position, use="cached")
    text = f"{position.ply}:g{geese}/a{arms:04b}/{'-' if value is None else value[0]}"
    chance = odds.odds(position)
    if chance is not None:
        text += f"/o{chance:.2f}"
    return (geese, arms, None if value is None else value[0]), text


def trace(pair: int, shrink: bool, seconds: float, seed: int, geese: str) -> None:
    game = rules.FoxGeese(shrink=shrink)
    match = Match(game, opening("classic", shrink, 2 + 2 * ((pair - 1) % 4), seed + pair - 1))
    events: list[str] = []
    last = None
    while match.outcome is None:
        position = match.state
        state, text = event(position)
        if state != last:
            events.append(text)
            last = state
        if position.player == "f":
            move = ENGINE.best_move(position, time=seconds, history=match.history)
        else:
            move = geese_player(geese, position, seconds)
        match.play(move)
    ended, position = match.outcome, match.state
    winner = None if ended.winner is None else game.labels[ended.winner]
    print(f"pair {pair}: {({'f': 'foxes', 'g': 'geese', None: 'draw'})[winner]} "
          f"({ended.reason}) at "
          f"ply {position.ply}, {position.board.count(rules.GOOSE)} geese, final board "
          f"{position.board}\n  " + " ".join(events), flush=True)


def main() -> int:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", default="1", help="comma-separated pair numbers (1-based)")
    parser.add_argument("--time", type=float, default=1.0, help="seconds per move, both sides")
    parser.add_argument("--seed", type=int, default=2026, help="the openings' seed")
    parser.add_argument("--geese", choices=("textbook", "depth2"), default="textbook")
    parser.add_argument("--no-shrink", action="store_true", help="the classic game, fixed board")
    args = parser.parse_args()
    try:
        pairs = [int(word) for word in args.pairs.split(",")]
    except ValueError:
        parser.error(f"--pairs takes pair numbers like 3,7, got {args.pairs!r}")
    if any(pair < 1 for pair in pairs):
        parser.error("pair numbers start at 1")
    engine.warmup()
    TEXTBOOK.warmup()
    depth2.warmup()
    odds.deep_warmup()  # the fox's odds (minutes, once: cached)
    for pair in pairs:
        trace(pair, not args.no_shrink, args.time, args.seed, args.geese)
    return 0


if __name__ == "__main__":
    run_main(main)
