"""Build a game's alpha-beta search ahead of time: a C extension by numba's `pycc`.

`build(game, kernels)` compiles `aviary.search.alphabeta.negamax` with the game's seven
`@njit` kernels bound as globals (`ROOT` below), so numba specialises the search for
those very kernels at compile time, and exports it as `negamax(state, depth, ply, alpha,
beta, *workspace arrays)` from an extension module that loads without numba
(`aviary.search.compiled` finds and loads it). `aviary warmup` calls it for every game
with a `compiled` module in the registry, when a C compiler is present.

Two things numba 0.68's `pycc` does not do by itself, done here:
- a recursive function (the search is one) calls itself through a pointer numba's JIT
  linker fills in at run time (`.numba.unresolved$NAME`); an extension has no such
  linker, and failed to load (undefined symbol). `_Compiler` defines each of those
  pointers in the compiled module itself, pointing at the function it names;
- an exported function holds the GIL; the search must not (the deadline's timer thread
  has to run while it searches), so it is compiled as `nogil` (`_NoGilFlags`).
Both reach into `pycc`'s internals, so the extension is keyed by numba's version: a
numba that no longer fits them fails the build, and the JIT search answers as before.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aviary.search import compiled

if TYPE_CHECKING:
    from aviary.search.report import Kernels

ARRAY_1D, ARRAY_2D = "i8[::1]", "i8[:,::1]"
# negamax's arguments past (state, depth, alpha, beta): the `Workspace.arrays` tuple
WORKSPACE = (ARRAY_2D, ARRAY_2D, ARRAY_2D, ARRAY_1D, ARRAY_2D, ARRAY_1D, ARRAY_2D, ARRAY_1D,
             ARRAY_1D, ARRAY_1D, ARRAY_1D, ARRAY_1D)
SIGNATURE = f"i8({ARRAY_1D}, i8, i8, i8, i8, {', '.join(WORKSPACE)})"
# `ply` is an argument (0 at the root), not the constant 0: numba would compile a second,
# literal-typed search for it, whose recursive calls then found no search to call
ROOT = '''
def root(state, depth, ply, alpha, beta, moves, scores, killers, history, pv, pv_length, tt,
         ctx, stop, timeout, path, seen):
    ws = (moves, scores, killers, history, pv, pv_length, tt, ctx, stop, timeout, path, seen)
    return negamax(state, depth, ply, alpha, beta, ws,
                   generate, make, unmake, evaluate, key, order, terminal)
'''
KERNEL_NAMES = ("generate", "make", "unmake", "evaluate", "key", "order", "terminal")


def compiler_present() -> str | None:
    """Why no extension can be built here (no C compiler, no Python headers), or None."""
    command = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(command) is None:
        return f"no C compiler ({command})"
    include = sysconfig.get_paths().get("include", "")
    if not os.path.isfile(os.path.join(include, "Python.h")):
        return f"no Python headers (Python.h in {include})"
    return None


def warmup(game: str, kernels: Kernels) -> Path | None:
    """`build` for `aviary warmup`: where no C compiler is present, or the build fails, one
    line on stderr says so and the JIT engine stays the one a course command loads."""
    missing = compiler_present()
    if missing is not None:
        print(f"aviary: {game}'s search is not compiled ahead of time ({missing}); a cold "
              "course command loads numba instead", file=sys.stderr)
        return None
    try:
        return build(game, kernels)
    except Exception as error:  # noqa: BLE001 - any failure leaves the JIT engine, said
        print(f"aviary: {game}'s search could not be compiled ahead of time "
              f"({type(error).__name__}: {error}); a cold course command loads numba "
              "instead", file=sys.stderr)
        return None


def build(game: str, kernels: Kernels, *, quiet: bool = True) -> Path:
    """`game`'s extension for the current sources, built now unless it already is; its path.

    `kernels`: the game's seven alpha-beta kernels as its searcher holds them (the cfuncs
    of `aviary.search.kernels`). Extensions of `game` built from other sources are
    deleted, and so is one that does not load (a damaged file: it is built again).
    Raises RuntimeError where no C compiler is present.
    """
    missing = compiler_present()
    if missing is not None:
        raise RuntimeError(f"cannot compile {game}'s search ahead of time: {missing}")
    target = compiled.extension_path(game)
    if target.is_file() and loads(game, target):
        return target
    root = compiled.root_directory()
    root.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(prefix=f".{game}-", dir=root))
    try:
        _compile(game, kernels, building, quiet)
        if target.parent.exists():
            shutil.rmtree(target.parent, ignore_errors=True)  # a damaged folder or file
        try:
            os.replace(building, target.parent)  # whole folder at once: never half built
        except OSError:
            if not target.is_file():  # not another process's build finished first
                raise
    finally:
        shutil.rmtree(building, ignore_errors=True)
    for stale in root.glob(f"{game}-*"):
        if stale != target.parent:
            shutil.rmtree(stale, ignore_errors=True)
    return target


def loads(game: str, path: Path) -> bool:
    """Whether the extension at `path` loads and holds its search: tried in a child, since
    a damaged file may crash the process that loads it."""
    code = ("import sys\nfrom pathlib import Path\n"
            "from aviary.search.compiled import load_module\n"
            "load_module(sys.argv[1], Path(sys.argv[2])).negamax\n")
    try:
        return subprocess.run([sys.executable, "-c", code, game, str(path)],
                              capture_output=True, timeout=120).returncode == 0
    except subprocess.TimeoutExpired:
        return False


def _compile(game: str, kernels: Kernels, directory: Path, quiet: bool) -> None:
    from numba.core.errors import NumbaPendingDeprecationWarning

    from aviary.search.alphabeta import negamax
    from aviary.search.kernels import unwrap

    with warnings.catch_warnings():  # pycc is "pending deprecation" since numba 0.57
        warnings.simplefilter("ignore", NumbaPendingDeprecationWarning)
        import numba.pycc  # noqa: F401

    if kernels.chance is not None:
        raise ValueError("ahead of time: alpha-beta's kernels only, not a game with chance")
    namespace: dict[str, Any] = {"negamax": negamax}
    namespace.update(zip(KERNEL_NAMES, map(unwrap, kernels.alphabeta), strict=True))
    exec(compile(ROOT, f"<{game} compiled search>", "exec"), namespace)
    cc = _compiler_cc()(compiled.module_name(game), source_module=__name__)
    cc.output_dir = str(directory)
    cc.output_file = compiled.module_name(game) + compiled.SUFFIX
    cc.verbose = not quiet
    cc.export("negamax", SIGNATURE)(namespace["root"])
    with _quiet(quiet), _nogil_exports(), _no_cache_for_bound_kernels():
        cc.compile()


@contextmanager
def _quiet(quiet: bool) -> Iterator[None]:
    """The C compiler's command lines and warnings off stdout and stderr."""
    if not quiet:
        yield
        return
    saved = os.dup(1), os.dup(2)
    with open(os.devnull, "w") as null:
        os.dup2(null.fileno(), 1)
        os.dup2(null.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])


@contextmanager
def _no_cache_for_bound_kernels() -> Iterator[None]:
    """numba's disk cache neither read nor written for a signature with a kernel bound in.

    Binding the kernels as globals types them as the kernels' dispatchers, and numba keys
    its cache by such a type through a weak reference to the dispatcher. Saved, such an
    entry never matched again (each build added one more to the search's cache index);
    and a process that loaded the index rebuilt those dispatchers only weakly held, so the
    next save of the index failed (`ReferenceError: underlying object has vanished`) and
    the extension was not built. The kernels' own entries are still used."""
    from numba.core import caching, types

    load, save = caching.Cache.load_overload, caching.Cache.save_overload

    def bound(sig: Any) -> bool:
        return any(isinstance(arg, types.Dispatcher) for arg in getattr(sig, "args", sig))

    def load_unless_bound(self: Any, sig: Any, target_context: Any) -> Any:
        return None if bound(sig) else load(self, sig, target_context)

    def save_unless_bound(self: Any, sig: Any, data: Any) -> None:
        if not bound(sig):
            save(self, sig, data)

    caching.Cache.load_overload = load_unless_bound  # type: ignore[method-assign]
    caching.Cache.save_overload = save_unless_bound  # type: ignore[method-assign]
    try:
        yield
    finally:
        caching.Cache.load_overload = load  # type: ignore[method-assign]
        caching.Cache.save_overload = save  # type: ignore[method-assign]


@contextmanager
def _nogil_exports() -> Iterator[None]:
    """pycc compiles its exports with these flags: the GIL released (see the module)."""
    from numba.pycc import compiler as pycc_compiler

    flags = pycc_compiler.Flags

    class _NoGilFlags(flags):  # type: ignore[misc, valid-type]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.release_gil = True

    setattr(pycc_compiler, "Flags", _NoGilFlags)  # noqa: B010 - numba's name, swapped
    try:
        yield
    finally:
        setattr(pycc_compiler, "Flags", flags)  # noqa: B010


def _module_compiler() -> Any:
    """`pycc`'s module compiler, its recursive calls resolved inside the module."""
    import llvmlite.binding as llvm
    from numba.core.codegen import RuntimeLinker
    from numba.pycc.compiler import ModuleCompiler

    class Compiler(ModuleCompiler):
        def _cull_exports(self) -> Any:
            library = super()._cull_exports()
            module = library._final_module
            defined = {function.name for function in module.functions
                       if not function.is_declaration}
            prefix = RuntimeLinker.PREFIX
            pointers = []
            for variable in module.global_variables:
                name = variable.name
                if name.startswith(prefix) and name[len(prefix):] in defined:
                    target = name[len(prefix):]
                    pointers.append(f'declare void @"{target}"()\n'
                                    f'@"{name}" = global ptr @"{target}"\n')
            if pointers:
                resolved = llvm.parse_assembly("".join(pointers))
                resolved.triple = module.triple
                module.link_in(resolved)
            return library

    return Compiler


def _compiler_cc() -> Any:
    from numba.core.compiler_lock import global_compiler_lock
    from numba.pycc import CC

    class CompilerCC(CC):
        """numba's CC with `_module_compiler` (as `CC._compile_object_files`)."""

        @global_compiler_lock
        def _compile_object_files(self, build_dir: str) -> tuple[list[str], list[str]]:
            compiler = _module_compiler()(self._export_entries, self._basename,
                                          self._use_nrt, cpu_name=self._target_cpu)
            compiler.external_init_function = self._init_function
            temp_obj = os.path.join(build_dir, os.path.splitext(self._output_file)[0] + ".o")
            compiler.write_native_object(temp_obj, wrap=True)
            return [temp_obj], compiler.dll_exports

    return CompilerCC
