"""Does OpenSpiel's tabular Q-learning learn Pikachu n=7 in minutes? Measured against random.

The one OpenSpiel learner that runs with what aviary installs (its deep learners,
AlphaZero, DQN, policy gradients, need PyTorch, JAX or TensorFlow): `QLearner`, a
table of values keyed by the observation, through OpenSpiel's RL environment. It
trains for SECONDS against a uniform random player, on alternate sides, then plays
GAMES greedy games against random (alternate sides). The baseline, measured in the
same run: the same learner untrained (its greedy move is the first legal one).
A score is the learner's points (1 a win, 1/2 a draw) with a 95% interval.

    python benchmarks/openspiel_qlearning.py [--seconds 180] [--games 200]
"""

from __future__ import annotations

import math
import time
from typing import Any

import pyspiel
from open_spiel.python import rl_environment
from open_spiel.python.algorithms import random_agent, tabular_qlearner

import aviary.openspiel  # noqa: F401  (registers aviary_pikachu, ...)
from aviary.errors import ArgumentParser
from script import run_main

GAME = "aviary_pikachu(n=7,max_plies=200)"


def play(env: Any, agents: list[Any], evaluation: bool) -> list[float]:
    step = env.reset()
    while not step.last():
        player = step.observations["current_player"]
        step = env.step([agents[player].step(step, is_evaluation=evaluation).action])
    for agent in agents:
        agent.step(step, is_evaluation=evaluation)
    return list(step.rewards)


def score(env: Any, learners: list[Any], randoms: list[Any], games: int) -> float:
    """The learners' points in `games` greedy games against random, alternate sides."""
    points = 0.0
    for number in range(games):
        side = number % 2
        agents = [learners[0], randoms[1]] if side == 0 else [randoms[0], learners[1]]
        reward = play(env, agents, evaluation=True)[side]
        points += 1.0 if reward > 0 else 0.5 if reward == 0 else 0.0
    return points


def interval(points: float, games: int) -> str:
    share = points / games
    half = 1.96 * math.sqrt(max(share * (1 - share), 0.25 / games) / games)
    return f"{points:g}/{games} = {100 * share:.1f}% ± {100 * half:.1f}%"


def main() -> None:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=180.0)
    parser.add_argument("--games", type=int, default=200)
    args = parser.parse_args()
    env = rl_environment.Environment(pyspiel.load_game(GAME), seed=1)
    actions = env.action_spec()["num_actions"]
    randoms = [random_agent.RandomAgent(player_id=p, num_actions=actions) for p in range(2)]

    def learners() -> list[Any]:
        return [tabular_qlearner.QLearner(player_id=p, num_actions=actions, step_size=0.5)
                for p in range(2)]

    untrained = score(env, learners(), randoms, args.games)
    trained = learners()
    started, episodes = time.monotonic(), 0
    while time.monotonic() - started < args.seconds:
        side = episodes % 2
        play(env, [trained[0], randoms[1]] if side == 0 else [randoms[0], trained[1]], False)
        episodes += 1
    states = sum(len(learner._q_values) for learner in trained)
    print(f"{GAME}: {episodes} training games in {args.seconds:g} s, {states:,} states seen")
    print(f"untrained against random: {interval(untrained, args.games)}")
    points = score(env, trained, randoms, args.games)
    print(f"trained against random:   {interval(points, args.games)}")


if __name__ == "__main__":
    run_main(main)
