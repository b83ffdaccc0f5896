"""Every registered in-process player offers the whole `Player` protocol, and keeps it."""

import pytest

from aviary.arena.games import make_engine
from aviary.errors import UsageError
from aviary.games import registry
from aviary.games.base import Player, Report
from aviary.search.clock import Deadline, Limit

PLAYERS = [(spec.name, name) for spec in registry.board_games() for name in spec.engines]


@pytest.mark.parametrize(("game_name", "name"), PLAYERS)
def test_every_registered_player_is_a_player_and_moves_by_a_deadline(game_name, name):
    spec = registry.spec(game_name)
    game = spec.make()
    player = spec.engine(name, game)
    assert isinstance(player, Player)
    assert spec.engine(name, spec.make()) is player  # built once per game settings
    player.warmup()
    state = game.start()
    heard: list[Report] = []
    move = player.best_move(state, deadline=Deadline.after(0.3), history=(),
                            on_report=heard.append)
    assert move in game.legal_moves(state)
    assert heard and heard[-1].move == move
    reports = list(player.think(state, Limit(time=0.2)))
    assert reports and all(report.move in game.legal_moves(state) for report in reports)


@pytest.mark.parametrize(("game_name", "name"), PLAYERS)
def test_a_node_limit_is_kept_or_refused_never_ignored(game_name, name):
    spec = registry.spec(game_name)
    game = spec.make()
    player = spec.engine(name, game)
    state = game.start()
    if player.counts_nodes:
        assert player.best_move(state, nodes=500) in game.legal_moves(state)
        return
    with pytest.raises(ValueError, match="node"):
        player.best_move(state, nodes=500)
    with pytest.raises(UsageError, match="node budget"):
        make_engine(game, name, depth=None, nodes=500)


def test_a_player_takes_a_deadline_or_seconds_not_both():
    spec = registry.spec(registry.board_games()[0].name)
    game = spec.make()
    player = spec.engine(spec.main_engine, game)
    with pytest.raises(ValueError, match="not both"):
        player.best_move(game.start(), deadline=Deadline.after(1.0), time=1.0)


@pytest.mark.parametrize("name", sorted(registry.PLAYERS))
def test_the_players_for_every_game_are_players_too(name):
    pytest.importorskip("pyspiel", reason="OpenSpiel is not installed")
    game = registry.board_games()[0].make()
    player = registry.player(name, game, {"seed": "1"} if name == "mcts" else {})
    assert isinstance(player, Player) and not player.counts_nodes
    state = game.start()
    heard: list[Report] = []
    move = player.best_move(state, deadline=Deadline.after(0.3), on_report=heard.append)
    assert move in game.legal_moves(state) and heard and heard[-1].move == move
    with pytest.raises(ValueError, match="node"):
        player.best_move(state, nodes=100)
