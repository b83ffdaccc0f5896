"""Game-agnostic search compiled with numba: one core, every game's kernels as arguments.

- `alphabeta`: the compiled PVS/alpha-beta core and the kernel contract a game supplies
  (generate, make, unmake, evaluate, key, order, terminal; see its docstring),
  repetition draws, the workspace.
- `expectimax`: expectiminimax for games with chance (an eighth kernel, `chance`),
  with Star1/Star2 pruning at chance nodes given bounds on the scores.
- `deepening`: `iterate`, the one driver for both: iterative deepening (aspiration
  windows for alpha-beta), per-depth `Report[int]`s (moves as kernel codes), the
  deadline, the caller's stop flag and the game's history.
- `textbook`: the textbook opponent every engine is measured against: plain negamax
  alpha-beta (expectiminimax with chance) deepened to the clock, no ordering, table,
  quiescence or pruning beyond alpha-beta.
- `iteration`: one iterative deepening's bookkeeping, shared by the drivers.
- `kernels`: a game's `@njit` kernels as the cfuncs the searches take (`search_kernels`,
  `textbook_kernels`), each cached on disk beside its kernel.
- `perft`: the move-tree count over a game's kernels, the check against its rules.
- `clock`: the move clock (`Deadline` and every time-policy number), `Limit(time=,
  deadline=, depth=, nodes=)`, process age, the stop-flag timer.

A template for a new game's kernels, with the contract test that checks a search
over them against plain minimax / expectimax, is tests/search/toy_games.py.

This package file imports nothing, so `from aviary.search.clock import Limit` stays
cheap for command lines that must answer before numba is even loaded.
"""
