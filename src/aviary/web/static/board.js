// One page for every registered board game: everything game-specific comes from the server.
"use strict";
const gameName = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop());
const query = new URLSearchParams(location.search);
let info = null;        // the game's description (options, labels)
let view = null;        // the session's current view
let socket = null;
let socketReady = null;
let thinking = false;
let selected = null;    // the square whose moves are shown
let flipped = false;
let humans = new Set([0]);

const $ = (id) => document.getElementById(id);

async function start() {
  info = await api("GET", `/api/games/${encodeURIComponent(gameName)}`);
  document.title = `aviary: ${info.title}`;
  $("title").textContent = info.title;
  $("summary").textContent = info.summary;
  const options = $("options");
  for (const option of info.options) {
    const id = `opt-${option.name}`;
    const preset = query.get(option.name);
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
    options.append(element("label", {}, `${option.name} `, input, " ",
                           element("span", { class: "help" }, option.help)));
  }
  const side = $("side");
  side.append(element("option", { value: "0" }, `${info.labels[0]} (moves first)`));
  side.append(element("option", { value: "1" }, info.labels[1]));
  side.append(element("option", { value: "both" }, "both sides (no engine)"));
  side.append(element("option", { value: "none" }, "neither: engine against engine"));
  side.value = query.get("side") ?? "0";
  for (const label of info.labels) $("position-player").append(element("option", { value: label }, label));
  if (query.get("seconds")) $("seconds").value = query.get("seconds");
  if (query.get("max_plies")) $("max-plies").value = query.get("max_plies");
  await newGame(query.get("board"), query.get("player"));
}

function readSides() {
  const value = $("side").value;
  humans = new Set(value === "both" ? [0, 1] : value === "none" ? [] : [Number(value)]);
  flipped = value === "1";
}

async function newGame(board, player) {
  showError(null);
  const options = {};
  for (const input of document.querySelectorAll("[data-option]")) {
    options[input.dataset.option] = input.type === "checkbox" ? input.checked : input.value;
  }
  readSides();
  const body = { options, max_plies: Number($("max-plies").value) || 0 };
  if (board) { body.board = board; body.player = player || info.labels[0]; }
  const previous = view;
  view = await api("POST", `/api/games/${encodeURIComponent(gameName)}/sessions`, body);
  if (previous) api("DELETE", `/api/sessions/${previous.id}`).catch(() => {});
  thinking = false;
  selected = null;
  $("thinking").textContent = "";
  openSocket();
  render();
  engineTurn();
}

function openSocket() {
  if (socket) socket.close();
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${scheme}://${location.host}/api/sessions/${view.id}/think`);
  const mine = socket;
  socketReady = new Promise((resolve) => mine.addEventListener("open", resolve));
  socket.addEventListener("message", (event) => {
    if (mine !== socket) return;
    const message = JSON.parse(event.data);
    if (message.type === "thought") showThought(message);
    else if (message.type === "moved" || message.type === "dropped") {
      thinking = false;
      view = message.view;
      render();
      engineTurn();
    } else if (message.type === "error") {
      thinking = false;
      showError(new Error(message.message));
      render();
    }
  });
}

function showThought(t) {
  const score = t.mate_in === null ? (t.score >= 0 ? `+${t.score}` : `${t.score}`)
    : (t.mate_in > 0 ? `win in ${t.mate_in}` : `loss in ${-t.mate_in}`);
  const line = `depth ${String(t.depth).padStart(2)}  score ${score.padStart(9)}  ` +
    `${(t.nodes / 1000).toFixed(0).padStart(6)}k nodes  ${t.seconds.toFixed(2)} s  ${t.pv.join(" ")}`;
  const box = $("thinking");
  box.textContent = (box.textContent ? box.textContent + "\n" : "") + line;
  box.scrollTop = box.scrollHeight;
}

async function engineTurn() {
  if (!view || view.outcome || thinking || view.to_move < 0 || humans.has(view.to_move)) return;
  thinking = true;
  $("thinking").textContent = "";
  render();
  await socketReady;
  socket.send(JSON.stringify({ type: "go", seconds: Number($("seconds").value) || 1 }));
}

function humanTurn() {
  return view && !view.outcome && !thinking && view.to_move >= 0 && humans.has(view.to_move);
}

async function play(text) {
  showError(null);
  selected = null;
  try {
    view = await api("POST", `/api/sessions/${view.id}/move`, { move: text });
  } catch (error) {
    showError(error);
  }
  render();
  engineTurn();
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

function render() {
  const board = $("board");
  board.innerHTML = "";
  board.style.gridTemplateColumns = `repeat(${view.cols}, var(--cell))`;
  const holes = new Set(view.holes);
  const human = humanTurn();
  const starts = new Set(human ? view.moves.map((m) => m.start).filter((s) => s !== null) : []);
  const targets = new Set(human ? view.moves.filter((m) => m.start === selected ||
    (m.start === null && selected === null)).map((m) => m.end).filter((e) => e !== null) : []);
  const count = view.rows * view.cols;
  for (let shown = 0; shown < count; shown++) {
    const index = flipped ? count - 1 - shown : shown;
    const row = Math.floor(index / view.cols), col = index % view.cols;
    const char = view.board[index];
    const cell = element("div", { class: "cell", "data-cell": String(index),
      title: `${String.fromCharCode(97 + col)}${row + 1}` });
    if (holes.has(index) || char === "#") cell.classList.add("hole");
    else if ((row + col) % 2) cell.classList.add("dark");
    if (starts.has(index)) cell.classList.add("movable");
    if (index === selected) cell.classList.add("selected");
    if (targets.has(index) && (selected !== null || !starts.size)) cell.classList.add("target");
    if (char !== "." && char !== "#" && char !== undefined) {
      const owner = view.owners[char];
      const piece = element("div", { class: `piece owner${owner === undefined ? "x" : owner}` }, char);
      const twin = char === char.toUpperCase() ? char.toLowerCase() : null;
      if (twin && twin !== char && view.owners[twin] === owner) piece.classList.add("promoted");
      cell.append(piece);
    }
    cell.addEventListener("click", () => clickCell(index));
    board.append(cell);
  }
  const mover = view.player;
  const who = view.to_move < 0 ? "" : humans.has(view.to_move) ? "you" : "engine";
  $("status").textContent = view.outcome ? "Game over." :
    `${mover} to move (${who}${thinking ? ", thinking…" : ""}) · move ${view.decisions + 1}` +
    (view.max_plies ? ` of ${view.max_plies}` : "");
  $("result").textContent = view.outcome ? `Result: ${view.outcome.text}` : "";
  $("result").dataset.over = view.outcome ? "yes" : "no";
  const moveList = $("moves");
  moveList.innerHTML = "";
  for (const move of human ? view.moves : []) {
    moveList.append(element("button", { class: "move-button", "data-move": move.text,
      onclick: () => play(move.text) }, move.text));
  }
  $("history").textContent = view.history.filter((p) => !p.chance).map((p) => p.text).join(" ");
  $("keys-help").hidden = !Object.keys(view.keys).length;
  $("move-now").disabled = !thinking;
  $("undo").disabled = !view.decisions;
  const boardInput = $("position-board");
  if (document.activeElement !== boardInput) boardInput.value = view.board;
  if (view.player && document.activeElement !== $("position-player")) $("position-player").value = view.player;
  board.dataset.thinking = thinking ? "yes" : "no";
  board.dataset.decisions = String(view.decisions);
  board.dataset.turn = humanTurn() ? "human" : view.outcome ? "over" : "engine";
}

document.addEventListener("keydown", (event) => {
  if (!humanTurn() || event.target.tagName === "INPUT" || event.target.tagName === "SELECT") return;
  const text = view.keys[event.key];
  if (text) { event.preventDefault(); play(text); }
});

$("new-game-form").addEventListener("submit", (event) => {
  event.preventDefault();
  newGame().catch(showError);
});
$("side").addEventListener("change", () => { readSides(); render(); engineTurn(); });
$("move-now").addEventListener("click", () => {
  if (thinking && socket) socket.send(JSON.stringify({ type: "stop" }));
});
$("undo").addEventListener("click", async () => {
  showError(null);
  // take back to the last position where a person was to move
  let count = 1;
  const decisions = view.history.filter((p) => !p.chance).length;
  if (humans.size === 1 && decisions >= 2 && !thinking && !humanTurn()) count = 1;
  else if (humans.size === 1 && decisions >= 2 && humanTurn()) count = 2;
  try {
    view = await api("POST", `/api/sessions/${view.id}/undo`, { count });
    thinking = false;
    selected = null;
  } catch (error) { showError(error); }
  render();
});
$("flip").addEventListener("click", () => { flipped = !flipped; render(); });
$("paste").addEventListener("click", async () => {
  showError(null);
  try {
    view = await api("POST", `/api/sessions/${view.id}/position`,
                     { board: $("position-board").value, player: $("position-player").value });
    thinking = false;
    selected = null;
    $("thinking").textContent = "";
  } catch (error) { showError(error); }
  render();
  engineTurn();
});
$("copy").addEventListener("click", async () => {
  const input = $("position-board");
  input.value = view.board;
  try { await navigator.clipboard.writeText(view.board); }
  catch { input.select(); document.execCommand("copy"); }
});

start().catch(showError);
