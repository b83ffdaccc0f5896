"""A numba search called straight at its compiled code, past the dispatcher's typing.

numba's dispatcher types every argument on every call, to pick the compiled version
that fits. Arrays and integers it types in C, but a kernel (a first-class function,
a `cfunc`) in Python: about 10 microseconds each, 70 for the search's seven. A search
of a thousand nodes makes seven to ten such calls a move, one a depth and aspiration
window, and spent a fifth of its time there.

`Direct(dispatcher)` is called as the dispatcher is. The first call with arguments of
given kinds goes through the dispatcher (which compiles or loads from its cache) and
remembers the compiled version's entry point; later calls with arguments of the same
kinds call that entry point directly. A kind is what numba's type of an argument
depends on: an array's dtype, dimensions, layout and flags, an integer's class and
whether it fits 63 bits, a tuple's kinds, and any other object (a kernel) itself. So
the entry point is only ever given the arguments it was compiled for.
"""

from __future__ import annotations

from collections.abc import Hashable
from functools import cache
from typing import Any

import numpy as np


def kind(value: Any) -> Hashable:
    """What numba's type of `value` as an argument depends on."""
    if isinstance(value, np.ndarray):
        flags = value.flags
        return (np.ndarray, value.dtype.str, value.ndim, flags.c_contiguous,
                flags.f_contiguous, flags.writeable, flags.aligned)
    if isinstance(value, tuple):
        return (tuple, *map(kind, value))
    if isinstance(value, (bool, np.generic)):
        return (type(value),)  # a numpy scalar: typed by its class alone
    if isinstance(value, int):
        return (int, value.bit_length() < 63)
    return value  # a kernel: typed by its own signature, the same object each call


class Direct:
    """`dispatcher`, called at its compiled entry point for arguments of kinds it has
    been called with before (see the module)."""

    def __init__(self, dispatcher: Any) -> None:
        self.dispatcher = dispatcher
        self.entries: dict[Hashable, Any] = {}

    def __call__(self, *args: Any) -> Any:
        try:
            key = tuple(map(kind, args))
            entry = self.entries.get(key)
        except TypeError:  # an argument that cannot be a key: numba's own way
            return self.dispatcher(*args)
        if entry is not None:
            return entry(*args)
        result = self.dispatcher(*args)
        signature = tuple(map(self.dispatcher.typeof_pyval, args))
        compiled = self.dispatcher.overloads.get(signature)
        if compiled is not None:  # else it converted the arguments: keep asking it
            self.entries[key] = compiled.entry_point
        return result


@cache
def direct(dispatcher: Any) -> Direct:
    """The one `Direct` of `dispatcher` in this process (its entry points found once)."""
    return Direct(dispatcher)
