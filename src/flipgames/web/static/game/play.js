// Playing: showing each new view of the match, drawing the page from the state, sending the
// player's actions and undo, and following the match live over the WebSocket.

import { ApiError, api } from "../api.js";
import { hideToast, historyDelta, loadBoard, rememberMatch, renderMoves, renderPlayers, statusLine, toast } from "../common.js";
import { createClocks } from "../clock.js";
import { liveMatch } from "./chat.js";
import { forgetHelp, renderAnalysis, renderAssist, requestAnalysis } from "./help.js";
import { lookAt, renderLookback } from "./lookback.js";
import { ownOfferDeclined, renderOffer, renderResult, setUpSharing } from "./social.js";
import { $, computerThinking, id, interactive, positionKey, shownAnalysis, state, token } from "./state.js";
import { renderTakeback, takebackNews, takenBack } from "./takeback.js";
import { notifyTurn } from "./turn.js";
import { playSound, soundFor } from "../sounds.js";
import { soundsOn } from "../settings.js";
import { t } from "../i18n.js";

// A clock that reaches zero here: the server's loss on time comes over the socket; should it
// not come (socket down), ask for the match.
const clocks = createClocks($("clocks"), {
  onExpired: () => setTimeout(async () => {
    if (state.view.status === "finished") return;
    try {
      await show(await api.view(id, token));
    } catch (err) {
      toast(err.message, "error");
    }
  }, state.liveState === "live" ? 1500 : 200),
});

/** Without a live socket nothing would bring the computer's move: ask for it. */
async function awaitComputer() {
  if (!state.view || !state.view.thinking || state.askingForMove) return;
  if (state.liveState === "live" || state.liveState === "connecting") return;
  state.askingForMove = true;
  try {
    await show(await api.view(id, token, { wait: true }));
  } catch (err) {
    toast(err.message, "error");
  } finally {
    state.askingForMove = false;
  }
}

export async function show(next, { force = false } = {}) {
  // The socket and the HTTP answer both deliver each new view: keep the newest only (an undo
  // goes back on purpose, so it forces its view through).
  const view = state.view;
  if (view && !force && next.ply < view.ply && !takenBack(view, next)) return;
  let delta = historyDelta(view ? view.moves : null, next.moves);
  const first = !view;
  const moved = !first && positionKey(view) !== positionKey(next);
  const declined = !first && ownOfferDeclined(view, next);
  const takeback = first ? null : takebackNews(view, next);
  state.view = next;
  if (first) await setUp();
  if (declined) toast(t("game.draw_declined"), "info");
  if (takeback === "declined") toast(t("game.takeback_declined"), "info");
  if (takeback === "accepted") toast(t("game.taken_back"), "info");
  if (moved) forgetHelp();
  if (moved && state.lookback) {
    state.lookback = null; // the game went on: show it
    delta = { fresh: [], reverse: false };
  }
  notifyTurn();
  // A new move shown (the player's own or the other side's), not the first picture or an undo.
  if (!first && !delta.reverse && delta.fresh.length > 0 && soundsOn()) playSound(soundFor(delta.fresh));
  draw(delta);
  if ($("analysis-toggle").checked && state.view.assist) requestAnalysis();
  awaitComputer();
}

export function draw(delta = { fresh: [], reverse: false }) {
  const { lookback, view } = state;
  drawBoard(delta);
  const waiting = computerThinking();
  $("status-text").textContent = waiting ? t("status.thinking") : statusLine(view);
  $("thinking").hidden = !waiting;
  document.body.classList.toggle("thinking", waiting);
  $("turn-dot").className = `turn-dot p${view.current_player}`;
  document.body.classList.toggle("my-turn", interactive());
  renderPlayers($("players"), view, state.presence);
  clocks.update(view);
  renderAssist();
  renderMoves($("moves"), state.boardModule.describeTurns(view.moves), {
    players: view.players,
    current: lookback ? lookback.history.length : null,
    onPick: lookAt,
  });
  renderLookback();
  renderOffer();
  renderTakeback();
  renderAnalysis();
  renderResult();
  renderControls();
}

function drawBoard(delta) {
  // The board is redrawn only when what it shows changed: a redraw drops the piece the player
  // has picked and the focus on its targets, and the page redraws for other reasons too (the
  // socket's copy of a view already shown, presence, a draw offer).
  const { drawnBoard, hint, lookback, view } = state;
  const shown = lookback
    ? { key: `past|${positionKey(lookback)}`, interactive: false, analysis: null }
    : { key: positionKey(view), interactive: interactive(), analysis: shownAnalysis() };
  const same = drawnBoard && delta.fresh.length === 0 && ["key", "interactive", "analysis"].every((k) => drawnBoard[k] === shown[k]);
  if (!same) {
    state.board.update(lookback || view, { interactive: shown.interactive, analysis: shown.analysis, ...delta });
    state.drawnBoard = shown;
  }
  if (hint && !lookback && hint.key === positionKey(view)) state.board.hint(hint.move);
}

/** The player's buttons, shown and enabled for what the match allows now. */
function renderControls() {
  const { busy, info, view } = state;
  const over = view.status === "finished";
  const playing = Boolean(token) && !over;
  $("resign").hidden = !playing;
  $("resign").disabled = busy;
  $("offer-draw").hidden = !(playing && view.mode === "online");
  const offered = view.draw_offer !== null && view.draw_offer !== undefined;
  $("offer-draw").disabled = busy || (offered && view.draw_offer === view.seat);
  $("offer-draw").textContent = offered && view.draw_offer === view.seat ? t("game.draw_offered") : t("game.offer_draw");
  $("undo").disabled = busy || !view.undo;
  $("hint").disabled = busy || !interactive();
  $("hint").hidden = !(token && view.assist);
  $("analysis-switch").hidden = !(token && view.assist && info && info.solved);
  $("analysis-toggle").disabled = over;
  // Spectators, and players without undo or help, get no empty controls card.
  $("controls").hidden = ["undo", "hint", "analysis-switch", "resign", "offer-draw", "takeback", "abort"].every((name) => $(name).hidden);
}

async function setUp() {
  const view = state.view;
  document.title = `${view.title} · flipgames arcade`;
  $("game-title").textContent = view.title;
  $("rules-link").href = `/rules/${encodeURIComponent(view.game)}`;
  state.boardModule = await loadBoard(view.board);
  makeBoard();
  $("flip-board").hidden = !state.boardModule.canFlip;
  $("sound-toggle").checked = localStorage.getItem("flipgames.sound") === "on";
  document.body.dataset.game = view.game;
  const games = await api.games().catch(() => []);
  const info = games.find((g) => g.name === view.game) || null;
  state.info = info;
  const player = Boolean(token);
  $("undo").hidden = !(player && view.mode === "ai");
  $("undo-note").hidden = $("undo").hidden;
  $("undo-note").textContent = info && info.has_chance ? t("game.undo_note_chance") : t("game.undo_note");
  if (state.boardModule.legend) {
    $("moves-legend").textContent = state.boardModule.legend;
    $("moves-legend").hidden = false;
  }
  setUpSharing();
  if (token) rememberMatch({ id, game: view.game, title: view.title, mode: view.mode, play: location.pathname + location.search });
}

/** The board, seen from the player's side, or from the other one after "Flip board". */
function makeBoard() {
  const view = state.view;
  const seat = view.mode === "local" ? null : view.seat;
  const side = state.flipped ? (seat === 1 ? 0 : 1) : seat;
  $("board").replaceChildren();
  state.drawnBoard = null;
  state.board = state.boardModule.createBoard($("board"), { seat: side, onAction: act, announce: (text) => toast(text, "info") });
}

export async function act(action) {
  if (!interactive()) return;
  state.busy = true;
  state.thinking = state.view.mode === "ai";
  hideToast();
  document.body.classList.add("busy");
  draw();
  try {
    const next = await api.act(id, token, action, state.view.ply);
    state.busy = false;
    state.thinking = false;
    await show(next);
  } catch (err) {
    toast(err instanceof ApiError ? err.message : String(err), "error");
  } finally {
    state.busy = false;
    state.thinking = false;
    document.body.classList.remove("busy");
    draw();
  }
}

async function undo() {
  state.busy = true;
  draw();
  try {
    const back = await api.undo(id, token);
    state.busy = false;
    await show(back, { force: true });
  } catch (err) {
    toast(err.message, "error");
  } finally {
    state.busy = false;
    draw();
  }
}

export function wirePlay() {
  $("undo").addEventListener("click", undo);
  $("flip-board").addEventListener("click", () => {
    state.flipped = !state.flipped;
    $("flip-board").setAttribute("aria-pressed", String(state.flipped));
    makeBoard();
    draw();
  });
}

/** Load the match, then follow it live. */
export async function start() {
  if (!id) {
    $("status-text").textContent = t("game.no_id");
    return;
  }
  try {
    await show(await api.view(id, token));
  } catch (err) {
    $("game-title").textContent = t("game.not_available");
    $("status-text").textContent = err.message;
    return;
  }
  const live = liveMatch(id, token, {
    onPresence: state.view.mode === "online" ? (seats) => { state.presence = seats; draw(); } : null,
    // Views can overtake the HTTP answer (the computer's reply, say): show keeps the newest.
    onView: (next) => show(next),
    onError: (error) => toast(error.message, "error"),
    onStatus: (liveState) => {
      state.liveState = liveState;
      if (liveState !== "live") awaitComputer();
      $("live").className = `live ${liveState}`;
      $("live").title = liveState === "live" ? t("game.live_on") : liveState === "reconnecting" ? t("game.reconnecting") : t("game.live_off");
    },
  });
  live.start();
}
