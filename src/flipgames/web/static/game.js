// The game page (/play/{id}?token=... for a seat, /watch/{id} for spectators): draws the
// match with the game's board module, sends the player's actions, and follows the match
// live over the WebSocket.

import { ApiError, LiveMatch, api, copyText, matchIdFromPath } from "./api.js";
import {
  engineStatus, findMatch, hideToast, historyDelta, loadBoard, rememberMatch, renderMoves,
  renderPlayers, resultTitle, statusLine, toast,
} from "./common.js";
import { valueClass, valueText } from "./boards/svg.js";

const id = matchIdFromPath();
const token = new URLSearchParams(location.search).get("token");
const $ = (selector) => document.getElementById(selector);

let view = null;
let board = null;
let boardModule = null;
let info = null; // the game's entry from /api/games
let busy = false;
let analysis = null; // Map action -> {value, remoteness} while the switch is on

function interactive() {
  return Boolean(token) && !busy && view.status !== "finished" && (view.legal || []).length > 0;
}

async function show(next, { force = false } = {}) {
  // The socket and the HTTP answer both deliver each new view: keep the newest only (an undo
  // goes back on purpose, so it forces its view through).
  if (view && !force && next.ply < view.ply) return;
  const delta = historyDelta(view ? view.history : null, next.history);
  const first = !view;
  view = next;
  if (first) await setUp();
  if ($("analysis-toggle").checked) await loadAnalysis();
  board.update(view, { interactive: interactive(), analysis, ...delta });
  $("status-text").textContent = statusLine(view);
  $("turn-dot").className = `turn-dot p${view.current_player}`;
  document.body.classList.toggle("my-turn", interactive());
  renderPlayers($("players"), view);
  renderMoves($("moves"), boardModule.describeTurns(view.history));
  const over = view.status === "finished";
  $("result").hidden = !over;
  if (over) {
    $("result-title").textContent = resultTitle(view);
    $("result-detail").textContent = engineStatus(view);
    $("replay-link").href = `/replay/${encodeURIComponent(id)}`;
    $("record-link").href = api.recordUrl(id);
    rememberMatch({ id, result: view.result });
  }
  $("undo").disabled = busy || over || view.history.length === 0;
  $("hint").disabled = busy || !interactive();
  $("analysis-toggle").disabled = over;
}

async function setUp() {
  document.title = `${view.title} · flipgames arcade`;
  $("game-title").textContent = view.title;
  $("rules-link").href = `/rules/${encodeURIComponent(view.game)}`;
  boardModule = await loadBoard(view.game);
  const seat = view.mode === "local" ? null : view.seat;
  board = boardModule.createBoard($("board"), { seat, onAction: act });
  document.body.dataset.game = view.game;
  const games = await api.games().catch(() => []);
  info = games.find((g) => g.name === view.game) || null;
  const player = Boolean(token);
  $("undo").hidden = !(player && view.mode === "ai");
  $("hint").hidden = !player;
  $("analysis-switch").hidden = !(player && info && info.solved);
  setUpSharing();
  if (token) rememberMatch({ id, game: view.game, title: view.title, mode: view.mode, play: location.pathname + location.search });
}

function setUpSharing() {
  const watch = new URL(`/watch/${encodeURIComponent(id)}`, location.href).href;
  $("watch").value = watch;
  const mine = findMatch(id);
  const invite = mine && mine.invite ? new URL(mine.invite, location.href).href : null;
  $("invite-row").hidden = !invite;
  if (invite) $("invite").value = invite;
  $("share").hidden = view.mode !== "online" || !token;
  for (const button of document.querySelectorAll("button.copy")) {
    button.addEventListener("click", async () => {
      await copyText($(button.dataset.copy).value);
      button.textContent = "Copied";
      setTimeout(() => { button.textContent = "Copy"; }, 1500);
    });
  }
}

async function act(action) {
  if (!interactive()) return;
  busy = true;
  hideToast();
  document.body.classList.add("busy");
  try {
    await show(await api.act(id, token, action, view.ply));
  } catch (err) {
    toast(err instanceof ApiError ? err.message : String(err), "error");
  } finally {
    busy = false;
    document.body.classList.remove("busy");
    await show(view);
  }
}

async function loadAnalysis() {
  analysis = null;
  $("analysis").hidden = true;
  if (!interactive()) return;
  try {
    const data = await api.analysis(id, token);
    analysis = new Map(data.actions.map((a) => [a.action, a]));
  } catch (err) {
    // Solved with the default rules need not mean solved with this match's options.
    if (err.code === "unavailable") {
      $("analysis-toggle").checked = false;
      $("analysis-switch").hidden = true;
    }
    toast(err.message, "error");
    return;
  }
  const list = $("analysis-list");
  list.replaceChildren();
  const order = { win: 0, draw: 1, loss: 2 };
  const entries = [...analysis.values()].sort((a, b) => order[valueClass(a)] - order[valueClass(b)]);
  for (const entry of entries) {
    const item = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.className = `move-chip ${valueClass(entry)}`;
    button.dataset.action = entry.action;
    button.innerHTML = `<b></b><small></small>`;
    button.querySelector("b").textContent = entry.action;
    button.querySelector("small").textContent = valueText(entry);
    button.addEventListener("click", () => act(entry.action));
    item.append(button);
    list.append(item);
  }
  $("analysis").hidden = false;
}

$("undo").addEventListener("click", async () => {
  busy = true;
  try {
    const back = await api.undo(id, token);
    busy = false;
    await show(back, { force: true });
  } catch (err) {
    busy = false;
    toast(err.message, "error");
  }
});

$("hint").addEventListener("click", async () => {
  try {
    const hint = await api.hint(id, token);
    board.hint(hint.action);
    toast(`Hint: ${hint.action}`, "info");
  } catch (err) {
    toast(err.message, "error");
  }
});

$("analysis-toggle").addEventListener("change", () => show(view));

async function start() {
  if (!id) {
    $("status-text").textContent = "No match id in this address.";
    return;
  }
  try {
    await show(await api.view(id, token));
  } catch (err) {
    $("game-title").textContent = "Match not available";
    $("status-text").textContent = err.message;
    return;
  }
  const live = new LiveMatch(id, token, {
    onView: (next) => { if (!busy) show(next); },
    onError: (error) => toast(error.message, "error"),
    onStatus: (state) => {
      $("live").className = `live ${state}`;
      $("live").title = state === "live" ? "live updates on" : state === "reconnecting" ? "reconnecting…" : "live updates off";
    },
  });
  live.start();
}

document.body.classList.toggle("spectator", !token);
start();
