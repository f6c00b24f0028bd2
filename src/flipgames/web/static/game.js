// The game page (/play/{id}?token=... for a seat, /watch/{id} for spectators): draws the
// match with the game's board module, sends the player's actions, and follows the match
// live over the WebSocket.
//
// Help (hints, analysis) belongs to the position it was asked for: each answer is kept with
// that position's key and dropped, marks and all, as soon as the position changes.

import { ApiError, LiveMatch, api, copyText, matchIdFromPath } from "./api.js";
import {
  cap, endingDetail, findMatch, hideToast, historyDelta, loadBoard, recordFileName, rememberMatch,
  renderMoves, renderPlayers, resultTitle, statusLine, toast,
} from "./common.js";
import { valueClass, valueText } from "./boards/svg.js";
import { createClocks } from "./clock.js";

const id = matchIdFromPath();
const token = new URLSearchParams(location.search).get("token");
const $ = (selector) => document.getElementById(selector);

let view = null;
let board = null;
let boardModule = null;
let info = null; // the game's entry from /api/games
let busy = false;
let thinking = false; // a move against the computer is on its way to the server
let liveState = "connecting"; // the WebSocket: "live", "reconnecting" or "closed"
let askingForMove = false; // a waiting read (no live socket) is out for the computer's move
let analysis = null; // {key, map: action -> {value, remoteness}} while the switch is on
let analysisWanted = null; // the position key an analysis request is out for
let hint = null; // {key, action} of the last hint shown
let presence = null; // the seats with the match open (online), from the socket
let lookback = null; // an earlier position being looked at: a view-like frame, or null
let flipped = false; // the player turned the board round
let myTurnBefore = false; // for the turn notification: only when the turn arrives
let resignArmed = false; // Resign asks to be clicked again
let resultClosed = false; // the player closed the game-over sheet (phones)
let drawnBoard = null; // what the board last drew: {key, interactive, analysis}
// A clock that reaches zero here: the server's loss on time comes over the socket; should it
// not come (socket down), ask for the match.
const clocks = createClocks($("clocks"), {
  onExpired: () => setTimeout(async () => {
    if (view.status === "finished") return;
    try {
      await show(await api.view(id, token));
    } catch (err) {
      toast(err.message, "error");
    }
  }, liveState === "live" ? 1500 : 200),
});

/** A structured move or action in the board's words (FlipFour: "+ drop c5"), else its text. */
const moveWords = (move) => (boardModule && boardModule.moveText ? boardModule.moveText(move) : move.text);

/** Identifies a position: an undo followed by another move reaches the same ply elsewhere. */
const positionKey = (v) => `${v.ply}|${v.history.join(" ")}`;

function interactive() {
  return Boolean(token) && !busy && view.status !== "finished" && (view.legal_actions || []).length > 0;
}

/** The analysis of the position on screen, or null. */
function shownAnalysis() {
  return analysis && view && analysis.key === positionKey(view) ? analysis.map : null;
}

/** The computer is to move (the server says so), or a move that makes it move is out. */
function computerThinking() {
  return thinking || Boolean(view && view.thinking);
}

/** Without a live socket nothing would bring the computer's move: ask for it. */
async function awaitComputer() {
  if (!view || !view.thinking || askingForMove) return;
  if (liveState === "live" || liveState === "connecting") return;
  askingForMove = true;
  try {
    await show(await api.view(id, token, { wait: true }));
  } catch (err) {
    toast(err.message, "error");
  } finally {
    askingForMove = false;
  }
}

async function show(next, { force = false } = {}) {
  // The socket and the HTTP answer both deliver each new view: keep the newest only (an undo
  // goes back on purpose, so it forces its view through).
  if (view && !force && next.ply < view.ply) return;
  let delta = historyDelta(view ? view.moves : null, next.moves);
  const first = !view;
  const moved = !first && positionKey(view) !== positionKey(next);
  const declined = !first && ownOfferDeclined(view, next);
  view = next;
  if (first) await setUp();
  if (declined) toast("Your draw offer was declined.", "info");
  if (moved) forgetHelp();
  if (moved && lookback) {
    lookback = null; // the game went on: show it
    delta = { fresh: [], reverse: false };
  }
  notifyTurn();
  draw(delta);
  if ($("analysis-toggle").checked && view.assist) requestAnalysis();
  awaitComputer();
}

/** This page's draw offer is gone and the game goes on: the other player declined it (by
 * answering, or by moving instead). */
function ownOfferDeclined(before, after) {
  const mine = Boolean(token) && before.draw_offer !== null && before.draw_offer !== undefined
    && before.draw_offer === before.seat;
  return mine && after.status !== "finished" && (after.draw_offer === null || after.draw_offer === undefined);
}

/** Drop every piece of help given for an earlier position. */
function forgetHelp() {
  if (hint) {
    hint = null;
    hideToast("info");
  }
}

/** It is now this page's turn: say so in the tab's title (and with a sound if asked). */
function notifyTurn() {
  const mine = Boolean(token) && view.status !== "finished" && (view.legal_actions || []).length > 0;
  if (mine && !myTurnBefore && $("sound-toggle").checked) beep();
  myTurnBefore = mine;
  const prefix = view.status === "finished" ? "Game over · " : mine && view.mode !== "local" ? "● Your move · " : "";
  document.title = `${prefix}${view.title} · flipgames arcade`;
}

let audio = null;
function beep() {
  try {
    audio = audio || new AudioContext();
    const tone = audio.createOscillator();
    const gain = audio.createGain();
    tone.frequency.value = 660;
    gain.gain.setValueAtTime(0.15, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.25);
    tone.connect(gain).connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.25);
  } catch {
    // No audio on this device: the title still says it.
  }
}

function draw(delta = { fresh: [], reverse: false }) {
  // The board is redrawn only when what it shows changed: a redraw drops the piece the player
  // has picked and the focus on its targets, and the page redraws for other reasons too (the
  // socket's copy of a view already shown, presence, a draw offer).
  const shown = lookback
    ? { key: `past|${positionKey(lookback)}`, interactive: false, analysis: null }
    : { key: positionKey(view), interactive: interactive(), analysis: shownAnalysis() };
  const same = drawnBoard && delta.fresh.length === 0 && ["key", "interactive", "analysis"].every((k) => drawnBoard[k] === shown[k]);
  if (!same) {
    board.update(lookback || view, { interactive: shown.interactive, analysis: shown.analysis, ...delta });
    drawnBoard = shown;
  }
  if (hint && !lookback && hint.key === positionKey(view)) board.hint(hint.move);
  const waiting = computerThinking();
  $("status-text").textContent = waiting ? "The computer is thinking…" : statusLine(view);
  $("thinking").hidden = !waiting;
  document.body.classList.toggle("thinking", waiting);
  $("turn-dot").className = `turn-dot p${view.current_player}`;
  document.body.classList.toggle("my-turn", interactive());
  renderPlayers($("players"), view, presence);
  clocks.update(view);
  renderAssist();
  renderMoves($("moves"), boardModule.describeTurns(view.moves), {
    players: view.players,
    current: lookback ? lookback.history.length : null,
    onPick: lookAt,
  });
  $("lookback").hidden = !lookback;
  if (lookback) {
    const shown = lookback.moves[lookback.moves.length - 1];
    const last = shown ? `after ${moveWords(shown)}` : "the start";
    $("lookback-text").textContent = `Looking back: ${last} (move ${lookback.history.length} of ${view.history.length})`;
  }
  renderOffer();
  renderAnalysis();
  const over = view.status === "finished";
  $("result").hidden = !over || resultClosed;
  if (over) {
    $("result-title").textContent = resultTitle(view);
    $("result-detail").textContent = endingDetail(view);
    const lines = boardModule.resultLines ? boardModule.resultLines(view) : [];
    $("result-lines").replaceChildren(...lines.map((text) => {
      const item = document.createElement("li");
      item.append(text); // words, or a node the board drew (Flip Switch: a round's board)
      return item;
    }));
    $("result-lines").hidden = lines.length === 0;
    renderRematch();
    $("replay-link").href = `/replay/${encodeURIComponent(id)}`;
    $("record-link").href = api.recordUrl(id);
    $("record-link").download = recordFileName(view.game);
    // Only a player's own matches go to "My games", with their seat to say who won.
    if (token) {
      rememberMatch({ id, result: view.result, seat: view.mode === "local" ? null : view.seat, players: view.players });
    }
  }
  const playing = Boolean(token) && !over;
  $("resign").hidden = !playing;
  $("resign").disabled = busy;
  $("offer-draw").hidden = !(playing && view.mode === "online");
  const offered = view.draw_offer !== null && view.draw_offer !== undefined;
  $("offer-draw").disabled = busy || (offered && view.draw_offer === view.seat);
  $("offer-draw").textContent = offered && view.draw_offer === view.seat ? "½ Draw offered" : "½ Offer draw";
  $("undo").disabled = busy || !view.undo;
  $("hint").disabled = busy || !interactive();
  $("hint").hidden = !(token && view.assist);
  $("analysis-switch").hidden = !(token && view.assist && info && info.solved);
  $("analysis-toggle").disabled = over;
  // Spectators, and players without undo or help, get no empty controls card.
  $("controls").hidden = ["undo", "hint", "analysis-switch", "resign", "offer-draw"].every((name) => $(name).hidden);
}

async function setUp() {
  document.title = `${view.title} · flipgames arcade`;
  $("game-title").textContent = view.title;
  $("rules-link").href = `/rules/${encodeURIComponent(view.game)}`;
  boardModule = await loadBoard(view.board);
  makeBoard();
  $("flip-board").hidden = !boardModule.canFlip;
  $("sound-toggle").checked = localStorage.getItem("flipgames.sound") === "on";
  document.body.dataset.game = view.game;
  const games = await api.games().catch(() => []);
  info = games.find((g) => g.name === view.game) || null;
  const player = Boolean(token);
  $("undo").hidden = !(player && view.mode === "ai");
  $("undo-note").hidden = $("undo").hidden;
  $("undo-note").textContent = info && info.has_chance
    ? "Undo takes back your last move and the computer's reply, but never a move that a chance outcome (a tile's shape, a spin) has followed: what chance showed stays."
    : "Undo takes back your last move and the computer's reply.";
  if (boardModule.legend) {
    $("moves-legend").textContent = boardModule.legend;
    $("moves-legend").hidden = false;
  }
  setUpSharing();
  if (token) rememberMatch({ id, game: view.game, title: view.title, mode: view.mode, play: location.pathname + location.search });
}

/** The board, seen from the player's side, or from the other one after "Flip board". */
function makeBoard() {
  const seat = view.mode === "local" ? null : view.seat;
  const side = flipped ? (seat === 1 ? 0 : 1) : seat;
  $("board").replaceChildren();
  drawnBoard = null;
  board = boardModule.createBoard($("board"), { seat: side, onAction: act, announce: (text) => toast(text, "info") });
}

/** The other player's draw offer, with Accept and Decline (or, offered by us, nothing). */
function renderOffer() {
  const theirs = Boolean(token) && view.status !== "finished" && view.draw_offer !== null
    && view.draw_offer !== undefined && view.draw_offer !== view.seat;
  $("draw-offer").hidden = !theirs;
  if (theirs) $("draw-offer-text").textContent = `${cap(view.players[view.draw_offer])} offers a draw.`;
}

/** Rematch: ask for one, or join the one the other player asked for; a spectator gets the
 * rematch's spectator link to follow it. */
function renderRematch() {
  const button = $("rematch");
  button.hidden = !token;
  const watch = $("rematch-watch");
  if (!token) {
    $("rematch-note").hidden = !view.rematch;
    watch.hidden = !view.rematch;
    $("rematch-note-text").textContent = "One player asked for a rematch (sides swapped).";
    if (view.rematch) watch.href = `/watch/${encodeURIComponent(view.rematch)}`;
    return;
  }
  watch.hidden = true;
  const mine = findMatch(id);
  const joined = mine && mine.rematch;
  button.textContent = view.rematch && !joined && view.mode === "online" ? "↻ Join the rematch" : "↻ Rematch";
  $("rematch-note").hidden = !(view.rematch && !joined && view.mode === "online");
  $("rematch-note-text").textContent = "Your opponent asked for a rematch (sides swapped).";
}

/** Show the position after `count` history entries; the live game goes on meanwhile. */
async function lookAt(count) {
  if (count === view.history.length) {
    leaveLookback();
    return;
  }
  try {
    const frame = await api.position(id, count);
    const history = view.history.slice(0, count);
    const moves = view.moves.slice(0, count);
    const last = frame.action ? { action: frame.action, by: frame.by } : null;
    const before = lookback || view;
    lookback = { ...view, ...frame, seat: view.seat, seats: view.seats, legal: [], legal_actions: [], history, moves, last };
    draw(historyDelta(before.moves, moves));
  } catch (err) {
    toast(err.message, "error");
  }
}

function leaveLookback() {
  if (!lookback) return;
  const before = lookback;
  lookback = null;
  draw(historyDelta(before.moves, view.moves));
}

function renderAssist() {
  const note = $("assist-note");
  const two = view.mode !== "ai" ? " for both players" : "";
  note.textContent = view.assist ? `Hints and analysis: on${two}` : `Hints and analysis: off${two}`;
  note.className = `assist-note ${view.assist ? "on" : "off"}`;
  if (view.mode !== "ai") note.title = "The player who created the match chose this when creating it.";
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
  thinking = view.mode === "ai";
  hideToast();
  document.body.classList.add("busy");
  draw();
  try {
    const next = await api.act(id, token, action, view.ply);
    busy = false;
    thinking = false;
    await show(next);
  } catch (err) {
    toast(err instanceof ApiError ? err.message : String(err), "error");
  } finally {
    busy = false;
    thinking = false;
    document.body.classList.remove("busy");
    draw();
  }
}

/** Ask for the analysis of the position on screen (once); draw it if it is still there. */
async function requestAnalysis() {
  const key = positionKey(view);
  if (!interactive() || shownAnalysis() || analysisWanted === key) return;
  analysisWanted = key;
  try {
    const data = await api.analysis(id, token);
    if (analysisWanted !== key) return;
    analysis = { key, map: new Map(data.actions.map((a) => [a.action, a])) };
  } catch (err) {
    // Solved with the default rules need not mean solved with this match's options.
    if (err.code === "unavailable") {
      $("analysis-toggle").checked = false;
      $("analysis-switch").hidden = true;
    }
    if (positionKey(view) === key) toast(err.message, "error");
    return;
  } finally {
    if (analysisWanted === key) analysisWanted = null;
  }
  if ($("analysis-toggle").checked && positionKey(view) === key) draw();
}

function renderAnalysis() {
  const shown = $("analysis-toggle").checked ? shownAnalysis() : null;
  const list = $("analysis-list");
  $("analysis").hidden = !shown;
  if (!shown) {
    list.replaceChildren();
    return;
  }
  const key = positionKey(view);
  const order = { win: 0, draw: 1, loss: 2 };
  const entries = [...shown.values()].sort((a, b) => order[valueClass(a)] - order[valueClass(b)]);
  list.replaceChildren(...entries.map((entry) => {
    const item = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.className = `move-chip ${valueClass(entry)}`;
    button.dataset.action = entry.action;
    button.innerHTML = `<b></b><small></small>`;
    const legal = (view.legal_actions || []).find((action) => action.text === entry.action);
    button.querySelector("b").textContent = legal ? moveWords(legal) : entry.action;
    button.querySelector("small").textContent = valueText(entry);
    // A chip plays its move only in the position it was computed for.
    button.addEventListener("click", () => { if (positionKey(view) === key) act(entry.action); });
    item.append(button);
    return item;
  }));
}

$("undo").addEventListener("click", async () => {
  busy = true;
  draw();
  try {
    const back = await api.undo(id, token);
    busy = false;
    await show(back, { force: true });
  } catch (err) {
    toast(err.message, "error");
  } finally {
    busy = false;
    draw();
  }
});

$("hint").addEventListener("click", async () => {
  const key = positionKey(view);
  const button = $("hint");
  button.classList.add("working");
  button.querySelector("span").textContent = "Thinking…";
  button.disabled = true;
  try {
    const answer = await api.hint(id, token);
    // The position moved on while the hint was worked out: it is not for this one.
    if (positionKey(view) !== key) return;
    // The hint names a legal action: the board marks its structured form.
    const move = view.legal_actions.find((action) => action.text === answer.action);
    if (!move) return;
    hint = { key, move };
    board.hint(move);
    toast(`Hint: ${moveWords(move)}`, "info");
  } catch (err) {
    if (positionKey(view) === key) toast(err.message, "error");
  } finally {
    button.classList.remove("working");
    button.querySelector("span").textContent = "Hint";
    button.disabled = busy || !interactive();
  }
});

/** Run a request that changes the match (resign, draw); its answer is the new view. */
async function send(request) {
  busy = true;
  draw();
  try {
    const next = await request();
    busy = false;
    await show(next);
  } catch (err) {
    toast(err.message, "error");
  } finally {
    busy = false;
    draw();
  }
}

$("resign").addEventListener("click", () => {
  // Two clicks: a stray tap must not end the game.
  if (!resignArmed) {
    resignArmed = true;
    $("resign").textContent = "⚑ Really resign?";
    $("resign").classList.add("danger");
    setTimeout(() => {
      resignArmed = false;
      $("resign").textContent = "⚑ Resign";
      $("resign").classList.remove("danger");
    }, 4000);
    return;
  }
  resignArmed = false;
  $("resign").textContent = "⚑ Resign";
  $("resign").classList.remove("danger");
  send(() => api.resign(id, token));
});
$("offer-draw").addEventListener("click", () => send(() => api.draw(id, token, "offer")));
$("draw-accept").addEventListener("click", () => send(() => api.draw(id, token, "accept")));
$("draw-decline").addEventListener("click", () => send(() => api.draw(id, token, "decline")));
$("lookback-exit").addEventListener("click", leaveLookback);
$("result-close").addEventListener("click", () => {
  resultClosed = true;
  $("result").hidden = true;
});
$("flip-board").addEventListener("click", () => {
  flipped = !flipped;
  $("flip-board").setAttribute("aria-pressed", String(flipped));
  makeBoard();
  draw();
});
$("sound-toggle").addEventListener("change", () => {
  localStorage.setItem("flipgames.sound", $("sound-toggle").checked ? "on" : "off");
  if ($("sound-toggle").checked) beep(); // a sample (and browsers allow audio after a click)
});
$("rematch").addEventListener("click", async () => {
  $("rematch").disabled = true;
  try {
    const created = await api.rematch(id, token);
    rememberMatch({ id, rematch: created.id });
    rememberMatch({
      id: created.id, game: view.game, title: view.title, mode: view.mode,
      play: created.links.play, created: Date.now(),
    });
    location.href = created.links.play;
  } catch (err) {
    toast(err.message, "error");
    $("rematch").disabled = false;
  }
});

$("analysis-toggle").addEventListener("change", () => {
  if (!$("analysis-toggle").checked) {
    analysis = null;
    analysisWanted = null;
  }
  draw();
  if ($("analysis-toggle").checked) requestAnalysis();
});

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
    onPresence: view.mode === "online" ? (seats) => { presence = seats; draw(); } : null,
    // Views can overtake the HTTP answer (the computer's reply, say): show keeps the newest.
    onView: (next) => show(next),
    onError: (error) => toast(error.message, "error"),
    onStatus: (state) => {
      liveState = state;
      if (state !== "live") awaitComputer();
      $("live").className = `live ${state}`;
      $("live").title = state === "live" ? "live updates on" : state === "reconnecting" ? "reconnecting…" : "live updates off";
    },
  });
  live.start();
}

document.body.classList.toggle("spectator", !token);
start();
