// Between two people online: asking to take back the last move (the other player accepts or
// declines), aborting before both have moved, and a rated game's rating changes in words.
//
// Usage (play.js and social.js): renderTakeback() on every draw, takebackNews(before, after)
// on every new view, wireTakeback(send) once, ratingWords(view) for the game-over card.

import { api } from "../api.js";
import { cap } from "../common.js";
import { $, id, state, token } from "./state.js";
import { t } from "../i18n.js";

const asked = (view) => view.takeback_offer !== null && view.takeback_offer !== undefined;

/** What a new view says about this page's takeback request: "accepted", "declined" or null.
 * (Accepted: the request went and the game went back; declined: it went and the game did
 * not move; a move made instead cancels it, which the page shows as the move.) */
export function takebackNews(before, after) {
  if (!token || !before || !asked(before) || asked(after) || before.takeback_offer !== before.seat) return null;
  if (after.ply < before.ply) return "accepted";
  return after.ply === before.ply && after.status !== "finished" ? "declined" : null;
}

/** A takeback request may show a lower ply than the page has: let it through. */
export const takenBack = (before, after) => Boolean(before) && asked(before) && !asked(after) && after.ply < before.ply;

/** The other player's request (Accept, Decline), and the Ask and Abort buttons. */
export function renderTakeback() {
  const view = state.view;
  const playing = Boolean(token) && view.status !== "finished" && view.mode === "online";
  const theirs = playing && asked(view) && view.takeback_offer !== view.seat;
  $("takeback-offer").hidden = !theirs;
  if (theirs) {
    $("takeback-offer-text").textContent = t("game.asks_takeback", { player: cap(view.players[view.takeback_offer]) });
  }
  const mine = playing && asked(view) && view.takeback_offer === view.seat;
  const moved = (view.actors || []).includes(view.seat);
  $("takeback").hidden = !playing;
  $("takeback").disabled = state.busy || mine || theirs || !moved;
  $("takeback").textContent = mine ? t("game.takeback_asked") : t("game.ask_takeback");
  $("abort").hidden = !(playing && view.abort);
  $("abort").disabled = state.busy;
}

function ratingNumber(value, provisional) {
  return `${Math.round(value)}${provisional ? "?" : ""}`;
}

/** "Ada 1500 -> 1662 (+162)" for each player of a rated game that has ended ("?": provisional). */
export function ratingWords(view) {
  return (view.rating_changes || []).map((change) => {
    const diff = Math.round(change.after) - Math.round(change.before);
    const sign = diff >= 0 ? "+" : "-";
    return `${change.name} ${Math.round(change.before)} -> ${ratingNumber(change.after, change.provisional)} (${sign}${Math.abs(diff)})`;
  });
}

/** The game-over card's rating lines (empty and hidden for an unrated game). */
export function renderRatingChanges() {
  const lines = ratingWords(state.view);
  $("rating-changes").replaceChildren(...lines.map((text) => {
    const item = document.createElement("li");
    item.textContent = text;
    return item;
  }));
  $("rating-changes").hidden = lines.length === 0;
}

export function wireTakeback(send) {
  $("takeback").addEventListener("click", () => send(() => api.takeback(id, token, "offer")));
  $("takeback-accept").addEventListener("click", () => send(() => api.takeback(id, token, "accept")));
  $("takeback-decline").addEventListener("click", () => send(() => api.takeback(id, token, "decline")));
  $("abort").addEventListener("click", () => send(() => api.abort(id, token)));
}
