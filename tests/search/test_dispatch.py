"""`Direct`: a numba function called at its compiled entry point, past the dispatcher.

The entry point of a compiled version takes only the arguments it was compiled for:
arguments of another kind (another dtype, a non-contiguous array, a float for an int)
must go through the dispatcher again, never to an entry point that would read them
as something else.
"""

from __future__ import annotations

import numpy as np
from numba import cfunc, njit, types

from aviary.search.dispatch import Direct, direct, kind


@njit(cache=False)
def weighted(values, scale, function):
    total = 0.0
    for value in values:
        total += function(value) * scale
    return total


@cfunc(types.float64(types.float64), cache=False)
def double(x):
    return 2 * x


@cfunc(types.float64(types.float64), cache=False)
def square(x):
    return x * x


def test_each_kind_of_arguments_gets_its_own_compiled_version():
    call = Direct(weighted)
    ints, floats = np.arange(4, dtype=np.int64), np.arange(4, dtype=np.float64) / 2
    assert call(ints, 3, double) == 36.0  # through the dispatcher, entry point kept
    assert len(call.entries) == 1
    assert call(ints + 1, 3, double) == 60.0  # the entry point
    assert call(floats, 3, double) == 18.0  # another dtype: the dispatcher again
    assert call(ints[::2], 3, double) == 12.0  # not contiguous: again
    assert call(ints, 2.5, double) == 30.0  # a float where an int was
    assert call(ints, 3, square) == 42.0  # another kernel
    assert len(call.entries) == 5
    assert call(ints, np.int64(3), double) == 36.0
    assert call(ints, np.int64(4), double) == 48.0  # numpy scalars: one kind per class
    assert len(call.entries) == 6


def test_kinds_tell_apart_what_numba_types_apart():
    array = np.zeros(3, dtype=np.int64)
    assert kind(array) == kind(np.ones(3, dtype=np.int64))
    assert kind(array) != kind(np.zeros((3, 1), dtype=np.int64))
    frozen = array.copy()
    frozen.setflags(write=False)
    assert kind(array) != kind(frozen)  # numba types a read-only array apart
    assert kind((array, 1)) == kind((array, 7)) != kind((array, 1.0))
    assert kind(1) != kind(2**63) and kind(True) != kind(1)


def test_one_direct_call_a_process_for_each_function():
    assert direct(weighted) is direct(weighted)
