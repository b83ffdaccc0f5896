"""The protocol's contract, checked for every registered game: a new game passes by registering.

Each test is parametrized over `registry.board_games()` and its options' settings,
so a game added to the registry is checked the moment it is registered: text
forms round-trip, random playouts reach an outcome, illegal moves and bad
options are refused with a clear message, and the game's in-process engines
answer with legal moves.
"""

from __future__ import annotations

import random

import pytest

from aviary.games import registry
from aviary.games.base import CHANCE, Game, IllegalMove, Option, OptionError, Outcome

SPECS = registry.board_games()
MAX_PLIES = 400


def configurations() -> list[tuple[str, dict[str, object]]]:
    """Each game with its defaults, and once more with each option's other allowed values."""
    found: list[tuple[str, dict[str, object]]] = []
    for spec in SPECS:
        found.append((spec.name, {}))
        for option in spec.game_class().options:
            for value in _other_values(option):
                found.append((spec.name, {option.name: value}))
    return found


def _other_values(option: Option) -> list[object]:
    if isinstance(option.default, bool):
        return [not option.default]
    if isinstance(option.default, int):
        low = option.minimum
        return [low] if low is not None and low != option.default else []
    return [choice for choice in option.choices if choice != option.default]


CONFIGURATIONS = configurations()
IDS = [f"{name}-{'-'.join(f'{k}={v}' for k, v in settings.items()) or 'default'}"
       for name, settings in CONFIGURATIONS]


def playout(game: Game, rng: random.Random, limit: int = MAX_PLIES) -> list:
    """States of one random game from the start (chance drawn by `rng`)."""
    state = game.start()
    states = [state]
    for _ in range(limit):
        if game.outcome(state) is not None:
            break
        if game.is_chance(state):
            move = game.sample_chance(state, rng)
        else:
            moves = game.legal_moves(state)
            assert moves, "a state that is not over must have a legal move (or be an outcome)"
            move = rng.choice(moves)
        state = game.play(state, move)
        states.append(state)
    return states


@pytest.fixture(params=CONFIGURATIONS, ids=IDS)
def game(request: pytest.FixtureRequest) -> Game:
    name, settings = request.param
    return registry.make(name, **settings)


def test_every_game_declares_its_identity_and_labels(game):
    assert game.name in registry.GAMES and game.title
    assert len(game.labels) == 2 and game.labels[0] != game.labels[1]
    assert registry.spec(game.name).engines, "a board game registers at least one engine"


def test_text_forms_round_trip_along_random_games(game):
    rng = random.Random(1)
    for state in playout(game, rng, 60)[::3]:
        if game.is_chance(state):
            continue
        board, label = game.format(state), game.label(state)
        assert game.parse(board, label) == state
        assert game.decode(game.encode(state)) == state
        rows = game.render(state).splitlines()
        assert len(rows) >= game.board().rows


def test_move_text_names_exactly_one_legal_move(game):
    rng = random.Random(2)
    for state in playout(game, rng, 40)[::4]:
        if game.outcome(state) is not None or game.is_chance(state):
            continue
        moves = game.legal_moves(state)
        texts = [game.move_text(state, move) for move in moves]
        assert len(set(texts)) == len(texts), "two legal moves share a notation"
        for move, text in zip(moves, texts, strict=True):
            assert game.parse_move(state, text) == move
            assert game.parse_move(state, f"  {text.upper()} ") == move


def test_answers_are_what_the_referee_reads_back(game):
    rng = random.Random(3)
    for state in playout(game, rng, 30)[::5]:
        if game.outcome(state) is not None or game.is_chance(state):
            continue
        for line, move in game.answers(state).items():
            assert game.read_answer(state, line) == move
            assert game.answer(state, move) == line


def test_random_playouts_reach_an_outcome(game):
    rng = random.Random(4)
    reasons = set()
    for _ in range(6):
        states = playout(game, rng, 5000)
        ended = game.outcome(states[-1])
        assert isinstance(ended, Outcome), "a random game must end (rules with a move limit)"
        assert ended.winner in (0, 1, None) and ended.reason
        reasons.add(ended.reason)
    assert reasons


def test_a_finished_game_has_no_player_to_move_into_it(game):
    """Once `outcome` says the game is over nobody may move on (no legal move, no answer a
    program could print, no chance event) — the arena, `play` and the web stop there."""
    rng = random.Random(5)
    for _ in range(3):
        states = playout(game, rng, 5000)
        final = states[-1]
        assert game.outcome(final) is not None
        assert game.legal_moves(final) == [], "a finished game still offers moves"
        assert game.answers(final) == {}, "a finished game still reads answers"
        assert not game.is_chance(final), "a finished game still waits for a chance event"


def test_illegal_moves_are_refused_with_the_legal_ones_listed(game):
    state = game.start()
    if game.is_chance(state):
        state = game.play(state, game.sample_chance(state, random.Random(0)))
    with pytest.raises(IllegalMove, match="legal"):
        game.parse_move(state, "zz99-not-a-move")
    with pytest.raises(IllegalMove):
        game.read_answer(state, "not an answer")


def test_bad_boards_and_players_are_refused(game):
    board = game.format(game.start())
    label = game.label(game.start()) if not game.is_chance(game.start()) else game.labels[0]
    for bad_board, bad_label in ((board[:-1], label), (board + board[-1], label),
                                 ("?" * len(board), label), (board, "not-a-player")):
        with pytest.raises(ValueError):
            game.parse(bad_board, bad_label)


def test_options_are_validated_with_their_name_in_the_message(game):
    cls = type(game)
    with pytest.raises(OptionError, match="no option"):
        cls(no_such_option=1)
    for option in cls.options:
        wrong = "seven" if not isinstance(option.default, str) else 7
        with pytest.raises(OptionError, match=option.name):
            cls(**{option.name: wrong})
        if option.choices:
            with pytest.raises(OptionError, match=option.name):
                cls.from_text({option.name: "no-such-choice"})


def test_the_course_command_line_round_trips(game):
    rng = random.Random(6)
    for state in playout(game, rng, 20)[::5]:
        if game.outcome(state) is not None or game.is_chance(state):
            continue
        args = game.command_args(state, 1.5)
        again, parsed, seconds = type(game).parse_course(args)
        assert parsed == state and seconds == 1.5
        assert again.settings == game.settings


def test_chance_nodes_list_outcomes_whose_probabilities_sum_to_one(game):
    rng = random.Random(7)
    seen = 0
    for state in playout(game, rng, 200):
        if game.to_move(state) == CHANCE and game.outcome(state) is None:
            outcomes = game.chance_outcomes(state)
            assert outcomes and abs(sum(p for _, p in outcomes) - 1) < 1e-9
            legal = game.legal_moves(state)
            assert sorted(map(repr, legal)) == sorted(repr(move) for move, _ in outcomes)
            seen += 1
    if not seen:
        assert all(not game.chance_outcomes(s) for s in playout(game, rng, 30))


def test_every_move_has_a_stable_action_id_below_the_count(game):
    rng = random.Random(9)
    named: dict[tuple[bool, int], str] = {}  # (chance?, id) -> the move's notation
    decisions = chances = 0
    for _ in range(3):
        for state in playout(game, rng, 120):
            if game.outcome(state) is not None:
                continue
            chance = game.is_chance(state)
            limit = game.chance_count() if chance else game.action_count()
            moves = game.legal_moves(state)
            ids = [game.action(move) for move in moves]
            assert len(set(ids)) == len(ids), "two legal moves share an action id"
            for move, action in zip(moves, ids, strict=True):
                assert 0 <= action < limit
                assert game.move_for_action(state, action) == move
                text = game.move_text(state, move)
                assert named.setdefault((chance, action), text) == text, (
                    f"action {action} is {named[(chance, action)]} in one position, "
                    f"{text} in another")
                assert game.action_text(action, chance) in (None, text)  # the id alone
            with pytest.raises(IllegalMove):
                game.move_for_action(state, limit)
            chances += chance
            decisions += not chance
    assert decisions and (chances > 0) == (game.chance_count() > 0)


def test_board_texts_use_only_the_declared_symbols_and_games_keep_their_bound(game):
    rng = random.Random(10)
    bound = game.max_plies()
    assert bound is None or bound > 0
    assert len(set(game.symbols)) == len(game.symbols) > 1
    for _ in range(3):
        states = playout(game, rng, 5000)
        for state in states[::7]:
            assert set(game.format(state)) <= set(game.symbols)
        moves = sum(not game.is_chance(state) for state in states[:-1])
        assert bound is None or moves <= bound


@pytest.mark.parametrize("spec", SPECS, ids=[spec.name for spec in SPECS])
def test_every_engine_answers_a_legal_move(spec):
    game = spec.make()
    rng = random.Random(8)
    states = [s for s in playout(game, rng, 12)
              if game.outcome(s) is None and not game.is_chance(s)]
    for name in spec.engines:
        player = spec.engine(name, game)
        for state in states[::4]:
            move = player.best_move(state, depth=2)
            assert move in game.legal_moves(state)


def test_unknown_games_and_options_name_what_is_known():
    with pytest.raises(OptionError, match="known games"):
        registry.make("no-such-game")
    spec = SPECS[0]
    with pytest.raises(OptionError, match="no option"):
        spec.game_class().from_text({"no_such_option": "1"})


@pytest.mark.parametrize("spec", SPECS, ids=[spec.name for spec in SPECS])
def test_kernels_generate_exactly_the_rules_moves_along_random_games(spec):
    compared = 0
    for name, settings in CONFIGURATIONS:
        if name != spec.name:
            continue
        game = spec.make(**settings)
        engine = spec.engine(spec.main_engine, game)
        searcher = getattr(engine, "searcher", None)
        if searcher is None:
            pytest.skip(f"{spec.name}'s main engine has no kernels to compare (no searcher)")
        if searcher.kernel_moves(game.start()) is None:
            continue  # a board the kernels do not reach (Pikachu's largest)
        rng = random.Random(9)
        for _ in range(5):
            for state in playout(game, rng, 120):
                if game.outcome(state) is not None:
                    continue
                kernel = searcher.kernel_moves(state)
                if kernel is None:
                    continue  # a position the kernels do not reach
                assert sorted(map(repr, kernel)) == sorted(map(repr, game.legal_moves(state)))
                compared += 1
    assert compared, f"{spec.name}'s kernels reach no position of its random games"


@pytest.mark.parametrize("spec", SPECS, ids=[spec.name for spec in SPECS])
def test_history_keys_are_the_searchers_keys_also_when_remembered(spec):
    game = spec.make()
    engine = spec.engine(spec.main_engine, game)
    if not hasattr(engine, "searcher"):
        pytest.skip(f"{spec.name}'s main engine has no kernels to compare (no searcher)")
    history = list(playout(game, random.Random(4), 60))
    def fresh(states):
        return tuple(k for k in map(engine.searcher.key, states) if k is not None)

    assert engine._keys(history[:30]) == fresh(history[:30])
    assert engine._keys(history) == fresh(history)  # half remembered, half new
    assert engine._keys(history[::-1]) == fresh(history)[::-1]  # remembered, in order given
    assert len(fresh(history)) in (0, len(history))  # a game keys every position or none


@pytest.mark.parametrize("spec", SPECS, ids=[spec.name for spec in SPECS])
def test_kernels_count_the_rules_move_tree(spec):
    """Perft once for every game: the kernels' (`Searcher.perft`, aviary.search.perft)
    equals the rules' (`Game.perft`) from the start and from positions along a game."""
    compared = 0
    for name, settings in CONFIGURATIONS:
        if name != spec.name:
            continue
        game = spec.make(**settings)
        searcher = getattr(spec.engine(spec.main_engine, game), "searcher", None)
        if searcher is None:
            pytest.skip(f"{spec.name}'s main engine has no kernels to compare (no searcher)")
        if searcher.chance_bounds is not None:
            continue  # chance nodes, which the kernels see as the search does
        states = playout(game, random.Random(5), 40)
        for state in (states[0], states[len(states) // 2], states[-1]):
            kernels = searcher.perft(state, 3)
            if kernels is None:
                continue  # a board the kernels do not reach
            assert kernels == game.perft(state, 3), (settings, game.encode(state))
            compared += 1
    if not compared:
        pytest.skip(f"{spec.name}'s kernels have chance nodes in every setting: their perft "
                    "counts as the search sees them, not as the rules do")
