"""How the textbook geese defend the solved endings: why the classic fox draws against them.

Plays the engine as the fox against the baseline's geese in the classic game
(no shrinking board), the strength benchmark's openings, and at every geese move
the solved endings cover (one fox against four or five geese) sorts the geese's
replies by what the tables say of them and by what a depth-2 player can see:

- losing: the tables give the fox a forced win after the reply;
- visible: after the reply the fox can jump at once, or step to where it can
  jump (the baseline scores both, "can capture a goose", so it sees them);
- a safe reply draws by the tables and leaves the fox no such jump.

It then counts the baseline's choices that lose, against what a uniformly random
choice among the same replies would lose (the yardstick in the same run).

    python benchmarks/foxgeese_baseline_endings.py --games 6 --time 0.1
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter
from pathlib import Path

from aviary.games.base import WIN
from aviary.games.foxgeese import baseline, endgame, engine, rules

sys.path.insert(0, str(Path(__file__).resolve().parent))
from foxgeese_strength import opening  # noqa: E402  (the same openings as the bar)


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
    """Sort the geese's replies in `position` and record the baseline's choice."""
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
    tally[f"{geese} baseline chose a losing reply"] += chosen_loses
    tally[f"{geese} random expected losing (x1000)"] += round(1000 * losing / len(replies))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=6)
    parser.add_argument("--time", type=float, default=0.1, help="the engine's seconds per move")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    engine.warmup()
    baseline.warmup()
    endgame.warmup()
    tally: Counter[str] = Counter()
    results: Counter[str] = Counter()
    for game in range(args.games):
        position = opening("classic", False, 2 + 2 * (game % 4), args.seed + game)
        history: list[rules.Position] = []
        while rules.outcome(position) is None:
            if position.player == "f":
                move = engine.best_move(position, time=args.time, history=history)
            else:
                move = baseline.best_move(position, time=args.time)
                if endgame.covers(position):
                    audit(position, move, tally)
            history.append(position)
            position = rules.play(position, move)
        ended = rules.outcome(position)
        assert ended is not None
        results[{"f": "fox", "g": "geese", None: "draw"}[ended[0]]] += 1
        print(f"game {game + 1}: {ended[0] or 'draw'} ({ended[1]}, {position.ply} plies)",
              flush=True)
    print(f"engine fox vs baseline geese, classic, {args.time} s/move, {args.games} games: "
          + ", ".join(f"{name} {count}" for name, count in sorted(results.items())))
    for geese in (5, 4):
        positions = tally[f"{geese} positions"]
        if not positions:
            continue
        chose = tally[f"{geese} baseline chose a losing reply"]
        expected = tally[f"{geese} random expected losing (x1000)"] / 1000
        print(f"{geese} geese to move, {positions} positions: a losing reply in "
              f"{tally[f'{geese} with a losing reply']}, one invisible at depth 2 in "
              f"{tally[f'{geese} with an invisible losing reply']}, a safe drawing reply in "
              f"{tally[f'{geese} with a safe reply']}; the baseline chose a losing reply "
              f"{chose} times, a random choice would have {expected:.1f} times "
              f"(ratio {chose / expected if expected else 0:.2f})")
    print(f"load average {os.getloadavg()[0]:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
