"""The retrograde solver against plain depth-bounded minimax over every position of toy games.

The toy game: a token on a random directed graph, the players move it in turn
along an edge; a player who cannot move loses. Some edges leave the graph for a
position of known value (an "exit"), some nodes are over before anyone moves
(terminal, with a fixed value). Cycles make draws; exits and terminals exercise
every branch of the solver's contract.
"""

from __future__ import annotations

import functools
import random

import numpy as np
import pytest
from numba import njit

from aviary.search.retrograde import DRAW, LOSS, TERMINAL, WIN, exit_code, solve


@njit
def _children(index, out, data):
    offsets, targets, terminal = data
    if terminal[index] != 0:
        out[0] = terminal[index]
        return TERMINAL
    count = offsets[index + 1] - offsets[index]
    for k in range(count):
        out[k] = targets[offsets[index] + k]
    return count


@njit
def _predecessors(index, out, data):
    offsets, sources, _ = data
    count = offsets[index + 1] - offsets[index]
    for k in range(count):
        out[k] = sources[offsets[index] + k]
    return count


def random_game(size: int, seed: int):
    """Edges (node -> list of targets, exits as exit codes) and terminal codes (0: none)."""
    chooser = random.Random(seed)
    edges: list[list[int]] = []
    terminal = [0] * size
    for node in range(size):
        if chooser.random() < 0.06:
            value = chooser.choice([WIN, DRAW, LOSS])
            terminal[node] = int(exit_code(value, 0 if value == DRAW else chooser.randrange(4)))
            edges.append([])
            continue
        targets: list[int] = []
        for _ in range(chooser.choice([0, 1, 1, 2, 2, 3, 4])):
            if chooser.random() < 0.15:
                value = chooser.choice([WIN, DRAW, LOSS])
                plies = 0 if value == DRAW else chooser.randrange(6)
                targets.append(int(exit_code(value, plies)))
            else:
                targets.append(chooser.randrange(size))  # repeats allowed: two moves, same place
        edges.append(targets)
    return edges, terminal


def minimax_values(edges, terminal):
    """Exact (result, distance) by plain minimax bounded to `horizon` plies, from each node."""

    def decode(code: int) -> tuple[int, int]:
        return (-1 - code) % 3 - 1, (-1 - code) // 3

    @functools.cache
    def wins_within(node: int, plies: int) -> bool:
        if terminal[node]:
            value, distance = decode(terminal[node])
            return value == WIN and distance <= plies
        for target in edges[node]:
            if target < 0:
                value, distance = decode(target)
                if value == LOSS and distance + 1 <= plies:
                    return True
            elif plies >= 1 and loses_within(target, plies - 1):
                return True
        return False

    @functools.cache
    def loses_within(node: int, plies: int) -> bool:
        if terminal[node]:
            value, distance = decode(terminal[node])
            return value == LOSS and distance <= plies
        for target in edges[node]:
            if target < 0:
                value, distance = decode(target)
                if not (value == WIN and distance + 1 <= plies):
                    return False
            elif plies < 1 or not wins_within(target, plies - 1):
                return False
        return True  # also: no move at all loses at once

    horizon = 2 * len(edges) + 12  # longer than any forced line: a forced end repeats no node
    values = []
    for node in range(len(edges)):
        for plies in range(horizon + 1):
            if wins_within(node, plies):
                values.append((WIN, plies))
                break
            if loses_within(node, plies):
                values.append((LOSS, plies))
                break
        else:
            values.append((DRAW, 0))
    return values


def solve_graph(edges, terminal):
    size = len(edges)
    forward = np.zeros(size + 1, dtype=np.int64)
    forward[1:] = np.cumsum([len(t) for t in edges])
    targets = np.array([t for ts in edges for t in ts] + [0], dtype=np.int64)
    reverse: list[list[int]] = [[] for _ in range(size)]
    for node, ts in enumerate(edges):
        for t in ts:
            if t >= 0:
                reverse[t].append(node)
    backward = np.zeros(size + 1, dtype=np.int64)
    backward[1:] = np.cumsum([len(s) for s in reverse])
    sources = np.array([s for ss in reverse for s in ss] + [0], dtype=np.int64)
    codes = np.array(terminal, dtype=np.int64)
    max_moves = max(max(len(t) for t in edges), max(len(s) for s in reverse), 1)
    # children read (forward, targets, codes); predecessors read (backward, sources, codes)
    return solve(size, _children_of, _predecessors_of,
                 (forward, targets, codes, backward, sources), max_moves)


@njit
def _children_of(index, out, data):
    return _children(index, out, (data[0], data[1], data[2]))


@njit
def _predecessors_of(index, out, data):
    return _predecessors(index, out, (data[3], data[4], data[2]))


@pytest.mark.parametrize("seed", range(12))
def test_solver_equals_minimax_on_random_graph_games(seed):
    edges, terminal = random_game(size=60 + 10 * seed, seed=seed)
    result, distance = solve_graph(edges, terminal)
    expected = minimax_values(edges, terminal)
    got = [(int(r), int(d)) for r, d in zip(result, distance, strict=True)]
    assert got == expected
    assert {r for r, _ in expected} == {WIN, DRAW, LOSS}  # the game exercises every outcome


def test_a_cycle_is_a_draw_and_a_dead_end_a_loss():
    # 0 -> 1 -> 2 -> 0 (a cycle nobody can leave), 3 -> 4 (no move at 4), 5 -> {0, 4}
    edges = [[1], [2], [0], [4], [], [0, 4]]
    result, distance = solve_graph(edges, [0] * 6)
    assert [int(r) for r in result] == [DRAW, DRAW, DRAW, WIN, LOSS, WIN]
    assert [int(d) for d in distance] == [0, 0, 0, 1, 0, 1]


def test_a_loss_resists_through_its_longest_line():
    # 0 -> {1, 2}; 1 wins in 1 (moves to dead end 3); 2 wins in 3 (2 -> 4 -> 5 -> 6 dead end)
    edges = [[1, 2], [3], [4], [], [5], [6], []]
    result, distance = solve_graph(edges, [0] * 7)
    assert (int(result[0]), int(distance[0])) == (LOSS, 4)
    assert (int(result[2]), int(distance[2])) == (WIN, 3)
