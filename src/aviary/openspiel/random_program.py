"""The smallest external player of the arena's OpenSpiel games: a random legal move.

The protocol (`aviary.openspiel.native`): the arena calls the program once a move as
`PROGRAM GAME HISTORY SECONDS`, say `connect_four() '[3, 3, 4]' 0.2`: OpenSpiel's
game string, the action ids played from the start, the seconds it has. The program
replays the history and prints its move, OpenSpiel's action string (`x3`) or the
action id (`3`), as its last line. In the arena:

    aviary arena run --game openspiel:connect_four ... \\
        'aviary:mcts?time=0.2' 'python -m aviary.openspiel.random_program'
"""

from __future__ import annotations

import json
import random
import sys

import pyspiel

import aviary.openspiel  # noqa: F401  (OpenSpiel's games, and aviary's as aviary_NAME)


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print("usage: random_program GAME HISTORY SECONDS", file=sys.stderr)
        return 2
    game_string, history, _seconds = argv
    state = pyspiel.load_game(game_string).new_initial_state()
    for action in json.loads(history):
        state.apply_action(action)
    action = random.choice(state.legal_actions())
    print(state.action_to_string(state.current_player(), action))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
