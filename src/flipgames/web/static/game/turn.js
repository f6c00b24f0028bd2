// The turn notification: the tab's title says when it is this page's move, with a sound if
// the player asked for one, and in an online game a browser notification when the tab is
// hidden and the player turned them on in the settings menu.

import { t } from "../i18n.js";
import { notificationsOn } from "../settings.js";
import { playSound } from "../sounds.js";
import { $, id, state, token } from "./state.js";

/** It is now this page's turn: say so in the tab's title (and with a sound if asked). */
export function notifyTurn() {
  const view = state.view;
  const mine = Boolean(token) && view.status !== "finished" && (view.legal_actions || []).length > 0;
  const arrived = mine && !state.myTurnBefore;
  if (arrived && $("sound-toggle").checked) playSound("turn");
  if (arrived && view.mode === "online" && document.hidden && notificationsOn()) notify(view);
  state.myTurnBefore = mine;
  const prefix = view.status === "finished" ? t("turn.title_over") : mine && view.mode !== "local" ? t("turn.title_mine") : "";
  document.title = `${prefix}${view.title} · flipgames arcade`;
}

/** "Your turn" as a browser notification; a click on it brings the tab forward. */
function notify(view) {
  try {
    // One notification per match (tag): a newer turn replaces an unread one.
    const shown = new Notification(t("turn.notification"), { body: view.title, tag: `flipgames-${id}` });
    shown.addEventListener("click", () => window.focus());
  } catch {
    // A browser that notifies only through a service worker (Chrome on Android): the tab's
    // title still says it.
  }
}

export function wireSound() {
  $("sound-toggle").addEventListener("change", () => {
    localStorage.setItem("flipgames.sound", $("sound-toggle").checked ? "on" : "off");
    if ($("sound-toggle").checked) playSound("turn"); // a sample (and browsers allow audio after a click)
  });
}
