// One position of a stored game, drawn as the web app draws its boards. Shared by the arena
// page's replay and the leaderboard's game pages (`aviary grade --out`), which must work
// opened from file:// as well: no server call here, and nothing from common.js.
"use strict";
function drawReplayBoard(board, replay, at) {
  const frame = replay.frames[at], before = at > 0 ? replay.frames[at - 1] : null;
  const make = (tag, className, text) => {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  };
  board.innerHTML = "";
  if (replay.rows === 0) {  // a game without a grid of cells (OpenSpiel's): its own picture
    board.style.gridTemplateColumns = "";
    board.setAttribute("aria-label", `position after ply ${frame.ply}: ${frame.picture}`);
    board.append(make("pre", "picture", frame.picture));
    return;
  }
  board.style.setProperty("--cols", String(replay.cols));
  board.style.gridTemplateColumns = `repeat(${replay.cols}, var(--cell))`;
  board.setAttribute("aria-label", `board after ply ${frame.ply}, row by row: ${frame.board}`);
  const holes = new Set(replay.holes), owners = frame.owners || replay.owners || {};
  for (let index = 0; index < replay.rows * replay.cols; index++) {
    const row = Math.floor(index / replay.cols), col = index % replay.cols, char = frame.board[index];
    const cell = make("div", "cell");
    cell.dataset.cell = String(index);
    if (holes.has(index) || char === "#") cell.classList.add("hole");
    else if ((row + col) % 2) cell.classList.add("dark");
    if (before && before.board[index] !== char && char !== "#") cell.classList.add("last");
    if (char !== "." && char !== "#") {
      const owner = owners[char];
      cell.append(make("div", `piece owner${owner === undefined ? "x" : owner}`, char));
    }
    board.append(cell);
  }
}
