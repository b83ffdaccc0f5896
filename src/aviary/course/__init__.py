"""The course command of every board game: `runner` (what `aviary GAME ...` runs: the
course's arguments, the clock from process start, a fallback answer while the engine
loads) and `warm_server` (the engine server those commands reuse between moves).

Kept empty: a course command starts with only what its move needs.
"""
