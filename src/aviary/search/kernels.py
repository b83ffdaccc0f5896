"""A game's compiled kernels as the search core takes them: `cfunc`s, made in one place.

The search core (`alphabeta`, `expectimax`, `textbook`, `perft`) takes kernels as
first-class functions with fixed signatures, so that numba caches the compiled
search on disk. Each kernel is an `@njit(cache=True)` function of the game; `wrap`
turns it into a `cfunc` of the given signature that calls it.

Why not a closure: numba keys a cached closure by its pickled cell contents, and a
dispatcher pickles with a fresh id in every process, so a closure missed the disk
cache (a recompile in every process; tried and measured with numba 0.68). A wrapper
made here is a plain function instead, compiled from two lines of source that name
the kernel as a global, and it belongs to the kernel's own source file: numba keeps
its cache beside the kernel's (`__pycache__/kernels.generate_cfunc-1.*`) and drops it
when that file changes, as it does for the kernel itself.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from numba import cfunc, njit, types

from aviary.search.alphabeta import EVALUATE, GENERATE, KEY, MAKE, ORDER, TERMINAL, UNMAKE
from aviary.search.expectimax import CHANCE
from aviary.search.report import Kernels, TextbookKernels
from aviary.search.textbook import no_chance

# the search's kernels: their names in `Kernels` and signatures
SEARCH_KERNELS = (("generate", GENERATE), ("make", MAKE), ("unmake", UNMAKE),
                  ("evaluate", EVALUATE), ("key", KEY), ("order", ORDER),
                  ("terminal", TERMINAL))


@njit(cache=True, nogil=True, inline="always")
def push(out, count, move):
    """`move` written as the `count`-th of `out` if it has room; returns count + 1.

    For a game's `generate`: it counts every move and returns `min(count, len(out))`,
    so a full buffer never overflows (the moves past it are dropped)."""
    if count < out.shape[0]:
        out[count] = move
    return count + 1


_wrapped: dict[tuple[Any, str], Any] = {}  # (kernel, signature) -> its cfunc, made once
_kernel_of: dict[int, Any] = {}  # id of a cfunc made here -> the `@njit` kernel it calls


def wrap(kernel: Any, signature: Any) -> Any:
    """The `cfunc` of `signature` that calls the `@njit` function `kernel`."""
    made = (kernel, str(signature))
    if made in _wrapped:
        return _wrapped[made]
    py_func = kernel.py_func
    arguments = ", ".join(f"a{i}" for i in range(len(signature.args)))
    returns = "" if signature.return_type == types.void else "return "
    name = f"{py_func.__name__}_cfunc"
    source = f"def {name}({arguments}):\n    {returns}kernel({arguments})\n"
    namespace: dict[str, Any] = {"kernel": kernel}
    exec(compile(source, py_func.__code__.co_filename, "exec"), namespace)
    wrapper = namespace[name]
    wrapper.__module__ = py_func.__module__
    wrapper.__qualname__ = f"{py_func.__qualname__}_cfunc"
    _wrapped[made] = cfunc(signature, cache=True, nogil=True)(wrapper)
    _kernel_of[id(_wrapped[made])] = kernel
    return _wrapped[made]


def unwrap(wrapped: Any) -> Any:
    """The `@njit` kernel a cfunc made by `wrap` calls: what a search compiled ahead of
    time (`aviary.search.aot`) binds, so that it is specialised for the kernel itself."""
    return _kernel_of[id(wrapped)]


def search_kernels(module: ModuleType, *, chance: bool = False, **replaced: Any) -> Kernels:
    """The `Kernels` the search takes, as cfuncs: the functions named `generate`, `make`,
    `unmake`, `evaluate`, `key`, `order` and `terminal` in a game's kernels `module`, or
    the ones given by name instead (a game's engine passes its own `evaluate`, say);
    with `chance`, also the module's `chance` kernel (a game with chance nodes)."""
    unknown = set(replaced) - {name for name, _ in SEARCH_KERNELS}
    assert not unknown, f"no search kernel is named {sorted(unknown)}"
    return Kernels(**{name: wrap(replaced.get(name) or getattr(module, name), signature)
                      for name, signature in SEARCH_KERNELS},
                   chance=chance_kernel(module) if chance else None)


def chance_kernel(module: ModuleType) -> Any:
    """The `chance` function of a game's kernels `module` as the expectimax search's cfunc."""
    return wrap(module.chance, CHANCE)


def textbook_kernels(module: ModuleType, evaluate: Any, *, chance: bool = False
                     ) -> TextbookKernels:
    """The `TextbookKernels` for `aviary.search.textbook`: the kernels `module`'s,
    `evaluate` the game's plain evaluation; `chance` the module's chance kernel for a
    game with chance, else `no_chance`."""
    return TextbookKernels(wrap(module.generate, GENERATE), wrap(module.make, MAKE),
                           wrap(module.unmake, UNMAKE), wrap(evaluate, EVALUATE),
                           wrap(module.terminal, TERMINAL),
                           chance_kernel(module) if chance else no_chance)
