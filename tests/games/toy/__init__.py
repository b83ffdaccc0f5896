"""Tic-tac-toe, the sixth game: a game folder written for `aviary.games`, kept in the tests.

`tests/games/test_sixth_game.py` copies the installed package, drops this folder
into the copy's `games/` as `games/toy/`, adds one entry to the copy's registry and
plays the game through every front end (arena, `play`, the web app, the course
command): adding a game is this folder and one registry entry, nothing else.
Rules-only, no numba: a whole game is nine plies, searched to the end in milliseconds.
"""
