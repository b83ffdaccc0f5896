"""The anytime engine, once for every game: rules in, compiled search underneath, moves out.

A game's `engine.py` supplies a `Searcher` (its kernels, how a state becomes the
kernel array and how a kernel move code becomes a rules move); `Engine` does the
rest: a `Report` per completed depth (`think`), the one-call `best_move` by a
`Deadline` or to depth and node limits, one reusable `Workspace` per thread and
board shape (the transposition table survives across moves), the caller's stop
flag, and the rules-only quick player where the kernels do not reach. `best_move` is
written once, in `DeepeningPlayer`, for every player: the engines, `MovePlayer`, a
game's plain-Python player and OpenSpiel's are all `aviary.games.base.Player`s
through it.
"""

from __future__ import annotations

import operator
import threading
import time as clock
from collections.abc import Callable, Hashable, Iterator, Sequence
from typing import Any, Generic, TypeVar

import numpy as np

from aviary.errors import NoMoveError
from aviary.games.base import Game, Move, Report, State, TableUse, Verdict
from aviary.search.clock import DEPTH_SHARE, Deadline, Limit
from aviary.search.compiled import CompiledSearch
from aviary.search.deepening import iterate
from aviary.search.report import Kernels
from aviary.search.workspace import MATE, Workspace

__all__ = ["DeepeningPlayer", "Engine", "MovePlayer", "Report", "Searcher", "WorkspaceCache",
           "interruptible"]

Result = TypeVar("Result")


def interruptible(work: Callable[..., Result]) -> Result:
    """`work(stop=stop)` on a thread of its own, so that Ctrl-C stops a search at once.

    A compiled search holds the main thread until it returns, and Python runs a
    signal handler only between bytecodes: with the search on the main thread,
    Ctrl-C would wait for the move's whole time. Here the main thread only waits;
    on Ctrl-C it sets `stop[0]` (the search polls it), gives the search a moment
    to end, and raises KeyboardInterrupt.
    """
    stop = np.zeros(1, dtype=np.int64)
    outcome: list[Any] = []

    def run() -> None:
        try:
            outcome.append((True, work(stop=stop)))
        except BaseException as error:  # handed to the waiting thread
            outcome.append((False, error))

    thread = threading.Thread(target=run, name="aviary-search", daemon=True)
    thread.start()
    try:
        while thread.is_alive():
            thread.join(0.05)
    except KeyboardInterrupt:
        stop[0] = 1
        thread.join(1.0)
        raise
    done, value = outcome[0]
    if not done:
        raise value
    return value


class Searcher(Generic[State, Move]):
    """What a game gives the compiled search. Subclasses set `kernels` and the three methods
    `state_array`, `move` and `shape` (required); `key`, `decided` and `kernel_moves` have
    defaults (no repetitions; no early end; the `generate` kernel's moves).

    `kernels`: the game's kernels (`aviary.search.kernels`), or its alpha-beta search
    compiled ahead of time (`aviary.search.compiled.CompiledSearch`), which needs no
    numba: a searcher whose methods need none either then thinks without loading it.

    `chance_bounds` (lowest, highest evaluation) marks a game with chance nodes:
    its states are searched by expectiminimax with those bounds for pruning.
    `null_move` turns on the alpha-beta's null-move pruning: only for a game whose
    make/unmake kernels handle `aviary.search.alphabeta.PASS`. `depth_share` is the
    game's one choice of time policy: `best_move` starts no new depth once this share
    of the move's time has gone (one of `aviary.search.clock`'s constants).
    """

    kernels: Kernels | CompiledSearch
    chance_bounds: tuple[int, int] | None = None
    null_move: bool = False
    depth_share: float = DEPTH_SHARE

    def state_array(self, state: State) -> np.ndarray | None:
        """The kernel state of `state`, or None where the kernels do not reach."""
        raise NotImplementedError

    def move(self, state: State, code: int) -> Move:
        """The rules move a kernel move code stands for in `state`."""
        raise NotImplementedError

    def shape(self, state: State) -> tuple[Hashable, int]:
        """(workspace key, most moves a position can have): states sharing a key share tables.

        Required: the search's move buffers are that long, and its tables are kept by key."""
        raise NotImplementedError(f"{type(self).__name__} must say its shape(state)")

    def key(self, state: State) -> int | None:
        """The Zobrist key the kernels give `state` (None: the game has no repetitions)."""
        return None

    def decided(self, score: int) -> bool:
        """True when a root `score` is a result no deeper search can change (alpha-beta's
        proven wins and losses already end the iterations; a chance game says its own)."""
        return False

    def perft(self, state: State, depth: int) -> int | None:
        """The kernels' count of move sequences of length `depth` from `state`, or None where
        they do not reach: checked equal to the rules' (`Game.perft`) by each game's tests."""
        from aviary.search import perft  # numba's

        array = self.state_array(state)
        if array is None or isinstance(self.kernels, CompiledSearch):
            return None
        return perft.count(array, depth, self.kernels, self.shape(state)[1])

    def kernel_moves(self, state: State) -> list[Move] | None:
        """The kernels' legal moves of `state` as rules moves (None where they do not reach):
        by default the `generate` kernel's, each through `move`.

        The conformance suite checks them equal to the rules' on random positions.
        """
        from aviary.search import perft  # numba's

        array = self.state_array(state)
        if array is None or isinstance(self.kernels, CompiledSearch):
            return None
        codes = perft.moves(array, self.kernels, self.shape(state)[1])
        return [self.move(state, code) for code in codes]


class WorkspaceCache(Generic[Result]):
    """Search arrays per thread and board shape, made on first use by `make(max_moves)`:
    a thread's transposition table survives across its moves."""

    def __init__(self, make: Callable[[int], Result]) -> None:
        self.make = make
        self._local = threading.local()

    def get(self, key: Hashable, max_moves: int) -> Result:
        cache: dict[Hashable, Result] = self._local.__dict__.setdefault("by_shape", {})
        if key not in cache:
            cache[key] = self.make(max_moves)
        return cache[key]

    def clear(self) -> None:
        """Drop every thread's arrays: the next search makes fresh ones."""
        self._local = threading.local()


class DeepeningPlayer(Generic[State, Move]):
    """A player whose `think` deepens one depth at a time: `best_move` written once.

    Subclasses give `game` and `think`; `best_move` keeps the deadline (its search ends
    by `Deadline.search_until`, and no new depth starts once `depth_share` of the move's
    time has gone: the next depth would most likely be cut and thrown away) and stops
    once a score is `decided`. A game's own plain-Python player (a new game before it
    has kernels) is one of these as much as the compiled `Engine`.
    """

    game: Game[State, Move]
    counts_nodes = True

    @property
    def depth_share(self) -> float:
        """The share of a move's time after which `best_move` starts no new depth."""
        return DEPTH_SHARE

    def warmup(self) -> None:
        """Nothing to compile (an `Engine` loads its compiled search here)."""

    def new_game(self) -> None:
        """Nothing is kept between games here (an `Engine` drops its tables)."""

    def think(self, state: State, limit: Limit, *, stop: np.ndarray | None = None,
              history: Sequence[State] = ()) -> Iterator[Report[Move]]:
        raise NotImplementedError

    def decided(self, score: int) -> bool:
        """True when a root `score` ends the iterations early (a proven result)."""
        return abs(score) >= MATE // 2

    def _reports(self, state: State, limit: Limit, stop: np.ndarray | None,
                 history: Sequence[State], tables: TableUse | None,
                 whole_pv: bool = True) -> Iterator[Report[Move]]:
        """`best_move`'s reports; `whole_pv` False when nobody reads more of a report's
        principal variation than its first move (a player may then skip the rest)."""
        return self.think(state, limit, stop=stop, history=history)

    def best_move(
        self,
        state: State,
        *,
        deadline: Deadline | None = None,
        time: float | None = None,
        depth: int | None = None,
        nodes: int | None = None,
        stop: np.ndarray | None = None,
        history: Sequence[State] = (),
        on_report: Callable[[Report[Move]], object] | None = None,
        tables: TableUse | None = None,
    ) -> Move:
        """The move by `deadline` (or within `time` seconds), to `depth` plies and/or
        `nodes` nodes (none of them: `aviary.search.clock.DEFAULT_SECONDS`).

        Under a deadline it starts no new depth once `depth_share` of the time has gone,
        and at any limit it stops once the score is `decided`. Each completed depth goes
        to `on_report`. `tables`: which solved tables a player that has them may use
        (`Engine.think`). Raises NoMoveError when the mover has no legal move, ValueError
        for a node limit a player that counts no nodes cannot keep.
        """
        if nodes is not None and not self.counts_nodes:
            raise ValueError(f"{type(self).__name__} takes no node limit (nodes=): it counts "
                             "no nodes")
        limit = Limit.for_move(deadline, time, depth, nodes)  # the move's, by the clock's rules
        moves = self.game.legal_moves(state)
        if not moves:
            raise NoMoveError(f"player {self.game.label(state)} has no legal move")
        if len(moves) == 1:
            return moves[0]
        move = moves[0]
        for report in self._reports(state, limit.searching(), stop, history, tables,
                                    whole_pv=on_report is not None):
            move = report.move
            if on_report is not None:
                on_report(report)
            if self.decided(report.score):
                break
            if not limit.may_start_depth(self.depth_share):
                break
        return move


class MovePlayer(DeepeningPlayer[State, Move]):
    """A player that is one `function(state) -> move` (a fixed-depth player, such as
    Fox-Geese's depth 2): its `think` yields one report, it ignores time (it answers in
    milliseconds) and refuses a node limit, which it cannot keep; `best_move` is every
    player's (`DeepeningPlayer.best_move`)."""

    counts_nodes = False

    def __init__(self, game: Game[State, Move], function: Callable[[State], Move],
                 warmup: Callable[[], None] | None = None, name: str = "this player") -> None:
        self.game, self.function, self.name = game, function, name
        self._warmup = warmup

    def warmup(self) -> None:
        if self._warmup is not None:
            self._warmup()

    def think(self, state: State, limit: Limit, *, stop: np.ndarray | None = None,
              history: Sequence[State] = ()) -> Iterator[Report[Move]]:
        """The one move as one report (depth 0: it is no deepening search)."""
        if limit.nodes is not None:
            raise ValueError(f"{self.name} takes no node limit (nodes=): it searches no nodes")
        if self.game.outcome(state) is not None or not self.game.legal_moves(state):
            return
        started = clock.monotonic()
        move = self.function(state)
        yield Report(0, 0, move, self.game.answer(state, move), (move,), 0, 0.0,
                     clock.monotonic() - started)


class Engine(DeepeningPlayer[State, Move]):
    """Any game's anytime engine: `think` yields a `Report` per depth, `best_move` one move.

    Under a deadline, `best_move` starts no new depth once the searcher's `depth_share`
    of the time has gone (the next depth would most likely be cut and thrown away).
    """

    def __init__(
        self,
        game: Game[State, Move],
        searcher: Searcher[State, Move],
        quick: Callable[[State], Move] | None = None,
        tables: Callable[[State, TableUse], Verdict[Move] | None] | None = None,
    ) -> None:
        self.game, self.searcher = game, searcher
        self.quick = quick
        self.tables = tables
        self._workspaces = WorkspaceCache(Workspace)
        self._known_keys: dict[State, int | None] = {}  # of history positions, see `_keys`
        self._last_keys: tuple[tuple[State, ...], tuple[int, ...]] = ((), ())

    def warmup(self) -> None:
        """Compile (or load from numba's cache) the search for this game: a short search."""
        for _ in self.think(self.game.start(), Limit(depth=2)):
            pass

    def new_game(self) -> None:
        """Fresh transposition tables and move-ordering history for the next game."""
        self._workspaces.clear()

    @property
    def depth_share(self) -> float:
        """The searcher's share (`Searcher.depth_share`: the game's one choice)."""
        return self.searcher.depth_share

    def workspace(self, state: State) -> Workspace:
        """This thread's reusable search arrays for `state`'s board shape."""
        return self._workspaces.get(*self.searcher.shape(state))

    def think(
        self,
        state: State,
        limit: Limit,
        *,
        stop: np.ndarray | None = None,
        history: Sequence[State] = (),
        tables: TableUse | None = None,
    ) -> Iterator[Report[Move]]:
        """A `Report` after each completed depth until `limit` or `stop[0]` is set.

        Nothing when the game is over or the mover has no move. `history` (the
        positions before `state`) lets the search score repetitions as draws. A
        position in the game's solved endgame tables gets one report, the table's:
        `tables` "build" builds a missing table first (seconds, once per machine),
        "cached" reads only tables already built, "off" searches; by default "cached"
        under a time limit (a build would overrun it) and "build" otherwise.
        """
        return self._think(state, limit, stop, history, tables, whole_pv=True)

    def _think(self, state: State, limit: Limit, stop: np.ndarray | None,
               history: Sequence[State], tables: TableUse | None, *, whole_pv: bool
               ) -> Iterator[Report[Move]]:
        """`think`; with `whole_pv` False each report's principal variation is its first
        move alone (playing out the rest through the rules took a quarter of a
        node-bound move's time, and `best_move` without `on_report` reads the move only)."""
        limit = limit.from_now()  # seconds count from the call, set-up included
        game = self.game
        if game.outcome(state) is not None or not game.legal_moves(state):
            return
        if self.tables is not None:
            timed = limit.deadline is not None
            use = tables or ("cached" if timed else "build")
            verdict = self.tables(state, use) if use != "off" else None
            if verdict is not None and verdict.move is not None:
                yield self._table_report(state, verdict)
                return
        array = self.searcher.state_array(state)
        if array is None:
            yield from self._quick_report(state)
            return
        searched = False
        for raw in self._iterate(state, array, limit, stop, history):
            searched = True
            yield self._report(state, raw, whole_pv)
        if not searched and limit.deadline is not None and (stop is None or not stop[0]):
            yield from self._quick_report(state)  # the deadline cut even depth 1

    def _quick_report(self, state: State) -> Iterator[Report[Move]]:
        """The quick player's move as a depth-1 report (none without a quick player)."""
        if self.quick is not None:
            move = self.quick(state)
            yield Report(1, 0, move, self.game.answer(state, move), (move,), 0, 0.0, 0.0)

    def _iterate(self, state: State, array: np.ndarray, limit: Limit, stop: np.ndarray | None,
                 history: Sequence[State]) -> Iterator[Report[int]]:
        """The compiled search's reports for `state` (its kernel `array`)."""
        return iterate(array, self.searcher.kernels, self.workspace(state), limit,
                       **self._search_options(stop, self._keys(history)))

    def decided(self, score: int) -> bool:
        """True when a root `score` ends the iterations early (the searcher says)."""
        return self.searcher.decided(score)

    def _keys(self, history: Sequence[State]) -> tuple[int, ...]:
        """Kernel keys of the game's earlier positions: repeating one of them is a draw.

        A game's history grows by a ply or two a move, so the keys are remembered
        (a 600-ply game would otherwise spend up to 40 ms of each move on them): the
        last history's, when this one goes on from it (the very same positions: no
        position is hashed), else each position's.
        """
        states, keys = self._last_keys
        if len(history) >= len(states) and all(map(operator.is_, states, history)):
            rest = history[len(states):]
        else:
            keys, rest = (), history
        known = self._known_keys
        if len(known) > 1 << 16:  # many games played: start afresh
            known.clear()
        more = []
        for state in rest:
            if state not in known:
                known[state] = self.searcher.key(state)
            key = known[state]
            if key is not None:
                more.append(key)
        keys = keys + tuple(more)
        self._last_keys = (tuple(history), keys)
        return keys

    def _search_options(self, stop: np.ndarray | None, keys: tuple[int, ...]) -> dict[str, Any]:
        options: dict[str, Any] = {"stop": stop, "history": keys}
        if self.searcher.chance_bounds is not None:
            options["bounds"] = self.searcher.chance_bounds
        if self.searcher.null_move:
            options["null_move"] = True
        return options

    def _table_report(self, state: State, verdict: Verdict[Move]) -> Report[Move]:
        """The tables' answer as a Report: a win or loss in d plies is a mate score."""
        assert verdict.move is not None
        score = verdict.result * (MATE - verdict.distance)
        move = verdict.move
        return Report(verdict.distance, score, move, self.game.answer(state, move), (move,),
                      0, 0.0, 0.0)

    def _report(self, state: State, raw: Report[int], whole_pv: bool = True) -> Report[Move]:
        """The game's moves for a compiled search's report (its first move alone unless
        `whole_pv`: the rest is played out through the rules)."""
        pv: list[Move] = [self.searcher.move(state, raw.pv[0])]
        here = state
        for code in raw.pv[1:] if whole_pv else ():
            here = self.game.play(here, pv[-1])
            if self.game.outcome(here) is not None:
                break
            pv.append(self.searcher.move(here, code))  # may be a chance outcome's
        first = pv[0]
        return Report(raw.depth, raw.score, first, self.game.answer(state, first), tuple(pv),
                      raw.nodes, raw.nps, raw.seconds, raw.seldepth)

    def _reports(self, state: State, limit: Limit, stop: np.ndarray | None,
                 history: Sequence[State], tables: TableUse | None,
                 whole_pv: bool = True) -> Iterator[Report[Move]]:
        return self._think(state, limit, stop, history, tables, whole_pv=whole_pv)
