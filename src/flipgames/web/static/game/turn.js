// The turn notification: the tab's title says when it is this page's move, with a sound if
// the player asked for one, and in an online game a browser notification when the tab is
// hidden and the player turned them on in the settings menu.

import { t } from "../i18n.js";
import { notificationsOn } from "../settings.js";
import { $, id, state, token } from "./state.js";

/** It is now this page's turn: say so in the tab's title (and with a sound if asked). */
export function notifyTurn() {
  const view = state.view;
  const mine = Boolean(token) && view.status !== "finished" && (view.legal_actions || []).length > 0;
  const arrived = mine && !state.myTurnBefore;
  if (arrived && $("sound-toggle").checked) beep();
  if (arrived && view.mode === "online" && document.hidden && notificationsOn()) {
    // One notification per match (tag): a newer turn replaces an unread one.
    const shown = new Notification(t("turn.notification"), { body: view.title, tag: `flipgames-${id}` });
    shown.addEventListener("click", () => window.focus());
  }
  state.myTurnBefore = mine;
  const prefix = view.status === "finished" ? t("turn.title_over") : mine && view.mode !== "local" ? t("turn.title_mine") : "";
  document.title = `${prefix}${view.title} · flipgames arcade`;
}

function beep() {
  try {
    state.audio = state.audio || new AudioContext();
    const audio = state.audio;
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

export function wireSound() {
  $("sound-toggle").addEventListener("change", () => {
    localStorage.setItem("flipgames.sound", $("sound-toggle").checked ? "on" : "off");
    if ($("sound-toggle").checked) beep(); // a sample (and browsers allow audio after a click)
  });
}
