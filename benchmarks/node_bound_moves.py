"""Node-bound games, head against a base commit: CPU time a move, and the very same games.

A ladder calibration and a grade play the engine at a node budget (`nodes=1000`), with
and without a share of random moves, thousands of games at a time, so what a move costs
around its search (numba's dispatch, the principal variation played out through the
rules, the history table's aging, the game's history keys) is the time they take.
This plays the same seeded games with the code of two commits: base (checked out in a
temporary worktree) and head (this tree), one game of each in turn, so machine load
falls on both alike. A node-bound search does not depend on the clock, so the two
must play move for move the same games: the script checks it (a digest of every
position) and fails otherwise. Times are each process's CPU seconds (all its threads)
and its wall-clock seconds (what a worker waits too, e.g. for a thread to start), its
first game (numba's compilation) left out.

    python benchmarks/node_bound_moves.py [--base main] [--rounds 2] [--game foxgeese ...]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from aviary.errors import ArgumentParser, UsageError
from script import run_main
from strength import base_worktree, commit_of, head_against_base

ROOT = Path(__file__).resolve().parent.parent
# (game, options, games to time): each a ladder's pairing, its engine level against a
# level with a fifth of its moves random
CONFIGURATIONS = [
    ("pikachu", {"n": "8"}, 4),
    ("betsy", {}, 10),
    ("foxgeese", {"variant": "classic"}, 4),
    ("ijk", {"variant": "course", "mode": "det"}, 1),
]
LEVELS = ("aviary:engine?nodes=1000&time=30&random=0.2", "aviary:engine?nodes=1000&time=30")

# what each side runs, in its own process with its own tree's `aviary` first on the path
PLAYER = """
import hashlib, json, random, sys, time
from aviary.arena.games import make_game
from aviary.arena.players import PlayerSpec, make_player
from aviary.arena.referee import GameRecord, play_game
name, options, games, levels = json.loads(sys.argv[1])
game = make_game(name, options)
players = tuple(make_player(PlayerSpec(f"p{i}", spec), game, 30.0, None)
                for i, spec in enumerate(levels))
def one(seed):
    return play_game(game, players, game.opening(random.Random(seed), 4), 30.0, 700,
                     GameRecord(0, "a", "b", ""), chance=random.Random(seed), seed=str(seed))
one(0)  # compiles (or loads numba's cache)
digest, moves = hashlib.sha256(), 0
started, wall = time.process_time(), time.perf_counter()
for seed in range(1, games + 1):
    record = one(seed)
    moves += len(record.moves)
    for move in record.moves:
        digest.update(move.state.encode())
print(json.dumps({"cpu": time.process_time() - started, "moves": moves,
                  "wall": time.perf_counter() - wall, "games": digest.hexdigest()}))
"""


def side(tree: Path, configuration: tuple[str, dict[str, str], int]) -> dict[str, float | str]:
    """One side's run of one configuration's games, in a process of its own."""
    env = dict(os.environ, PYTHONPATH=str(tree / "src"))
    result = subprocess.run([sys.executable, "-c", PLAYER, json.dumps([*configuration, LEVELS])],
                            capture_output=True, text=True, env=env, cwd=tree, timeout=3600)
    if result.returncode != 0:
        raise RuntimeError(f"{tree}: {result.stderr.strip().splitlines()[-1:]}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="main", help="the commit to compare with (main)")
    parser.add_argument("--game", action="append", help="only these games (repeatable)")
    parser.add_argument("--rounds", type=int, default=2,
                        help="runs of each side, interleaved (2)")
    args = parser.parse_args()
    if args.rounds < 1:
        raise UsageError(f"--rounds must be at least 1, got {args.rounds}")
    chosen = [c for c in CONFIGURATIONS if not args.game or c[0] in args.game]
    if not chosen:
        raise UsageError(f"--game: none of {sorted({c[0] for c in CONFIGURATIONS})}")
    commit = commit_of(args.base, "node_bound_moves: --base")
    print(f"node-bound games ({LEVELS[0]} vs {LEVELS[1]}): "
          + head_against_base(args.base, commit))
    failed = False
    with base_worktree(commit) as base_tree:
        for configuration in chosen:
            cpu, wall = {"base": 0.0, "head": 0.0}, {"base": 0.0, "head": 0.0}
            moves, digests = {"base": 0, "head": 0}, set()
            for _ in range(args.rounds):
                for name, tree in (("base", base_tree), ("head", ROOT)):
                    run = side(tree, configuration)
                    cpu[name] += float(run["cpu"])
                    wall[name] += float(run["wall"])
                    moves[name] += int(run["moves"])
                    digests.add(run["games"])
            per_move = {name: 1000 * cpu[name] / max(moves[name], 1) for name in cpu}
            wall_move = {name: 1000 * wall[name] / max(moves[name], 1) for name in wall}
            same = len(digests) == 1
            failed |= not same
            options = ",".join(f"{key}={value}" for key, value in configuration[1].items())
            label = f"{configuration[0]} {options}"
            print(f"  {label:32} {moves['head'] // args.rounds:5} moves  base "
                  f"{per_move['base']:.2f} ms/move  head {per_move['head']:.2f} ms/move  "
                  f"ratio {per_move['base'] / per_move['head']:.2f}x  wall base "
                  f"{wall_move['base']:.2f} head {wall_move['head']:.2f} ms/move ratio "
                  f"{wall_move['base'] / wall_move['head']:.2f}x  "
                  f"{'same games' if same else 'GAMES DIFFER'}")
    return 1 if failed else 0


if __name__ == "__main__":
    run_main(main)
