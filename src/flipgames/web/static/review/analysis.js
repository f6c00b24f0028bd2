// The analysis board (/analysis/{game}?position=...&moves=...): any position, set up by the
// position notation or by moves, with its value for the first player and its best moves from
// GET /api/analysis/{game}. Moves clicked on the board are played here, never in a match.

import { loadBoard, toast } from "../common.js";
import { t } from "../i18n.js";
import { describeValue, firstPlayerShare, sourceWords } from "./values.js";

const $ = (selector) => document.getElementById(selector);
const game = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() || "");
const query = new URLSearchParams(location.search);
const options = query.get("options") || "";

let board = null;
let boardName = null;
let shown = null; // the last answer drawn
let moves = (query.get("moves") || "").split(/\s+/).filter(Boolean);
let position = query.get("position") || "";
const undoStack = []; // earlier set-ups, the latest last

async function fetchAnalysis(setup) {
  const params = new URLSearchParams();
  if (setup.position) params.set("position", setup.position);
  if (setup.moves.length) params.set("moves", setup.moves.join(" "));
  if (options) params.set("options", options);
  const response = await fetch(`/api/analysis/${encodeURIComponent(game)}?${params}`, { headers: { Accept: "application/json" } });
  const data = await response.json().catch(() => null);
  if (!response.ok) {
    const message = data && data.error ? data.error.message : t("review.server_answered", { status: response.status });
    throw new Error(message);
  }
  return data;
}

function showError(message) {
  const box = $("setup-error");
  box.textContent = message;
  box.hidden = !message;
}

/** The address of this board, so it can be bookmarked or shared. */
function remember() {
  const params = new URLSearchParams();
  if (position) params.set("position", position);
  if (moves.length) params.set("moves", moves.join(" "));
  if (options) params.set("options", options);
  history.replaceState(null, "", `${location.pathname}${params.toString() ? "?" + params : ""}`);
}

async function draw(data) {
  const view = data.view;
  if (boardName !== view.board) {
    const module = await loadBoard(view.board);
    // The first player at the bottom whoever is to move: the board is studied, not played.
    board = module.createBoard($("board"), { seat: 0, onAction: play, announce: () => {} });
    boardName = view.board;
  }
  board.update(view, { interactive: view.legal.length > 0, analysis: null, fresh: [], reverse: false });
  renderActions(data, view.players);
  renderOutcomes(data);
  shown = data;
  document.title = `${t("analysis.page_title", { game: view.title })} · flipgames arcade`;
  $("analysis-title").textContent = t("analysis.heading", { game: view.title });
  $("rules-link").href = `/rules/${encodeURIComponent(game)}`;
  $("turn-dot").className = `turn-dot p${view.current_player}`;
  $("status-text").textContent = view.observation ? view.observation.status_text : "";
  $("value-text").textContent = describeValue(data.value, view.players);
  $("value-bar").style.width = `${Math.round(100 * firstPlayerShare(data.value))}%`;
  $("value-source").textContent = sourceWords(data.source, data.exact);
  const list = $("best-moves");
  list.replaceChildren(...data.best.map((text) => {
    const item = document.createElement("li");
    item.textContent = text;
    return item;
  }));
  if (!data.best.length) list.replaceChildren(Object.assign(document.createElement("li"), { textContent: t("analysis.none") }));
  if (data.position !== null) $("position-input").value = data.position;
  $("position-label").hidden = data.position === null;
  $("position-note").textContent = data.position === null
    ? t("analysis.no_notation")
    : t("analysis.notation");
  $("moves-input").value = "";
  $("back").disabled = undoStack.length === 0;
}

/** Every legal move with its exact value for the first player, best first for the mover. */
function renderActions(data, players) {
  const list = $("all-moves");
  const sign = data.to_move === 1 ? -1 : 1;
  const rows = [...data.actions].sort((a, b) => sign * (b.value - a.value));
  list.replaceChildren(...rows.map((row) => {
    const item = document.createElement("li");
    item.textContent = t("analysis.move_value", { move: row.action, value: describeValue(row.value, players) });
    return item;
  }));
  $("all-moves-title").hidden = rows.length === 0;
}

/** At a chance node: a button per outcome, with its probability, that plays it here. */
function renderOutcomes(data) {
  $("outcomes").replaceChildren(...data.outcomes.map((outcome) => {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "outcome";
    button.dataset.action = outcome.action;
    button.textContent = t("analysis.outcome", { action: outcome.action, percent: Math.round(100 * outcome.probability) });
    button.addEventListener("click", () => play(outcome.action));
    return button;
  }));
  $("outcomes-title").hidden = data.outcomes.length === 0;
}

async function refresh(setup) {
  try {
    const data = await fetchAnalysis(setup);
    showError("");
    // The board starts from the answer's position: later moves are made from it.
    position = data.position !== null ? data.position : "";
    moves = data.position !== null ? [] : data.moves;
    remember();
    await draw(data);
    return true;
  } catch (err) {
    showError(err.message);
    return false;
  }
}

function play(action) {
  if (!shown) return;
  const before = { position, moves: [...moves] };
  refresh({ position, moves: [...moves, action] }).then((ok) => {
    if (ok) keep(before);
  });
}

/** Remember the set-up before a change, so "Take back a move" can return to it. */
function keep(before) {
  undoStack.push(before);
  $("back").disabled = false;
}

$("setup").addEventListener("submit", (event) => {
  event.preventDefault();
  const typed = $("position-input").value.trim();
  const extra = $("moves-input").value.split(/\s+/).filter(Boolean);
  const base = shown && shown.position === null ? moves : [];
  const before = { position, moves: [...moves] };
  refresh({ position: typed, moves: [...base, ...extra] }).then((ok) => {
    if (ok) keep(before);
  });
});
$("back").addEventListener("click", () => {
  const before = undoStack.pop();
  if (before) refresh(before).then(() => { $("back").disabled = undoStack.length === 0; });
  else toast(t("analysis.nothing_back"), "info");
});

refresh({ position, moves }).then((ok) => {
  if (!ok) $("status-text").textContent = t("analysis.set_up_one");
});
