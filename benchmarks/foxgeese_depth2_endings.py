"""How the depth-2 player's geese defend the solved endings, and how a fox that knows them
wins.

Plays the engine as the fox against the geese of the course project's depth-2 player
(`aviary:depth2`) in the classic game (no shrinking board), from seeded openings,
and at every geese move the solved endings cover (one fox against four or five
geese) sorts the geese's replies by what the tables say of them and by what a
depth-2 player can see:

- losing: the tables give the fox a forced win after the reply;
- visible: after the reply the fox can jump at once, or step to where it can
  jump (the depth-2 player scores both, "can capture a goose", so it sees them);
- a safe reply draws by the tables and leaves the fox no such jump.

It then counts the depth-2 player's choices that lose, against what a uniformly random
choice among the same replies would lose (the yardstick in the same run). The
engine's fox plays the drawn endings by its odds against a depth-2 defender
(`aviary.games.foxgeese.odds`) when they are built (`aviary warmup --deep`), else
by the share of losing replies; `--no-odds` forces the latter.

    python benchmarks/foxgeese_depth2_endings.py --games 6 --time 0.1

`--exhaustive` asks of every position instead of the ones the games reach: for
each geese-to-move position of the solved endings it runs the depth-2 player's
own scoring (the compiled `depth2.root_values`), checks every reply tied
for its best score against the tables, and then computes by value iteration the
chance that the best fox (one that knows the depth-2 player's scoring and its random
tie-break) wins against the depth-2 player within 50, 100, 200... plies.

    python benchmarks/foxgeese_depth2_endings.py --exhaustive --horizon 200
"""

from __future__ import annotations

import os
import sys
from collections import Counter
from pathlib import Path

import numpy as np

from aviary.games.base import WIN
from aviary.games.foxgeese import depth2, endgame, engine, odds, odds_kernels, rules
from aviary.games.match import Match

sys.path.insert(0, str(Path(__file__).resolve().parent))
from aviary.errors import ArgumentParser
from foxgeese_trace import opening  # noqa: E402  (the same seeded openings)
from script import run_main

CLASSIC = rules.FoxGeese()  # the classic game, no shrinking board


def fox_sees_a_jump(position: rules.Position) -> bool:
    """Whether the fox (to move) can jump now or after one step (a depth-2 player's view)."""
    moves = rules.legal_moves(position)
    if any(move.is_capture for move in moves):
        return True
    for move in moves:
        after = rules.play(position, move)
        again = rules.Position(after.board, "f", after.ply + 1, after.shrink)
        if rules.outcome(again) is None and any(m.is_capture for m in rules.legal_moves(again)):
            return True
    return False


def audit(position: rules.Position, chosen: rules.Move, tally: Counter[str]) -> None:
    """Sort the geese's replies in `position` and record the depth-2 player's choice."""
    geese = position.board.count(rules.GOOSE)
    replies = rules.legal_moves(position)
    losing = invisible = safe = 0
    chosen_loses = False
    for reply in replies:
        after = rules.play(position, reply)
        ended = rules.outcome(after)
        if ended is not None:
            loses = ended[0] == "f"
        else:
            value = endgame.value(after, use="cached")
            assert value is not None, "the tables cover every reply of a covered position"
            loses = value[0] == WIN
        visible = ended is None and fox_sees_a_jump(after)
        losing += loses
        invisible += loses and not visible
        safe += not loses and not visible
        if reply == chosen:
            chosen_loses = loses
    tally[f"{geese} positions"] += 1
    tally[f"{geese} with a losing reply"] += losing > 0
    tally[f"{geese} with an invisible losing reply"] += invisible > 0
    tally[f"{geese} with a safe reply"] += safe > 0
    tally[f"{geese} depth2 chose a losing reply"] += chosen_loses
    tally[f"{geese} random expected losing (x1000)"] += round(1000 * losing / len(replies))


def exhaustive(horizon: int) -> None:
    """`--exhaustive`: the depth-2 player's best replies in every geese-to-move position and
    the best fox's chance against them within 50, 100, ... `horizon` plies."""
    model = odds_kernels.Model()
    for count in model.counts:
        positions, with_losing, may_err, tied, tied_losing = (
            int(t) for t in model.tallies[count])
        print(f"fox v {count} geese, geese to move, {positions:,} positions not already "
              f"lost: a losing reply in {with_losing:,}; the depth-2 player's best replies (ties "
              f"included, {tied:,} in all) lose in {may_err:,} positions ({tied_losing:,} "
              "replies)", flush=True)
    reports = {h for h in (50, 100, 200, 400, horizon) if h <= horizon}

    def report(plies: int, chances: dict[int, np.ndarray]) -> None:
        if plies in reports:
            for count in model.counts:
                report_chances(count, chances[count], plies)

    model.iterate(horizon, 1.0, report)


def report_chances(count: int, chances: np.ndarray, plies: int) -> None:
    """How the best fox fares within `plies` from the fox-to-move positions, by their
    value under perfect play."""
    table = np.asarray(endgame.load(count))
    half = len(chances) // 2
    result = (table[:half] & 3).astype(np.int64) - 1
    distance = table[:half] >> 2
    fox_chance = chances[:half]
    won_in_time = (result == 1) & (distance <= plies)
    assert (fox_chance[won_in_time] == 1.0).all(), "a forced win is a win against anyone"
    drawn = fox_chance[result == 0]
    print(f"fox v {count} geese, fox to move, within {plies} plies: from the "
          f"{len(drawn):,} positions drawn with best play, the best fox wins against the "
          f"depth-2 player with chance {drawn.mean():.3f} on average (median "
          f"{np.median(drawn):.3f}; >= 0.5 in {(drawn >= 0.5).mean():.1%}, >= 0.9 in "
          f"{(drawn >= 0.9).mean():.1%})", flush=True)


def main() -> int:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--time", type=float, default=0.1, help="the engine's seconds per move")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--exhaustive", action="store_true",
                        help="check every geese-to-move position of the tables instead")
    parser.add_argument("--horizon", type=int, default=200, metavar="PLIES",
                        help="with --exhaustive: the best fox's chance within PLIES plies")
    parser.add_argument("--no-odds", action="store_true",
                        help="the fox plays the drawn endings without its odds table")
    args = parser.parse_args()
    if args.exhaustive:
        exhaustive(args.horizon)
        return 0
    engine.warmup()
    player = engine.make_engine(rules.FoxGeese())
    depth2.warmup()
    endgame.warmup()
    if args.no_odds:
        odds.disable()
    with_odds = odds.built()
    print("the fox plays the drawn endings by " + (
        "its odds against a depth-2 defender" if with_odds else
        "the share of losing replies (no odds table: aviary warmup --deep)"), flush=True)
    tally: Counter[str] = Counter()
    results: Counter[str] = Counter()
    for game in range(args.games):
        match = Match(CLASSIC, opening("classic", False, 2 + 2 * (game % 4), args.seed + game))
        while match.outcome is None:
            position = match.state
            if position.player == "f":
                move = player.best_move(position, time=args.time, history=match.history)
            else:
                move = depth2.best_move(position, time=args.time)
                if endgame.covers(position):
                    audit(position, move, tally)
            match.play(move)
        ended = match.outcome
        winner = None if ended.winner is None else CLASSIC.labels[ended.winner]
        results[{"f": "fox", "g": "geese", None: "draw"}[winner]] += 1
        print(f"game {game + 1}: {winner or 'draw'} ({ended.reason}, {match.state.ply} plies)",
              flush=True)
    print(f"engine fox vs depth2 geese, classic, {args.time} s/move, {args.games} games: "
          + ", ".join(f"{name} {count}" for name, count in sorted(results.items())))
    for geese in (5, 4):
        positions = tally[f"{geese} positions"]
        if not positions:
            continue
        chose = tally[f"{geese} depth2 chose a losing reply"]
        expected = tally[f"{geese} random expected losing (x1000)"] / 1000
        print(f"{geese} geese to move, {positions} positions: a losing reply in "
              f"{tally[f'{geese} with a losing reply']}, one invisible at depth 2 in "
              f"{tally[f'{geese} with an invisible losing reply']}, a safe drawing reply in "
              f"{tally[f'{geese} with a safe reply']}; depth2 chose a losing reply "
              f"{chose} times, a random choice would have {expected:.1f} times "
              f"(ratio {chose / expected if expected else 0:.2f})")
    print(f"load average {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    run_main(main)
