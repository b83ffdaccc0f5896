"""The course drop-in under a stand-in for the course driver (a generator read until a timeout)."""

import threading

from aviary.games.ijk import rules
from aviary.games.ijk.dropin import next_move


class CourseGame:
    """Duck-types the course's Game: the three getters the AI interface reads."""

    def __init__(self, board: str, player: str, deterministic: bool) -> None:
        n = 6 if len(board) == 36 else 4
        self.rows = [[" " if c == "." else c for c in board[r * n:(r + 1) * n]] for r in range(n)]
        self.player = player
        self.deterministic = deterministic

    def getGame(self):  # noqa: N802 (the course's names)
        return [row[:] for row in self.rows]

    def getCurrentPlayer(self):  # noqa: N802
        return self.player

    def getDeterministic(self):  # noqa: N802
        return self.deterministic


def drive(game: CourseGame, timeout: float) -> list[str]:
    """What the course driver does: consume the generator in a thread, keep what came in time."""
    moves: list[str] = []

    def consume() -> None:
        for move in next_move(game):
            moves.append(move)

    thread = threading.Thread(target=consume, daemon=True)
    thread.start()
    thread.join(timeout)
    return list(moves)


WIN_NOW = "JJ..i." + "BCBCBC" + "CBCBCB" * 2 + "......" * 2  # L or R makes K for +


def test_drop_in_yields_legal_letters_and_the_last_one_wins():
    for deterministic in (True, False):
        moves = drive(CourseGame(WIN_NOW, "+", deterministic), 3.0)
        assert moves and set(moves) <= set("UDLR")
        ijk = rules.IJK(mode="det" if deterministic else "nondet")
        after = ijk.play(ijk.parse(WIN_NOW, "+"), moves[-1])
        result = ijk.outcome(after)
        assert result is not None and result.winner == 0


def test_drop_in_reads_spaces_as_empty_cells_and_plays_for_lower_case():
    board = "a....A" + "......" * 5
    game = CourseGame(board, "-", True)
    ijk_position = rules.parse(board, "-")
    assert game.getGame()[0][1] == " "
    moves = drive(game, 2.0)
    assert moves and all(move in rules.legal_moves(ijk_position) for move in moves)


def test_drop_in_on_a_finished_game_yields_nothing():
    assert drive(CourseGame("K" + "." * 35, "-", True), 1.0) == []
