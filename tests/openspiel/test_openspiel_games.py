"""Every board game under OpenSpiel: OpenSpiel's own checks, and the adapter against the rules.

`pyspiel.random_sim_test` plays random games through OpenSpiel's C++ API, checking
clones, serialization, legal-action masks, returns and the game's length bound, for
every game and every option value. The other tests hold the adapter to the rules it
wraps: the same moves, notation, outcomes and chance probabilities.
"""

from __future__ import annotations

import pickle
import random

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel is not installed "
                                                "(pip install 'aviary[openspiel]')")

import aviary.openspiel  # noqa: E402, F401  (registers the games)
from aviary.games import registry  # noqa: E402
from aviary.games.base import Option  # noqa: E402


def _other_values(option: Option) -> list[object]:
    if isinstance(option.default, bool):
        return [not option.default]
    if isinstance(option.default, int):
        return [option.minimum] if option.minimum not in (None, option.default) else []
    return [choice for choice in option.choices if choice != option.default]


def configurations() -> list[tuple[str, dict[str, object]]]:
    """Each game at its defaults, then with each option's every other value."""
    found: list[tuple[str, dict[str, object]]] = []
    for spec in registry.board_games():
        found.append((spec.name, {}))
        for option in spec.game_class().options:
            found += [(spec.name, {option.name: value}) for value in _other_values(option)]
    return found


CONFIGURATIONS = configurations()
IDS = [f"{name}-{'-'.join(f'{k}={v}' for k, v in settings.items()) or 'default'}"
       for name, settings in CONFIGURATIONS]


def game_string(name: str, settings: dict[str, object]) -> str:
    shown = ",".join(f"{key}={str(value).lower() if isinstance(value, bool) else value}"
                     for key, value in settings.items())
    return f"aviary_{name}({shown})" if shown else f"aviary_{name}"


@pytest.fixture(params=CONFIGURATIONS, ids=IDS)
def configuration(request: pytest.FixtureRequest) -> tuple[object, object]:
    """(the OpenSpiel game, the aviary game it wraps)."""
    name, settings = request.param
    return pyspiel.load_game(game_string(name, settings)), registry.make(name, **settings)


def test_every_board_game_is_registered_with_its_options_as_parameters():
    registered = {game.short_name: game for game in pyspiel.registered_games()}
    for spec in registry.board_games():
        kind = registered[f"aviary_{spec.name}"]
        options = {option.name: option.default for option in spec.game_class().options}
        assert kind.parameter_specification == {**options, "max_plies": 0}
        assert kind.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
        assert kind.information == pyspiel.GameType.Information.PERFECT_INFORMATION
        assert kind.utility == pyspiel.GameType.Utility.ZERO_SUM


def test_openspiels_random_simulation_test_passes(configuration):
    game, _ = configuration
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


def test_the_game_type_and_sizes_come_from_the_rules(configuration):
    game, rules = configuration
    chance = rules.chance_count() > 0
    assert (game.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC) \
        == chance
    assert (game.get_type().chance_mode == pyspiel.GameType.ChanceMode.DETERMINISTIC) \
        == (not chance)
    assert game.num_distinct_actions() == rules.action_count()
    assert game.max_chance_outcomes() == rules.chance_count()
    assert game.num_players() == 2 and (game.min_utility(), game.max_utility()) == (-1, 1)
    bound = rules.max_plies()
    assert game.max_game_length() == (1000 if bound is None else bound)
    again = pyspiel.load_game(str(game))
    assert str(again) == str(game) and again.rules.settings == rules.settings


def test_openspiel_states_follow_the_rules_along_random_games(configuration):
    game, rules = configuration
    rng = random.Random(11)
    for _ in range(2):
        state, position = game.new_initial_state(), rules.start()
        while not state.is_terminal():
            assert state.aviary_state == position
            if state.is_chance_node():
                expected = sorted((rules.action(move), p)
                                  for move, p in rules.chance_outcomes(position))
                assert state.chance_outcomes() == expected
                move = rules.sample_chance(position, rng)
            else:
                assert state.current_player() == rules.to_move(position)
                moves = rules.legal_moves(position)
                assert state.legal_actions() == sorted(rules.action(move) for move in moves)
                move = rng.choice(moves)
                text = rules.move_text(position, move)
                assert state.action_to_string(state.current_player(), rules.action(move)) == text
                assert state.string_to_action(text.upper()) == rules.action(move)
            state.apply_action(rules.action(move))
            position = rules.play(position, move)
        ended = rules.outcome(position)
        if ended is None:  # the adapter's bound: a draw
            assert state.plies == game.max_game_length()
            assert state.returns() == [0.0, 0.0]
        else:
            assert state.returns() == [2 * ended.score(0) - 1, 2 * ended.score(1) - 1]


def test_the_observation_is_one_symbol_per_cell_and_the_player_to_move(configuration):
    game, rules = configuration
    state = game.new_initial_state()
    for _ in range(5):
        if state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])
        else:
            state.apply_action(state.legal_actions()[-1])
    shape = rules.board()
    planes = len(rules.symbols) + 3
    assert game.observation_tensor_shape() == [planes, shape.rows, shape.cols]
    tensor = state.observation_tensor(0)
    cells = shape.rows * shape.cols
    board = [tensor[i * cells:(i + 1) * cells] for i in range(planes)]
    text = rules.format(state.aviary_state)
    for cell, symbol in enumerate(text):
        assert [board[i][cell] for i in range(len(rules.symbols))] == \
            [float(symbol == s) for s in rules.symbols]
    mover = state.current_player()
    assert sum(board[len(rules.symbols)]) == (cells if mover == 0 else 0)
    assert sum(board[len(rules.symbols) + 1]) == (cells if mover == 1 else 0)
    assert state.plies > 0
    assert list(board[-1]) == pytest.approx([state.plies / game.max_game_length()] * cells)
    assert state.observation_string(0) == str(state)


def test_states_survive_serialization_and_pickling(configuration):
    game, _ = configuration
    state = game.new_initial_state()
    rng = random.Random(12)
    for _ in range(7):
        if state.is_terminal():
            break
        if state.is_chance_node():
            state.apply_action(rng.choice(state.chance_outcomes())[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    text = pyspiel.serialize_game_and_state(game, state)
    again_game, again = pyspiel.deserialize_game_and_state(text)
    assert str(again_game) == str(game)
    assert str(again) == str(state) and again.history() == state.history()
    copied = pickle.loads(pickle.dumps(state))
    assert str(copied) == str(state) and copied.legal_actions() == state.legal_actions()


def test_the_examples_of_the_issue_load():
    examples = {
        "aviary_pikachu(n=10)": {"n": 10},
        "aviary_betsy(kingfisher=diagonal)": {"kingfisher": "diagonal"},
        "aviary_foxgeese(variant=elephants,shrink=true)": {"variant": "elephants",
                                                          "shrink": True},
        "aviary_ijk(variant=handout,mode=nondet)": {"variant": "handout", "mode": "nondet"},
    }
    for text, settings in examples.items():
        game = pyspiel.load_game(text)
        assert all(game.rules.settings[key] == value for key, value in settings.items())
    assert pyspiel.load_game("aviary_pikachu(n=10)").new_initial_state().legal_actions()


def test_max_plies_ends_a_game_in_a_draw_and_never_passes_the_rules_bound():
    game = pyspiel.load_game("aviary_betsy(max_plies=4)")
    state = game.new_initial_state()
    for text in ("e2e3", "e7e6", "d2d3", "d7d6"):
        assert not state.is_terminal()
        state.apply_action(state.string_to_action(text))
    assert state.is_terminal() and state.returns() == [0.0, 0.0]
    assert state.outcome().reason == "move-limit"
    rules_bound = registry.make("foxgeese").max_plies()
    assert pyspiel.load_game("aviary_foxgeese(max_plies=100000)").max_game_length() == rules_bound


@pytest.mark.parametrize("text, wanted", [
    ("aviary_pikachu(n=3)", "option n must be at least 7"),
    ("aviary_betsy(kingfisher=sideways)", "option kingfisher must be one of"),
    ("aviary_betsy(max_plies=-1)", "max_plies must be a whole number"),
])
def test_bad_parameters_are_refused_naming_the_parameter(text, wanted):
    with pytest.raises(Exception, match=wanted):
        pyspiel.load_game(text)


def test_a_wrong_move_text_is_refused_with_the_legal_moves():
    state = pyspiel.load_game("aviary_betsy").new_initial_state()
    with pytest.raises(ValueError, match="legal"):
        state.string_to_action("e2e5")


def test_a_finished_games_moves_read_as_moves_from_their_ids_alone(configuration):
    """`action_to_string` names a move by its id, legal in the state asked or not: the whole
    history of a finished game, asked of its last state, reads as the game's notation."""
    spiel, rules = configuration
    rng = random.Random(5)
    state = spiel.new_initial_state()
    texts = []  # (player, action, the text when it was played)
    while not state.is_terminal() and len(texts) < 400:
        if state.is_chance_node():
            action = rng.choice([action for action, _ in state.chance_outcomes()])
        else:
            action = rng.choice(state.legal_actions())
        texts.append((state.current_player(), action, state.action_to_string(action)))
        state.apply_action(action)
    for player, action, played in texts:
        assert state.action_to_string(player, action) == played
        assert not played.startswith("action ")


def test_a_finished_betsy_game_prints_its_moves_as_squares():
    game = pyspiel.load_game("aviary_betsy")
    state = game.new_initial_state()
    rng = random.Random(3)
    while not state.is_terminal():
        state.apply_action(rng.choice(state.legal_actions()))
    names = [state.action_to_string(action) for action in state.history()]
    assert names and all(len(name) == 4 and name[0] in "abcdefgh" and name[2] in "abcdefgh"
                         and name[1] in "12345678" and name[3] in "12345678" for name in names)
    assert state.action_to_string(game.num_distinct_actions()) == (
        f"action {game.num_distinct_actions()}")  # not a move: said so


def test_each_game_is_registered_with_the_chance_mode_of_its_default_setting():
    """IJK's default `mode=det` is deterministic, so is its registered type; `mode=nondet`
    says so in its own type (`test_the_game_type_and_sizes_come_from_the_rules`)."""
    registered = {game.short_name: game for game in pyspiel.registered_games()}
    for spec in registry.board_games():
        chance = spec.make().chance_count() > 0
        mode = registered[f"aviary_{spec.name}"].chance_mode
        assert mode == (pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC if chance
                        else pyspiel.GameType.ChanceMode.DETERMINISTIC)
        assert mode == pyspiel.load_game(f"aviary_{spec.name}").get_type().chance_mode


def test_a_game_starts_from_a_position_given_as_text(configuration):
    """`new_initial_state(TEXT)`, TEXT as the arena stores a position (`Game.encode`): the
    same moves as the position reached by playing, and it survives serialization."""
    spiel, rules = configuration
    rng = random.Random(4)
    played = spiel.new_initial_state()
    for _ in range(6):
        if played.is_terminal():
            break
        if played.is_chance_node():
            played.apply_action(rng.choice([action for action, _ in played.chance_outcomes()]))
        else:
            played.apply_action(rng.choice(played.legal_actions()))
    started = spiel.new_initial_state(rules.encode(played.aviary_state))
    assert started.aviary_state == played.aviary_state and started.history() == []
    assert started.legal_actions() == played.legal_actions()
    assert started.current_player() == played.current_player()
    _, again = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(spiel, started))
    assert again.aviary_state == started.aviary_state
    fresh = spiel.new_initial_state()
    if started.aviary_state != rules.start():  # the start is part of the information state
        assert started.information_state_string(0) != fresh.information_state_string(0)
    with pytest.raises(ValueError, match="not a position as Game.encode writes it"):
        spiel.new_initial_state("no such position")


def test_the_information_state_tensor_is_not_claimed_and_says_so():
    game = pyspiel.load_game("aviary_pikachu(n=7)")
    assert not game.get_type().provides_information_state_tensor
    assert game.get_type().provides_observation_tensor
    state = game.new_initial_state()
    state.apply_action(state.legal_actions()[0])
    assert state.information_state_string(0) == state.history_str()
    with pytest.raises(ValueError, match="no information_state_tensor"):
        state.information_state_tensor(0)
