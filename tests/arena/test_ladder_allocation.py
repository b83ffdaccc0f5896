"""A ladder calibration's weighted phases: the plan they make, the design that weighs
them, and a real calibration that goes on in one (and from its file, in a new database).

The design is checked against levels of known strength: simulated games drawn from their
Elo by a seeded generator, fitted by the calibration's own bootstrap fit.
"""

from __future__ import annotations

import json
import random
import sqlite3
import subprocess
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from aviary.arena import allocation, ladder
from aviary.arena.players import PlayerSpec
from aviary.arena.ratings import anchored_ratings, score_from_elo
from aviary.arena.schedule import Config, Slot, check_phases, pairings, plan
from aviary.arena.store import Store, StoredGame

TRUE = [0.0, 220.0, 430.0, 640.0, 860.0, 1070.0, 1290.0, 1500.0]  # eight levels, steps near 210


def ladder_config(games: int, phases: tuple[tuple[int, tuple[int, ...]], ...] = ()) -> Config:
    players = [PlayerSpec(f"L{i}", "aviary:random") for i in range(len(TRUE))]
    return Config(game="pikachu", players=players, seconds=30, games=games, mode="ladder",
                  phases=phases)


def seconds_of(first: str, second: str) -> float:
    """A game's wall time in the simulation: the stronger level thinks longer, as a
    real ladder's do (its top games take some ten times its bottom ones)."""
    return 0.05 * 2.0 ** max(int(first[1:]), int(second[1:]))


def simulated(slots: list[Slot], seed: int) -> list[StoredGame]:
    """Each slot's game, drawn from the levels' true Elo (one generator per slot, so a
    slot's result is the same whatever plan it is part of)."""
    games = []
    for slot in slots:
        rng = random.Random(f"{seed}:{slot.index}")
        expected = score_from_elo(TRUE[int(slot.second[1:])] - TRUE[int(slot.first[1:])])
        result = float(rng.random() < expected)
        games.append(StoredGame(slot.index + 1, slot.round, slot.first, slot.second, "",
                                result, int(result == 0), "test", "", 10,
                                seconds_of(slot.first, slot.second)))
    return games


def widest_margin(games: list[StoredGame]) -> float:
    names = [f"L{i}" for i in range(len(TRUE))]
    rated = anchored_ratings(names, ladder.pairs_of(games), "L0", resamples=4000)
    return max(rating.margin for rating in rated.values())


# the plan ------------------------------------------------------------------------------------

def test_a_phase_keeps_the_games_before_it_and_deals_its_pairs_out_by_weight_evenly():
    weights = (5, 0, 3, 1, 2, 0, 1, 4, 0, 2, 0, 1, 3)  # eight levels: thirteen pairings
    cycle = sum(weights)
    before = plan(ladder_config(130))
    config = ladder_config(130 + 2 * cycle * 3, phases=((130, weights),))
    slots = plan(config)
    assert slots[:130] == before  # the games played before the phase keep their slots
    later = slots[130:]
    assert len(later) == 2 * cycle * 3
    for first, second in zip(later[::2], later[1::2], strict=True):  # colour-swapped pairs
        assert (first.first, first.second) == (second.second, second.first)
        assert first.round == second.round
    rounds = [slot.round for slot in later[::2]]
    assert rounds == list(range(before[-1].round + 1, before[-1].round + 1 + len(rounds)))
    dealt = [(slot.first, slot.second) for slot in later[::2]]
    for start in range(0, len(dealt) - cycle + 1):  # any cycle's worth of pairs, anywhere
        counts = Counter(dealt[start:start + cycle])
        for pairing, weight in zip(pairings(config), weights, strict=True):
            assert abs(counts[pairing] - weight) <= 1, (start, pairing)
    for pairing, weight in zip(pairings(config), weights, strict=True):  # whole cycles
        assert Counter(dealt)[pairing] == 3 * weight


def test_phases_survive_the_database_and_malformed_ones_are_refused():
    config = ladder_config(400, phases=((100, (1,) * 13),
                                        (240, (2, 0, 1, 0, 0, 0, 0, 0, 3, 0, 0, 0, 1))))
    assert Config.from_json(config.to_json()) == config
    assert plan(Config.from_json(config.to_json())) == plan(config)
    for phases, says in ((((101, (1,) * 13),), "not a pair's first game"),
                         (((100, (1,) * 13), (100, (1,) * 13)), "not a pair's first game"),
                         (((0, (1,) * 13), (0, (1,) * 13)), "not a pair's first game"),
                         (((100, (1,) * 12),), "do not weigh the 13 pairings"),
                         (((100, (0,) * 13),), "do not weigh the 13 pairings"),
                         (((100, (1, -1) + (1,) * 11),), "do not weigh")):
        with pytest.raises(ValueError, match=says):
            check_phases(phases, 13)
        with pytest.raises(ValueError, match=says):
            plan(ladder_config(400, phases=phases))


# the design ----------------------------------------------------------------------------------

def test_the_design_reaches_its_target_in_less_time_than_the_round_robin():
    """After a round robin of 30 pairs a pairing, the design says how many more games
    bring every level within +-60 and where they go. Played (simulated), they nearly do
    (the 30 pairs tell each pairing's scores only roughly; a calibration weighs its
    pairings again as its games grow); the round robin, given the same time, stays
    wider by more than 10% (some 16-23% on these eight levels: the gain grows with the
    levels and with how much longer the top games take)."""
    start = 2 * 13 * 30
    played = simulated(plan(ladder_config(start)), seed=1)
    names = [f"L{i}" for i in range(len(TRUE))]
    found = allocation.design(names, pairings(ladder_config(start)), played, 60.0)
    assert found is not None and found.games > 0
    assert found.widest > 60 and found.widest == pytest.approx(widest_margin(played), rel=0.15)
    weighted = simulated(plan(ladder_config(start + found.games,
                                            phases=((start, found.weights),))), seed=1)
    assert weighted[:start] == played
    spent = sum(game.wall for game in weighted[start:])
    round_robin = plan(ladder_config(start + 4 * found.games))
    more = start
    while sum(seconds_of(slot.first, slot.second) for slot in round_robin[start:more]) < spent:
        more += 2
    even = simulated(round_robin[:more], seed=1)
    assert widest_margin(weighted) < 60 * 1.15
    assert widest_margin(even) > 1.1 * widest_margin(weighted)


def test_a_pairing_whose_games_take_longer_gets_fewer_of_them():
    start = 2 * 13 * 30
    played = simulated(plan(ladder_config(start)), seed=2)
    names = [f"L{i}" for i in range(len(TRUE))]
    config = ladder_config(start)
    found = allocation.design(names, pairings(config), played, 60.0)
    top = pairings(config).index(("L4", "L5"))
    slower = [replace(game, wall=game.wall * 10) if {game.first, game.second} == {"L4", "L5"}
              else game for game in played]
    slowed = allocation.design(names, pairings(config), slower, 60.0)
    assert found is not None and slowed is not None
    share = found.weights[top] / sum(found.weights)
    assert slowed.weights[top] / sum(slowed.weights) < share
    untimed = [replace(game, wall=0.0) for game in played]  # carried from a file: no times
    assert allocation.design(names, pairings(config), untimed, 60.0) is not None


def test_no_design_until_every_pairing_has_its_fewest_pairs():
    names = [f"L{i}" for i in range(len(TRUE))]
    config = ladder_config(0)
    short = simulated(plan(ladder_config(2 * 13 * (allocation.FEWEST_PAIRS - 1))), seed=3)
    assert allocation.design(names, pairings(config), short, 60.0) is None
    enough = simulated(plan(ladder_config(2 * 13 * allocation.FEWEST_PAIRS)), seed=3)
    assert allocation.design(names, pairings(config), enough, 60.0) is not None
    unlinked = [pairing for pairing in pairings(config) if "L7" not in pairing]
    assert allocation.design(names, unlinked, enough, 60.0) is None


# a real calibration --------------------------------------------------------------------------

LEVELS = ("aviary:random", "aviary:engine?nodes=5&time=30&random=0.7",
          "aviary:engine?nodes=5&time=30")


def calibrate(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "aviary", "ladder", "calibrate", "--game",
                           "pikachu", "--option", "n=7", "--max-plies", "80", "--target", "1",
                           *args], capture_output=True, text=True, timeout=600)


def test_a_calibration_goes_on_in_a_weighted_phase_and_from_its_file_in_a_new_database(
        tmp_path):
    """Three levels, three pairings: at 200 games each has its 20 pairs, so the
    calibration weighs them and goes on in a phase from the pair after the highest game
    stored (game 201; later where, with two jobs, games after an unfinished one were
    stored first: the games in flight when it stopped to weigh are played after); the file
    keeps the phase, and a new database going on from the file puts every game back in
    its slot."""
    out, db = tmp_path / "ladder.json", tmp_path / "calibration.sqlite"
    done = calibrate("--file", str(out), "--db", str(db), "--levels", *LEVELS,
                     "--max-games", "260", "--jobs", "2")
    assert done.returncode == 0, done.stderr
    with Store(db, read_only=True) as store:
        config = store.config()
        games = store.games()
    ((start, weights),) = config.phases
    assert 200 <= start < 240 and start % 2 == 0, start
    assert len(weights) == 3 and sum(weights) > 0
    assert f"from game {start + 1} on, pairs go where they narrow the widest interval most" in (
        " ".join(done.stdout.split()))
    assert [game.id for game in games] == list(range(1, 261))  # none lost, none twice
    slots = plan(config)
    assert all((game.first, game.second, game.round) == (slots[game.id - 1].first,
               slots[game.id - 1].second, slots[game.id - 1].round) for game in games)
    dealt = Counter(tuple(sorted((game.first, game.second))) for game in games[start:])
    for pairing, weight in zip(pairings(config), weights, strict=True):
        assert weight or not dealt[pairing], (pairing, weights, dealt)
    heaviest = pairings(config)[weights.index(max(weights))]
    assert dealt.most_common(1)[0][0] == heaviest, (weights, dealt)
    written = json.loads(out.read_text())
    assert written["calibration"]["phases"] == [[start, list(weights)]]
    before = ladder.Ladder.from_json(out.read_text())
    again = calibrate("--file", str(out), "--db", str(tmp_path / "new.sqlite"),
                      "--max-games", "260", "--jobs", "1")
    assert again.returncode == 0, again.stderr
    refit = ladder.Ladder.from_json(out.read_text())
    assert refit.results == before.results and refit.levels == before.levels
    with sqlite3.connect(tmp_path / "new.sqlite") as carried:
        assert json.loads(carried.execute("SELECT value FROM meta WHERE key = 'config'")
                          .fetchone()[0])["phases"][0] == [start, list(weights)]


def test_a_ladder_file_with_malformed_phases_is_one_line(tmp_path):
    out, db = tmp_path / "ladder.json", tmp_path / "calibration.sqlite"
    done = calibrate("--file", str(out), "--db", str(db), "--levels", *LEVELS[:2],
                     "--max-games", "8", "--jobs", "1")
    assert done.returncode == 0, done.stderr
    written = json.loads(out.read_text())
    written["calibration"]["phases"] = [[3, [1, 1]]]  # an odd start, too few weights
    out.write_text(json.dumps(written))
    again = calibrate("--file", str(out), "--db", str(tmp_path / "new.sqlite"),
                      "--max-games", "10", "--jobs", "1")
    assert again.returncode == 2
    assert again.stderr.count("\n") == 1 and "phases" in again.stderr, again.stderr
    assert Path(out).read_text() == json.dumps(written)  # nothing lost
