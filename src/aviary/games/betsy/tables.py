"""Piece-square tables shared by the engine and the textbook opponent's plain evaluation.

The tables are Tomasz Michniewski's "Simplified Evaluation Function", the one
most course write-ups copy: written as a chess diagram from white's side, the
first line is white's far row (row 8 here). `PST[kind, square]` turns them into
this board's squares for white (square 0 = a1, white's back row); a black piece
on `square` reads `PST[kind, square ^ 56]` (the board mirrored top to bottom).
Kinds are the kernels' cell values: 1 Parakeet, 2 Nighthawk, 3 Blue jay, 4 Robin,
5 Quetzal, 6 Kingfisher (middle game), 7 Kingfisher (endgame).
"""

from __future__ import annotations

import numpy as np

_DIAGRAMS = {
    1: """
      0   0   0   0   0   0   0   0
     50  50  50  50  50  50  50  50
     10  10  20  30  30  20  10  10
      5   5  10  25  25  10   5   5
      0   0   0  20  20   0   0   0
      5  -5 -10   0   0 -10  -5   5
      5  10  10 -20 -20  10  10   5
      0   0   0   0   0   0   0   0""",
    2: """
    -50 -40 -30 -30 -30 -30 -40 -50
    -40 -20   0   0   0   0 -20 -40
    -30   0  10  15  15  10   0 -30
    -30   5  15  20  20  15   5 -30
    -30   0  15  20  20  15   0 -30
    -30   5  10  15  15  10   5 -30
    -40 -20   0   5   5   0 -20 -40
    -50 -40 -30 -30 -30 -30 -40 -50""",
    3: """
    -20 -10 -10 -10 -10 -10 -10 -20
    -10   0   0   0   0   0   0 -10
    -10   0   5  10  10   5   0 -10
    -10   5   5  10  10   5   5 -10
    -10   0  10  10  10  10   0 -10
    -10  10  10  10  10  10  10 -10
    -10   5   0   0   0   0   5 -10
    -20 -10 -10 -10 -10 -10 -10 -20""",
    4: """
      0   0   0   0   0   0   0   0
      5  10  10  10  10  10  10   5
     -5   0   0   0   0   0   0  -5
     -5   0   0   0   0   0   0  -5
     -5   0   0   0   0   0   0  -5
     -5   0   0   0   0   0   0  -5
     -5   0   0   0   0   0   0  -5
      0   0   0   5   5   0   0   0""",
    5: """
    -20 -10 -10  -5  -5 -10 -10 -20
    -10   0   0   0   0   0   0 -10
    -10   0   5   5   5   5   0 -10
     -5   0   5   5   5   5   0  -5
      0   0   5   5   5   5   0  -5
    -10   5   5   5   5   5   0 -10
    -10   0   5   0   0   0   0 -10
    -20 -10 -10  -5  -5 -10 -10 -20""",
    6: """
    -30 -40 -40 -50 -50 -40 -40 -30
    -30 -40 -40 -50 -50 -40 -40 -30
    -30 -40 -40 -50 -50 -40 -40 -30
    -30 -40 -40 -50 -50 -40 -40 -30
    -20 -30 -30 -40 -40 -30 -30 -20
    -10 -20 -20 -20 -20 -20 -20 -10
     20  20   0   0   0   0  20  20
     20  30  10   0   0  10  30  20""",
    7: """
    -50 -40 -30 -20 -20 -30 -40 -50
    -30 -20 -10   0   0 -10 -20 -30
    -30 -10  20  30  30  20 -10 -30
    -30 -10  30  40  40  30 -10 -30
    -30 -10  30  40  40  30 -10 -30
    -30 -10  20  30  30  20 -10 -30
    -30 -30   0   0   0   0 -30 -30
    -50 -30 -30 -30 -30 -30 -30 -50""",
}


def _tables() -> np.ndarray:
    table = np.zeros((8, 64), dtype=np.int64)
    for kind, diagram in _DIAGRAMS.items():
        values = [int(word) for word in diagram.split()]
        assert len(values) == 64
        for square in range(64):
            table[kind, square] = values[square ^ 56]  # diagram line 1 is row 8
    return table


PST = _tables()
