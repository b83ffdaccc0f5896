"""A slower machine's numba: its first import sleeps AVIARY_SLOW_NUMBA seconds (0.45).

On PYTHONPATH (as `benchmarks/slow_machine/aviary` puts it) Python imports this at
start-up. On a 16-core container numba's import took 0.70 s against 0.26 s here; the
course command's benchmarks add the difference, so that what answers at 1 s a move
(engine, table or fallback) is what a grader there sees. Used only by benchmarks.
"""

import importlib.abc
import os
import sys
import time


class _SlowNumba(importlib.abc.MetaPathFinder):
    """Sleeps once before numba is first imported, then steps aside."""

    def find_spec(self, name, path=None, target=None):  # noqa: ANN001, ANN201
        if name == "numba":
            sys.meta_path.remove(self)
            time.sleep(float(os.environ.get("AVIARY_SLOW_NUMBA", "0.45")))
        return None


sys.meta_path.insert(0, _SlowNumba())
