// One page for every registered board game: everything game-specific comes from the server.
// The game lives in the address bar (options, start, every ply): a reload, a shared link or
// a session the server let go all replay it into a new session.
"use strict";
const gameName = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop());
const query = new URLSearchParams(location.search);
const CHANCE_MARK = "@";  // a chance event in a record: "@c3" is a tile dropped on c3
let info = null;        // the game's description (options, labels, rules)
let view = null;        // the session's current view
let socket = null;
let socketReady = null;
let reconnects = 0;     // connections made again since the last message heard
let searching = false;  // a "go" was sent and its answer has not come back
let selected = null;    // the square whose moves are shown
let flipped = false;
let humans = new Set([0]);
let browsing = null;    // the ply shown while stepping through the game (null: now)
let hint = null;        // {move, start, end} of the last hint
let liveScore = null;   // the running search's score, the first player's point of view
let focusCell = null;   // the board cell that holds the keyboard focus
let drag = null;        // {from, x, y, moved, piece} while a piece is dragged
let settings = {};      // the game's options as the session was made with
let clock = null;        // {left: [s, s], increment, turn, since} when a time control is set
let hinting = false;    // a hint is being searched: the board waits for it
let moving = false;     // a person's move is on its way to the server
let offline = false;    // the server does not answer: the banner shows, calls retry
let review = null;      // the engine's review of the game: {for, plies, values, ...}
let reviewing = null;   // the id of a review under way
let linkProblems = [];  // values in the address the page could not take, said once at start
const SECONDS = { least: 0.05, most: 600, fallback: 1 };
let goodSeconds = SECONDS.fallback;  // the last valid "seconds per engine move"
let drawNote = null;     // the engine's answer to a draw offer
let keptScores = {};    // "ply:text" -> [score, mate_in] of the engine's moves, kept in the URL

const $ = (id) => document.getElementById(id);

// --- start -------------------------------------------------------------------------------

async function start() {
  try {
    info = await api("GET", `/api/games/${encodeURIComponent(gameName)}`);
  } catch (error) {
    document.title = "aviary: no such game";
    $("title").textContent = "no such game";
    showError(error);
    const games = await api("GET", "/api/games").catch(() => []);
    if (games.length) {
      const links = games.map((game) => element("li", {}, element("a", { href: `/play/${game.name}` }, game.title)));
      $("other-games").append(element("p", {}, "Play one of these instead:"), element("ul", {}, ...links));
      $("other-games").hidden = false;
    }
    return;
  }
  document.title = `aviary: ${info.title}`;
  $("title").textContent = info.title;
  $("summary").textContent = info.summary;
  buildForm();
  buildRules();
  $("setup").hidden = false;
  $("rules").hidden = false;
  const moves = query.get("moves");
  const resigned = query.get("resigned");
  readScores(query.get("scores"), moves === null ? null : splitMoves(moves));
  await newGame({ board: query.get("board"), player: query.get("player"),
                  moves: moves === null ? null : splitMoves(moves),
                  resigned: resigned === null ? null : Number(resigned) });
  if (linkProblems.length) showError(new Error([...linkProblems, $("error").textContent].join(" ").trim()));
}

// A value from the address that the option does not allow: why, or null if it is fine.
function optionProblem(option, text) {
  if (option.choices.length) return option.choices.includes(text) ? null : `one of ${option.choices.join(", ")}`;
  if (option.kind === "bool") return ["1", "true", "yes", "on", "0", "false", "no", "off"].includes(text) ? null : "yes or no";
  if (option.kind === "int") {
    const number = Number(text);
    if (text.trim() === "" || !Number.isInteger(number)) return "a whole number";
    if (option.minimum !== null && number < option.minimum) return `at least ${option.minimum}`;
    if (option.maximum !== null && number > option.maximum) return `at most ${option.maximum}`;
  }
  return null;
}

function linkValue(name, problem, using) {
  const text = query.get(name);
  if (text === null) return null;
  const why = problem(text);
  if (why === null) return text;
  const shown = text === "" ? "is empty" : `= ${JSON.stringify(text.slice(0, 40))} is refused`;
  linkProblems.push(`The link's ${name} ${shown}: it must be ${why}; ${using}.`);
  return null;
}

function secondsProblem(text) {
  const number = Number(text);
  return text.trim() !== "" && Number.isFinite(number) && number >= SECONDS.least && number <= SECONDS.most
    ? null : `from ${SECONDS.least} to ${SECONDS.most} seconds`;
}

function buildForm() {
  const options = $("options");
  for (const option of info.options) {
    const id = `opt-${option.name}`;
    const preset = linkValue(option.name, (text) => optionProblem(option, text), `using ${option.default}`);
    let input;
    if (option.choices.length) {
      input = element("select", { id });
      for (const choice of option.choices) input.append(element("option", { value: choice }, choice));
      input.value = preset ?? option.default;
    } else if (option.kind === "bool") {
      input = element("input", { id, type: "checkbox" });
      input.checked = preset !== null ? ["1", "true", "yes", "on"].includes(preset) : option.default;
    } else if (option.kind === "int") {
      input = element("input", { id, type: "number", step: "1" });
      if (option.minimum !== null) input.min = option.minimum;
      if (option.maximum !== null) input.max = option.maximum;
      input.value = preset ?? option.default;
    } else {
      input = element("input", { id, type: "text" });
      input.value = preset ?? option.default;
    }
    input.dataset.option = option.name;
    options.append(element("label", { for: id }, `${option.name} `, input, " ",
                           element("span", { class: "help" }, option.help)));
  }
  fillStrength(linkValue("level", (text) => /^[A-Za-z0-9_-]{1,20}$/.test(text) ? null
    : "a level's name, such as L3", "playing by seconds a move"));
  options.addEventListener("change", () => fillStrength($("strength").value));
  const side = $("side");
  side.append(element("option", { value: "0" }, `${info.labels[0]} (moves first)`));
  side.append(element("option", { value: "1" }, info.labels[1]));
  side.append(element("option", { value: "both" }, "both sides (no engine)"));
  side.append(element("option", { value: "none" }, "neither: engine against engine"));
  side.value = linkValue("side", (text) => ["0", "1", "both", "none"].includes(text) ? null
    : "0, 1, both or none", `you play ${info.labels[0]}`) ?? "0";
  for (const label of info.labels) $("position-player").append(element("option", { value: label }, label));
  const seconds = linkValue("seconds", secondsProblem, `using ${SECONDS.fallback}`);
  if (seconds !== null) $("seconds").value = seconds;
  goodSeconds = Number($("seconds").value);
  const limit = linkValue("max_plies", (text) => /^\d+$/.test(text) ? null : "0 or a whole number above", "no move limit");
  if (limit !== null) $("max-plies").value = limit;
  const control = linkValue("clock", (text) => /^\d+(\.\d+)?\+\d+(\.\d+)?$/.test(text) && Number(text.split("+")[0]) > 0
    ? null : "MINUTES+SECONDS, such as 5+2", "no clock");
  if (control !== null) [$("clock-minutes").value, $("clock-increment").value] = control.split("+");
}

// The engine's strength: seconds a move, or a level of the ladder of the settings in the
// form (offered only where one is calibrated). `wanted` is kept when it is offered.
function fillStrength(wanted) {
  const select = $("strength"), options = formOptions();
  const ladder = (info.ladders || []).find((found) =>
    Object.entries(found.settings).every(([name, value]) => String(options[name]).toLowerCase() === value));
  select.innerHTML = "";
  select.append(element("option", { value: "" }, "seconds a move (below)"));
  for (const level of ladder ? ladder.levels : []) {
    const elo = `${level.elo >= 0 ? "+" : ""}${level.elo.toFixed(0)} Elo`;
    select.append(element("option", { value: level.name }, `level ${level.name} (${elo}): ${level.player}`));
  }
  $("strength-label").hidden = !ladder;
  const offered = [...select.options].some((option) => option.value === wanted);
  if (wanted && !offered && !linkProblems.some((problem) => problem.includes("level"))) {
    linkProblems.push(`The link's level = ${JSON.stringify(wanted)} is refused: these settings' ladder has no such level; playing by seconds a move.`);
  }
  select.value = offered ? wanted : "";
}

function buildRules() {
  const list = $("how-to-play");
  for (const line of info.how_to_play) list.append(element("li", {}, line));
  const names = $("piece-names");
  for (const [char, name] of Object.entries(info.piece_names)) {
    names.append(element("dt", {}, char), element("dd", {}, name));
  }
}

function readSides() {
  const value = $("side").value;
  humans = new Set(value === "both" ? [0, 1] : value === "none" ? [] : [Number(value)]);
  if (view) ownSideAtBottom();
}

// Turn the board so that your pieces (the first player's, without one person) start at the
// bottom: the board text's first row is drawn at the top, wherever the game puts a side.
function ownSideAtBottom() {
  const person = humans.size === 1 ? [...humans][0] : 0;
  const start = view.positions[0];
  let rows = 0, count = 0;
  for (let i = 0; i < start.length; i++) {
    if (view.owners[start[i]] === person) { rows += Math.floor(i / view.cols); count++; }
  }
  flipped = count > 0 && rows / count < (view.rows - 1) / 2;
}

function formOptions() {
  const options = {};
  for (const input of document.querySelectorAll("[data-option]")) {
    options[input.dataset.option] = input.type === "checkbox" ? input.checked : input.value;
  }
  return options;
}

// A new session: fresh from the form, or replaying a record (`moves`: every ply's text).
async function newGame({ board = null, player = null, moves = null, resigned = null } = {}) {
  showError(null);
  readSides();
  if (moves === null) keptScores = {};
  const body = { options: formOptions(), max_plies: Number($("max-plies").value) || 0,
                 humans: [...humans] };
  if ($("strength").value) body.level = $("strength").value;
  if (board) { body.board = board; body.player = player || info.labels[0]; }
  if (moves !== null) body.moves = moves;
  if (resigned !== null && !Number.isNaN(resigned)) {
    body.resigned = resigned;
    if (["time", "agreed"].includes(query.get("ending"))) body.ending = query.get("ending");
  }
  const previous = view;
  try {
    view = await api("POST", `/api/games/${encodeURIComponent(gameName)}/sessions`, body);
  } catch (error) {
    if (error.status === undefined && previous) { showError(error); return; }  // offline: keep the game
    if (moves === null && !board) { failedStart(error); return; }
    // the position or record does not replay: say why, and start afresh from the options
    try {
      view = await api("POST", `/api/games/${encodeURIComponent(gameName)}/sessions`,
                       { options: body.options, max_plies: body.max_plies, humans: body.humans, level: body.level });
    } catch (second) { failedStart(second); return; }
    showError(new Error(`The game in the link could not be ${moves === null ? "set up" : "replayed"} (${error.message}); a new game started.`));
  }
  if (previous && previous.id !== view.id) api("DELETE", `/api/sessions/${previous.id}`).catch(() => {});
  settings = body.options;
  ownSideAtBottom();
  startClock(moves === null ? null : query.get("left"), query.get("at"));
  searching = false;
  selected = null;
  browsing = null;
  hint = null;
  liveScore = null;
  $("thinking").textContent = "";
  $("play").hidden = false;
  $("record").hidden = false;
  openSocket();
  changed();
}

function failedStart(error) {
  view = null;
  $("play").hidden = true;
  $("record").hidden = true;
  showError(error);
  history.replaceState(null, "", location.pathname + location.search);
}

// --- the record in the address bar and in text ---------------------------------------------

function plyTokens() {
  return view.history.map((p) => (p.chance ? CHANCE_MARK : "") + p.text);
}

function splitMoves(text) {
  return text.split(/\s+/).filter((t) => t && !/^\d+\.+$/.test(t))
    .map((t) => t.startsWith(CHANCE_MARK) ? t.slice(1) : t);
}

function recordQuery() {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(settings)) params.set(name, String(value));
  params.set("side", $("side").value);
  params.set("seconds", $("seconds").value);
  if (view.level) params.set("level", view.level.name);
  if (Number($("max-plies").value)) params.set("max_plies", $("max-plies").value);
  if (view.origin) { params.set("board", view.origin.board); params.set("player", view.origin.player); }
  if (view.history.length) params.set("moves", plyTokens().join(" "));
  if (view.resigned !== null) params.set("resigned", String(view.resigned));
  if (view.ending && view.ending !== "resigned") params.set("ending", view.ending);
  if (clock) {
    params.set("clock", `${$("clock-minutes").value}+${$("clock-increment").value}`);
    params.set("left", clockLeft().map((s) => s.toFixed(1)).join(","));
    params.set("at", String(Date.now()));
  }
  const scores = [];
  view.history.forEach((ply, i) => {
    const known = plyScore(ply, i);
    if (known) scores.push(`${i}:${known.mate_in !== null ? "m" + known.mate_in : known.score}`);
  });
  if (scores.length) params.set("scores", scores.join(","));
  return params;
}

// A ply's engine score: from the session, else as the URL kept it (the session that searched
// it may be gone: a reload replays only the moves).
function plyScore(ply, i) {
  if (ply.score !== null && ply.score !== undefined) return { score: ply.score, mate_in: ply.mate_in };
  return keptScores[`${i}:${ply.text}`] || null;
}

function readScores(text, moves) {
  keptScores = {};
  if (!text || !moves) return;
  for (const item of text.split(",")) {
    const [ply, value] = item.split(":");
    const i = Number(ply);
    if (!Number.isInteger(i) || i < 0 || i >= moves.length || value === undefined) continue;
    const mate = value.startsWith("m");
    const number = Number(mate ? value.slice(1) : value);
    if (Number.isFinite(number)) keptScores[`${i}:${moves[i]}`] = mate ? { score: 0, mate_in: number } : { score: number, mate_in: null };
  }
}

function updateAddress() {
  if (!view) return;
  history.replaceState(null, "", `${location.pathname}?${recordQuery()}`);
}

function exportRecord() {
  const tags = [["Game", gameName], ["Options", Object.entries(settings).map(([k, v]) => `${k}=${v}`).join(" ")]];
  if (view.origin) tags.push(["Board", view.origin.board], ["Player", view.origin.player]);
  tags.push(["Result", view.outcome ? view.outcome.text : "*"]);
  const lines = tags.map(([k, v]) => `[${k} "${v}"]`);
  const words = [];
  let number = 0;
  for (const ply of view.history) {
    if (!ply.chance && ply.mover === 0) words.push(`${++number}.`);
    else if (!ply.chance && !words.length) words.push(`${++number}...`);
    words.push((ply.chance ? CHANCE_MARK : "") + ply.text);
  }
  if (view.resigned !== null) {
    const ended = { time: "loses on time", agreed: "offers a draw, accepted" }[view.ending] || "resigns";
    words.push(`{${info.labels[view.resigned]} ${ended}}`);
  }
  lines.push("", words.join(" "));
  return lines.join("\n");
}

function importRecord(text) {
  const tags = {};
  for (const match of text.matchAll(/\[(\w+)\s+"([^"]*)"\]/g)) tags[match[1]] = match[2];
  if (tags.Game && tags.Game !== gameName) throw new Error(`this record is a ${tags.Game} game, not ${gameName}`);
  const body = text.replace(/\[(\w+)\s+"([^"]*)"\]/g, "");
  const resigned = body.match(/\{(\S+) (resigns|loses on time|offers a draw, accepted)\}/);
  const params = new URLSearchParams();
  for (const pair of (tags.Options || "").split(/\s+/).filter(Boolean)) {
    const [name, value] = pair.split("=");
    params.set(name, value ?? "");
  }
  params.set("side", $("side").value);
  params.set("seconds", $("seconds").value);
  if ($("strength").value) params.set("level", $("strength").value);
  if (tags.Board) { params.set("board", tags.Board); params.set("player", tags.Player || info.labels[0]); }
  const results = ["*", "1-0", "0-1", "1/2-1/2"];
  const tokens = body.replace(/\{[^}]*\}/g, " ").split(/\s+/)
    .filter((t) => t && !/^\d+\.+$/.test(t) && !results.includes(t));
  if (tokens.length) params.set("moves", tokens.join(" "));
  if (resigned) {
    params.set("resigned", String(info.labels.indexOf(resigned[1])));
    if (resigned[2] === "loses on time") params.set("ending", "time");
    if (resigned[2].startsWith("offers a draw")) params.set("ending", "agreed");
  }
  return params;
}

// --- talking to the server -----------------------------------------------------------------

// A request the server did not answer (the network, a restart) is tried again and again,
// under a "connection lost, reconnecting…" banner, until it is answered. A session the
// server no longer has (reclaimed after idling, or a restart) is made again from the
// record, then the request is tried once more.
async function call(method, path, body) {
  try {
    return await patiently(() => api(method, `/api/sessions/${view.id}${path}`, body));
  } catch (error) {
    if (error.status !== 404) throw error;
    await restore();
    return await patiently(() => api(method, `/api/sessions/${view.id}${path}`, body));
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function patiently(request) {
  for (let attempt = 0; ; attempt++) {
    try {
      const answer = await request();
      setOffline(false);
      return answer;
    } catch (error) {
      if (error.status !== undefined) { setOffline(false); throw error; }  // the server answered
      setOffline(true);
      await sleep(Math.min(4000, 250 * 2 ** attempt));
    }
  }
}

function setOffline(lost) {
  if (offline === lost) return;
  offline = lost;
  $("connection").hidden = !lost;
  if (!lost) render();
}

async function restore() {
  const body = { options: settings, max_plies: view.max_plies, moves: view.history.map((p) => p.text),
                 humans: [...humans] };
  if (view.level) body.level = view.level.name;
  if (view.origin) { body.board = view.origin.board; body.player = view.origin.player; }
  if (view.resigned !== null) body.resigned = view.resigned;
  view = await patiently(() => api("POST", `/api/games/${encodeURIComponent(gameName)}/sessions`, body));
  searching = false;
  openSocket();
}

function openSocket() {
  if (socket) socket.close();
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${scheme}://${location.host}/api/sessions/${view.id}/think`);
  const mine = socket;
  socketReady = new Promise((resolve) => mine.addEventListener("open", resolve));
  // a dropped connection (network, server restart): connect again, to a session made again
  // from the record if the server lost it, and ask the engine again if it was thinking
  // (without end: the banner says so meanwhile; a search under way is asked for again)
  mine.addEventListener("close", () => {
    if (mine !== socket) return;
    reconnects++;
    if (searching) setOffline(true);
    setTimeout(() => reconnect(mine).catch(showError), Math.min(4000, 250 * 2 ** Math.min(reconnects, 5)));
  });
  socket.addEventListener("message", (event) => {
    if (mine !== socket) return;
    reconnects = 0;
    const message = JSON.parse(event.data);
    if (message.type === "thought") showThought(message);
    else if (message.type === "moved" || message.type === "dropped") {
      searching = false;
      view = message.view;
      liveScore = null;
      changed();
    } else if (message.type === "error") {
      searching = false;
      if (message.status === 404) {
        restore().then(changed).catch(showError);
        return;
      }
      showError(new Error(message.message));
      render();
    }
  });
}

async function reconnect(lost) {
  if (lost !== socket || !view) return;
  try {
    view = await patiently(() => api("GET", `/api/sessions/${view.id}`));
    openSocket();
  } catch (error) {
    if (error.status !== 404) throw error;
    await restore();
  }
  searching = false;
  changed();
}

// Every change of the game goes through here: draw, keep the address, let the engine move.
function changed() {
  if (browsing !== null && browsing > view.history.length) browsing = null;
  passClock();
  render();
  updateAddress();
  engineTurn();
}

function showThought(t) {
  const score = t.mate_in === null ? (t.score >= 0 ? `+${t.score}` : `${t.score}`)
    : (t.mate_in > 0 ? `win in ${t.mate_in}` : `loss in ${-t.mate_in}`);
  const line = `depth ${String(t.depth).padStart(2)}  score ${score.padStart(9)}  ` +
    `${(t.nodes / 1000).toFixed(0).padStart(6)}k nodes  ${t.seconds.toFixed(2)} s  ${t.pv.join(" ")}`;
  const box = $("thinking");
  box.append(element("div", {}, line));  // one per depth: a long line wraps, indented
  box.scrollTop = box.scrollHeight;
  const sign = view && view.to_move === 1 ? -1 : 1;
  liveScore = { score: sign * t.score, mate_in: t.mate_in === null ? null : sign * t.mate_in };
  showEval();
}

async function engineTurn() {
  if (!view || view.outcome || searching || view.to_move < 0 || humans.has(view.to_move)) return;
  searching = true;
  $("thinking").textContent = "";
  if (view.level) {  // a level reports no depths: say what plays instead
    $("thinking").append(element("div", {}, `level ${view.level.name}: ${view.level.player} (no search log)`));
  }
  render();
  await socketReady;
  let seconds = goodSeconds;
  if (clock) seconds = Math.max(0.05, Math.min(seconds, clockLeft()[view.to_move] / 20 + clock.increment / 2));
  socket.send(JSON.stringify({ type: "go", seconds }));
}

function humanTurn() {
  return view && !view.outcome && !searching && !hinting && !moving && browsing === null && view.to_move >= 0 &&
    humans.has(view.to_move);
}

// A person's move, sent with the ply it was chosen at: a second click or key while it is on
// its way is not sent, and one the server finds stale (409: the game moved on) only
// brings the page up to date.
async function play(text) {
  if (moving) return;
  showError(null);
  drawNote = null;
  selected = null;
  hint = null;
  moving = true;
  try {
    view = await call("POST", "/move", { move: text, ply: view.history.length });
  } catch (error) {
    if (error.status === 409) view = await call("GET", "").catch(() => view);
    else showError(error);
  } finally {
    moving = false;
  }
  changed();
}

// --- clocks --------------------------------------------------------------------------------
// Each side's time runs while it is to move (the engine's too); a move adds the increment;
// a side whose time runs out loses on time. The times left are kept in the URL with the
// moment they were written (`at`), so a reload charges the side to move for the time the
// page was away; Undo puts the clocks back as they were at the position it returns to.

function startClock(kept, at) {
  const minutes = Number($("clock-minutes").value) || 0;
  if (minutes <= 0) { clock = null; showClocks(); return; }
  const full = 60 * minutes;
  let left = [full, full];
  const numbers = (kept || "").split(",").map(Number);
  if (numbers.length === 2 && numbers.every((n) => Number.isFinite(n) && n >= 0)) {
    left = numbers;
    const away = (Date.now() - Number(at)) / 1000;
    if (at && Number.isFinite(away) && away > 0 && !view.outcome && view.to_move >= 0) {
      left[view.to_move] = Math.max(0, left[view.to_move] - away);
    }
  }
  clock = { left, increment: Number($("clock-increment").value) || 0, turn: null, since: 0,
            decisions: view.decisions, marks: { [view.decisions]: [...left] } };
  showClocks();
}

// After Undo: the clocks as they were when the game was last at this many moves.
function rewindClock() {
  if (!clock) return;
  const mark = clock.marks[view.decisions];
  if (mark) clock.left = [...mark];
  for (const key of Object.keys(clock.marks)) if (Number(key) > view.decisions) delete clock.marks[key];
  clock.turn = null;
  clock.decisions = view.decisions;
}

function clockLeft() {
  if (!clock) return [];
  const left = [...clock.left];
  if (clock.turn !== null) left[clock.turn] -= (performance.now() - clock.since) / 1000;
  return left.map((s) => Math.max(0, s));
}

function passClock() {
  if (!clock) return;
  const now = performance.now();
  const turn = view.outcome || view.to_move < 0 ? null : view.to_move;
  if (turn === clock.turn && view.decisions === clock.decisions) return;
  if (clock.turn !== null) {
    clock.left[clock.turn] = Math.max(0, clock.left[clock.turn] - (now - clock.since) / 1000);
    if (view.decisions > clock.decisions) clock.left[clock.turn] += clock.increment;
  }
  if (view.decisions !== clock.decisions) clock.marks[view.decisions] = [...clock.left];
  clock.turn = turn;
  clock.since = now;
  clock.decisions = view.decisions;
  showClocks();
}

function clockText(seconds) {
  const whole = Math.ceil(seconds);
  const text = `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
  return seconds < 10 ? `${seconds.toFixed(1)} s` : text;
}

function showClocks() {
  const top = $("clock-top"), bottom = $("clock-bottom");
  top.hidden = bottom.hidden = !clock || !view;
  if (!clock || !view) return;
  const left = clockLeft();
  // the first player's clock beside their side of the board (the top unless flipped)
  const [near, far] = flipped ? [bottom, top] : [top, bottom];
  for (const [box, side] of [[near, 0], [far, 1]]) {
    box.textContent = `${view.labels[side]} ${clockText(left[side])}`;
    box.dataset.side = String(side);
    box.classList.toggle("running", clock.turn === side);
    box.classList.toggle("low", left[side] < 10);
    box.setAttribute("aria-label", `${view.labels[side]}'s clock`);
  }
}

let flagging = false;
setInterval(async () => {
  if (!clock || !view || clock.turn === null) return;
  showClocks();
  const side = clock.turn;
  if (clockLeft()[side] > 0 || flagging) return;
  flagging = true;  // that side's time is up: it loses on time
  if (searching && socket) socket.send(JSON.stringify({ type: "stop" }));
  try {
    view = await call("POST", "/resign", { player: side, reason: "time" });
  } catch (error) {
    if (error.status !== 409) showError(error);
  }
  flagging = false;
  changed();
}, 100);
setInterval(() => { if (clock && clock.turn !== null) updateAddress(); }, 2000);

// --- the board -------------------------------------------------------------------------------

function squareName(index) {
  const row = Math.floor(index / view.cols), col = index % view.cols;
  return `${String.fromCharCode(97 + col)}${row + 1}`;
}

function shownBoard() {
  return browsing === null ? view.board : view.positions[browsing];
}

function lastPly() {
  const upTo = browsing === null ? view.history.length : browsing;
  for (let i = upTo - 1; i >= 0; i--) if (!view.history[i].chance) return view.history[i];
  return null;
}

function clickCell(index) {
  if (!humanTurn()) return;
  const moves = view.moves;
  if (selected !== null) {
    const chosen = moves.find((m) => m.start === selected && m.end === index);
    if (chosen) return play(chosen.text);
  }
  if (moves.some((m) => m.start === index)) {
    selected = selected === index ? null : index;
    return render();
  }
  const placed = moves.find((m) => m.start === null && m.end === index);
  if (placed) return play(placed.text);
  selected = null;
  render();
}

function pieceName(char) {
  if (info.piece_names[char]) return info.piece_names[char];
  const owner = view.owners[char];
  return owner === undefined ? `piece ${char}` : `${view.labels[owner]} ${char}`;
}

function render() {
  if (!view) return;
  const board = $("board");
  const count = view.rows * view.cols;
  $("play").style.setProperty("--cols", String(view.cols));
  $("play").style.setProperty("--rows", String(view.rows));
  board.style.gridTemplateColumns = `repeat(${view.cols}, var(--cell))`;
  const holes = new Set(view.holes);
  const human = humanTurn();
  const position = shownBoard();
  const starts = new Set(human ? view.moves.map((m) => m.start).filter((s) => s !== null) : []);
  const targets = new Set(human ? view.moves.filter((m) => m.start === selected ||
    (m.start === null && selected === null)).map((m) => m.end).filter((e) => e !== null) : []);
  const showTargets = selected !== null || !starts.size;
  const last = lastPly();
  const interactive = !Object.keys(view.keys).length;
  if (focusCell === null || focusCell >= count || holes.has(focusCell)) {
    focusCell = [...Array(count).keys()].find((i) => !holes.has(i) && position[i] !== "#") ?? 0;
  }
  const hadFocus = board.contains(document.activeElement);
  board.innerHTML = "";
  for (let shownRow = 0; shownRow < view.rows; shownRow++) {
    const rowElement = element("div", { role: "row", class: "board-line" });
    for (let shownCol = 0; shownCol < view.cols; shownCol++) {
      const shown = shownRow * view.cols + shownCol;
      const index = flipped ? count - 1 - shown : shown;
      const row = Math.floor(index / view.cols), col = index % view.cols;
      const char = position[index];
      const cell = element("div", { class: "cell", role: "gridcell", "data-cell": String(index) });
      const hole = holes.has(index) || char === "#";
      const parts = [squareName(index)];
      if (hole) { cell.classList.add("hole"); parts.push("off the board"); }
      else if ((row + col) % 2) cell.classList.add("dark");
      if (starts.has(index)) { cell.classList.add("movable"); parts.push("can move"); }
      if (index === selected) { cell.classList.add("selected"); parts.push("selected"); }
      if (targets.has(index) && showTargets) { cell.classList.add("target"); parts.push("move here"); }
      if (last && (index === last.start || index === last.end)) { cell.classList.add("last"); parts.push("last move"); }
      if (hint && browsing === null && (index === hint.start || index === hint.end)) cell.classList.add("hinted");
      const better = reviewedPly(browsing);
      if (better && better.grade !== "best" && (index === better.best_start || index === better.best_end)) {
        cell.classList.add("hinted");
        parts.push("the review's better move");
      }
      if (char !== "." && char !== "#" && char !== undefined) {
        const owner = view.owners[char];
        const piece = element("div", { class: `piece owner${owner === undefined ? "x" : owner}`, "aria-hidden": "true" }, char);
        const twin = char === char.toUpperCase() ? char.toLowerCase() : null;
        if (twin && twin !== char && view.owners[twin] === owner) piece.classList.add("promoted");
        cell.append(piece);
        parts.splice(1, 0, pieceName(char));
      } else if (!hole) parts.splice(1, 0, "empty");
      if (shownCol === 0) cell.append(element("span", { class: "coord rank", "aria-hidden": "true" }, String(row + 1)));
      if (shownRow === view.rows - 1) cell.append(element("span", { class: "coord file", "aria-hidden": "true" }, String.fromCharCode(97 + col)));
      cell.setAttribute("aria-label", parts.join(", "));
      if (interactive && !hole) cell.tabIndex = index === focusCell ? 0 : -1;
      rowElement.append(cell);
    }
    board.append(rowElement);
  }
  slide(board);
  board.tabIndex = interactive ? -1 : 0;
  if (hadFocus && interactive) {
    const cell = board.querySelector(`[data-cell='${focusCell}']`);
    if (cell) cell.focus();
  }
  $("board-help").textContent = interactive
    ? "Click or tap a piece, then its square, or drag it. Keyboard: arrow keys move around the board, Enter or Space picks a piece and its square."
    : "Arrow keys (with the board or page focused) or a swipe on the board play the moves.";
  renderStatus();
  renderMoveList();
  renderReview();
  showEval();
  renderGraph();
  board.dataset.thinking = searching ? "yes" : "no";
  board.dataset.decisions = String(view.decisions);
  board.dataset.turn = humanTurn() ? "human" : view.outcome ? "over" : "engine";
}

// A move's piece slides from its square to the new one: after a move (a person's by click
// or key, the engine's) or a step forward through the game, not after a jump, a move
// dragged there by hand, or with the system's "reduce motion". The board is drawn afresh
// on every change, so a slide under way goes on in the new drawing where it was.
const SLIDE_MS = 160;
const reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");
let drawn = null;     // {game, ply}: the position the board showed last
let sliding = null;   // {game, ply, start, end, began} while a piece slides
let dragged = false;  // the move just played was dragged to its square: it is there already

function slide(board) {
  const ply = browsing === null ? view.history.length : browsing;
  const game = `${view.origin ? view.origin.board : ""}|${view.positions[0]}`;
  const before = drawn;
  drawn = { game, ply };
  let now = sliding && sliding.game === game && sliding.ply === ply ? sliding : null;
  if (!now && before && before.game === game && ply > before.ply && ply - before.ply <= 2 &&
      !dragged && !reducedMotion.matches) {
    let index = ply - 1;
    while (index >= before.ply && view.history[index].chance) index--;
    const last = index >= before.ply ? view.history[index] : null;
    if (last && last.start !== null && last.end !== null) {
      now = { game, ply, start: last.start, end: last.end, began: performance.now() };
      board.dataset.slides = String(Number(board.dataset.slides || 0) + 1);
    }
  }
  if (ply !== (before && before.ply)) dragged = false;
  sliding = now;
  const elapsed = now ? performance.now() - now.began : SLIDE_MS;
  if (!now || elapsed >= SLIDE_MS) { sliding = null; return; }
  const from = board.querySelector(`[data-cell='${now.start}']`), to = board.querySelector(`[data-cell='${now.end}']`);
  const piece = to && to.querySelector(".piece");
  if (!from || !piece) return;
  const a = from.getBoundingClientRect(), b = to.getBoundingClientRect();
  piece.classList.add("sliding");
  const motion = piece.animate([{ transform: `translate(${a.left - b.left}px, ${a.top - b.top}px)` },
                                { transform: "none" }], { duration: SLIDE_MS, easing: "ease-out" });
  motion.currentTime = elapsed;
  motion.finished.then(() => piece.classList.remove("sliding")).catch(() => {});
}

// The pieces each side has lost since the start (a promotion is not a loss: only as many
// as the side has fewer pieces are shown).
function renderCaptured() {
  const box = $("captured");
  const start = view.positions[0], now = shownBoard();
  const lines = [];
  for (const side of [0, 1]) {
    const count = (board, char) => [...board].filter((c) => c === char).length;
    const mine = [...new Set(start + now)].filter((c) => view.owners[c] === side);
    const lost = mine.reduce((total, c) => total + count(start, c) - count(now, c), 0);
    if (lost <= 0) continue;
    const chars = mine.flatMap((c) => Array(Math.max(0, count(start, c) - count(now, c))).fill(c)).slice(0, lost);
    lines.push(`${view.labels[side]} has lost ${lost}: ${chars.join(" ")}`);
  }
  box.textContent = lines.length ? `Captured: ${lines.join("; ")}` : "";
}

function renderStatus() {
  renderCaptured();
  const who = view.to_move < 0 ? "" : humans.has(view.to_move) ? "you"
    : view.level ? `engine, level ${view.level.name}` : "engine";
  let status = view.outcome ? "Game over." :
    `${view.player} to move (${who}${searching ? ", thinking…" : hinting ? ", hint…" : ""}) · move ${view.decisions + 1}` +
    (view.max_plies ? ` of ${view.max_plies}` : "");
  if (browsing !== null) status = `Showing the position after ply ${browsing} of ${view.history.length}. ` +
    "Press » to return to the game, or Play from here.";
  $("status").textContent = status;
  $("result").textContent = view.outcome ? `Result: ${view.outcome.text}` : "";
  $("result").dataset.over = view.outcome ? "yes" : "no";
  $("hint-text").textContent = hint && browsing === null ? `Hint: ${hint.move}` : (drawNote || "");
  $("move-now").disabled = !searching;
  $("undo").disabled = !view.decisions && view.resigned === null;
  $("hint").disabled = !humanTurn();
  $("resign").disabled = !humanTurn();
  if (!humanTurn()) confirmResign(false);
  $("rematch").hidden = !view.outcome;
  $("draw").disabled = !humanTurn();
  $("play-from-here").hidden = browsing === null;
  const boardInput = $("position-board");
  if (document.activeElement !== boardInput) boardInput.value = view.board;
  if (view.player && document.activeElement !== $("position-player")) $("position-player").value = view.player;
}

function renderMoveList() {
  const list = $("move-list");
  const hadFocus = list.contains(document.activeElement) ? document.activeElement.dataset.ply : null;
  list.innerHTML = "";
  let number = 0;
  let item = null;
  view.history.forEach((ply, i) => {
    if (ply.chance) {
      if (item) item.append(element("span", { class: "chance", title: "chance event" }, ` ${CHANCE_MARK}${ply.text}`));
      return;
    }
    if (ply.mover === 0 || item === null) {
      ++number;  // written in the item, not as the list's marker: a marker past 99 was cut off
      item = element("li", { value: String(number) }, element("span", { class: "number" }, `${number}.`));
      list.append(item);
    }
    const current = browsing === null ? view.history.length : browsing;
    const button = element("button", { type: "button", class: "ply", "data-ply": String(i + 1),
      "aria-label": `${view.labels[ply.mover]} ${ply.text}`, "aria-current": current === i + 1 ? "step" : "false" },
      ply.text);
    button.addEventListener("click", () => browse(i + 1));
    item.append(" ", button);
    const graded = reviewedPly(i);
    if (graded && GRADE_MARKS[graded.grade]) {
      item.append(element("span", { class: `grade ${graded.grade}`, title: graded.grade }, GRADE_MARKS[graded.grade]));
      button.setAttribute("aria-label", `${view.labels[ply.mover]} ${ply.text}, ${graded.grade}`);
    }
  });
  if (hadFocus !== null) {
    const again = list.querySelector(`[data-ply='${hadFocus}']`);
    if (again) again.focus();
  }
  const active = list.querySelector("[aria-current='step']");
  if (active) active.scrollIntoView({ block: "nearest" });
  const legal = $("moves");
  legal.innerHTML = "";
  for (const move of humanTurn() ? view.moves : []) {
    legal.append(element("button", { type: "button", class: "move-button", "data-move": move.text,
      onclick: () => play(move.text) }, move.text));
  }
  $("legal-count").textContent = humanTurn() ? `(${view.moves.length})` : "(not your turn)";
}

function browse(ply) {
  if (!view) return;
  const end = view.history.length;
  browsing = ply === null || ply >= end ? null : Math.max(0, ply);
  selected = null;
  render();
}

// --- the evaluation ------------------------------------------------------------------------

function scoreShare(score, mate) {
  if (mate !== null && mate !== undefined) return mate > 0 ? 1 : 0;
  return 1 / (1 + Math.pow(10, -score / 400));
}

function scoreText(score, mate) {
  if (mate !== null && mate !== undefined) return mate > 0 ? `${view.labels[0]} wins in ${mate}` : `${view.labels[1]} wins in ${-mate}`;
  return score >= 0 ? `+${score}` : `${score}`;
}

function knownScore() {
  if (liveScore && browsing === null) return liveScore;
  const upTo = browsing === null ? view.history.length : browsing;
  for (let i = upTo - 1; i >= 0; i--) {
    const known = plyScore(view.history[i], i);
    if (known) return known;
  }
  return null;
}

function showEval() {
  const known = knownScore();
  const share = known ? scoreShare(known.score, known.mate_in) : 0.5;
  $("eval-fill").style.height = `${(100 * share).toFixed(1)}%`;
  $("eval-bar").setAttribute("aria-valuenow", (100 * share).toFixed(0));
  const text = known ? `Engine's evaluation, for ${view.labels[0]} (moves first): ${scoreText(known.score, known.mate_in)}` +
    ` (+ is good for ${view.labels[0]}, − for ${view.labels[1]})` : "No evaluation yet: the engine has not searched.";
  $("eval-bar").setAttribute("aria-valuetext", text);
  $("eval-bar").title = text;
  $("eval-text").textContent = text;
}

function renderGraph() {
  const svg = $("eval-graph");
  const points = [];
  const reviewed = currentReview();
  if (reviewed) {
    reviewed.values.forEach((value, i) => {
      if (value !== null) points.push([i, scoreShare(Math.max(-2000, Math.min(2000, value)), null)]);
    });
  } else {
    view.history.forEach((ply, i) => {
      const known = plyScore(ply, i);
      if (known) points.push([i + 1, scoreShare(known.score, known.mate_in)]);
    });
  }
  const total = Math.max(2, view.history.length);
  const x = (ply) => (6 + 288 * ply / total).toFixed(1);  // inside a 6-unit margin
  const y = (share) => (76 - 72 * share).toFixed(1);
  let inner = `<rect x="0" y="0" width="300" height="40" fill="#f4f4f4"/><rect x="0" y="40" width="300" height="40" fill="#d9d9d9"/>` +
    `<line x1="0" y1="40" x2="300" y2="40" stroke="#555" stroke-width="0.5"/>`;
  if (points.length) {
    inner += `<polyline fill="none" stroke="#1d5c8a" stroke-width="2" points="${points.map(([p, s]) => `${x(p)},${y(s)}`).join(" ")}"/>`;
    for (const [p, s] of points) inner += `<circle cx="${x(p)}" cy="${y(s)}" r="2.5" fill="#1d5c8a"/>`;
  }
  if (browsing !== null) inner += `<line x1="${x(browsing)}" y1="0" x2="${x(browsing)}" y2="80" stroke="#b35900" stroke-width="1.5"/>`;
  svg.innerHTML = inner;
  svg.setAttribute("aria-label", `evaluation graph of ${reviewed ? "the review's" : "the engine's"} ${points.length} scored positions; up is good for ${view.labels[0]}`);
  $("eval-legend").textContent = `Up: good for ${view.labels[0]}; down: good for ${view.labels[1]}. ` +
    (reviewed ? "One point per position of the game, as the review scored it." : "One point per engine move, its search's score.");
}

// --- the review: every ply graded by the engine -------------------------------------------------
// The server searches every position to a fixed node budget in an engine process; the page
// polls its progress, then marks each ply (best, good, inaccuracy, mistake, blunder) and
// shows the better move on the board at the position before a ply that lost evaluation.

const GRADE_MARKS = { inaccuracy: "?!", mistake: "?", blunder: "??" };

function currentReview() {
  return review && review.finished && !review.error && review.for === plyTokens().join(" ") ? review : null;
}

function reviewedPly(index) {
  const reviewed = currentReview();
  if (!reviewed || index === null) return null;
  return reviewed.plies.find((ply) => ply.ply === index) || null;
}

function pawns(value) {
  if (Math.abs(value) >= 50000) return value > 0 ? "a win" : "a loss";
  return `${value >= 0 ? "+" : "−"}${(Math.abs(value) / 100).toFixed(1)}`;
}

function renderReview() {
  $("review").disabled = reviewing !== null || !view.history.some((ply) => !ply.chance);
  const list = $("review-list");
  list.innerHTML = "";
  const reviewed = currentReview();
  if (!reviewed) {
    if (!reviewing && review && review.for !== plyTokens().join(" ")) $("review-status").textContent = "";
    return;
  }
  const counts = {};
  for (const ply of reviewed.plies) {
    counts[ply.grade] = (counts[ply.grade] || 0) + 1;
    const number = view.history.slice(0, ply.ply + 1).filter((p) => !p.chance && p.mover === 0).length || 1;
    const text = `${number}${ply.mover === 0 ? "." : "…"} ${ply.text}: ${ply.grade}` +
      (ply.grade === "best" ? "" : ` (lost ${pawns(ply.loss).replace("+", "")}); better ${ply.best}`);
    const button = element("button", { type: "button", class: `row-button review-ply ${ply.grade}`,
      "data-ply": String(ply.ply) }, text);
    button.addEventListener("click", () => browse(ply.ply));
    list.append(element("li", {}, button));
  }
  $("review-status").textContent = `Reviewed: ${reviewed.plies.length} moves, ` +
    ["best", "good", "inaccuracy", "mistake", "blunder"].filter((g) => counts[g]).map((g) => `${counts[g]} ${g}`).join(", ") +
    ". Click a move to see the position before it and the better move (dashed frame).";
}

$("review").addEventListener("click", async () => {
  if (!view || reviewing) return;
  showError(null);
  const forPlies = plyTokens().join(" ");
  try {
    let found = await call("POST", "/review", {});
    reviewing = found.id;
    render();
    while (!found.finished) {
      $("review-status").textContent = `Reviewing… ${found.done} of ${found.total} positions searched`;
      await sleep(300);
      found = await patiently(() => api("GET", `/api/reviews/${reviewing}`));
    }
    if (found.error) throw new Error(found.error);
    review = { ...found, for: forPlies };
  } catch (error) { showError(error); $("review-status").textContent = ""; }
  reviewing = null;
  render();
});

// --- input: pointer (click, tap, drag, swipe) and keys -------------------------------------

const board = $("board");
board.addEventListener("pointerdown", (event) => {
  if (!view) return;
  const cell = event.target.closest(".cell");
  drag = { x: event.clientX, y: event.clientY, from: cell ? Number(cell.dataset.cell) : null, moved: false, piece: null };
  if (cell && humanTurn() && view.moves.some((m) => m.start === Number(cell.dataset.cell))) {
    drag.piece = cell.querySelector(".piece");
    board.setPointerCapture(event.pointerId);
  }
});
board.addEventListener("pointermove", (event) => {
  if (!drag || !drag.piece) return;
  const dx = event.clientX - drag.x, dy = event.clientY - drag.y;
  if (Math.abs(dx) + Math.abs(dy) > 6) drag.moved = true;
  if (drag.moved) { drag.piece.style.transform = `translate(${dx}px, ${dy}px)`; drag.piece.classList.add("dragging"); }
});
board.addEventListener("pointerup", (event) => {
  const started = drag;
  drag = null;
  if (!started || !view) return;
  const dx = event.clientX - started.x, dy = event.clientY - started.y;
  if (started.piece) {
    started.piece.style.transform = "";
    started.piece.classList.remove("dragging");
  }
  if (Object.keys(view.keys).length && Math.max(Math.abs(dx), Math.abs(dy)) > 30) {
    const key = Math.abs(dx) > Math.abs(dy) ? (dx > 0 ? "ArrowRight" : "ArrowLeft") : (dy > 0 ? "ArrowDown" : "ArrowUp");
    const text = view.keys[key];
    if (text && humanTurn()) play(text);
    return;
  }
  if (started.piece && started.moved) {
    const under = document.elementFromPoint(event.clientX, event.clientY);
    const target = under && under.closest(".cell");
    const move = target && view.moves.find((m) => m.start === started.from && m.end === Number(target.dataset.cell));
    if (move && humanTurn()) { dragged = true; play(move.text); return; }
    render();
    return;
  }
  const cell = event.target.closest(".cell") ||
    (document.elementFromPoint(event.clientX, event.clientY) || board).closest(".cell");
  if (cell) { focusCell = Number(cell.dataset.cell); clickCell(Number(cell.dataset.cell)); }
});
board.addEventListener("pointercancel", () => { drag = null; render(); });

board.addEventListener("keydown", (event) => {
  if (!view || Object.keys(view.keys).length) return;
  const cell = event.target.closest(".cell");
  if (!cell) return;
  const index = Number(cell.dataset.cell);
  if (event.key === "Enter" || event.key === " ") {
    event.preventDefault();
    focusCell = index;
    clickCell(index);
    return;
  }
  const steps = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] }[event.key];
  if (!steps) return;
  event.preventDefault();
  const sign = flipped ? -1 : 1;
  let row = Math.floor(index / view.cols), col = index % view.cols;
  for (let i = 0; i < Math.max(view.rows, view.cols); i++) {
    row += sign * steps[0]; col += sign * steps[1];
    if (row < 0 || col < 0 || row >= view.rows || col >= view.cols) return;
    const next = row * view.cols + col;
    const found = board.querySelector(`[data-cell='${next}']`);
    if (found && found.tabIndex !== undefined && !found.classList.contains("hole")) {
      cell.tabIndex = -1;
      found.tabIndex = 0;
      focusCell = next;
      found.focus();
      return;
    }
  }
});

document.addEventListener("keydown", (event) => {
  if (!view || !humanTurn() || ["INPUT", "SELECT", "TEXTAREA"].includes(event.target.tagName)) return;
  const text = view.keys[event.key];
  if (text) { event.preventDefault(); play(text); }
});

// --- buttons -----------------------------------------------------------------------------------

$("new-game-form").addEventListener("submit", (event) => {
  event.preventDefault();
  if (!info) return;
  newGame().catch(showError);
});
$("side").addEventListener("change", async () => {
  if (!view) return;
  readSides();
  try { view = await call("POST", "/sides", { humans: [...humans] }); } catch (error) { showError(error); }
  changed();
});
// A value out of range is refused where it is typed: said beside the field, and the last
// good one is kept (the engine is never sent a time it would refuse).
$("seconds").addEventListener("change", () => {
  const input = $("seconds");
  const why = secondsProblem(input.value);
  input.setAttribute("aria-invalid", why ? "true" : "false");
  $("seconds-error").textContent = why ? `Seconds per engine move must be ${why}; still ${goodSeconds}.` : "";
  if (why) input.value = String(goodSeconds);
  else goodSeconds = Number(input.value);
  updateAddress();
});
$("move-now").addEventListener("click", () => {
  if (searching && socket) socket.send(JSON.stringify({ type: "stop" }));
});

// How many moves Undo takes back: to the last position where a person was to move (with one
// person against the engine: back to before the person's last move), or a resignation.
function undoCount() {
  if (view.resigned !== null) return 1;
  const decisions = view.history.filter((p) => !p.chance);
  if (humans.size !== 1) return Math.min(1, decisions.length);
  const [person] = humans;
  for (let i = decisions.length - 1; i >= 0; i--) {
    if (decisions[i].mover === person) return decisions.length - i;
  }
  return decisions.length;
}

$("undo").addEventListener("click", async () => {
  if (!view) return;
  showError(null);
  const count = undoCount();
  if (!count) return;
  try {
    view = await call("POST", "/undo", { count });
    rewindClock();
    selected = null;
    hint = null;
    liveScore = null;
    browsing = null;
  } catch (error) { showError(error); }
  changed();
});
$("hint").addEventListener("click", async () => {
  if (!humanTurn()) return;
  showError(null);
  hinting = true;
  render();
  $("hint-text").textContent = "Searching for a hint…";
  try {
    const seconds = Math.min(0.5, goodSeconds);
    hint = await call("POST", "/hint", { seconds });
  } catch (error) { showError(error); hint = null; }
  hinting = false;
  render();
});
// Resign asks once more: the first click turns the button into "Really resign?" for a few
// seconds, the second gives the game up.
let resignTimer = null;
function confirmResign(asking) {
  clearTimeout(resignTimer);
  $("resign").dataset.confirm = asking ? "yes" : "no";
  $("resign").textContent = asking ? "Really resign?" : "Resign";
  if (asking) resignTimer = setTimeout(() => confirmResign(false), 5000);
}
$("resign").addEventListener("click", async () => {
  if (!humanTurn()) return;
  if ($("resign").dataset.confirm !== "yes") { confirmResign(true); return; }
  confirmResign(false);
  showError(null);
  try { view = await call("POST", "/resign", { player: view.to_move }); } catch (error) { showError(error); }
  changed();
});
// People always agree to a draw; the engine weighs the position (half a second) and takes
// the draw only when its evaluation says it is behind.
$("draw").addEventListener("click", async () => {
  if (!humanTurn()) return;
  showError(null);
  hint = null;
  hinting = true;
  drawNote = "The engine weighs the draw offer…";
  render();
  try {
    const answer = await call("POST", "/draw", { player: view.to_move });
    view = answer.view;
    drawNote = answer.accepted ? null : answer.mate_in !== null
      ? `The engine declines the draw: it sees a win in ${answer.mate_in}.`
      : `The engine declines the draw: its evaluation is ${answer.score >= 0 ? "+" : ""}${answer.score} for itself, not behind.`;
  } catch (error) { drawNote = null; showError(error); }
  hinting = false;
  changed();
});
$("flip").addEventListener("click", () => { if (!view) return; flipped = !flipped; render(); showClocks(); });
$("nav-first").addEventListener("click", () => browse(0));
$("nav-prev").addEventListener("click", () => browse((browsing ?? view.history.length) - 1));
$("nav-next").addEventListener("click", () => browse(browsing === null ? null : browsing + 1));
$("nav-last").addEventListener("click", () => browse(null));
$("play-from-here").addEventListener("click", async () => {
  if (browsing === null) return;
  const count = view.history.slice(browsing).filter((p) => !p.chance).length;
  browsing = null;
  if (!count) return changed();
  try { view = await call("POST", "/undo", { count }); rewindClock(); } catch (error) { showError(error); }
  changed();
});
$("paste").addEventListener("click", async () => {
  if (!view) return;
  showError(null);
  try {
    view = await call("POST", "/position",
                      { board: $("position-board").value, player: $("position-player").value });
    selected = null;
    browsing = null;
    $("thinking").textContent = "";
  } catch (error) { showError(error); }
  changed();
});
$("copy").addEventListener("click", async () => {
  if (!view) return;
  const input = $("position-board");
  input.value = view.board;
  try { await navigator.clipboard.writeText(view.board); }
  catch { input.select(); document.execCommand("copy"); }
});
$("rematch").addEventListener("click", () => { if (info) newGame().catch(showError); });
$("copy-link").addEventListener("click", async () => {
  if (!view) return;
  updateAddress();
  try {
    await navigator.clipboard.writeText(location.href);
    $("copy-link-note").textContent = "Link copied.";
  } catch {
    $("record-text").value = location.href;
    $("record-text").select();
    $("copy-link-note").textContent = "The link is in the box below: copy it from there.";
  }
  setTimeout(() => { $("copy-link-note").textContent = ""; }, 4000);
});
$("export").addEventListener("click", () => { if (view) $("record-text").value = exportRecord(); });
$("import").addEventListener("click", () => {
  showError(null);
  try {
    const params = importRecord($("record-text").value);
    location.assign(`${location.pathname}?${params}`);
  } catch (error) { showError(error); }
});

start().catch(showError);
