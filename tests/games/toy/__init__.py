"""Connect Four on a 6 x 7 board, the sixth game: a game folder written for `aviary.games`,
kept in the tests as the template a new game starts from.

`tests/games/test_sixth_game.py` copies the installed package, drops this folder into
the copy's `games/` as `games/toy/`, adds one line to the copy's registry
(`board_game("toy", "ConnectFour", ...)`) and plays the game through every front end
(the course command, `aviary play`, the arena, the web app, OpenSpiel) and the
conformance suite: adding a game is this folder and one registry line, nothing else.

It has exactly what a game must provide (docs/architecture.md, "Adding a game"):
`rules.py` (the `Game`) and `engine.py` (`make_engine`, `make_textbook`). It has none of
what is optional: no `quick.py` (the course command's first answer is then the first
legal move), no module `warmup()` (nothing to compile), no kernels, no docs page.
Its board is not square (6 rows, 7 columns): `ConnectFour.board()` says so.
"""
