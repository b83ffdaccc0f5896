"""Browser games: one `GameSession` per game a page plays, each owning its engine search.

A session holds the game so far (a `Match`: undo takes moves back), plays chance
events itself with its own seeded generator, and thinks in the engine processes
(`workers.py`), which keep the compiled engines and their tables warm. Every
search polls its session's own stop flag: "move now", undo, a new position, a
closed tab and reclaiming an idle session each set it, and a result that
arrives for a position the session has left is dropped.

A session is only a cache: the page keeps the whole game (options, starting
position, every ply's notation, chance events included) in its URL, and a new
session replays it (`Sessions.create(moves=...)`). So a reload, a shared link
and a session reclaimed after idling all come back to the same game.
"""

from __future__ import annotations

import asyncio
import random
import secrets
import threading
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from aviary.arena import ladder
from aviary.errors import UsageError
from aviary.games import registry, views
from aviary.games.base import Game, IllegalMove, Outcome
from aviary.games.match import Match
from aviary.games.registry import GameSpec
from aviary.search.clock import WEB_MAX_SECONDS, Deadline, Lateness, check_seconds
from aviary.web import review
from aviary.web.workers import ProcessSearches, Thought

MOVE_LIMIT_REASON = "move-limit"
RESIGNED_REASON = "resigned"
AGREED_REASON = "agreed"  # a draw offered by `resigned` and accepted
ENDINGS = (RESIGNED_REASON, "time", AGREED_REASON)  # how a game ends before its rules end it
MOST_REPLAYED = 5000  # plies a new session replays from a page's record
DRAW_MARGIN = 50  # the engine takes a draw only this far behind (a hundred: a piece or pawn)


class SessionError(Exception):
    """A request this session refuses; `status` is the HTTP status to answer with."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class Ply:
    """One ply as the page lists it: notation, who played it (-1: chance), the squares it
    joins, and the engine's score for it (the first player's point of view) if it searched."""

    text: str
    chance: bool
    mover: int = -1
    start: int | None = None
    end: int | None = None
    score: int | None = None
    mate_in: int | None = None


@dataclass
class GameSession:
    id: str
    spec: GameSpec
    game: Game[Any, Any]
    match: Match[Any, Any]
    plies: list[Ply] = field(default_factory=list)  # one per move of `match`
    max_plies: int = 0  # 0: no limit
    rng: random.Random = field(default_factory=random.Random)
    last_used: float = field(default_factory=time.monotonic)
    stop: np.ndarray | None = None  # the running search's flag
    version: int = 0  # bumped by every change of position
    searched: float = 0.0  # seconds the last search ran in its worker
    origin: tuple[str, str] | None = None  # (board, player) set by hand, else the start
    resigned: int | None = None  # the player who resigned (or whose clock ran out)
    ending: str = RESIGNED_REASON
    humans: frozenset[int] | None = None  # the sides people play; None: no check
    level: ladder.Level | None = None  # the engine plays as this ladder level, not by time

    @property
    def state(self) -> Any:
        return self.match.state

    def touch(self) -> None:
        self.last_used = time.monotonic()

    @property
    def thinking(self) -> bool:
        return self.stop is not None

    def decisions(self) -> int:
        return self.match.decisions

    def outcome(self) -> Outcome | None:
        if self.resigned is not None:
            winner = None if self.ending == AGREED_REASON else 1 - self.resigned
            return Outcome(winner, self.ending)
        outcome = self.match.outcome
        if outcome is None and self.max_plies and self.decisions() >= self.max_plies:
            return Outcome(None, MOVE_LIMIT_REASON)
        return outcome

    def cancel(self) -> None:
        """Stop the running search, if any (its answer will not be played)."""
        if self.stop is not None:
            self.stop[0] = 1
        self.version += 1

    # --- changes of position -------------------------------------------------------------

    def _list_new_plies(self) -> None:
        """A `Ply` for each move the match has played since the page's list was last made."""
        game, shape = self.game, self.game.board()
        for index in range(len(self.plies), self.match.plies):
            state, played = self.match.states[index], self.match.moves[index]
            text = game.move_text(state, played.move)
            start, end = views.move_squares(game, state, played.move, text, shape)
            self.plies.append(Ply(text, played.is_chance, played.mover, start, end))

    def _play_chance(self) -> None:
        self.match.play_chances(self.rng)
        self._list_new_plies()

    def play(self, text: str, ply: int | None = None, engine: bool = False) -> None:
        """Play the move written `text` for the side to move; SessionError if it cannot be.

        A person's move (not `engine`) is refused with 409 when the engine plays the side
        to move (`humans`), and, given `ply` (the plies the page had seen), when the game
        has moved on since: a second post of the same move, a double click or two
        inputs at once apply once, and no side moves twice in a row by mistake.
        """
        if self.thinking:
            raise SessionError(409, "the engine is thinking; press 'move now' or wait")
        if self.outcome() is not None:
            raise SessionError(409, "the game is over")
        if ply is not None and ply != len(self.plies):
            raise SessionError(409, f"the game has moved on: {len(self.plies)} plies played, "
                                    f"the move was meant for ply {ply + 1}")
        mover = self.game.to_move(self.state)
        if not engine and self.humans is not None and mover not in self.humans:
            raise SessionError(409, f"it is the engine's turn ({self.game.labels[mover]} "
                                    "to move), not yours")
        try:
            move = self.game.parse_move(self.state, text)
        except IllegalMove as error:
            raise SessionError(400, str(error)) from None
        self.version += 1
        self.match.play(move)
        self._list_new_plies()
        self._play_chance()

    def set_humans(self, humans: list[int] | None) -> None:
        """The sides people play (None: any request may move either side)."""
        if humans is not None and not set(humans) <= {0, 1}:
            raise SessionError(400, "humans lists the sides people play: 0, 1 or both")
        self.humans = None if humans is None else frozenset(humans)

    def replay(self, texts: list[str]) -> None:
        """Play the plies written `texts` (chance events too) from the current position."""
        if len(texts) > MOST_REPLAYED:
            raise SessionError(400, f"at most {MOST_REPLAYED} plies can be replayed")
        for number, text in enumerate(texts, 1):
            if self.outcome() is not None:
                raise SessionError(400, f"ply {number} ({text}) comes after the game ended")
            try:
                move = self.game.parse_move(self.state, text)
            except IllegalMove as error:
                raise SessionError(400, f"ply {number} of the game: {error}") from None
            self.match.play(move)
            self._list_new_plies()
        self._play_chance()

    def resign(self, player: int, reason: str = RESIGNED_REASON) -> None:
        """`player` gives the game up, loses on `time`, or has a draw `agreed` (undo takes
        any of them back)."""
        if player not in (0, 1):
            raise SessionError(400, "player must be 0 or 1")
        if reason not in ENDINGS:
            raise SessionError(400, f"reason must be one of: {', '.join(ENDINGS)}")
        if self.outcome() is not None:
            raise SessionError(409, "the game is over")
        self.cancel()
        self.resigned, self.ending = player, reason

    def undo(self, count: int) -> None:
        """Take back `count` moves (with the chance events after each); a resignation
        is taken back first, without counting as a move."""
        if count < 1:
            raise SessionError(400, "undo needs a count of at least 1")
        if self.resigned is not None:
            self.cancel()
            self.resigned = None
            count -= 1
            if count == 0:
                return
        if count > self.decisions():
            raise SessionError(400, f"cannot undo {count} moves: {self.decisions()} played")
        self.cancel()
        self.match.back_to_turn((0, 1), times=count)
        del self.plies[self.match.plies:]

    def set_position(self, board: str, player: str, chance: bool = True) -> None:
        """Start again from the course board text `board` with `player` to move (and the
        chance events there, unless `chance` is False: a replay brings its own)."""
        try:
            state = self.game.parse(board.strip(), player.strip())
        except (ValueError, KeyError, IndexError) as error:
            raise SessionError(400, f"not a {self.spec.name} position: {error}") from None
        over = self.game.outcome(state)
        if over is not None:  # nothing to play: most likely a mistyped board
            raise SessionError(400, f"that {self.spec.name} position is already over "
                                    f"({views.outcome_text(self.game, over)}): "
                                    "set one where the game goes on")
        self.cancel()
        self.match.restart(state)
        self.plies = []
        self.origin = (self.game.format(state), player.strip())
        self.resigned = None
        if chance:
            self._play_chance()

    # --- what the page draws -------------------------------------------------------------

    def view(self) -> dict[str, Any]:
        game, state = self.game, self.state
        shape = game.board()
        board = game.format(state)
        outcome = self.outcome()
        moves: list[views.MoveView] = []
        if outcome is None and not game.is_chance(state):
            for move in game.legal_moves(state):
                text = game.move_text(state, move)
                start, end = views.move_squares(game, state, move, text, shape)
                moves.append(views.MoveView(text, start, end))
        learnt = views.piece_owners(type(game), tuple(sorted(game.settings.items())))
        positions = [game.format(before) for before in self.match.states]
        chars = set("".join(positions))
        return {
            "id": self.id,
            "game": self.spec.name,
            "title": game.title or self.spec.name,
            "settings": game.settings,
            "labels": list(game.labels),
            "rows": shape.rows,
            "cols": shape.cols,
            "holes": sorted(shape.holes),
            "board": board,
            "player": None if game.is_chance(state) else game.label(state),
            "to_move": game.to_move(state),
            "moves": [vars(move) for move in moves],
            "keys": views.keyboard([move.text for move in moves]),
            "owners": {char: views.owner_of(char, learnt) for char in sorted(chars)
                       if views.owner_of(char, learnt) is not None},
            "outcome": None if outcome is None else {
                "winner": outcome.winner, "reason": outcome.reason,
                "text": views.outcome_text(game, outcome)},
            "history": [vars(ply) for ply in self.plies],
            "positions": positions,
            "origin": None if self.origin is None else {"board": self.origin[0],
                                                        "player": self.origin[1]},
            "resigned": self.resigned,
            "ending": None if self.resigned is None else self.ending,
            "decisions": self.decisions(),
            "max_plies": self.max_plies,
            "thinking": self.thinking,
            "humans": None if self.humans is None else sorted(self.humans),
            "level": None if self.level is None else {
                "name": self.level.name, "elo": self.level.elo,
                "player": ladder.describe(self.level.spec)},
        }


def ladder_level(game: Game[Any, Any], name: str) -> ladder.Level:
    """Level `name` of the ladder of `game`'s settings; SessionError 400 saying why not."""
    try:
        found = ladder.load(game)
    except UsageError as error:
        raise SessionError(400, f"no levels here: {error}") from None
    try:
        return found.level(name)
    except KeyError:
        names = ", ".join(level.name for level in found.levels)
        raise SessionError(400, f"no level {name!r} on the {game.name} {ladder.key(game)} "
                                f"ladder; its levels: {names}") from None


class Sessions:
    """Every live browser game, the engine processes they think in, and idle reclaiming.

    `pool` (threads) is for other slow work off the event loop (the tools' pages).
    """

    def __init__(self, workers: int = 8, idle_seconds: float = 1800.0,
                 most: int = 500) -> None:
        self.pool = ThreadPoolExecutor(max_workers=4, thread_name_prefix="aviary-tools")
        self.workers = workers
        self._searches: ProcessSearches | None = None
        self.idle_seconds = idle_seconds
        self.most = most
        self._sessions: dict[str, GameSession] = {}
        self._lock = threading.Lock()  # `create` runs off the event loop, in `pool`
        self.lateness = Lateness()  # how late searches have lately come back
        self._reviews: dict[str, review.Review] = {}  # oldest first

    def __len__(self) -> int:
        return len(self._sessions)

    def create(self, name: str, options: dict[str, Any], board: str | None = None,
               player: str | None = None, max_plies: int = 0,
               seed: int | None = None, moves: list[str] | None = None,
               resigned: int | None = None, ending: str = RESIGNED_REASON,
               humans: list[int] | None = None, level: str | None = None) -> GameSession:
        """A new game; with `moves`, the game a page recorded: its plies (chance events
        included) replayed from the start or from `board`, and who `resigned`, if anyone;
        `humans`: the sides people play; `level`: the ladder level the engine plays as
        (the game's settings must have a ladder).

        With `most` games open, the least recently used one, whoever made it, is closed
        (one not thinking): a session is only a cache of the game its page keeps, and a
        page whose session was closed makes it again from its record at its next move.
        So nobody is locked out, and addresses do not matter (behind a proxy all share
        one)."""
        if name not in registry.GAMES:
            known = ", ".join(spec.name for spec in registry.board_games())
            raise SessionError(404, f"unknown board game {name!r}; known: {known}")
        if max_plies < 0:
            raise SessionError(400, "max_plies must be 0 (no limit) or more")
        spec = registry.GAMES[name]
        try:
            game = spec.game_class().from_text({k: str(v) for k, v in options.items()})
        except ValueError as error:
            raise SessionError(400, str(error)) from None
        session = GameSession(secrets.token_urlsafe(12), spec, game, Match(game),
                              max_plies=max_plies, rng=random.Random(seed))
        session.set_humans(humans)
        if level is not None:
            session.level = ladder_level(game, level)
        if board is not None:
            session.set_position(board, player if player is not None else game.labels[0],
                                 chance=moves is None)
        if moves is None:
            session._play_chance()
        else:
            session.replay(moves)
        if resigned is not None:
            session.resign(resigned, ending)
        with self._lock:
            self.reclaim()
            idle = [s for s in self._sessions.values() if not s.thinking]
            if len(self._sessions) >= self.most and idle:
                for closed in sorted(idle, key=lambda s: s.last_used)[
                        :len(self._sessions) - self.most + 1]:
                    self.close(closed.id)
            if len(self._sessions) >= self.most:
                raise SessionError(503, f"the server's {self.most} games are all thinking; "
                                        "try again in a few seconds")
            self._sessions[session.id] = session
        return session

    def get(self, session_id: str) -> GameSession:
        session = self._sessions.get(session_id)
        if session is None:
            raise SessionError(404, f"no game {session_id!r} (finished long ago, or never made)")
        session.touch()
        return session

    def close(self, session_id: str) -> None:
        session = self._sessions.pop(session_id, None)
        if session is not None:
            session.cancel()

    def reclaim(self, now: float | None = None) -> int:
        """Close sessions idle longer than `idle_seconds`; how many were closed."""
        now = time.monotonic() if now is None else now
        idle = [s.id for s in list(self._sessions.values())
                if not s.thinking and now - s.last_used > self.idle_seconds]
        for session_id in idle:
            self.close(session_id)
        return len(idle)

    @property
    def searches(self) -> ProcessSearches:
        """The engine processes, started on first use."""
        if self._searches is None:
            self._searches = ProcessSearches(self.workers)
        return self._searches

    def warm(self, spec: GameSpec) -> None:
        """Load `spec`'s main engine (default options) in each engine process, in the background."""
        game = spec.make()
        for _ in range(self.workers):
            self.searches.warm(spec, spec.main_engine, tuple(sorted(game.settings.items())))

    def shutdown(self) -> None:
        for session_id in list(self._sessions):
            self.close(session_id)
        self.pool.shutdown(wait=False, cancel_futures=True)
        if self._searches is not None:
            self._searches.shutdown()

    async def think(self, session: GameSession, seconds: float,
                    report: Callable[[Thought], Awaitable[None]],
                    play: bool = True) -> str | None:
        """Search the session's position for `seconds` (less if stopped), reporting each depth;
        then play the best move found (unless `play` is False: a hint). Returns its text,
        or None if the position changed (undo, new position, closed) while thinking.
        """
        if session.thinking:
            raise SessionError(409, "the engine is already thinking")
        if session.outcome() is not None:
            raise SessionError(409, "the game is over")
        mover = session.game.to_move(session.state)
        if play and session.humans is not None and mover in session.humans:
            raise SessionError(409, "it is your turn, not the engine's")
        try:
            check_seconds(seconds, "seconds per move", WEB_MAX_SECONDS)
        except ValueError as error:
            raise SessionError(400, str(error)) from None
        version = session.version
        deadline = Deadline.after(seconds)  # this move's, from the call
        margin = self.lateness.seconds
        game, spec = session.game, session.spec
        state = session.state
        loop = asyncio.get_running_loop()
        thoughts: asyncio.Queue[Thought | None] = asyncio.Queue()

        def heard(thought: dict[str, Any] | None) -> None:  # on the reports' reader thread
            loop.call_soon_threadsafe(thoughts.put_nowait,
                                      None if thought is None else Thought(**thought))

        last: Thought | None = None
        level = session.level if play else None  # hints and draw offers: the full engine
        settings = tuple(sorted(game.settings.items()))
        history = [game.encode(before) for before in session.match.history]
        for attempt in (1, 2):  # a search whose engine process died is tried once more
            if level is not None:
                future, stop = self.searches.start_level(spec, level.spec, settings,
                                                         game.encode(state), history, heard)
            else:
                future, stop = self.searches.start(
                    spec, spec.main_engine, settings, game.encode(state), history,
                    deadline.sooner(margin) if attempt == 1 else Deadline.after(seconds),
                    heard)
            session.stop = stop
            done = asyncio.wrap_future(future)

            def failed(finished: asyncio.Future[Any]) -> None:
                # a worker that fails or dies sends no last report: its failure ends the wait
                if finished.cancelled() or finished.exception() is not None:
                    thoughts.put_nowait(None)

            done.add_done_callback(failed)
            try:
                while (thought := await thoughts.get()) is not None:
                    last = thought
                    await report(thought)
                text, session.searched = await done
                stop_pressed = bool(stop[0])
            except BrokenProcessPool:
                if attempt == 2:
                    raise
                self.searches.replace(future.pool)  # type: ignore[attr-defined]
                if session.version != version:  # nobody waits for this answer any more
                    return None
                while not thoughts.empty():  # a last word that raced the failure
                    thoughts.get_nowait()
                continue
            finally:
                if not future.done():
                    stop[0] = 1
                if session.stop is stop:
                    session.stop = None
            break
        move = None if text is None else game.parse_move(state, text)
        if session.version != version or move is None:
            return None
        assert text is not None
        if not play:
            return text
        mover = game.to_move(state)
        session.play(text, engine=True)
        if last is not None:
            ply = next(ply for ply in reversed(session.plies) if not ply.chance)
            sign = 1 if mover == 0 else -1  # the search scores for the side to move
            ply.score = sign * last.score
            ply.mate_in = None if last.mate_in is None else sign * last.mate_in
        if not stop_pressed and level is None:
            self.lateness.learn(margin - deadline.remaining())  # past seconds - margin
        return text

    def start_review(self, session: GameSession,
                     nodes: int = review.REVIEW_NODES) -> review.Review:
        """Grade every ply of the session's game in an engine process (`review.py`); the
        review fills in as it runs: read it with `get_review`."""
        if not session.plies:
            raise SessionError(400, "no moves to review yet")
        if not 100 <= nodes <= 1_000_000:
            raise SessionError(400, "a review searches 100 to 1,000,000 nodes a position")
        game, spec = session.game, session.spec
        states = list(session.match.states)
        texts = [ply.text for ply in session.plies]
        chance = [ply.chance for ply in session.plies]
        found = review.Review(secrets.token_urlsafe(9), total=len(states))
        self._reviews[found.id] = found
        while len(self._reviews) > review.KEPT:
            del self._reviews[next(iter(self._reviews))]

        def heard(progress: dict[str, Any] | None) -> None:  # on the reports' reader thread
            if progress is not None:
                found.done = max(found.done, int(progress["done"]))

        def graded(finished: Any) -> None:  # on the pool's thread, once the searches are done
            try:
                found.plies, found.values = review.grade_plies(
                    game, states, texts, chance, finished.result())
                found.done = found.total
            except Exception as error:  # a dead process, or a bug: say so, do not hang
                found.error = f"the review failed: {type(error).__name__}: {error}"
            found.finished = True

        self.searches.review(spec, spec.main_engine, tuple(sorted(game.settings.items())),
                             [game.encode(state) for state in states], nodes,
                             heard).add_done_callback(graded)
        return found

    def get_review(self, review_id: str) -> review.Review:
        found = self._reviews.get(review_id)
        if found is None:
            raise SessionError(404, f"no review {review_id!r}")
        return found

    async def offer_draw(self, session: GameSession, player: int,
                         seconds: float = 0.5) -> dict[str, Any]:
        """`player` offers a draw. People always agree (no engine side); the engine searches
        the position for `seconds` and agrees only when its evaluation says it is behind
        (by `DRAW_MARGIN` or a loss found): an even game, or one it is winning, goes on.
        {"accepted", "score", "mate_in"} (the engine's point of view; None: no engine)."""
        if player not in (0, 1):
            raise SessionError(400, "player must be 0 or 1")
        if session.outcome() is not None:
            raise SessionError(409, "the game is over")
        engines = set() if session.humans is None else {0, 1} - session.humans
        if player in engines:
            raise SessionError(409, "that side is the engine's: it offers no draws")
        if not engines:
            session.resign(player, AGREED_REASON)
            return {"accepted": True, "score": None, "mate_in": None}
        engine = engines.pop()
        mover = session.game.to_move(session.state)
        heard: list[Thought] = []

        async def keep(thought: Thought) -> None:
            heard.append(thought)

        if await self.think(session, seconds, keep, play=False) is None or not heard:
            raise SessionError(409, "the position changed while the engine weighed the draw")
        sign = 1 if mover == engine else -1  # the search scores for the side to move
        score = sign * heard[-1].score
        mate_in = None if heard[-1].mate_in is None else sign * heard[-1].mate_in
        accepted = mate_in < 0 if mate_in is not None else score <= -DRAW_MARGIN
        if accepted:
            session.resign(player, AGREED_REASON)
        return {"accepted": accepted, "score": score, "mate_in": mate_in}
