"""Play in the browser: `aviary serve` (FastAPI + uvicorn, static pages shipped in the package).

`app.create_app` builds the app; `sessions` holds the browser games and their
searches; `boards` turns any registered `Game` into what a page draws.
"""
