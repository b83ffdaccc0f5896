"""aviary: strong game-playing AIs and probabilistic tools from a classic AI course."""

__version__ = "0.1.0"
