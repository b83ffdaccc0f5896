"""The arena: run programs against each other safely, rate them, never lose a result.

Layers, each in its own module: `games` (one adapter per game, built on that
game's rules.py), `sandbox` (one move of an external program in a fresh,
limited process), `players` (external and in-process players behind one
interface), `referee` (one game, every answer validated), `schedule`
(pairings and shared openings), `store` (SQLite), `runner` (local pool or
Ray), `ratings` (Elo, error bars, Bradley-Terry, SPRT), `command` (CLI).
"""
