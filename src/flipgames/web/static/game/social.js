// The social side of a match: draw offers, resigning, the game-over card with its rematch,
// and the links for a friend and for spectators.

import { api, copyText } from "../api.js";
import { cap, endingDetail, findMatch, recordFileName, rememberMatch, resultTitle, toast } from "../common.js";
import { draw, show } from "./play.js";
import { $, id, state, token } from "./state.js";
import { renderRatingChanges, wireTakeback } from "./takeback.js";
import { t } from "../i18n.js";

/** This page's draw offer is gone and the game goes on: the other player declined it (by
 * answering, or by moving instead). */
export function ownOfferDeclined(before, after) {
  const mine = Boolean(token) && before.draw_offer !== null && before.draw_offer !== undefined
    && before.draw_offer === before.seat;
  return mine && after.status !== "finished" && (after.draw_offer === null || after.draw_offer === undefined);
}

/** The other player's draw offer, with Accept and Decline (or, offered by us, nothing). */
export function renderOffer() {
  const view = state.view;
  const theirs = Boolean(token) && view.status !== "finished" && view.draw_offer !== null
    && view.draw_offer !== undefined && view.draw_offer !== view.seat;
  $("draw-offer").hidden = !theirs;
  if (theirs) $("draw-offer-text").textContent = t("game.offers_draw", { player: cap(view.players[view.draw_offer]) });
}

/** The game-over card: the result, the board's own result lines, rematch, replay, record. */
export function renderResult() {
  const view = state.view;
  const over = view.status === "finished";
  $("result").hidden = !over || state.resultClosed;
  if (!over) return;
  $("result-title").textContent = resultTitle(view);
  $("result-detail").textContent = endingDetail(view);
  const lines = state.boardModule.resultLines ? state.boardModule.resultLines(view) : [];
  $("result-lines").replaceChildren(...lines.map((text) => {
    const item = document.createElement("li");
    item.append(text); // words, or a node the board drew (Flip Switch: a round's board)
    return item;
  }));
  $("result-lines").hidden = lines.length === 0;
  renderRatingChanges();
  renderRematch();
  $("replay-link").href = `/replay/${encodeURIComponent(id)}`;
  // The replay page carries the game review (static/review/replay-review.js).
  $("review-link").href = `/replay/${encodeURIComponent(id)}#review`;
  $("record-link").href = api.recordUrl(id);
  $("record-link").download = recordFileName(view.game);
  // Only a player's own matches go to "My games", with their seat to say who won.
  if (token) {
    rememberMatch({ id, result: view.result, seat: view.mode === "local" ? null : view.seat, players: view.players });
  }
}

/** Rematch: ask for one, or join the one the other player asked for; a spectator gets the
 * rematch's spectator link to follow it. */
function renderRematch() {
  const view = state.view;
  const button = $("rematch");
  button.hidden = !token;
  const watch = $("rematch-watch");
  if (!token) {
    $("rematch-note").hidden = !view.rematch;
    watch.hidden = !view.rematch;
    $("rematch-note-text").textContent = t("game.rematch_asked_spectator");
    if (view.rematch) watch.href = `/watch/${encodeURIComponent(view.rematch)}`;
    return;
  }
  watch.hidden = true;
  const mine = findMatch(id);
  const joined = mine && mine.rematch;
  button.textContent = view.rematch && !joined && view.mode === "online" ? t("game.join_rematch") : t("game.rematch");
  $("rematch-note").hidden = !(view.rematch && !joined && view.mode === "online");
  $("rematch-note-text").textContent = t("game.rematch_asked");
}

export function setUpSharing() {
  const watch = new URL(`/watch/${encodeURIComponent(id)}`, location.href).href;
  $("watch").value = watch;
  const mine = findMatch(id);
  const invite = mine && mine.invite ? new URL(mine.invite, location.href).href : null;
  $("invite-row").hidden = !invite;
  if (invite) $("invite").value = invite;
  $("share").hidden = state.view.mode !== "online" || !token;
  for (const button of document.querySelectorAll("button.copy")) {
    button.addEventListener("click", async () => {
      await copyText($(button.dataset.copy).value);
      button.textContent = t("game.copied");
      setTimeout(() => { button.textContent = t("game.copy"); }, 1500);
    });
  }
}

/** Run a request that changes the match (resign, draw, takeback, abort); its answer is the
 * new view. */
export async function send(request) {
  state.busy = true;
  draw();
  try {
    const next = await request();
    state.busy = false;
    await show(next);
  } catch (err) {
    toast(err.message, "error");
  } finally {
    state.busy = false;
    draw();
  }
}

function resign() {
  // Two clicks: a stray tap must not end the game.
  if (!state.resignArmed) {
    state.resignArmed = true;
    $("resign").textContent = t("game.really_resign");
    $("resign").classList.add("danger");
    setTimeout(() => {
      state.resignArmed = false;
      $("resign").textContent = t("game.resign");
      $("resign").classList.remove("danger");
    }, 4000);
    return;
  }
  state.resignArmed = false;
  $("resign").textContent = t("game.resign");
  $("resign").classList.remove("danger");
  send(() => api.resign(id, token));
}

async function rematch() {
  $("rematch").disabled = true;
  try {
    const created = await api.rematch(id, token);
    const view = state.view;
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
}

export function wireSocial() {
  $("resign").addEventListener("click", resign);
  $("offer-draw").addEventListener("click", () => send(() => api.draw(id, token, "offer")));
  $("draw-accept").addEventListener("click", () => send(() => api.draw(id, token, "accept")));
  $("draw-decline").addEventListener("click", () => send(() => api.draw(id, token, "decline")));
  $("result-close").addEventListener("click", () => {
    state.resultClosed = true;
    $("result").hidden = true;
  });
  $("rematch").addEventListener("click", rematch);
  wireTakeback(send);
}
