// The clocks of a clocked online match (see docs/web.md, "Clocks"). The server decides: every
// view carries each player's time left when it was made and whose clock runs; the page counts
// the running one down locally and takes the server's figures again with every new view. At
// zero it waits for the server's decision (the loss on time arrives as a view; `onExpired`
// lets the page ask for it should its socket be down).

import { cap } from "./common.js";
import { t } from "./i18n.js";

/** "4:59", "0:09.3" (tenths under ten seconds). */
export function formatClock(ms) {
  const clamped = Math.max(0, ms);
  if (clamped < 10_000) return `0:0${(Math.floor(clamped / 100) / 10).toFixed(1)}`;
  const seconds = Math.ceil(clamped / 1000);
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const rest = String(seconds % 60).padStart(2, "0");
  return hours ? `${hours}:${String(minutes).padStart(2, "0")}:${rest}` : `${minutes}:${rest}`;
}

export function createClocks(container, { onExpired = () => {} } = {}) {
  let view = null;
  let received = 0; // performance.now() when the view arrived
  let timer = null;
  let expiredFor = null; // the view whose running clock already reached zero here

  function left(player) {
    const base = view.clock.remaining_ms[player];
    if (view.clock.running !== player) return base;
    return base - (performance.now() - received);
  }

  function tick() {
    if (!view || !view.clock) return;
    for (const row of container.querySelectorAll(".clock")) {
      const player = Number(row.dataset.player);
      const ms = left(player);
      row.querySelector("time").textContent = formatClock(ms);
      row.classList.toggle("low", ms < 10_000);
      row.setAttribute("aria-label", t("clock.label", { player: cap(view.players[player]), time: formatClock(ms) }));
      if (view.clock.running === player && ms <= 0 && expiredFor !== view) {
        expiredFor = view;
        onExpired();
      }
    }
  }

  function update(next) {
    view = next;
    received = performance.now();
    const clock = view.clock;
    container.hidden = !clock;
    if (!clock) {
      container.replaceChildren();
      return;
    }
    if (container.children.length !== view.players.length) {
      container.replaceChildren(...view.players.map((name, player) => {
        const row = document.createElement("div");
        row.className = `clock p${player}`;
        row.dataset.player = player;
        row.setAttribute("role", "timer");
        row.innerHTML = `<span class="name"></span><time></time>`;
        row.querySelector(".name").textContent = cap(name);
        return row;
      }));
    }
    for (const row of container.querySelectorAll(".clock")) {
      row.classList.toggle("running", clock.running === Number(row.dataset.player));
    }
    container.dataset.control = clock.label;
    tick();
    if (clock.running !== null && timer === null) timer = setInterval(tick, 100);
    if (clock.running === null && timer !== null) {
      clearInterval(timer);
      timer = null;
    }
  }

  return { update };
}
