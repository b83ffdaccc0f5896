"""Game-agnostic search compiled with numba: one core, every game's kernels as arguments.

- `alphabeta`: the compiled PVS/alpha-beta core and the kernel contract a game supplies
  (generate, make, unmake, evaluate, key, order; see its docstring).
- `deepening`: iterative deepening with aspiration windows, per-depth reports and the
  deadline, in plain Python around one compiled call per depth.
- `clock`: `Limit(time=, depth=, nodes=)`, process age, the stop-flag timer.

This package file imports nothing, so `from aviary.search.clock import Limit` stays
cheap for command lines that must answer before numba is even loaded.
"""
