// What the pages share: the board module for a game, the players card,
// the move list, result wording, toasts and the "my games" list kept in this browser.

import { language, t } from "./i18n.js";

/** The board module named by a view's or a game's `board` (both FlipFlop sizes share one). */
export function loadBoard(board) {
  return import(`/static/boards/${board}.js`);
}

/** The engine's own one-line status for this position (every observation has one). */
export function engineStatus(view) {
  return view.observation ? view.observation.status_text : "";
}

/** The status line: whose turn, then the engine's own words when they add something; once
 * the game is over, only the result and why. */
export function statusLine(view) {
  const turn = turnText(view);
  // An ending outside the engine (resignation, agreement, time, forfeit) leaves the engine's
  // position in play ("White to move"): its words would contradict the result.
  if (view.status === "finished" && view.ending) return `${turn} · ${endingReason(view)}`;
  const engine = engineStatus(view);
  if (!engine || engine.toLowerCase() === turn.toLowerCase()) return turn;
  // The engine's plain "White to move" says only whose turn it is, which the line already
  // says in the page's language.
  const mover = view.players?.[view.current_player];
  if (mover && engine.toLowerCase() === `${mover} to move`.toLowerCase()) return turn;
  // "Player 2 to move · Player 2 to choose a gear" says the name twice: the engine's words,
  // when they open with the mover's name (or the result: "Player 1 wins: crossed the finish
  // line"), already say it. Only in English: the engines' words are English, so another
  // language keeps its own line before them.
  const suffix = " to move";
  const opening = (turn.endsWith(suffix) ? turn.slice(0, -suffix.length) : turn).toLowerCase();
  if (language() === "en" && engine.toLowerCase().startsWith(opening)) return engine;
  return `${turn} · ${engine}`;
}

/** "White wins", "Draw", or "" while playing. */
export function resultTitle(view) {
  if (view.status !== "finished") return "";
  if (view.ending === "aborted") return t("result.aborted");
  if (view.result === "1-0") return t("result.wins", { player: cap(view.players[0]) });
  if (view.result === "0-1") return t("result.wins", { player: cap(view.players[1]) });
  return t("result.draw");
}

/** Why a game ended outside the engine's rules, from the view's `ending` (data, not text). */
export function endingReason(view) {
  const loser = view.result === "1-0" ? 1 : 0;
  const reasons = {
    resignation: () => t("ending.resigned", { player: cap(view.players[loser]) }),
    agreement: () => t("ending.agreed"),
    timeout: () => t("ending.timeout", { player: cap(view.players[loser]) }),
    forfeit: () => t("ending.forfeited", { who: forfeiter(view) }),
    aborted: () => t("ending.aborted"),
  };
  return view.ending in reasons ? reasons[view.ending]() : "";
}

/** Who forfeited: an outside engine (level engine:NAME), or the computer's own level whose
 * move failed twice. */
function forfeiter(view) {
  return view.level?.startsWith("engine:") ? t("ending.the_engine") : t("ending.the_computer");
}

/** The result card's line under the title: why the game ended, in a sentence. */
export function endingDetail(view) {
  if (view.ending === "forfeit") return t("ending.forfeits", { who: cap(forfeiter(view)), detail: view.ending_detail });
  if (view.ending === "agreement") return t("ending.agreed_detail");
  if (view.ending === "aborted") return t("ending.aborted_detail");
  if (view.ending) return t("ending.sentence", { reason: endingReason(view) });
  return engineStatus(view);
}

/** The name a downloaded record is saved under: the game and the day, e.g.
 * "flipfour-2026-12-02.json" (the local date, as the player's calendar shows it). */
export function recordFileName(game, day = new Date()) {
  const two = (n) => String(n).padStart(2, "0");
  return `${game}-${day.getFullYear()}-${two(day.getMonth() + 1)}-${two(day.getDate())}.json`;
}

/** A finished match in "My games", from the player's side: "You won", "You lost", "Draw";
 * on a shared screen, who won ("White won"). */
export function outcomeText({ result, seat = null, players = null }) {
  const winner = { "1-0": 0, "0-1": 1 }[result];
  if (winner === undefined) return t("result.draw");
  if (seat === 0 || seat === 1) return winner === seat ? t("outcome.won") : t("outcome.lost");
  return players ? t("outcome.player_won", { player: cap(players[winner]) }) : t("outcome.finished");
}

export const cap = (text) => (text ? text[0].toUpperCase() + text.slice(1) : text);

/** A computer level in the page's language ("Easy", "やさしい"); a level the catalogues do
 * not know (a new one) as it is named. */
export function levelName(level) {
  const key = `level.${level}`;
  const words = t(key);
  return words === key ? cap(level || "") : words;
}

/** Whose turn, seen from this page's seat ("Your move", "Black to move", ...). */
export function turnText(view) {
  if (view.status === "finished") return resultTitle(view);
  const mover = view.current_player;
  if (mover !== 0 && mover !== 1) return t("status.spinning");
  if ((view.legal_actions || []).length > 0) {
    return view.mode === "local" ? t("status.to_move", { player: cap(view.players[mover]) }) : t("status.your_move");
  }
  if (view.seat === 0 || view.seat === 1) {
    return view.mode === "ai" ? t("status.thinking") : t("status.waiting", { player: view.players[mover] });
  }
  return t("status.to_move", { player: cap(view.players[mover]) });
}

/** A trophy drawn in SVG (an emoji needs an emoji font, which many systems lack). */
const TROPHY = `<svg class="trophy" viewBox="0 0 24 24" role="img"><title></title>
  <path class="cup" d="M7 3h10v5a5 5 0 0 1-10 0z"/><path class="handles" d="M7 5H4v2a3 3 0 0 0 3 3M17 5h3v2a3 3 0 0 1-3 3"/>
  <path class="stem" d="M12 13v4M8 21h8l-1-4H9z"/></svg>`;

/** The players card: names, who is who, whose turn. */
export function renderPlayers(container, view, presence = null) {
  container.replaceChildren();
  view.players.forEach((name, player) => {
    const row = document.createElement("div");
    row.className = `player p${player}`;
    row.dataset.player = player;
    if (view.status !== "finished" && view.current_player === player) row.classList.add("to-move");
    if (view.status === "finished") {
      const won = (view.result === "1-0" && player === 0) || (view.result === "0-1" && player === 1);
      if (won) row.classList.add("winner");
    }
    let who = "";
    // An outside engine's level is "engine:NAME" (registered by the server's operator).
    const opponent = (view.level || "").startsWith("engine:")
      ? t("players.engine", { name: view.level.slice(7) })
      : t("players.computer", { level: levelName(view.level) });
    if (view.mode === "ai") who = player === view.seat ? t("players.you") : opponent;
    else if (view.mode === "online") who = player === view.seat ? t("players.you") : t("players.friend");
    else if (view.mode === "local") who = t("players.this_screen");
    // A seat a signed-in player holds shows their name (set as text, never as HTML).
    const named = (view.names || [])[player];
    if (named) who = player === view.seat && view.mode !== "local" ? t("players.named_you", { name: named }) : named;
    row.innerHTML = `<span class="swatch"></span><span class="name"></span><span class="who"></span>`;
    row.querySelector(".name").textContent = cap(name);
    if (row.classList.contains("winner")) {
      row.querySelector(".name").insertAdjacentHTML("beforeend", TROPHY);
      const trophy = row.querySelector(".trophy");
      trophy.setAttribute("aria-label", t("players.winner"));
      trophy.querySelector("title").textContent = t("players.winner");
    }
    row.querySelector(".who").textContent = who;
    // Online, whether each player has the match open now (sent by the server as presence).
    if (presence && view.mode === "online") {
      const here = presence.includes(player);
      const mark = document.createElement("span");
      mark.className = `presence ${here ? "here" : "away"}`;
      mark.textContent = here ? t("players.connected") : t("players.away");
      row.append(mark);
    }
    container.append(row);
  });
}

/**
 * Fill the move list. `turns` come from the board module's describeTurns (a turn's optional
 * `heading` is a row of its own above it); `players` names the players for the marks;
 * `current` is how many history entries are shown (replay),
 * `onPick(count)` jumps there.
 */
export function renderMoves(list, turns, { players = [], current = null, onPick = null } = {}) {
  list.replaceChildren();
  // Two columns only for one run of alternating turns: headed rounds each count from 1.
  const paired = turns.length > 0 && turns.every((t, i) => t.player === i % 2 && !t.heading);
  list.classList.toggle("paired", paired);
  let count = 0;
  turns.forEach((turn, index) => {
    // A board may head a turn (Flip Switch: "Round 2" over a round's first turn).
    if (turn.heading) {
      const heading = document.createElement("li");
      heading.className = "round-heading";
      heading.textContent = turn.heading;
      list.append(heading);
    }
    const item = document.createElement("li");
    item.className = "turn";
    if (turn.player === 0 || turn.player === 1) {
      item.classList.add(`p${turn.player}`);
      item.dataset.player = turn.player;
      // Who made the move: a swatch in the player's colour (named for screen readers).
      const mark = document.createElement("span");
      mark.className = `who-mark p${turn.player}`;
      mark.title = cap(players[turn.player] || t("moves.player_n", { n: turn.player + 1 }));
      mark.setAttribute("role", "img");
      mark.setAttribute("aria-label", mark.title);
      item.append(mark);
    }
    const start = count;
    count += turn.parts.length;
    const end = count;
    for (const part of turn.parts) {
      const span = document.createElement("span");
      span.className = part.chance ? "chance" : "act";
      span.textContent = part.text;
      item.append(span);
    }
    item.dataset.ply = end;
    if (current !== null && current > start && current <= end) item.classList.add("current");
    if (onPick) {
      item.tabIndex = 0;
      item.addEventListener("click", () => onPick(end));
      item.addEventListener("keydown", (event) => {
        if (event.key !== "Enter" && event.key !== " ") return;
        event.preventDefault();
        onPick(end);
      });
    }
    if (paired) item.value = Math.floor(index / 2) + 1;
    list.append(item);
  });
  const active = list.querySelector(".current") || list.lastElementChild;
  // Scroll the list only: scrollIntoView would also scroll the page away from the board.
  if (active) {
    const item = active.getBoundingClientRect();
    const box = list.getBoundingClientRect();
    if (item.top < box.top) list.scrollTop += item.top - box.top;
    else if (item.bottom > box.bottom) list.scrollTop += item.bottom - box.bottom;
  }
}

/**
 * Which of the view's structured moves are new since the last picture (or undone, with
 * reverse): `fresh` is a list of moves ({id, text, kind, from, to, ...}).
 */
export function historyDelta(before, after) {
  const starts = (long, short) => short.every((move, i) => long[i] && long[i].id === move.id && long[i].text === move.text);
  if (!before) return { fresh: [], reverse: false };
  if (after.length >= before.length && starts(after, before)) return { fresh: after.slice(before.length), reverse: false };
  if (before.length > after.length && starts(before, after)) return { fresh: before.slice(after.length), reverse: true };
  return { fresh: [], reverse: false };
}

let toastTimer = null;

/** A short message over the board; errors stay until the next action. */
export function toast(text, kind = "info") {
  const box = document.getElementById("toast");
  box.textContent = text;
  box.className = `toast ${kind}`;
  box.hidden = false;
  clearTimeout(toastTimer);
  if (kind !== "error") toastTimer = setTimeout(() => { box.hidden = true; }, 4000);
}

/** Hide the toast (only if it is of `kind`, when given). */
export function hideToast(kind = null) {
  const box = document.getElementById("toast");
  if (!kind || box.classList.contains(kind)) box.hidden = true;
}

const STORE = "flipgames:matches";

/** The matches this browser created or joined, newest first. */
export function myMatches() {
  try {
    const list = JSON.parse(localStorage.getItem(STORE) || "[]");
    return Array.isArray(list) ? list : [];
  } catch {
    return [];
  }
}

/** Remember or refresh a match (merged by id), so the lobby can list it. */
export function rememberMatch(entry) {
  const list = myMatches().filter((m) => m.id !== entry.id);
  const old = myMatches().find((m) => m.id === entry.id) || {};
  list.unshift({ ...old, ...entry });
  localStorage.setItem(STORE, JSON.stringify(list.slice(0, 30)));
}

export function findMatch(id) {
  return myMatches().find((m) => m.id === id) || null;
}
