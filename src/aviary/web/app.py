"""The web app: a page per registered game, the classify and horizon tools, the arena.

`create_app(config)` builds a FastAPI app; `aviary serve` runs it with uvicorn.
Pages are static HTML/JS/CSS shipped inside the package (no build step); they
talk to the JSON API below and to one WebSocket per game for the engine's
thinking. Bad requests get a 4xx with `{"detail": message}` and change nothing.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import importlib
import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from fastapi import FastAPI, HTTPException, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field

from aviary.arena import ladder
from aviary.games import registry
from aviary.search.clock import HINT_MAX_SECONDS, check_seconds
from aviary.web.config import AppConfig
from aviary.web.review import REVIEW_NODES
from aviary.web.sessions import GameSession, SessionError, Sessions, Thought
from aviary.web.workers import page_json

STATIC = Path(__file__).parent / "static"
TOOL_PAGES = ("classify", "horizon", "arena")
BODY_LIMIT = 2 * 1024 * 1024  # bytes of a request body (the photo upload has its own limit)
STREAMED_ROUTES = ("/api/horizon/photos",)  # routes that read and limit their own body


class LimitBodies:
    """Refuse a request body over `limit` bytes with 413 before it is read.

    A declared Content-Length over the limit is answered at once, the body unread; a
    body streamed without one (chunked) is counted as it arrives, and once past the
    limit the route is told the client left, and its answer is replaced by the 413.
    Without this a 100 MB JSON body was read whole, and parsed, before any route saw it.
    """

    def __init__(self, app: Any, limit: int = BODY_LIMIT) -> None:
        self.app, self.limit = app, limit

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["path"] in STREAMED_ROUTES:
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length", b"")
        if declared.isdigit() and int(declared) > self.limit:
            await self._refuse(send)
            return
        received, over, answered = 0, False, False

        async def counted() -> Any:
            nonlocal received, over
            if over:
                return {"type": "http.disconnect"}
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.limit:
                    over = True
                    return {"type": "http.disconnect"}
            return message

        async def replaced(message: Any) -> None:
            nonlocal answered
            if not over:
                await send(message)
            elif not answered:
                answered = True
                await self._refuse(send)

        try:
            await self.app(scope, counted, replaced)
        except Exception:
            if not over:
                raise  # a route that reads its body may take the "disconnect" as an error
        if over and not answered:
            await self._refuse(send)

    async def _refuse(self, send: Any) -> None:
        body = json.dumps({"detail": f"request body too large: at most "
                                     f"{self.limit // 1024} KB"}).encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"),
                                (b"content-length", str(len(body)).encode()),
                                (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})


class NewGame(BaseModel):
    options: dict[str, str | int | bool] = Field(default_factory=dict)
    board: str | None = None
    player: str | None = None
    max_plies: int = 0
    seed: int | None = None
    moves: list[str] | None = None  # a recorded game's plies, replayed
    resigned: int | None = None
    ending: str = "resigned"  # or "time" (their clock ran out) or "agreed" (a draw)
    humans: list[int] | None = None  # the sides people play (the engine the others)
    level: str | None = None  # a ladder level the engine plays as (`L3`), not by time


class MoveRequest(BaseModel):
    move: str
    ply: int | None = None  # the plies played when the move was chosen: it applies once


class SidesRequest(BaseModel):
    humans: list[int] | None


class UndoRequest(BaseModel):
    count: int = 1


class ResignRequest(BaseModel):
    player: int
    reason: str = "resigned"  # or "time", or "agreed" (the player's draw offer accepted)


class HintRequest(BaseModel):
    seconds: float = 0.5


class DrawRequest(BaseModel):
    player: int
    seconds: float = 0.5  # the engine's search before it answers


class ReviewRequest(BaseModel):
    nodes: int = REVIEW_NODES  # searched in each position


class PositionRequest(BaseModel):
    board: str
    player: str


def create_app(config: AppConfig | None = None) -> FastAPI:
    config = config or AppConfig()
    sessions = Sessions(workers=config.workers, idle_seconds=config.idle_seconds)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        reaper = asyncio.create_task(_reap(sessions, config.reap_every))
        if config.warmup:
            for spec in registry.board_games():
                sessions.warm(spec)
            for tool in registry.TOOLS.values():
                warm = getattr(_page_module(tool), "warmup", None) if tool.web else None
                if warm is not None:
                    sessions.pool.submit(warm)
        try:
            yield
        finally:
            reaper.cancel()
            sessions.shutdown()

    app = FastAPI(title="aviary", lifespan=lifespan)
    app.add_middleware(LimitBodies)
    app.state.sessions = sessions
    app.state.config = config
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    leaderboards = grade_sites(config.grades)
    for name, folder in leaderboards.items():
        # read-only files; StaticFiles refuses any path (`..`, a symlink) that leaves the folder
        app.mount(f"/grades/{name}", StaticFiles(directory=folder, html=True),
                  name=f"grades-{name}")

    @app.get("/api/grades")
    async def grades() -> list[dict[str, str]]:
        """The leaderboards this server shows (`--grades DIR`): name, title, address."""
        return [{"name": name, "title": _title(folder), "url": f"/grades/{name}/"}
                for name, folder in leaderboards.items()]

    @app.get("/grades", include_in_schema=False)
    @app.get("/grades/", include_in_schema=False)
    async def grades_page() -> HTMLResponse:
        items = "".join(f'<li><a href="/grades/{name}/">{html.escape(_title(folder))}</a> '
                        f'<span class="muted">({html.escape(str(folder))})</span></li>'
                        for name, folder in leaderboards.items())
        body = (f'<ul class="cards">{items}</ul>' if items else
                '<p class="notice">No leaderboard: start the server with <code>--grades '
                'DIR</code>, DIR written by <code>aviary grade ... --out DIR</code>.</p>')
        return HTMLResponse(_GRADES_PAGE.replace("BODY", body))

    @app.exception_handler(SessionError)
    async def session_error(request: Any, error: SessionError) -> JSONResponse:
        return JSONResponse({"detail": str(error)}, status_code=error.status)

    # --- pages -------------------------------------------------------------------------

    @app.get("/", include_in_schema=False)
    async def index() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/play/{name}", include_in_schema=False)
    async def board_page(name: str) -> FileResponse:
        # an unknown game gets the page too (status 404): it shows the one message
        known = name in registry.GAMES
        return FileResponse(STATIC / "board.html", status_code=200 if known else 404)

    @app.get("/favicon.ico", include_in_schema=False)
    async def favicon() -> FileResponse:
        return FileResponse(STATIC / "favicon.svg", media_type="image/svg+xml")

    for page in TOOL_PAGES:
        app.add_api_route(f"/{page}", _page(page), include_in_schema=False, methods=["GET"])
    for tool in registry.TOOLS.values():
        if tool.web is not None:
            _add_game_page(app, tool, sessions)

    # --- board games -------------------------------------------------------------------

    @app.get("/api/games")
    async def games() -> list[dict[str, Any]]:
        return [_describe(spec) for spec in registry.board_games()]

    @app.get("/api/pages")
    async def pages() -> list[dict[str, str]]:
        """The games with a page of their own (not a board): name and summary."""
        return [{"name": spec.name, "summary": spec.summary}
                for spec in registry.TOOLS.values() if spec.web is not None]

    @app.get("/api/games/{name}")
    async def game(name: str) -> dict[str, Any]:
        return _describe(_board_spec(name))

    @app.post("/api/games/{name}/sessions", status_code=201)
    async def new_session(name: str, request: NewGame) -> dict[str, Any]:

        def create() -> dict[str, Any]:  # a large board or a long record: off the event loop
            return sessions.create(name, request.options, request.board, request.player,
                                   request.max_plies, request.seed,
                                   moves=request.moves, resigned=request.resigned,
                                   ending=request.ending, humans=request.humans,
                                   level=request.level).view()

        return await asyncio.get_running_loop().run_in_executor(sessions.pool, create)

    @app.get("/api/sessions/{session_id}")
    async def get_session(session_id: str) -> dict[str, Any]:
        return sessions.get(session_id).view()

    @app.post("/api/sessions/{session_id}/move")
    async def move(session_id: str, request: MoveRequest) -> dict[str, Any]:
        session = sessions.get(session_id)
        session.play(request.move, request.ply)
        return session.view()

    @app.post("/api/sessions/{session_id}/sides")
    async def sides(session_id: str, request: SidesRequest) -> dict[str, Any]:
        """Which sides people play: a person's move for the engine's side is refused."""
        session = sessions.get(session_id)
        session.set_humans(request.humans)
        return session.view()

    @app.post("/api/sessions/{session_id}/undo")
    async def undo(session_id: str, request: UndoRequest) -> dict[str, Any]:
        session = sessions.get(session_id)
        session.undo(request.count)
        return session.view()

    @app.post("/api/sessions/{session_id}/resign")
    async def resign(session_id: str, request: ResignRequest) -> dict[str, Any]:
        session = sessions.get(session_id)
        session.resign(request.player, request.reason)
        return session.view()

    @app.post("/api/sessions/{session_id}/hint")
    async def hint(session_id: str, request: HintRequest) -> dict[str, Any]:
        """The engine's choice for the side to move after a short search, not played."""
        session = sessions.get(session_id)
        _check_short(request.seconds, "a hint's seconds")

        async def ignore(thought: Thought) -> None:
            pass

        move = await sessions.think(session, request.seconds, ignore, play=False)
        if move is None:
            raise HTTPException(409, "the position changed while the hint was searched")
        found = session.view()
        shown = next((m for m in found["moves"] if m["text"] == move), None)
        return {"move": move, "start": None if shown is None else shown["start"],
                "end": None if shown is None else shown["end"]}

    @app.post("/api/sessions/{session_id}/draw")
    async def draw(session_id: str, request: DrawRequest) -> dict[str, Any]:
        """`player` offers a draw: people agree, the engine only when it is behind."""
        session = sessions.get(session_id)
        _check_short(request.seconds, "the seconds to weigh a draw")
        answer = await sessions.offer_draw(session, request.player, request.seconds)
        return {**answer, "view": session.view()}

    @app.post("/api/sessions/{session_id}/review", status_code=202)
    async def start_review(session_id: str, request: ReviewRequest) -> dict[str, Any]:
        """Grade every ply of the game, in an engine process: poll /api/reviews/ID."""
        return sessions.start_review(sessions.get(session_id), request.nodes).view()

    @app.get("/api/reviews/{review_id}")
    async def get_review(review_id: str) -> dict[str, Any]:
        return sessions.get_review(review_id).view()

    @app.post("/api/sessions/{session_id}/position")
    async def position(session_id: str, request: PositionRequest) -> dict[str, Any]:
        session = sessions.get(session_id)
        session.set_position(request.board, request.player)
        return session.view()

    @app.delete("/api/sessions/{session_id}", status_code=204)
    async def close(session_id: str) -> None:
        sessions.get(session_id)
        sessions.close(session_id)

    @app.websocket("/api/sessions/{session_id}/think")
    async def think(socket: WebSocket, session_id: str) -> None:
        await socket.accept()
        try:
            session = sessions.get(session_id)
        except SessionError as error:
            await socket.send_json({"type": "error", "status": error.status,
                                    "message": str(error)})
            await socket.close(code=4404)
            return
        await _think_socket(socket, sessions, session)

    from aviary.web import tools

    tools.add_routes(app, config)
    return app


_GRADES_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>aviary: grades</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="/static/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/static/style.css"></head>
<body><header><a class="home" href="/">aviary</a><h1>grades</h1></header>
<main><section style="flex: 1"><h1>Leaderboards</h1>BODY</section></main></body></html>
"""


def _check_short(seconds: float, name: str) -> None:
    """A hint's or a draw offer's search time (`HINT_MAX_SECONDS` at most), else HTTP 400."""
    try:
        check_seconds(seconds, name, HINT_MAX_SECONDS)
    except ValueError as error:
        raise HTTPException(400, str(error)) from None


def grade_sites(folders: tuple[Path, ...]) -> dict[str, Path]:
    """Each leaderboard folder under a name for its address: the folder's own name, made
    safe for a URL, and numbered when two folders share one."""
    sites: dict[str, Path] = {}
    for folder in folders:
        base = re.sub(r"[^A-Za-z0-9._-]+", "-", folder.resolve().name).strip(".-") or "grades"
        name, number = base, 1
        while name in sites:
            number += 1
            name = f"{base}-{number}"
        sites[name] = folder.resolve()
    return sites


def _title(folder: Path) -> str:
    """The <title> of a leaderboard's index.html (its game and settings), as plain text."""
    try:
        found = re.search(r"<title>(.*?)</title>", (folder / "index.html").read_text(), re.S)
    except OSError:
        found = None
    return html.unescape(found.group(1)).strip() if found else folder.name


def _page(name: str) -> Any:
    async def page() -> FileResponse:
        return FileResponse(STATIC / f"{name}.html")

    page.__name__ = f"{name}_page"
    return page


def _page_module(spec: registry.ToolSpec) -> Any:
    return importlib.import_module(str(spec.web))


def _add_game_page(app: FastAPI, spec: registry.ToolSpec, sessions: Sessions) -> None:
    """`/NAME` (the game's own page) and `POST /api/NAME/ACTION` (its `ACTIONS`, in the pool)."""

    async def page() -> FileResponse:
        return FileResponse(_page_module(spec).PAGE)

    async def action(action: str, request: Request) -> Any:
        try:
            body = await request.json()
        except ValueError:
            raise HTTPException(400, "the request body must be JSON") from None
        except RecursionError:
            raise HTTPException(400, "the request body is JSON nested too deeply") from None
        if not isinstance(body, dict):
            raise HTTPException(400, "the request body must be a JSON object")
        actions = _page_module(spec).ACTIONS
        if action not in actions:
            raise HTTPException(404, f"{spec.name} has no action {action!r}; "
                                     f"one of: {', '.join(actions)}")
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(sessions.pool, actions[action], body)
        except ValueError as error:
            raise HTTPException(400, str(error)) from None

    app.add_api_route(f"/{spec.name}", page, methods=["GET"], include_in_schema=False)
    app.add_api_route(f"/api/{spec.name}/{{action}}", action, methods=["POST"])


def _board_spec(name: str) -> registry.GameSpec:
    spec = registry.GAMES.get(name)
    if spec is None:
        known = ", ".join(s.name for s in registry.board_games())
        raise HTTPException(404, f"unknown board game {name!r}; known: {known}")
    return spec


def _describe(spec: registry.GameSpec) -> dict[str, Any]:
    game_class = spec.game_class()
    return {
        "name": spec.name,
        "title": game_class.title or spec.name,
        "summary": spec.summary,
        "labels": list(game_class.labels),
        "how_to_play": game_class.how_to_play.splitlines(),
        "piece_names": dict(game_class.piece_names),
        "ladders": _ladders(spec.name),
        "options": [
            {"name": o.name, "default": o.default, "help": o.help, "kind": o.kind.__name__,
             "choices": list(o.choices), "minimum": o.minimum, "maximum": o.maximum}
            for o in game_class.options
        ],
    }


def _ladders(name: str) -> list[dict[str, Any]]:
    """The game's calibrated ladders: for each, the settings it is for (as option texts)
    and its levels, the engine strengths a page may offer beside seconds a move."""
    return [{"settings": {key: str(value).lower() if isinstance(value, bool) else str(value)
                          for key, value in found.settings.items()},
             "levels": [{"name": level.name, "elo": level.elo, "low": level.low,
                         "high": level.high, "player": ladder.describe(level.spec)}
                        for level in found.levels]}
            for found in ladder.available(name)]


async def _think_socket(socket: WebSocket, sessions: Sessions, session: GameSession) -> None:
    """`{"type": "go", "seconds": S}` starts a search, `{"type": "stop"}` is "move now".

    The server sends `thought` messages as the search deepens, then `moved` with
    the new position (or `dropped` if the position changed meanwhile). Closing
    the socket stops the search.
    """

    async def send(message: dict[str, Any]) -> None:
        await socket.send_json(message)

    async def run(seconds: float) -> None:
        async def report(thought: Thought) -> None:
            await send({"type": "thought", **page_json(thought)})

        try:
            move = await sessions.think(session, seconds, report)
            await send({"type": "moved" if move is not None else "dropped", "move": move,
                        "searched": session.searched, "view": session.view()})
        except SessionError as error:
            await send({"type": "error", "status": error.status, "message": str(error)})
        except Exception as error:  # the engine failed: say so rather than think forever
            await send({"type": "error", "status": 500,
                        "message": f"the engine failed: {type(error).__name__}: {error}"})

    task: asyncio.Task[None] | None = None
    try:
        while True:
            received = await socket.receive()
            if received["type"] == "websocket.disconnect":
                break
            try:  # a text or binary frame holding JSON; anything else is answered, not fatal
                message = json.loads(received.get("text") or received.get("bytes") or "")
            except (ValueError, UnicodeDecodeError):
                message = None
            kind = message.get("type") if isinstance(message, dict) else None
            if kind == "go":
                try:
                    seconds = float(message.get("seconds", 1.0))
                except (TypeError, ValueError):
                    await send({"type": "error", "status": 400,
                                "message": "seconds must be a number"})
                    continue
                if task is not None and not task.done():
                    await send({"type": "error", "status": 409,
                                "message": "the engine is already thinking"})
                    continue
                task = asyncio.create_task(run(seconds))
            elif kind == "stop":
                if session.stop is not None:
                    session.stop[0] = 1
            else:
                await send({"type": "error", "status": 400,
                            "message": "messages are {\"type\": \"go\", \"seconds\": S} "
                                       "or {\"type\": \"stop\"}"})
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        if task is not None and not task.done():
            if session.stop is not None:
                session.stop[0] = 1  # the tab is gone: its search stops now
            task.cancel()


async def _reap(sessions: Sessions, every: float) -> None:
    while True:
        await asyncio.sleep(every)
        sessions.reclaim()
