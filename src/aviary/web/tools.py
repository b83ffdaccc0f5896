"""Routes of the tools' pages: classify, horizon and the arena.

classify explains one text with the model `serve` was given (or trained at
start). horizon takes a photo (at most `upload_limit` bytes and the command's pixel
limit), decodes it off the event loop, keeps the last few in memory (at most
`PIXELS_KEPT` pixels in all), and answers the three ridge lines for a clicked point.
The arena page reads a tournament database read-only, afresh on every request,
so it follows a tournament that is still being played.
"""

from __future__ import annotations

import asyncio
import inspect
import io
import math
import secrets
import sqlite3
from collections import OrderedDict
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
from fastapi import FastAPI, HTTPException, Request
from pydantic import BaseModel

from aviary.games import views
from aviary.games.base import Game
from aviary.horizon.photo import MAX_MEGAPIXELS
from aviary.web.config import AppConfig

MAX_TEXT = 2000  # characters of a text to classify
PHOTOS_KEPT = 8
# pixels of the photos kept (3 bytes each): two of the largest, or more smaller ones
PIXELS_KEPT = 2 * MAX_MEGAPIXELS * 1_000_000


class ClassifyRequest(BaseModel):
    text: str


def add_routes(app: FastAPI, config: AppConfig) -> None:
    """Add the tools' API routes to `app`."""
    photos: OrderedDict[str, np.ndarray] = OrderedDict()

    @app.get("/api/tools")
    async def tools_enabled() -> dict[str, bool]:
        """Which tools this server was started with (the pages say how to enable the rest)."""
        return {"classify": config.classify_model is not None, "horizon": True,
                "arena": config.arena_db is not None}

    # --- classify --------------------------------------------------------------------

    def model() -> Any:
        if config.classify_model is None:
            raise HTTPException(503, "no classifier loaded: start the server with "
                                     "--classify-model MODEL or --classify-train TRAIN")
        return config.classify_model

    @app.get("/api/classify")
    async def classify_info() -> dict[str, Any]:
        loaded = config.classify_model
        return {"ready": loaded is not None,
                "classes": [] if loaded is None else [str(c) for c in loaded.classes_]}

    @app.post("/api/classify")
    async def classify(request: ClassifyRequest) -> dict[str, Any]:
        classifier = model()
        text = request.text.strip()
        if not text:
            raise HTTPException(400, "type some text to classify")
        if len(text) > MAX_TEXT:
            raise HTTPException(413, f"text too long: at most {MAX_TEXT} characters")
        predicted, runner_up, evidence = classifier.explain(text)
        # log probabilities: naive Bayes is sure of itself, and 1 - P is what tells answers
        # apart when every P rounds to 1.000
        log_probability = classifier.predict_log_proba([text])[0]
        ranked = sorted(zip(classifier.classes_, log_probability, strict=True),
                        key=lambda pair: -pair[1])
        return {
            "predicted": predicted,
            "runner_up": runner_up,
            "probabilities": [{"label": str(label), "probability": math.exp(float(lp)),
                               "log_probability": float(lp)} for label, lp in ranked],
            "evidence": [{"token": item.token, "weight": item.weight,
                          "for": predicted if item.weight >= 0 else runner_up}
                         for item in evidence],
        }

    # --- horizon ---------------------------------------------------------------------

    @app.get("/api/horizon")
    async def horizon_info() -> dict[str, Any]:
        return {"upload_limit": config.upload_limit}

    @app.post("/api/horizon/photos", status_code=201)
    async def upload(request: Request) -> dict[str, Any]:
        limit = config.upload_limit
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            raise HTTPException(413, f"photo too large: at most {limit // 1024} KB")
        data = bytearray()
        async for chunk in request.stream():
            data += chunk
            if len(data) > limit:
                raise HTTPException(413, f"photo too large: at most {limit // 1024} KB")
        if not data:
            raise HTTPException(400, "send the photo's bytes as the request body")
        loop = asyncio.get_running_loop()  # decoding takes a second or so: not on the loop
        rgb = await loop.run_in_executor(app.state.sessions.pool, _decode_photo, bytes(data))
        photo_id = secrets.token_urlsafe(9)
        photos[photo_id] = rgb
        while len(photos) > 1 and (len(photos) > PHOTOS_KEPT or sum(
                photo.shape[0] * photo.shape[1] for photo in photos.values()) > PIXELS_KEPT):
            photos.popitem(last=False)
        return {"id": photo_id, "height": int(rgb.shape[0]), "width": int(rgb.shape[1])}

    @app.get("/api/horizon/photos/{photo_id}/ridges")
    async def ridges(photo_id: str, row: int | None = None,
                     col: int | None = None) -> dict[str, Any]:
        rgb = photos.get(photo_id)
        if rgb is None:
            raise HTTPException(404, f"no photo {photo_id!r} (upload it again)")
        if (row is None) != (col is None):
            raise HTTPException(400, "give both row and col, or neither")
        points = [] if row is None or col is None else [(row, col)]
        from aviary.horizon.estimators import find_ridges

        loop = asyncio.get_running_loop()
        try:
            found = await loop.run_in_executor(app.state.sessions.pool, find_ridges, rgb, points)
        except ValueError as error:
            raise HTTPException(400, str(error)) from None
        return {"simple": found.simple.tolist(), "map": found.map.tolist(),
                "human": None if found.human is None else found.human.tolist(),
                "point": None if not points else {"row": row, "col": col}}

    # --- arena -----------------------------------------------------------------------

    def store() -> Any:
        if config.arena_db is None:
            raise HTTPException(404, "no arena database: start the server with --arena DB")
        try:
            return open_read_only(config.arena_db)
        except Exception as error:  # a damaged or foreign file: say so, never write to it
            raise HTTPException(503, f"cannot read {config.arena_db}: {error}") from None

    @app.get("/api/arena")
    async def arena() -> dict[str, Any]:
        from aviary.arena.report import standings

        opened = store()
        try:
            settings = opened.config()
            games = opened.games()
            return {
                "database": str(config.arena_db),
                "game": settings.game,
                "options": settings.game_options,
                "seconds": settings.seconds,
                "planned": settings.games,
                "played": len(games),
                "standings": [_finite(asdict(row)) for row in standings(opened)],
                "games": [asdict(game) for game in games],
            }
        except (sqlite3.Error, ValueError, KeyError) as error:
            raise HTTPException(503, f"cannot read {config.arena_db}: {error}") from None
        finally:
            opened.close()

    @app.get("/api/arena/games/{game_id}")
    async def arena_game(game_id: int) -> dict[str, Any]:
        opened = store()
        try:
            game: Game[Any, Any] = opened.config().make_game()
            stored = next((g for g in opened.games() if g.id == game_id), None)
            if stored is None:
                raise HTTPException(404, f"the arena database has no game {game_id}")
            shape = game.board()
            frames = [{"ply": 0, "mover": None, "state": stored.opening,
                       "seconds": None}]
            frames += [{"ply": m.ply, "mover": m.mover, "state": m.state, "seconds": m.seconds}
                       for m in opened.moves(game_id)]
            if shape.rows:
                learnt = views.piece_owners(type(game), tuple(sorted(game.settings.items())))
                for frame in frames:
                    board = game.format(game.decode(frame["state"]))
                    frame["board"] = board
                    frame["owners"] = {c: views.owner_of(c, learnt) for c in set(board)
                                       if views.owner_of(c, learnt) is not None}
            else:  # no grid of cells (an OpenSpiel game): the game's own picture
                for frame in frames:
                    frame["board"], frame["owners"] = "", {}
                    frame["picture"] = game.render(game.decode(frame["state"]))
            return {"game": asdict(stored), "labels": list(game.labels), "rows": shape.rows,
                    "cols": shape.cols, "holes": sorted(shape.holes), "frames": frames}
        except (sqlite3.Error, ValueError, KeyError) as error:
            raise HTTPException(503, f"cannot read {config.arena_db}: {error}") from None
        finally:
            opened.close()


def _finite(value: Any) -> Any:
    """`value` with infinities and NaNs (an unbounded error bar) as None, as JSON allows."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    return value


def _decode_photo(data: bytes) -> np.ndarray:
    """The uploaded photo's pixels; 413 beyond `aviary horizon`'s pixel limit, 400 if unreadable."""
    from aviary.horizon.photo import PhotoTooLarge, read_rgb

    try:
        return read_rgb(io.BytesIO(data), "the photo")
    except PhotoTooLarge as error:
        raise HTTPException(413, str(error)) from None
    except (OSError, ValueError):  # PhotoUnreadable is a ValueError
        raise HTTPException(400, "this file is not a photo aviary can read: send a JPEG, "
                                 "PNG, GIF, BMP, TIFF or WebP image") from None


def open_read_only(path: Path) -> Any:
    """The arena `Store` of `path`, opened read-only (nothing is ever written to it)."""
    from aviary.arena.store import Store

    if "read_only" in inspect.signature(Store.__init__).parameters:
        return Store(path, read_only=True)  # type: ignore[call-arg,unused-ignore]
    if not path.is_file():
        raise FileNotFoundError(f"no such database: {path}")
    store = Store.__new__(Store)  # the same queries over a read-only connection
    store.path = path
    store.db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    return store
