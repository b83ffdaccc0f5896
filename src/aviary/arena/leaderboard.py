"""The leaderboard of `aviary grade --out DIR`: static pages a course can publish as they are.

`DIR/index.html` lists every player (those that could not run too, with why), sortable
by any column, with its score against each ladder level it met; the ladder's levels
and what was graded, how and where follow. Each game has its own page,
`DIR/games/ID.html`, that steps through it like the web app's arena replay.

The pages must work from any static host and opened straight from disk (file://), where
a browser refuses to fetch local files: so no page fetches anything. Each page carries
its data inline; the only other files are the web app's stylesheet and board drawing
(`style.css`, `replay.js`), copied beside them, so both look as `aviary serve` does.

Every string a program may choose is untrusted: its name (the command line), the
detail of a loss (its own output). The HTML is escaped; data inside a <script> element
is JSON with `<`, `>` and `&` written as escapes, so no text can end the element.
"""

from __future__ import annotations

import html
import json
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from aviary.arena.grade import Grade
from aviary.arena.ladder import Ladder, describe
from aviary.arena.store import Store, StoredGame
from aviary.games import views
from aviary.games.base import Game
from aviary.outputs import write_text_atomically

STATIC = Path(__file__).resolve().parents[1] / "web" / "static"
ASSETS = ("style.css", "replay.js")
GAMES = "games"  # the folder of the game pages
RESULTS = {1.0: "1-0", 0.0: "0-1"}


def write_site(out: Path, store: Store, grades: Sequence[Grade], ladder: Ladder,
               about: dict[str, Any]) -> Path:
    """Write the leaderboard into `out` (index.html, games/ID.html, the shared assets);
    returns the path of index.html."""
    out.mkdir(parents=True, exist_ok=True)
    (out / GAMES).mkdir(exist_ok=True)
    for name in ASSETS:
        shutil.copyfile(STATIC / name, out / name)
    games = store.games()
    game = store.config().make_game()
    for stored in games:
        write_text_atomically(out / GAMES / f"{stored.id}.html",
                              game_page(game, stored, store))
    index = out / "index.html"
    write_text_atomically(index, index_page(grades, ladder, about, games))
    return index


# --- pieces of HTML -------------------------------------------------------------------------

def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def script_data(data: Any) -> str:
    """`data` as JSON that is safe inside a <script> element (nothing in it can close it)."""
    text = json.dumps(data, ensure_ascii=True)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _page(title: str, body: str, depth: int = 0, script: str = "") -> str:
    up = "../" * depth
    return (f'<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">'
            f"<title>{_e(title)}</title>\n"
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            f'<link rel="stylesheet" href="{up}style.css">\n<style>{_STYLE}</style>\n'
            f"</head>\n<body>\n{body}\n{script}</body>\n</html>\n")


_STYLE = """
main { display: block; max-width: 1200px; }
section.panel { margin-bottom: 16px; }
th button.sort { background: none; color: var(--accent); padding: 0 2px; margin: 0;
  font-weight: 600; text-decoration: underline; }
th[aria-sort=ascending] button.sort::after { content: " \\25B2" / ""; }
th[aria-sort=descending] button.sort::after { content: " \\25BC" / ""; }
td.problem { color: #8a1c1c; text-align: left; }
tbody tr:nth-child(even) td { background: #f4f2ec; }
dl.about { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; }
dl.about dt { color: var(--muted); font-weight: 600; }
dl.about dd { margin: 0; }
ul.games { columns: 2 320px; padding-left: 1.2em; }
.pale { color: var(--muted); }
"""


def _elo_text(grade: Grade) -> str:
    return "not graded" if grade.problem is not None else _e(grade.placement.elo_text())


def _points(value: float) -> str:
    return f"{value:g}"


def _cell(text: str, sort: object, css: str = "") -> str:
    """A table cell (`text` is HTML already escaped) with the value its column sorts by."""
    klass = f' class="{css}"' if css else ""
    return f'<td{klass} data-sort="{_e(sort)}">{text}</td>'


def index_page(grades: Sequence[Grade], ladder: Ladder, about: dict[str, Any],
               games: Sequence[StoredGame]) -> str:
    settings = " ".join(f"{name}={value}" for name, value in ladder.settings.items())
    title = f"Leaderboard: {ladder.game} {settings}".strip()
    levels = [level.name for level in ladder.levels]
    heads = [("#", "number"), ("player", "text"), ("Elo", "number"),
             ("95% interval", "number"), ("level beaten", "number"), ("games", "number"),
             ("forfeits", "number"), *((name, "number") for name in levels)]
    header = "".join(
        f'<th scope="col" class="{"name" if kind == "text" else ""}" data-kind="{kind}"'
        f' aria-sort="{"ascending" if i == 0 else "none"}"><button type="button"'
        f' class="sort">{_e(name)}</button></th>' for i, (name, kind) in enumerate(heads))
    rows = []
    for rank, grade in enumerate(grades, 1):
        anchor = f"player-{rank}"
        level_index = levels.index(grade.level) if grade.level in levels else -1
        forfeits = sum(grade.forfeits.values())
        interval = (f'<td class="problem" data-sort="-1e9">{_e(grade.problem)}</td>'
                    if grade.problem is not None
                    else _cell(_e(grade.placement.interval_text()),
                               grade.low if grade.low is not None
                               else grade.sort_key if grade.sort_key > float("-inf") else -1e9))
        cells = [
            _cell(str(rank), rank),
            _cell(f'<a href="#{anchor}">{_e(grade.name)}</a>', grade.name, "name"),
            _cell(_elo_text(grade), grade.sort_key if grade.sort_key > float("-inf") else -1e9),
            interval,
            _cell(_e(grade.level or ""), level_index),
            _cell(str(grade.games), grade.games),
            _cell(_e(grade.forfeits_text()) if forfeits else "0", forfeits),
        ]
        for name in levels:
            points, count = grade.scores.get(name, (0.0, 0))
            cells.append(_cell(f"{_points(points)}/{count}" if count else "",
                               points / count if count else -1))
        rows.append(f'<tr data-player="{_e(grade.name)}">{"".join(cells)}</tr>')
    body = [
        f'<header><span class="home">aviary</span><h1>{_e(title)}</h1>'
        f'<span class="subtitle">{_count(grades)}</span></header>',
        "<main>",
        '<section class="panel" aria-labelledby="standings-heading">',
        '<h2 id="standings-heading">Players</h2>',
        '<p class="help">Elo on the ladder\'s scale, where the random mover is 0; its 95% '
        "interval (<i>above</i>: it won every game against the top level, so the ladder "
        "bounds it from below only); the highest level it scored at least 50% against; "
        "its games and forfeits (games lost by a crash, a timeout, an illegal move...); "
        "then its points against each level it met (1 a win, &frac12; a draw). Click a "
        "column's heading to sort by it.</p>",
        '<div class="table-scroll" tabindex="0" role="region" aria-label="players table">'
        f'<table id="players"><thead><tr>{header}</tr></thead>'
        f'<tbody>{"".join(rows)}</tbody></table></div>',
        "</section>",
        _ladder_section(ladder),
        _about_section(about, ladder),
        _games_section(grades, games),
        "</main>",
    ]
    return _page(title, "\n".join(body), script=f"<script>{_SORT_SCRIPT}</script>\n")


def _count(grades: Sequence[Grade]) -> str:
    failed = sum(grade.problem is not None for grade in grades)
    said = f"{len(grades) - failed} players graded"
    return said + (f", {failed} could not run" if failed else "")


_SORT_SCRIPT = """
"use strict";
// Sort the players by the column whose heading was clicked (again: the other way).
for (const button of document.querySelectorAll("#players th button.sort")) {
  button.addEventListener("click", () => {
    const head = button.closest("th"), heads = [...head.parentNode.children];
    const column = heads.indexOf(head), numeric = head.dataset.kind === "number";
    const current = head.getAttribute("aria-sort");
    const ascending = current === "none" ? !numeric || column === 0 : current === "descending";
    for (const other of heads) other.setAttribute("aria-sort", "none");
    head.setAttribute("aria-sort", ascending ? "ascending" : "descending");
    const body = document.querySelector("#players tbody");
    const value = (row) => row.children[column].dataset.sort;
    const rows = [...body.children].sort((a, b) => {
      const order = numeric ? Number(value(a)) - Number(value(b))
        : value(a).localeCompare(value(b));
      return ascending ? order : -order;
    });
    body.append(...rows);
  });
}
"""


def _ladder_section(ladder: Ladder) -> str:
    rows = "".join(
        f"<tr><td class=\"name\">{_e(level.name)}</td><td class=\"name\">"
        f"{_e(describe(level.spec))}</td><td>{level.elo:+.0f}</td>"
        f"<td>{level.low:+.0f} .. {level.high:+.0f}</td><td>{level.games}</td></tr>"
        for level in ladder.levels)
    about = ladder.calibration
    said = [f"{about['games']} games among the levels" if "games" in about else "",
            f"commit {about['commit']}" if about.get("commit") else "",
            f"{about.get('started')} to {about.get('finished')}" if about.get("started") else ""]
    calibrated = (f'<p class="help">Calibrated by {_e(", ".join(p for p in said if p))}.</p>'
                  if any(said) else "")
    return (
        '<section class="panel" aria-labelledby="ladder-heading">'
        '<h2 id="ladder-heading">The ladder</h2>'
        "<p class=\"help\">Reference players of fixed strength: the random mover at the "
        "bottom, then the game's engine at a fixed node budget playing a share of random "
        "moves, up to the engine itself. Their strength is set by what they compute, never "
        "by the clock, so the scale stays the same on any machine. <b>Elo</b> is measured "
        "from games among the levels, with the random mover at 0: a player 400 Elo above "
        "another is expected to score about 91% against it, 200 above about 76%.</p>"
        '<div class="table-scroll"><table id="levels"><thead><tr><th class="name">level</th>'
        '<th class="name">player</th><th>Elo</th><th>95% interval</th><th>games</th></tr>'
        f"</thead><tbody>{rows}</tbody></table></div>{calibrated}</section>")


_ABOUT = (("game", "game"), ("settings", "settings"), ("seconds", "seconds a move"),
          ("date", "date"), ("commit", "commit"), ("machine", "machine"),
          ("load", "load (1 minute, lowest-highest)"), ("budget", "games a player at most"),
          ("target", "done within +- Elo (95%)"), ("sandbox", "sandbox"),
          ("jobs", "games at once"))


def _about_text(key: str, value: Any) -> str:
    if isinstance(value, dict):
        if key == "machine":
            parts = [str(value.get("processor", "")),
                     f"{value['cores']} cores" if "cores" in value else "",
                     f"{value['memory_gb']} GB" if "memory_gb" in value else "",
                     f"Python {value['python']}" if "python" in value else "",
                     str(value.get("system", ""))]
            return ", ".join(part for part in parts if part)
        return " ".join(f"{name}={item}" for name, item in value.items())
    if key == "load" and isinstance(value, list | tuple) and len(value) == 2:
        return f"{value[0]:.1f} - {value[1]:.1f}"
    if isinstance(value, list | tuple):
        return ", ".join(str(item) for item in value)
    return "" if value is None else str(value)


def _about_section(about: dict[str, Any], ladder: Ladder) -> str:
    known = dict(_ABOUT)
    keys = [key for key, _ in _ABOUT if key in about] + [key for key in about
                                                          if key not in known]
    rows = "".join(f"<dt>{_e(known.get(key, key))}</dt><dd>{_e(_about_text(key, about[key]))}</dd>"
                   for key in keys)
    return ('<section class="panel" aria-labelledby="about-heading">'
            '<h2 id="about-heading">What was graded, and how</h2>'
            "<p class=\"help\">Each player played colour-swapped pairs of games against the "
            "ladder's levels, each pair against the level nearest its Elo so far, until its "
            "interval was narrow enough or its games ran out.</p>"
            f'<dl class="about">{rows}</dl></section>')


def _games_section(grades: Sequence[Grade], games: Sequence[StoredGame]) -> str:
    parts = ['<section class="panel" aria-labelledby="games-heading">'
             '<h2 id="games-heading">Games</h2>'
             '<p class="help">Each game opens on its own page, to step through.</p>']
    for rank, grade in enumerate(grades, 1):
        mine = [game for game in games if grade.name in (game.first, game.second)]
        items = []
        for game in mine:
            side = 0 if game.first == grade.name else 1
            other = game.second if side == 0 else game.first
            score = game.result if side == 0 else 1 - game.result
            outcome = {1.0: "won", 0.0: "lost"}.get(score, "drew")
            items.append(f'<li><a href="{GAMES}/{game.id}.html">game {game.id}</a>: '
                         f"{outcome} against {_e(other)} as {'first' if side == 0 else 'second'}"
                         f" ({_e(game.reason)}, {game.plies} plies)</li>")
        listed = (f'<ul class="games">{"".join(items)}</ul>' if items
                  else f'<p class="pale">{_e(grade.problem or "no games")}</p>')
        parts.append(f'<details id="player-{rank}"><summary>{_e(grade.name)}: '
                     f"{len(mine)} games</summary>{listed}</details>")
    parts.append("</section>")
    return "".join(parts)


# --- a game's page -----------------------------------------------------------------------------

def replay_data(game: Game[Any, Any], stored: StoredGame, store: Store) -> dict[str, Any]:
    """What a game's page draws: the board's shape, the pieces' owners, and each position."""
    shape = game.board()
    frames: list[dict[str, Any]] = [{"ply": 0, "mover": None, "seconds": None,
                                     "state": stored.opening}]
    frames += [{"ply": move.ply, "mover": move.mover, "seconds": round(move.seconds, 3),
                "state": move.state, "note": move.note} for move in store.moves(stored.id)]
    owners: dict[str, int] = {}
    if shape.rows:
        learnt = views.piece_owners(type(game), tuple(sorted(game.settings.items())))
        for frame in frames:
            frame["board"] = game.format(game.decode(frame.pop("state")))
            for char in set(frame["board"]):
                owner = views.owner_of(char, learnt)
                if owner is not None:
                    owners[char] = owner
    else:
        for frame in frames:
            frame["board"] = ""
            frame["picture"] = game.render(game.decode(frame.pop("state")))
    return {"rows": shape.rows, "cols": shape.cols, "holes": sorted(shape.holes),
            "labels": list(game.labels), "owners": owners,
            "players": [stored.first, stored.second], "frames": frames,
            "result": RESULTS.get(stored.result, "½-½"), "winner": stored.winner,
            "reason": stored.reason, "detail": stored.detail}


def game_page(game: Game[Any, Any], stored: StoredGame, store: Store) -> str:
    data = replay_data(game, stored, store)
    title = f"game {stored.id}: {stored.first} vs {stored.second}"
    labels = game.labels
    body = (
        f'<header><a class="home" href="../index.html">leaderboard</a><h1>{_e(title)}</h1>'
        f'<span class="subtitle">{_e(labels[0])}: {_e(stored.first)}; {_e(labels[1])}: '
        f"{_e(stored.second)}</span></header>\n<main>\n"
        '<section class="panel" id="replay-panel" aria-label="replay">'
        '<div id="board" role="img" aria-label="board"></div>'
        '<div style="margin-top: 8px"><button id="first" type="button" class="secondary" '
        'aria-label="first position">&#8676;</button><button id="prev" type="button" '
        'class="secondary" aria-label="previous move">&larr;</button><button id="next" '
        'type="button" class="secondary" aria-label="next move">&rarr;</button><button '
        'id="last" type="button" class="secondary" aria-label="last move">&#8677;</button> '
        '<span id="ply" aria-live="polite"></span></div>'
        '<p id="note" class="help"></p>'
        '<p class="help">The arrow keys step through the game (Home, End: its ends).</p>'
        f'<p id="result">Result: {_e(data["result"])} ({_e(stored.reason)})'
        f'{": " + _e(stored.detail) if stored.detail else ""}</p>'
        "</section>\n</main>")
    script = (f'<script src="../replay.js"></script>\n'
              f'<script id="replay-data" type="application/json">{script_data(data)}</script>\n'
              f"<script>{_STEP_SCRIPT}</script>\n")
    return _page(title, body, depth=1, script=script)


_STEP_SCRIPT = """
"use strict";
const replay = JSON.parse(document.getElementById("replay-data").textContent);
const $ = (id) => document.getElementById(id);
let at = 0;
function show() {
  const frame = replay.frames[at];
  drawReplayBoard($("board"), replay, at);
  const who = frame.mover === null ? "the opening" : frame.mover < 0 ? "chance" :
    `${replay.labels[frame.mover]}, ${replay.players[frame.mover]}` +
    (frame.seconds === null ? "" : ` (${frame.seconds.toFixed(2)} s)`);
  $("ply").textContent = `move ${frame.ply} of ${replay.frames.length - 1}: ${who}`;
  $("note").textContent = frame.note ? `it said: ${frame.note}` : "";
}
function step(by) {
  at = Math.max(0, Math.min(replay.frames.length - 1, at + by));
  show();
}
for (const [id, by] of [["first", -1e9], ["prev", -1], ["next", 1], ["last", 1e9]]) {
  $(id).addEventListener("click", () => step(by));
}
document.addEventListener("keydown", (event) => {
  const by = { ArrowLeft: -1, ArrowRight: 1, Home: -1e9, End: 1e9 }[event.key];
  if (by === undefined || event.altKey || event.ctrlKey || event.metaKey) return;
  event.preventDefault();
  step(by);
});
show();
"""
