"""A figure's fingerprint covers the code its game and players ran, and nothing else: a
new game's registry entry leaves every committed figure as it was, while a change to the
game's own entry or to the arena's player wrapper does not go unseen."""

import shutil
from pathlib import Path

import pytest

from aviary.arena import provenance
from aviary.arena.export import two_player_matches

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = Path(provenance.__file__).resolve().parents[1]
MATCHES = two_player_matches(sorted((ROOT / "benchmarks" / "results").glob("*.jsonl")))
END_OF_GAMES = "    )\n}\n\nTOOLS"  # the close of the registry's tuple of board games


@pytest.fixture
def package_copy(tmp_path) -> Path:
    copy = tmp_path / "aviary"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def register_a_sixth_game(package: Path) -> None:
    registry = package / "games" / "registry.py"
    text = registry.read_text()
    assert text.count(END_OF_GAMES) == 1
    entry = ('        GameSpec(name="sixth", summary="Sixth: a game added later",\n'
             '                 game="aviary.games.sixth.rules:Sixth"),\n')
    registry.write_text(text.replace(END_OF_GAMES, entry + END_OF_GAMES))


def test_registering_a_sixth_game_leaves_every_figure_as_it_was(package_copy):
    """Every figure's fingerprint is the same with the sixth game registered, so a current
    figure stays current (and a stale one stale: its code changed, not the registry)."""
    register_a_sixth_game(package_copy)
    assert MATCHES
    for match in MATCHES:  # current or stale, each fingerprint stays what it was
        config = match.config
        here = provenance.code_fingerprint(config.game, config.player_specs)
        after = provenance.code_fingerprint(config.game, config.player_specs, package_copy)
        assert after == here, match.path.name


def test_a_change_to_a_games_own_entry_makes_only_its_figures_stale(package_copy):
    registry = package_copy / "games" / "registry.py"
    text = registry.read_text()
    old = 'warmup=("aviary.games.betsy.compiled",)'  # in Betsy's entry, and only there
    assert text.count(old) == 1
    new = 'warmup=("aviary.games.betsy.compiled", "aviary.games.betsy.quick")'
    registry.write_text(text.replace(old, new))
    assert (provenance.code_fingerprint("betsy", (), package_copy)
            != provenance.code_fingerprint("betsy"))
    assert (provenance.code_fingerprint("pikachu", (), package_copy)
            == provenance.code_fingerprint("pikachu"))


def test_the_arena_players_wrapper_is_in_an_in_process_figures_fingerprint(package_copy):
    players = package_copy / "arena" / "players.py"
    players.write_text(players.read_text() + "\nSOMETHING_NEW = 1\n")
    engines = ("aviary:engine", "aviary:textbook")
    assert (provenance.code_fingerprint("pikachu", engines, package_copy)
            != provenance.code_fingerprint("pikachu", engines))
    assert PACKAGE / "arena" / "players.py" in provenance.code_files("pikachu", engines)


def test_a_registry_entry_is_cut_to_the_games_own():
    source = (PACKAGE / "games" / "registry.py").read_text()
    pikachu = provenance.registry_entry_text(source, "pikachu")
    assert '"pikachu", "Pikachu"' in pikachu and '"betsy", "Betsy"' not in pikachu
    assert "def board_game(" in pikachu and "PLAYERS: dict[str, str]" in pikachu
    # a game the registry does not list keeps the whole text: too much, never too little
    assert provenance.registry_entry_text(source, "no-such-game") == source


def test_each_sitting_records_the_package_versions():
    versions = provenance.packages()
    assert set(versions) == {"python", "numba", "numpy", "open_spiel"}
    assert versions["python"] and versions["numba"] and versions["numpy"]
