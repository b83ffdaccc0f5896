"""The anytime engine, once for every game: rules in, compiled search underneath, moves out.

A game's `engine.py` supplies a `Searcher` (its kernels, how a state becomes the
kernel array and how a kernel move code becomes a rules move); `Engine` does the
rest: a `Report` per completed depth (`think`), the one-call `best_move` with
time and depth limits, one reusable `Workspace` per thread and board shape (the
transposition table survives across moves), the caller's stop flag, and the
rules-only quick player where the kernels do not reach.
"""

from __future__ import annotations

import threading
import time as clock
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any, Generic, TypeVar

import numpy as np

from aviary.errors import NoMoveError
from aviary.games.base import Game, Move, State, TableUse, Verdict
from aviary.search import perft
from aviary.search.alphabeta import MATE, Workspace
from aviary.search.clock import Limit, budget
from aviary.search.deepening import RawReport, iterate

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
    """What a game gives the compiled search. Subclasses set `kernels` and the three methods.

    `chance_bounds` (lowest, highest evaluation) marks a game with chance nodes:
    its states are searched by expectiminimax with those bounds for pruning.
    `null_move` turns on the alpha-beta's null-move pruning: only for a game whose
    make/unmake kernels handle `aviary.search.alphabeta.PASS`.
    """

    kernels: tuple[Any, ...] = ()
    chance_bounds: tuple[int, int] | None = None
    null_move: bool = False

    def state_array(self, state: State) -> np.ndarray | None:
        """The kernel state of `state`, or None where the kernels do not reach."""
        raise NotImplementedError

    def move(self, state: State, code: int) -> Move:
        """The rules move a kernel move code stands for in `state`."""
        raise NotImplementedError

    def shape(self, state: State) -> tuple[Hashable, int]:
        """(workspace key, most moves a position can have): states sharing a key share tables."""
        raise NotImplementedError

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
        array = self.state_array(state)
        if array is None:
            return None
        return perft.count(array, depth, self.kernels, self.shape(state)[1])

    def kernel_moves(self, state: State) -> list[Move] | None:
        """The kernels' legal moves of `state` as rules moves (None where they do not reach).

        The conformance suite checks them equal to the rules' on random positions.
        """
        return None


@dataclass(frozen=True)
class Report(Generic[Move]):
    """One completed depth: the move it recommends and how it got there."""

    depth: int
    score: int
    move: Move
    answer: str  # the course's answer line for `move` (the board after it, for most games)
    pv: tuple[Move, ...]
    nodes: int
    nps: float
    seconds: float
    seldepth: int = 0

    @property
    def mate_in(self) -> int | None:
        """Plies to a forced result (positive: the mover wins), or None if not proven."""
        if abs(self.score) < MATE // 2:
            return None
        plies = MATE - abs(self.score)
        return plies if self.score > 0 else -plies

    def describe(self) -> str:
        """`depth 7  score +35  nodes 120k` style one-liner for logs and terminals."""
        mate = self.mate_in
        score = (f"win in {mate}" if mate is not None and mate > 0 else
                 f"loss in {-mate}" if mate is not None else f"{self.score:+d}")
        return (f"depth {self.depth:>2}  score {score:>9}  nodes {self.nodes:>9,}  "
                f"{self.nps / 1000:,.0f} kn/s  {self.seconds:.2f} s")


class MovePlayer(Generic[State, Move]):
    """A player that is one `best_move(state, time=, depth=)` function (a fixed-depth player)."""

    def __init__(self, game: Game[State, Move], function: Callable[..., Move],
                 warmup: Callable[[], None] | None = None) -> None:
        self.game, self.function = game, function
        self._warmup = warmup

    def warmup(self) -> None:
        if self._warmup is not None:
            self._warmup()

    def best_move(self, state: State, *, time: float | None = None, depth: int | None = None,
                  nodes: int | None = None, stop: np.ndarray | None = None,
                  history: Sequence[State] = (), tables: TableUse | None = None) -> Move:
        return self.function(state, time=time, depth=depth)  # a node limit it cannot keep


class Engine(Generic[State, Move]):
    """Any game's anytime engine: `think` yields a `Report` per depth, `best_move` one move.

    `next_depth_share`: under a time limit, `best_move` starts no new depth once this
    share of the time has gone (the next depth would most likely be cut and thrown
    away); 1.0 searches until the deadline.
    """

    next_depth_share = 0.45

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
        self._workspaces = threading.local()
        self._known_keys: dict[State, int | None] = {}  # of history positions, see `_keys`

    def warmup(self) -> None:
        """Compile (or load from numba's cache) the search for this game: a short search."""
        for _ in self.think(self.game.start(), Limit(depth=2)):
            pass

    def workspace(self, state: State) -> Workspace:
        """This thread's reusable search arrays for `state`'s board shape."""
        key, max_moves = self.searcher.shape(state)
        cache: dict[Hashable, Workspace] = self._workspaces.__dict__.setdefault("by_shape", {})
        if key not in cache:
            cache[key] = Workspace(max_moves)
        return cache[key]

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
        entered = clock.monotonic()
        game = self.game
        if game.outcome(state) is not None or not game.legal_moves(state):
            return
        if self.tables is not None:
            use = tables or ("cached" if limit.time is not None else "build")
            verdict = self.tables(state, use) if use != "off" else None
            if verdict is not None and verdict.move is not None:
                yield self._table_report(state, verdict)
                return
        array = self.searcher.state_array(state)
        if array is None:
            if self.quick is None:
                return
            move = self.quick(state)
            yield Report(1, 0, move, game.answer(state, move), (move,), 0, 0.0, 0.0)
            return
        keys = self._keys(history)
        workspace = self.workspace(state)
        if limit.time is not None:  # the time limit counts from the call: set-up included
            limit = replace(limit, time=max(limit.time - (clock.monotonic() - entered), 0.001))
        for raw in iterate(array, self.searcher.kernels, workspace, limit,
                           **self._search_options(stop, keys)):
            yield self._report(state, raw)

    def decided(self, score: int) -> bool:
        """True when a root `score` ends the iterations early (the searcher says)."""
        return self.searcher.decided(score)

    def _keys(self, history: Sequence[State]) -> tuple[int, ...]:
        """Kernel keys of the game's earlier positions: repeating one of them is a draw.

        A game's history grows by a ply or two a move, so the keys are remembered
        (a 600-ply game would otherwise spend up to 40 ms of each move on them).
        """
        known = self._known_keys
        if len(known) > 1 << 16:  # many games played: start afresh
            known.clear()
        keys = []
        for state in history:
            if state not in known:
                known[state] = self.searcher.key(state)
            key = known[state]
            if key is not None:
                keys.append(key)
        return tuple(keys)

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

    def _report(self, state: State, raw: RawReport) -> Report[Move]:
        pv: list[Move] = []
        here = state
        for code in raw.pv:  # a chance game's PV may pass through chance outcomes
            if self.game.outcome(here) is not None:
                break
            move = self.searcher.move(here, code)
            pv.append(move)
            here = self.game.play(here, move)
        first = pv[0]
        return Report(raw.depth, raw.score, first, self.game.answer(state, first), tuple(pv),
                      raw.nodes, raw.nps, raw.seconds, raw.seldepth)

    def best_move(
        self,
        state: State,
        *,
        time: float | None = None,
        depth: int | None = None,
        nodes: int | None = None,
        stop: np.ndarray | None = None,
        history: Sequence[State] = (),
        tables: TableUse | None = None,
    ) -> Move:
        """The move within `time` seconds, to `depth` plies and/or `nodes` nodes (none: 1 s).

        With a time limit it stops early once another depth is unlikely to finish
        (`next_depth_share`), and at any limit once the score is `decided`.
        Raises NoMoveError when the mover has no legal move.
        """
        started = clock.monotonic()
        moves = self.game.legal_moves(state)
        if not moves:
            raise NoMoveError(f"player {self.game.label(state)} has no legal move")
        if len(moves) == 1:
            return moves[0]
        if time is None and depth is None and nodes is None:
            time = 1.0
        move = moves[0]
        spent = clock.monotonic() - started
        limit = Limit(time=None if time is None else max(budget(time) - spent, 0.001),
                      depth=depth, nodes=nodes)
        for report in self.think(state, limit, stop=stop, history=history, tables=tables):
            move = report.move
            if self.decided(report.score):
                break
            if time is not None and clock.monotonic() - started > self.next_depth_share * time:
                break
        return move
