"""Ridge lines in mountain photos: an HMM over rows, decoded with a banded Viterbi.

`edges` measures edge strength, `model` turns a photo into per-pixel emission
scores and a transition band, `viterbi` decodes, `estimators` wraps the three
course estimators (simple, map, human), `draw` paints lines and `command` is
the course command line. `synthetic` makes labelled test photos.
"""

from aviary.horizon.estimators import Ridges, find_ridges

__all__ = ["Ridges", "find_ridges"]
