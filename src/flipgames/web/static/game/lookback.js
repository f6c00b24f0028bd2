// Looking back: a click on a move in the list shows the position after it, while the live
// game goes on (a new move in the game ends the look back).

import { api } from "../api.js";
import { historyDelta, toast } from "../common.js";
import { draw } from "./play.js";
import { $, id, moveWords, state } from "./state.js";
import { t } from "../i18n.js";

/** Show the position after `count` history entries; the live game goes on meanwhile. */
export async function lookAt(count) {
  const view = state.view;
  if (count === view.history.length) {
    leaveLookback();
    return;
  }
  try {
    const frame = await api.position(id, count);
    const history = view.history.slice(0, count);
    const moves = view.moves.slice(0, count);
    const last = frame.action ? { action: frame.action, by: frame.by } : null;
    const before = state.lookback || view;
    state.lookback = { ...view, ...frame, seat: view.seat, seats: view.seats, legal: [], legal_actions: [], history, moves, last };
    draw(historyDelta(before.moves, moves));
  } catch (err) {
    toast(err.message, "error");
  }
}

export function leaveLookback() {
  if (!state.lookback) return;
  const before = state.lookback;
  state.lookback = null;
  draw(historyDelta(before.moves, state.view.moves));
}

/** The banner over the board while an earlier position is shown. */
export function renderLookback() {
  const { lookback, view } = state;
  $("lookback").hidden = !lookback;
  if (lookback) {
    const shown = lookback.moves[lookback.moves.length - 1];
    const where = { n: lookback.history.length, of: view.history.length };
    $("lookback-text").textContent = shown
      ? t("lookback.after", { move: moveWords(shown), ...where })
      : t("lookback.start", where);
  }
}

export function wireLookback() {
  $("lookback-exit").addEventListener("click", leaveLookback);
}
