"""`aviary grade` and `aviary ladder`: placing players on a fixed scale, for real.

The statistics are checked against players of known strength (simulated games with a
seeded generator); the commands run as subprocesses on real SQLite files, with real
in-process engines and, in the sandbox, a real program.
"""

from __future__ import annotations

import csv
import json
import math
import random
import signal
import sqlite3
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from aviary.arena import grade, isolation, ladder
from aviary.arena.games import make_game
from aviary.arena.players import PlayerSpec
from aviary.arena.ratings import (
    Placement,
    anchored_fits,
    anchored_ratings,
    elo_from_score,
    even_chance_elo,
    pair_kinds,
    place,
    resampled_counts,
    score_from_elo,
)
from aviary.arena.referee import DRAW_BY_PLY_LIMIT
from aviary.arena.schedule import Config, pairings, plan
from aviary.arena.store import Store

try:
    isolation.check_available()
    SANDBOX = ""
except isolation.SandboxUnavailable as error:
    SANDBOX = str(error)

PIKACHU = ("--game", "pikachu", "--option", "n=8")


def aviary(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "aviary", *args], capture_output=True,
                          text=True, timeout=timeout)


# the statistics ------------------------------------------------------------------------------

def test_one_opponent_placement_is_the_elo_of_the_score_with_a_two_sided_interval():
    games = [(300.0, 1.0)] * 30 + [(300.0, 0.0)] * 10
    placement = place(games)
    assert placement.elo == pytest.approx(300 + elo_from_score(0.75), abs=0.5)
    assert placement.low < placement.elo < placement.high
    wider = place(games[::4])  # fewer games of the same score: a wider interval
    assert wider.margin > placement.margin


def test_a_player_who_won_every_game_has_only_a_lower_bound_and_it_rises_with_more_wins():
    few, many = place([(500.0, 1.0)] * 4), place([(500.0, 1.0)] * 16)
    assert few.elo is None and few.high is None and many.high is None
    assert 500 < few.low < many.low
    lost = place([(0.0, 0.0)] * 6)
    assert lost.elo is None and lost.low is None and lost.high < 0
    assert str(few).startswith("above ") and str(lost).startswith("below ")


def test_a_player_who_lost_every_game_ranks_where_that_result_is_even_not_at_its_bound():
    # two games lost to a level: the one-sided 95% bound lies above the level, so ranked
    # by it this player stood above one who scored 1 of 2 against the same level
    level = 1426.0
    lost, won = [(level, 0.0)] * 2, [(level, 1.0)] * 2
    even = even_chance_elo(lost)
    assert even is not None and place(lost).high > level > even
    losing = 1 / (1 + 10 ** ((even - level) / 400))  # the level's chance in one game
    assert losing ** 2 == pytest.approx(0.5)
    assert even_chance_elo(won) == pytest.approx(2 * level - even)  # the mirror image
    assert even_chance_elo([(level, 1.0), (level, 0.0)]) is None and even_chance_elo([]) is None
    scored = grade.Grade("scored", "", level, level - 500, level + 500, None, 2)
    forfeited = grade.Grade("forfeited", "", None, None, place(lost).high, None, 2,
                            even_chance=even)
    assert sorted([forfeited, scored], key=lambda g: -g.sort_key) == [scored, forfeited]


def test_a_placement_reads_the_same_in_every_table():
    """The grade table, the leaderboard and a placement's text share one form."""
    middle = Placement(1234.4, 1100.0, 1380.2)
    assert (middle.elo_text(), middle.interval_text()) == ("+1234", "+1100 .. +1380")
    assert str(middle) == "+1234 [+1100, +1380]"
    won = Placement(None, 2900.0, None)
    assert (won.elo_text(), won.interval_text(), str(won)) == ("> +2900", "above +2900",
                                                               "above +2900")
    lost = Placement(None, None, -150.0)
    assert (lost.elo_text(), lost.interval_text()) == ("< -150", "below -150")
    nothing = Placement(None, None, None)
    assert (nothing.elo_text(), nothing.interval_text(), str(nothing)) == ("no games", "",
                                                                           "no games")


def simulated_pairs(true: dict[str, float], reach: int, per_pairing: int, seed: int
                    ) -> list[list[tuple[str, str, float]]]:
    rng = random.Random(seed)
    names = list(true)
    pairs = []
    for i, a in enumerate(names):
        for b in names[i + 1:i + 1 + reach]:
            expected = score_from_elo(true[b] - true[a])
            for _ in range(per_pairing):
                pairs.append([(b, a, float(rng.random() < expected)),
                              (a, b, float(rng.random() > expected))])
    return pairs


def test_simulated_grades_hold_the_true_elo_and_a_second_one_lands_inside_less_often():
    """The staircase's intervals against model players of known Elo on the Pikachu
    ladder, at the grade bar's budget of 12 games: about 95% of them hold the player's
    Elo; a second grade's Elo lands inside the first one's interval less often (about
    83%: each of the two estimates carries its own error), as a rerun check must expect."""
    shown = ladder.available("pikachu")[0]
    rng = random.Random(7)
    covered = inside = placed = 0
    for true in (300.0, 1200.0, 2200.0):
        for _ in range(100):
            first, second = (grade.simulate(shown, true, rng, budget=12) for _ in range(2))
            if None in (first.elo, first.low, first.high, second.elo):
                continue  # won or lost every game: a bound, not an interval
            assert first.low is not None and first.high is not None and second.elo is not None
            placed += 1
            covered += first.low <= true <= first.high
            inside += first.low <= second.elo <= first.high
    assert placed >= 290
    assert 0.91 <= covered / placed <= 0.99
    assert 0.75 <= inside / placed <= 0.91


def test_a_staircase_starts_in_the_middle_jumps_while_it_wins_and_then_follows_the_elo():
    order = ["L0", "L1", "L2", "L3", "L4"]
    elo = {"L0": 0.0, "L1": 200.0, "L2": 400.0, "L3": 600.0, "L4": 800.0}
    assert grade.choose_level(order, elo, []) == "L2"
    assert grade.choose_level(order, elo, [("L2", 1.0), ("L2", 1.0)]) == "L4"
    assert grade.choose_level(order, elo, [("L2", 0.0), ("L2", 0.0)]) == "L0"
    assert grade.choose_level(order, elo, [("L2", 1.0), ("L2", 0.0)]) == "L2"
    # 7 of 8 against L1 and 1 of 2 against L3 place it near L3 (about 560)
    assert grade.choose_level(order, elo, [("L1", 1.0)] * 7 + [("L1", 0.0), ("L3", 1.0),
                                                               ("L3", 0.0)]) == "L3"
    assert not grade.settled(order, elo, [("L4", 1.0)] * 6)
    assert grade.settled(order, elo, [("L4", 1.0)] * grade.OFF_SCALE)  # above the ladder
    assert grade.settled(order, elo, [("L2", 1.0), ("L2", 0.0)] * 200, target=75)


def test_an_anchored_fit_recovers_known_strengths_with_intervals_of_the_right_size():
    true = {"r": 0.0, "a": 180.0, "b": 330.0, "c": 520.0, "d": 700.0}
    ratings = anchored_ratings(list(true), simulated_pairs(true, 2, 150, seed=3), "r",
                               resamples=120)
    assert ratings["r"].elo == 0 and ratings["r"].margin == 0
    for name, elo in true.items():  # within two margins: about four standard errors
        assert abs(ratings[name].elo - elo) <= 2 * ratings[name].margin + 1e-9, name
    # 300 games a step at scores of 0.6-0.75: the first step's margin is some 35-60 Elo
    assert 25 < ratings["a"].margin < 80
    # intervals against the anchor widen up the ladder: each carries the steps below it
    assert ratings["a"].margin < ratings["d"].margin


def game_by_game_fit(size: int, a: np.ndarray, b: np.ndarray, s: np.ndarray, anchor: int,
                     prior_sd: float = 2000.0) -> np.ndarray:
    """The reference the batched fit is held to: Bradley-Terry maximum likelihood, one
    row a game (`a[k]` against `b[k]`, `a[k]` scored `s[k]`), player `anchor` held at 0
    and the same weak prior on the others; plain Newton steps."""
    k = math.log(10) / 400
    free = [i for i in range(size) if i != anchor]
    ratings = np.zeros(size)
    for _ in range(100):
        p = 1 / (1 + np.exp(-k * (ratings[a] - ratings[b])))
        g = k * (s - p)
        gradient = -ratings / prior_sd**2 + np.bincount(a, g, size) - np.bincount(b, g, size)
        h = k**2 * p * (1 - p)
        hessian = -np.eye(size) / prior_sd**2
        np.add.at(hessian, (a, a), -h)
        np.add.at(hessian, (b, b), -h)
        np.add.at(hessian, (a, b), h)
        np.add.at(hessian, (b, a), h)
        step = np.linalg.solve(hessian[np.ix_(free, free)], gradient[free])
        ratings[free] -= step
        if np.max(np.abs(step)) < 1e-6:
            break
    return ratings


def test_an_anchored_fit_and_its_resamples_are_the_fits_of_their_games_one_by_one():
    """The fit counts pairs into kinds and games into pairings; it must give what a fit
    game by game gives, for the whole set and for each resample (the pairs it drew)."""
    names = ["r", "a", "b", "c"]
    pairs: list[list[tuple[str, str, float]]] = simulated_pairs(
        {"r": 0.0, "a": 150.0, "b": 260.0, "c": 500.0}, 2, 12, seed=5)
    pairs[3] = pairs[3][:1]  # a pair whose second game is missing
    pairs.append([("a", "r", 0.5), ("r", "a", 0.5)])
    index = {name: i for i, name in enumerate(names)}

    def game_by_game(chosen: list[list[tuple[str, str, float]]]) -> np.ndarray:
        games = [game for pair in chosen for game in pair]
        return game_by_game_fit(len(names), np.array([index[a] for a, _, _ in games]),
                                np.array([index[b] for _, b, _ in games]),
                                np.array([s for _, _, s in games]), 0)

    kinds = pair_kinds(index, pairs)
    keys = [tuple(sorted(pair)) for pair in pairs]  # a kind: the same games and results
    assert sorted(kinds.count) == sorted(keys.count(key) for key in set(keys))
    assert all(keys.count(keys[k]) == n for k, n in zip(kinds.example, kinds.count,
                                                         strict=True))
    centre, draws = anchored_fits(names, pairs, "r", resamples=5, seed=9)
    np.testing.assert_allclose(centre, game_by_game(pairs), atol=1e-6)
    counts = resampled_counts(kinds, 5, np.random.default_rng(9))  # as the fit drew them
    sizes = {}
    for pair in pairs:
        pairing = tuple(sorted(pair[0][:2]))
        sizes[pairing] = sizes.get(pairing, 0) + 1
    for draw, drawn in zip(draws, counts, strict=True):
        chosen = [pairs[k] for k, n in zip(kinds.example, drawn, strict=True) for _ in range(n)]
        drew = {}  # each pairing draws as many pairs as it has
        for pair in chosen:
            pairing = tuple(sorted(pair[0][:2]))
            drew[pairing] = drew.get(pairing, 0) + 1
        assert drew == sizes
        np.testing.assert_allclose(draw, game_by_game(chosen), atol=1e-6)
    assert len({tuple(np.round(draw, 3)) for draw in draws}) == 5  # resamples differ


def test_resampling_kinds_spreads_ratings_as_resampling_pairs_one_by_one_does():
    """Drawing counts of kinds is drawing pairs with replacement within each pairing: the
    spread of 3,000 resamples matches that of 3,000 drawn pair by pair (within 10%, some
    four standard errors of either)."""
    true = {"r": 0.0, "a": 200.0, "b": 380.0, "c": 600.0}
    names = list(true)
    pairs = simulated_pairs(true, 2, 40, seed=11)
    index = {name: i for i, name in enumerate(names)}
    _, draws = anchored_fits(names, pairs, "r", resamples=3000, seed=4)
    groups: dict[tuple[str, ...], list[list[tuple[str, str, float]]]] = {}
    for pair in pairs:
        groups.setdefault(tuple(sorted(pair[0][:2])), []).append(pair)
    rng = np.random.default_rng(5)
    one_by_one = []
    for _ in range(3000):
        games = [game for group in groups.values()
                 for k in rng.integers(0, len(group), len(group)) for game in group[k]]
        one_by_one.append(game_by_game_fit(
            len(names), np.array([index[a] for a, _, _ in games]),
            np.array([index[b] for _, b, _ in games]), np.array([s for _, _, s in games]), 0))
    spread, expected = draws.std(axis=0)[1:], np.array(one_by_one).std(axis=0)[1:]
    assert np.all(np.abs(spread / expected - 1) < 0.1), (spread, expected)


def test_levels_are_chosen_at_even_steps_of_a_probes_curve_made_monotone():
    specs = ladder.level_specs(ladder.PROBE_SHARES)
    elos = [0, 80, 150, 320, 300, 600, 800, 1000, 1200, 1400, 1550, 1700, 1800, 1900, 2000,
            2100]
    levels = [ladder.Level(f"L{i}", spec, elo)
              for i, (spec, elo) in enumerate(zip(specs, elos, strict=True))]
    probe = ladder.Ladder("pikachu", {"n": 8}, tuple(levels))
    shares = ladder.choose_shares(probe)
    assert len(shares) + 2 == 12  # 2,100 Elo in steps of at most 200
    assert shares == sorted(shares, reverse=True) and 0 < shares[-1] < shares[0] < 1
    # read back through the curve, the chosen levels stand at even steps
    curve = sorted(((ladder.share_of(s), e) for s, e in zip(specs, elos, strict=True)),
                   reverse=True)
    rising = ladder._rising([e for _, e in curve])
    placed = [float(np.interp(-share, [-s for s, _ in curve], rising)) for share in shares]
    steps = np.diff([0, *placed, 2100])
    assert steps.max() - steps.min() < 25


def test_a_span_twelve_levels_cannot_cover_in_steps_of_at_most_200_gets_more_levels():
    """Pikachu's engine stands about 3,300 Elo above the random mover: twelve levels would
    be 300 apart, past the 250 a step may be, so the choice takes as many as it needs."""
    elos = [0, 500, 1300, 2000, 2600, 2950, 3320]
    shares = ladder.choose_shares(five_share_curve(elos))
    assert len(shares) + 2 == 18  # 17 steps of 195 Elo
    placed = np.interp([-share for share in shares],
                       [-ladder.share_of(s) for s in ladder.level_specs(FIVE_SHARES)], elos)
    assert np.diff([0, *placed, 3320]).max() <= ladder.STEP + 1
    narrow = five_share_curve([elo * 0.65 for elo in elos])
    assert len(ladder.choose_shares(narrow)) + 2 == 12  # 2,158 Elo: 12 levels do
    small = five_share_curve([elo * 0.3 for elo in elos])
    assert len(ladder.choose_shares(small)) + 2 == ladder.FEWEST  # 996 Elo: never fewer


FIVE_SHARES = (0.9, 0.6, 0.3, 0.1, 0.03)


def five_share_curve(elos: list[float]) -> ladder.Ladder:
    """A fitted Pikachu ladder of the random mover, `FIVE_SHARES` and the engine."""
    specs = ladder.level_specs(FIVE_SHARES)
    return ladder.Ladder("pikachu", {"n": 8}, tuple(
        ladder.Level(f"L{i}", spec, elo)
        for i, (spec, elo) in enumerate(zip(specs, elos, strict=True))), {"games": 100})


def test_ladder_mode_pairs_each_level_with_the_two_on_either_side():
    players = [PlayerSpec(f"L{i}", "aviary:random") for i in range(5)]
    config = Config(game="pikachu", players=players, seconds=1, games=100, mode="ladder")
    assert pairings(config) == [("L0", "L1"), ("L0", "L2"), ("L1", "L2"), ("L1", "L3"),
                                ("L2", "L3"), ("L2", "L4"), ("L3", "L4")]
    assert plan(Config(game="pikachu", players=players, seconds=1, games=9, mode="grade")) == []


def test_a_level_spec_dilutes_the_engine_with_random_moves_and_refuses_bad_shares():
    from aviary.arena.players import build_engine
    from aviary.errors import UsageError
    game = make_game("pikachu", {"n": "8"})
    always_random = build_engine("aviary:engine?nodes=50&random=1&seed=4", game)
    state = game.start()
    answers = {always_random(state, 1.0, ()) for _ in range(40)}
    assert len(answers) > 3 and answers <= set(game.answers(state))
    for bad in ("random=1.5", "random=x", "random=-0.1", "seed=3"):
        with pytest.raises(UsageError):
            build_engine(f"aviary:engine?nodes=50&{bad}", game)


# the commands --------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def calibrated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A three-level Pikachu ladder calibrated for real (a handful of games)."""
    folder = tmp_path_factory.mktemp("ladder")
    out, db = folder / "ladder.json", folder / "calibration.sqlite"
    done = aviary("ladder", "calibrate", *PIKACHU, "--file", str(out), "--db", str(db),
                  "--levels", "aviary:random", "aviary:engine?nodes=30&time=30&random=0.6",
                  "aviary:engine?nodes=30&time=30", "--max-games", "12", "--jobs", "2",
                  "--max-plies", "80")
    assert done.returncode == 0, done.stderr
    return out


def test_calibrate_writes_a_ladder_that_show_prints_and_the_same_command_goes_on(tmp_path,
                                                                                  calibrated):
    out = tmp_path / "ladder.json"
    out.write_text(calibrated.read_text())
    (tmp_path / "calibration.sqlite").write_bytes(
        (calibrated.parent / "calibration.sqlite").read_bytes())
    written = ladder.Ladder.from_json(out.read_text())
    assert [level.name for level in written.levels] == ["L0", "L1", "L2"]
    assert written.levels[0].elo == 0 and written.calibration["games"] == 12
    assert written.calibration["commit"] and written.calibration["machine"]
    assert all(level.low <= level.elo <= level.high for level in written.levels)
    shown = aviary("ladder", "show", *PIKACHU, "--file", str(out))
    assert shown.returncode == 0 and "L2" in shown.stdout and "random mover" in shown.stdout
    more = ladder.games_to_target(written, 30)
    assert more > 0 and (f"(about {more:,} more games: `aviary ladder calibrate` goes on)"
                         in " ".join(shown.stdout.split()))
    plain = " ".join(shown.stdout.split())
    assert (f"intervals: the 2.5% and 97.5% points of {ladder.RESAMPLES:,} resamples of the "
            "colour-swapped pairs" in plain) and "a calibration now draws" not in plain
    fewer = tmp_path / "fewer.json"  # a file fitted from fewer resamples, as before
    for results, then in ((written.results, "going on from this file's games fits them so"),
                          ({}, "this file keeps no results, so only a new calibration can")):
        fewer.write_text(replace(written, results=results, calibration={
            **written.calibration, "resamples": 300}).to_json())
        told = " ".join(aviary("ladder", "show", *PIKACHU, "--file", str(fewer)).stdout.split())
        assert (f"points of 300 resamples of the colour-swapped pairs; a calibration now draws "
                f"{ladder.RESAMPLES:,}, whose points move less from draw to draw: ") in told
        assert then in told
    again = aviary("ladder", "calibrate", *PIKACHU, "--file", str(out), "--db",
                   str(tmp_path / "calibration.sqlite"), "--max-games", "14", "--jobs", "1")
    assert again.returncode == 0, again.stderr
    assert ladder.Ladder.from_json(out.read_text()).calibration["games"] == 14
    counted = [line.split("]")[0] for line in again.stdout.splitlines() if line.startswith("[")]
    assert counted == ["[13/14", "[14/14"]  # counted on from the games already stored
    assert "a game is a draw after" not in again.stdout  # the database keeps its own limit
    other = aviary("ladder", "calibrate", *PIKACHU, "--file", str(out), "--db",
                   str(tmp_path / "calibration.sqlite"), "--levels", "aviary:random",
                   "aviary:engine?nodes=5")
    assert other.returncode == 2 and "other levels" in other.stderr


def test_a_calibration_goes_on_from_its_ladder_file_when_its_database_is_gone(tmp_path,
                                                                               calibrated):
    """The file keeps every game's result: a new database starts from them (another
    machine, the old database lost), and refitting them gives the file's own numbers."""
    out = tmp_path / "ladder.json"
    out.write_text(calibrated.read_text())
    before = ladder.Ladder.from_json(out.read_text())
    (code, results), = before.results.items()
    assert code == before.calibration["code"][0] and len(results) == 12
    assert set(results) <= set("10=p") and results.count("p") == before.calibration[
        "ply_limit_draws"]
    again = aviary("ladder", "calibrate", *PIKACHU, "--file", str(out), "--db",
                   str(tmp_path / "new.sqlite"), "--max-games", "12", "--jobs", "1")
    assert again.returncode == 0, again.stderr
    assert f"going on from the 12 games in {out}" in " ".join(again.stdout.split())
    refit = ladder.Ladder.from_json(out.read_text())
    assert refit.levels == before.levels and refit.results == before.results
    assert refit.calibration["started"] == before.calibration["started"]
    assert refit.calibration["earlier"][0]["games"] == 12
    more = aviary("ladder", "calibrate", *PIKACHU, "--file", str(out), "--db",
                  str(tmp_path / "more.sqlite"), "--max-games", "16", "--jobs", "1")
    assert more.returncode == 0, more.stderr
    grown = ladder.Ladder.from_json(out.read_text())
    assert grown.calibration["games"] == 16 and grown.calibration["max_plies"] == 80
    (grown_results,) = grown.results.values()
    assert grown_results[:12] == results and set(grown_results[12:]) <= set("10=p")
    with Store(tmp_path / "more.sqlite", read_only=True) as store:
        rows = store.games()
        assert [row.reason for row in rows[:12]] == [
            DRAW_BY_PLY_LIMIT if char == "p" else "carried" for char in results]
        assert all(row.reason != "carried" for row in rows[12:])
        assert rows[0].opening == rows[1].opening  # a pair's shared opening, as planned


def test_a_calibration_of_other_levels_does_not_go_on_from_the_ladder_file(tmp_path,
                                                                           calibrated):
    out = tmp_path / "ladder.json"
    out.write_text(calibrated.read_text())
    other = aviary("ladder", "calibrate", *PIKACHU, "--file", str(out), "--db",
                   str(tmp_path / "new.sqlite"), "--levels", "aviary:random",
                   "aviary:engine?nodes=5&time=30", "--max-games", "2", "--jobs", "1")
    assert other.returncode == 0, other.stderr
    assert "holds other levels; a new calibration replaces it" in other.stdout
    assert ladder.Ladder.from_json(out.read_text()).calibration["games"] == 2
    # no --max-plies: the file's limit, said (the default of 300 cut Pikachu's top games)
    assert f"a game is a draw after 80 plies (as in {out};" in " ".join(other.stdout.split())
    with Store(tmp_path / "new.sqlite", read_only=True) as store:
        assert store.config().max_plies == 80


def test_a_level_replaced_plays_its_games_again_and_the_others_games_go_on(tmp_path,
                                                                           calibrated):
    """A step that came out too wide is mended by replacing one level: the games between
    the levels kept are carried, only the replaced level's are played again."""
    out = tmp_path / "ladder.json"
    out.write_text(calibrated.read_text())
    before = ladder.Ladder.from_json(out.read_text())
    specs = [level.spec for level in before.levels]
    specs[1] = "aviary:engine?nodes=30&time=30&random=0.7"
    done = aviary("ladder", "calibrate", *PIKACHU, "--file", str(out), "--db",
                  str(tmp_path / "new.sqlite"), "--levels", *specs, "--max-games", "12",
                  "--jobs", "2")
    assert done.returncode == 0, done.stderr
    said = " ".join(done.stdout.split())
    assert f"going on from the 4 games in {out}" in said  # L0-L2: 4 of the 12
    assert "L1 changed, so their games in" in said
    after = ladder.Ladder.from_json(out.read_text())
    assert after.calibration["earlier"][0]["games"] == 4  # the games it went on from
    assert [level.spec for level in after.levels] == specs
    (old,), (new,) = before.results.values(), after.results.values()
    slots = plan(ladder.calibration_config(make_game("pikachu", {"n": "8"}), specs, 12))
    kept = [i for i, slot in enumerate(slots) if "L1" not in (slot.first, slot.second)]
    assert len(kept) == 4 and all(new[i] == old[i] for i in kept)
    with Store(tmp_path / "new.sqlite", read_only=True) as store:
        rows = {row.id - 1: row for row in store.games()}
    assert sorted(rows) == list(range(12))
    assert all(rows[i].detail.startswith("carried from") == (i in kept) for i in range(12))
    assert all(rows[i].plies > 0 for i in range(12) if i not in kept)  # played here


def test_a_new_configurations_ply_limit_is_the_longest_of_the_games_packaged_ladders(
        tmp_path):
    packaged = max(found.calibration["max_plies"] for found in ladder.available("pikachu"))
    assert packaged > ladder.MAX_PLIES  # else this test says nothing
    done = aviary("ladder", "calibrate", "--game", "pikachu", "--option", "n=10", "--file",
                  str(tmp_path / "n10.json"), "--db", str(tmp_path / "n10.sqlite"), "--levels",
                  "aviary:random", "aviary:engine?nodes=5&time=30", "--max-games", "2",
                  "--jobs", "1")
    assert done.returncode == 0, done.stderr
    assert f"a game is a draw after {packaged:,} plies (as in its ladder of n=8;" \
        in " ".join(done.stdout.split())
    with Store(tmp_path / "n10.sqlite", read_only=True) as store:
        assert store.config().max_plies == packaged
    given = aviary("ladder", "calibrate", "--game", "pikachu", "--option", "n=10", "--file",
                   str(tmp_path / "n10b.json"), "--db", str(tmp_path / "n10b.sqlite"),
                   "--levels", "aviary:random", "aviary:engine?nodes=5&time=30",
                   "--max-games", "2", "--jobs", "1", "--max-plies", "700")
    assert given.returncode == 0 and "a game is a draw after" not in given.stdout
    with Store(tmp_path / "n10b.sqlite", read_only=True) as store:
        assert store.config().max_plies == 700


def test_levels_from_a_ladder_file_are_placed_at_even_steps_of_its_curve(tmp_path):
    """`--levels-from`: a first calibration whose steps came out uneven (or a probe) gives
    the levels of the next, with no probe played."""
    first = five_share_curve([0, 250, 420, 500, 800, 1000, 1300])
    curve = tmp_path / "first.json"
    ladder.write(first, curve)
    db = tmp_path / "next.sqlite"
    done = aviary("ladder", "calibrate", *PIKACHU, "--levels-from", str(curve), "--db",
                  str(db), "--file", str(tmp_path / "next.json"), "--max-games", "2",
                  "--jobs", "1", "--max-plies", "1000")
    assert done.returncode == 0, done.stderr
    assert "probing" not in done.stdout
    chosen = ladder.level_specs(ladder.choose_shares(first))
    assert len(chosen) == ladder.FEWEST and f"{len(chosen)} levels, at random-move shares" \
        in done.stdout
    with Store(db, read_only=True) as store:
        assert [player.spec for player in store.config().players] == chosen
    ladder.write(five_share_curve([0, 100, 200, 300, 400, 500, 600]), curve)  # other levels
    again = aviary("ladder", "calibrate", *PIKACHU, "--levels-from", str(curve), "--db",
                   str(db), "--file", str(tmp_path / "next.json"), "--max-games", "4",
                   "--jobs", "1")
    assert again.returncode == 0, again.stderr  # the same command goes on with its levels
    with Store(db, read_only=True) as store:
        assert [player.spec for player in store.config().players] == chosen
        assert len(store.games()) == 4
    both = aviary("ladder", "calibrate", *PIKACHU, "--levels-from", str(curve), "--levels",
                  "aviary:random", "aviary:engine?nodes=5", "--db", str(tmp_path / "b.sqlite"))
    assert both.returncode == 2 and "not both" in both.stderr
    betsy = aviary("ladder", "calibrate", "--game", "betsy", "--levels-from", str(curve),
                   "--db", str(tmp_path / "c.sqlite"))
    assert betsy.returncode == 2 and "ladder of pikachu" in betsy.stderr
    missing = aviary("ladder", "calibrate", *PIKACHU, "--levels-from",
                     str(tmp_path / "none.json"), "--db", str(tmp_path / "d.sqlite"))
    assert missing.returncode == 2 and "no such ladder file" in missing.stderr
    bogus = aviary("ladder", "calibrate", *PIKACHU, "--levels", "aviary:random",
                   "aviary:bogus", "--db", str(tmp_path / "e.sqlite"))
    assert bogus.returncode == 2 and "unknown engine 'aviary:bogus'" in bogus.stderr
    for said in (both, betsy, missing, bogus):
        assert len(said.stderr.strip().splitlines()) == 1 and "Traceback" not in said.stderr
    assert not any((tmp_path / name).exists() for name in ("b.sqlite", "c.sqlite",
                                                           "d.sqlite", "e.sqlite"))


def test_a_ladder_file_that_does_not_say_how_its_games_were_played_cannot_go_on(tmp_path,
                                                                                calibrated):
    data = json.loads(calibrated.read_text())
    del data["calibration"]["seed"]
    out = tmp_path / "ladder.json"
    out.write_text(json.dumps(data))
    done = aviary("ladder", "calibrate", *PIKACHU, "--file", str(out), "--db",
                  str(tmp_path / "new.sqlite"))
    assert done.returncode == 2 and done.stderr.splitlines() == [
        "aviary ladder: the ladder file's calibration does not say its seed, so its games "
        "cannot go on: use another --file"]
    assert not (tmp_path / "new.sqlite").exists()


@pytest.mark.parametrize("results", [{"abc": "10x"}, {"a": "10", "b": "1"},
                                     {"a": "1.", "b": "0."}, ["10"]])
def test_a_ladder_file_with_malformed_results_is_one_line(tmp_path, calibrated, results):
    data = json.loads(calibrated.read_text())
    data["results"] = results
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    shown = aviary("ladder", "show", *PIKACHU, "--file", str(bad))
    assert shown.returncode == 2 and len(shown.stderr.splitlines()) == 1
    assert "not a ladder file" in shown.stderr


def test_a_calibration_fits_every_100_games_and_past_10000_every_1_percent_more():
    from aviary.arena.ladder_command import fit_due

    assert [done for done in range(0, 1001) if fit_due(done, 0)] == list(range(100, 1001, 100))
    last, fits = 0, []
    for done in range(9000, 30001):
        if fit_due(done, last):
            last = done
            fits.append(done)
    # 10,000 games + 1% is 10,100: the next fit is at 10,200, the first multiple of 100 past it
    assert fits[:12] == [*range(9000, 10001, 100), 10200]
    assert all(b - a >= b // 100 and b % 100 == 0 for a, b in zip(fits, fits[1:], strict=False))
    assert fits[-1] >= 29700 and len(fits) < 211 / 2  # every 100 games would fit 211 times


def test_a_fit_says_how_long_the_games_still_needed_take_at_this_sittings_pace(calibrated):
    from aviary.arena.ladder_command import _duration, fit_line
    written = ladder.Ladder.from_json(calibrated.read_text())
    more = ladder.games_to_target(written, 30)
    assert more > 0
    paced = fit_line(written, 30, per_minute=more / 150)  # 150 minutes to go
    assert paced == fit_line(written, 30) + f" (at {more / 150:,.0f} a minute, as here so " \
        "far: 2.5 hours)"
    assert fit_line(written, 30, per_minute=None) == fit_line(written, 30)
    assert [_duration(m) for m in (0.2, 40, 89, 90, 600, 2880, 4320)] == [
        "1 minute", "40 minutes", "89 minutes", "1.5 hours", "10.0 hours", "2.0 days",
        "3.0 days"]


def test_a_calibration_stops_at_its_first_fit_that_meets_the_target_and_stays_stopped(
        tmp_path):
    out, db = tmp_path / "ladder.json", tmp_path / "calibration.sqlite"
    command = ("ladder", "calibrate", *PIKACHU, "--file", str(out), "--db", str(db),
               "--levels", "aviary:random", "aviary:engine?nodes=5&time=30",
               "--max-plies", "200", "--max-games", "400", "--target", "100000", "--jobs", "2")
    done = aviary(*command)
    assert done.returncode == 0, done.stderr
    written = ladder.Ladder.from_json(out.read_text())
    assert written.calibration["games"] == 100  # the first fit, at 100 of 400 games
    assert written.calibration["resamples"] == ladder.RESAMPLES  # the stop's, not progress's
    said = [line for line in done.stdout.splitlines() if "widest interval" in line]
    step = written.levels[1].step
    assert said == [f"aviary ladder: 100 games: widest interval +-{written.levels[1].margin:.1f} "
                    f"(L1), steps {step:.0f} to {step:.0f} Elo; every level within +-100000"]
    with Store(db, read_only=True) as store:
        assert store.get("stopped") == "every level within +-100000 Elo"
    again = aviary(*command)
    assert again.returncode == 0, again.stderr
    with Store(db, read_only=True) as store:
        assert len(store.games()) == 100


def test_the_games_a_ladder_still_needs_grow_as_the_square_of_its_widest_interval():
    levels = (ladder.Level("L0", "aviary:random"),
              ladder.Level("L1", "aviary:engine", 200.0, 170.0, 230.0),
              ladder.Level("L2", "aviary:engine", 380.0, 320.0, 440.0))
    wide = ladder.Ladder("pikachu", {"n": 8}, levels, {"games": 1000})
    assert ladder.widest(wide).name == "L2"
    even = ladder.Ladder("pikachu", {"n": 8}, (
        *levels[:2], ladder.Level("L2", "aviary:engine", 400.0, 370.0, 430.0)), {"games": 10})
    assert ladder.widest(even).name == "L2"  # of equals (+-30 each), the highest
    assert ladder.games_to_target(wide, 30) == 3000  # +-60 -> +-30: four times the games
    assert ladder.games_to_target(wide, 60) == 0 and ladder.games_to_target(wide, 90) == 0


def test_a_calibration_whose_games_were_all_drawn_writes_no_ladder(tmp_path):
    """Levels that only ever draw (a game whose board locks up before anyone can win)
    would fit at 0 +- 0 each, "precise" and meaningless: the calibration says so and
    writes no file. Here every game ends at the ply limit, before anyone can win."""
    out = tmp_path / "ladder.json"
    done = aviary("ladder", "calibrate", *PIKACHU, "--file", str(out), "--db",
                  str(tmp_path / "calibration.sqlite"), "--levels", "aviary:random",
                  "aviary:engine?nodes=20&time=30", "--max-plies", "6", "--max-games", "4",
                  "--jobs", "1")
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines()[-1].endswith(
        "all 4 of its games were drawn, so its levels cannot be told apart: there is no "
        "ladder to write")
    assert not out.exists()


def test_a_ladder_whose_games_mostly_reached_the_ply_limit_says_to_raise_it(capsys):
    """Games cut off at --max-plies count as draws, which pulls levels together (IJK's
    course variant with random tiles: 246 of 252 games reached 2,000 plies)."""
    from aviary.arena.ladder_command import print_ladder

    levels = (ladder.Level("L0", "aviary:random"), ladder.Level("L1", "aviary:engine", 5.0))
    for limited, said in ((1, False), (5, True)):
        shown = ladder.Ladder("ijk", {}, levels, {"games": 10, "ply_limit_draws": limited,
                                                   "max_plies": 2000})
        print_ladder(shown, make_game("ijk", {}))
        out = " ".join(capsys.readouterr().out.split())
        assert (f"{limited} of 10 games reached the ply limit (2000)" in out) == said
        assert ("higher --max-plies" in out) == said


def test_a_pairing_whose_games_often_reached_the_ply_limit_is_named(capsys):
    """Few cut-off games in all can still be many between two levels (Pikachu's engine
    against its 1%-random level at 1,000 plies: 59 of 200), and those two look alike."""
    from aviary.arena.ladder_command import print_ladder

    game = make_game("pikachu", {"n": "8"})
    specs = ["aviary:random", "aviary:engine?nodes=5&random=0.5", "aviary:engine?nodes=5"]
    config = ladder.calibration_config(game, specs, 12)
    slots = plan(config)
    pairing = [tuple(sorted((slot.first, slot.second))) for slot in slots]
    results = "".join("p" if pair == ("L1", "L2") else "1" for pair in pairing)
    levels = tuple(ladder.Level(f"L{i}", spec, 100.0 * i) for i, spec in enumerate(specs))
    shown = ladder.Ladder("pikachu", {"n": 8}, levels,
                          {"games": 12, "ply_limit_draws": 1, "max_plies": 1000},
                          {"code": results[:-1] + "."})
    assert ladder.ply_limited(shown, game) == [("L1", "L2", 3, 3)]
    print_ladder(shown, game)
    out = " ".join(capsys.readouterr().out.split())
    assert "cut off at the ply limit (1000) and counted as draws: L1-L2 3 of 3;" in out
    assert "L0-L1" not in out and "L0-L2" not in out
    shown = ladder.Ladder("pikachu", {"n": 8}, levels, shown.calibration,
                          {"code": "1" * 12})
    print_ladder(shown, game)
    assert ladder.ply_limited(shown, game) == []
    assert "cut off" not in capsys.readouterr().out


def test_a_calibration_says_which_pairings_the_ply_limit_cuts_off_as_soon_as_it_shows(
        tmp_path):
    """Said at the first fit (100 games), not hours later by `ladder show`: the random
    mover rarely ends a game against the half-random engine within 80 plies."""
    done = aviary("ladder", "calibrate", *PIKACHU, "--file", str(tmp_path / "l.json"),
                  "--db", str(tmp_path / "c.sqlite"), "--levels", "aviary:random",
                  "aviary:engine?nodes=5&time=30&random=0.5", "aviary:engine?nodes=5&time=30",
                  "--max-plies", "80", "--max-games", "100", "--jobs", "2")
    assert done.returncode == 0, done.stderr
    said = [line for line in done.stdout.splitlines() if "so far games cut off" in line]
    assert len(said) == 1 and "at the ply limit (80)" in said[0]
    with sqlite3.connect(tmp_path / "c.sqlite") as db:
        counts = db.execute("SELECT min(first, second), max(first, second), "
                            "sum(reason = ?), count(*) FROM games GROUP BY 1, 2",
                            (DRAW_BY_PLY_LIMIT,)).fetchall()
    for low, high, cut, games in counts:
        named = f"{low}-{high} {cut} of {games}"
        assert (named in said[0]) == (cut > 0.1 * games), (named, said[0])


def test_a_probe_whose_games_were_cut_off_says_so_before_its_levels_are_chosen(tmp_path):
    done = aviary("ladder", "calibrate", *PIKACHU, "--file", str(tmp_path / "l.json"),
                  "--db", str(tmp_path / "c.sqlite"), "--probe-rounds", "1", "--max-plies",
                  "80", "--max-games", "2", "--jobs", "2")
    lines = done.stdout.splitlines()
    said = [i for i, line in enumerate(lines) if "the probe's games cut off at the ply "
            "limit (80)" in line]
    chosen = [i for i, line in enumerate(lines) if "levels, at random-move shares" in line]
    assert len(said) == 1 and chosen and said[0] < chosen[0], done.stdout
    named = lines[said[0]].split("draws: ")[1].split(";")[0].split(", ")
    assert len(named) == 5 and named[-1].endswith("more pairings")  # four, then a count


def test_a_configuration_that_cannot_have_a_ladder_says_why():
    """IJK's handout variant: its calibration games all ended in a dead board, and the
    package says so (`ladders/KEY.none`) rather than offering a calibration that would
    end the same way."""
    for command in (("ladder", "show"), ("grade", "aviary:random")):
        done = aviary(*command, "--game", "ijk", "--option", "variant=handout")
        assert done.returncode == 2
        said = done.stderr.strip().splitlines()
        assert len(said) == 1 and "ijk mode=det,variant=handout has no ladder: " in said[0]
        assert "dead board" in said[0] and "calibrate one" not in said[0]


def test_grade_places_players_in_order_writes_its_files_and_reports_who_cannot_run(
        tmp_path, calibrated):
    ladder_file = calibrated
    out = tmp_path / "grades"
    done = aviary("grade", *PIKACHU, "--ladder", str(ladder_file), "--time", "0.2",
                  "--budget", "6", "--jobs", "2", "--out", str(out), "aviary:random",
                  "strong=aviary:engine?nodes=300&time=5", "gone=/no/such/program")
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader((out / "grades.csv").open()))
    assert list(rows[0]) == ["name", "elo", "elo_low", "elo_high", "level", "games", "forfeits"]
    by_name = {row["name"]: row for row in rows}
    assert [row["name"] for row in rows][:2] == ["strong", "random"]
    assert by_name["gone"]["games"] == "0"
    assert 0 < int(by_name["strong"]["games"]) <= 6 and 0 < int(by_name["random"]["games"]) <= 6
    data = json.loads((out / "grades.json").read_text())
    problems = {player["name"]: player["problem"] for player in data["players"]}
    assert "not found" in problems["gone"] and problems["strong"] is None
    assert data["ladder"]["levels"][0]["name"] == "L0" and data["seconds"] == 0.2
    assert "gone" in done.stdout and "cannot run" in done.stdout
    assert (out / "index.html").is_file()
    # the same command again resumes: nothing is played twice, the grades stand
    before = sqlite3.connect(out / "grade.sqlite").execute("SELECT COUNT(*) FROM games").fetchone()
    again = aviary("grade", *PIKACHU, "--ladder", str(ladder_file), "--time", "0.2",
                   "--budget", "6", "--jobs", "2", "--out", str(out), "aviary:random",
                   "strong=aviary:engine?nodes=300&time=5", "gone=/no/such/program")
    assert again.returncode == 0, again.stderr
    after = sqlite3.connect(out / "grade.sqlite").execute("SELECT COUNT(*) FROM games").fetchone()
    assert before == after
    assert list(csv.DictReader((out / "grades.csv").open())) == rows
    # exported and imported, the grade keeps its own plan: no game reads as foreign
    exported, imported = tmp_path / "grade.jsonl", tmp_path / "imported.sqlite"
    assert aviary("arena", "export", str(out / "grade.sqlite"), "--out",
                  str(exported)).returncode == 0
    assert aviary("arena", "import", str(exported), "--db", str(imported)).returncode == 0
    with Store(imported, read_only=True) as store:
        assert len(store.games()) == before[0] and not store.foreign_games()
        assert store.get("ladder") == ladder_file.read_text()


def test_an_interrupted_grade_resumes_and_plays_every_planned_game_once(tmp_path, calibrated):
    ladder_file = calibrated
    out = tmp_path / "grades"
    command = [sys.executable, "-m", "aviary", "grade", *PIKACHU, "--ladder", str(ladder_file),
               "--time", "0.2", "--budget", "6", "--jobs", "2", "--out", str(out),
               "a=aviary:engine?nodes=100&time=5", "b=aviary:engine?nodes=20&time=5&random=0.3"]
    running = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    db = out / "grade.sqlite"
    while time.monotonic() < deadline:  # stop it once some games are stored, not all
        time.sleep(0.2)
        if db.exists():
            try:
                stored = sqlite3.connect(db).execute("SELECT COUNT(*) FROM games").fetchone()[0]
            except sqlite3.Error:
                continue
            if stored >= 2:
                break
    running.send_signal(signal.SIGINT)
    _, err = running.communicate(timeout=60)
    if running.returncode == 0:
        pytest.skip("the grade finished before it could be interrupted")
    assert running.returncode == 128 + signal.SIGINT and "the same command goes on" in err
    finished = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert finished.returncode == 0, finished.stderr
    database = sqlite3.connect(db)
    planned = {row[0] for row in database.execute("SELECT id FROM slots")}
    played = [row[0] for row in database.execute("SELECT id FROM games")]
    assert sorted(played) == sorted(planned) and len(played) == len(set(played))
    for name in ("a", "b"):
        count = database.execute("SELECT COUNT(*) FROM games WHERE first = ? OR second = ?",
                                 (name, name)).fetchone()[0]
        assert 2 <= count <= 6


@pytest.mark.skipif(bool(SANDBOX), reason=f"no sandbox here: {SANDBOX}")
def test_grade_runs_programs_in_the_sandbox_and_counts_their_forfeits_by_reason(
        tmp_path, calibrated):
    ladder_file = calibrated
    crasher = tmp_path / "crasher" / "player.py"
    crasher.parent.mkdir()
    crasher.write_text(f"#!{sys.executable}\nraise SystemExit('no move today')\n")
    crasher.chmod(0o755)
    out = tmp_path / "grades"
    done = aviary("grade", *PIKACHU, "--ladder", str(ladder_file), "--time", "0.5",
                  "--budget", "6", "--jobs", "2", "--out", str(out), f"crash={crasher}")
    assert done.returncode == 0, done.stderr
    data = json.loads((out / "grades.json").read_text())
    crash = data["players"][0]
    assert crash["games"] == 6 and crash["forfeits"] == {"crash": 6}
    assert crash["elo"] is None and crash["high"] is not None  # below the ladder
    assert "bubblewrap" in data["sandbox"]


@pytest.mark.parametrize(("args", "says"), [
    ((), "no player to grade"),
    (("--budget", "1", "aviary:random"), "--budget"),
    (("--time", "0", "aviary:random"), "--time"),
    (("L1=aviary:random",), "name of a ladder level"),
    (("--ladder", "/no/such/ladder.json", "aviary:random"), "--ladder"),
])
def test_bad_grade_input_is_one_line_and_exit_2(tmp_path, args, says):
    done = aviary("grade", *PIKACHU, "--out", str(tmp_path / "g"), *args)
    assert done.returncode == 2 and says in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


def test_submissions_from_a_glob_are_named_by_their_folders(tmp_path):
    from aviary.arena.grade_command import _named
    from aviary.arena.players import parse_specs
    programs = []
    for who in ("alice", "bob"):
        program = tmp_path / "submissions" / who / "pikachu.py"
        program.parent.mkdir(parents=True)
        programs.append(str(program))
    assert [spec.name for spec in _named(parse_specs(programs))] == ["alice", "bob"]
    named = _named(parse_specs([f"mine={programs[0]}", "aviary:random", "aviary:random"]))
    assert [spec.name for spec in named] == ["mine", "random", "random#2"]


def test_a_from_file_line_without_a_name_is_one_line(tmp_path):
    listing = tmp_path / "players.txt"
    listing.write_text("# submissions\nok=aviary:random\npython3 nameless.py\n")
    done = aviary("grade", *PIKACHU, "--out", str(tmp_path / "g"), "--from", str(listing))
    assert done.returncode == 2 and "line 3" in done.stderr and "NAME=COMMAND" in done.stderr


def test_a_ladder_for_another_game_or_none_at_all_is_one_line(tmp_path, calibrated):
    ladder_file = calibrated
    done = aviary("grade", "--game", "betsy", "--ladder", str(ladder_file), "--out",
                  str(tmp_path / "g"), "aviary:random")
    assert done.returncode == 2 and "ladder of pikachu" in done.stderr
    missing = aviary("ladder", "show", "--game", "pikachu", "--option", "n=13")
    assert missing.returncode == 2 and "aviary ladder calibrate --game pikachu" in missing.stderr
    not_one = tmp_path / "notes.json"
    not_one.write_text("{not json")
    shown = aviary("ladder", "show", *PIKACHU, "--file", str(not_one))
    assert shown.returncode == 2 and "not a ladder file" in shown.stderr
    assert len(shown.stderr.strip().splitlines()) == 1 and "Traceback" not in shown.stderr
