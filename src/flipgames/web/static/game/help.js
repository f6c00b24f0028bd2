// Help: hints and the analysis switch. Help belongs to the position it was asked for: each
// answer is kept with that position's key and dropped, marks and all, as soon as the
// position changes.

import { api } from "../api.js";
import { hideToast, toast } from "../common.js";
import { valueClass, valueText } from "../boards/svg.js";
import { act, draw } from "./play.js";
import { $, id, interactive, moveWords, positionKey, shownAnalysis, state, token } from "./state.js";
import { t } from "../i18n.js";

/** Drop every piece of help given for an earlier position. */
export function forgetHelp() {
  if (state.hint) {
    state.hint = null;
    hideToast("info");
  }
}

/** Ask for the analysis of the position on screen (once); draw it if it is still there. */
export async function requestAnalysis() {
  const key = positionKey(state.view);
  if (!interactive() || shownAnalysis() || state.analysisWanted === key) return;
  state.analysisWanted = key;
  try {
    const data = await api.analysis(id, token);
    if (state.analysisWanted !== key) return;
    state.analysis = { key, map: new Map(data.actions.map((a) => [a.action, a])) };
  } catch (err) {
    // Solved with the default rules need not mean solved with this match's options.
    if (err.code === "unavailable") {
      $("analysis-toggle").checked = false;
      $("analysis-switch").hidden = true;
    }
    if (positionKey(state.view) === key) toast(err.message, "error");
    return;
  } finally {
    if (state.analysisWanted === key) state.analysisWanted = null;
  }
  if ($("analysis-toggle").checked && positionKey(state.view) === key) draw();
}

export function renderAnalysis() {
  const shown = $("analysis-toggle").checked ? shownAnalysis() : null;
  const list = $("analysis-list");
  $("analysis").hidden = !shown;
  if (!shown) {
    list.replaceChildren();
    return;
  }
  const view = state.view;
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
    button.addEventListener("click", () => { if (positionKey(state.view) === key) act(entry.action); });
    item.append(button);
    return item;
  }));
}

/** Whether hints and analysis are on this page, and for whom. */
export function renderAssist() {
  const view = state.view;
  const note = $("assist-note");
  const [on, off] = view.mode !== "ai"
    ? [t("help.assist_on_both"), t("help.assist_off_both")]
    : [t("help.assist_on"), t("help.assist_off")];
  note.textContent = view.assist ? on : off;
  note.className = `assist-note ${view.assist ? "on" : "off"}`;
  if (view.mode !== "ai") note.title = t("help.assist_chosen");
}

async function askForHint() {
  const key = positionKey(state.view);
  const button = $("hint");
  button.classList.add("working");
  button.querySelector("span").textContent = t("help.thinking");
  button.disabled = true;
  try {
    const answer = await api.hint(id, token);
    // The position moved on while the hint was worked out: it is not for this one.
    if (positionKey(state.view) !== key) return;
    // The hint names a legal action: the board marks its structured form.
    const move = state.view.legal_actions.find((action) => action.text === answer.action);
    if (!move) return;
    state.hint = { key, move };
    state.board.hint(move);
    toast(t("help.hint_is", { move: moveWords(move) }), "info");
  } catch (err) {
    if (positionKey(state.view) === key) toast(err.message, "error");
  } finally {
    button.classList.remove("working");
    button.querySelector("span").textContent = t("help.hint");
    button.disabled = state.busy || !interactive();
  }
}

export function wireHelp() {
  $("hint").addEventListener("click", askForHint);
  $("analysis-toggle").addEventListener("change", () => {
    if (!$("analysis-toggle").checked) {
      state.analysis = null;
      state.analysisWanted = null;
    }
    draw();
    if ($("analysis-toggle").checked) requestAnalysis();
  });
}
