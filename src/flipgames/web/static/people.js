// The lobby's "Play people" section (templates/lobby.html): the open seeks kept up to date over
// the lobby socket (/ws/lobby), taking one or withdrawing your own, quick pairing per game and
// time control, and the games between people to watch. Seeks are posted from the new-game
// dialog (lobby.js: the "Anyone" opponent) through postSeek().
//
// The socket tells this page when one of its player's seeks (or places in the pairing pool)
// became a match: the page then reads its seat's token (GET /api/seeks/{id}) and goes to the
// game. Every name and word from the server is set with textContent, never as HTML.

import { api } from "./api.js";
import { open as openIdentity, whoAmI } from "./identity.js";
import { rememberMatch } from "./common.js";
import { t } from "./i18n.js";

const $ = (selector) => document.getElementById(selector);
// How often the live games are read again (they are not pushed), while the tab is visible.
const LIVE_EVERY_MS = 10000;

let player = null; // {name, account} or null
let games = [];
let seeks = new Map(); // id -> SeekView, in the server's order (oldest first)
let socket = null;
let retry = 500;
let retryTimer = null;
let waiting = null; // the quick pairing button pressed: {game, clock, label}
let going = false; // on the way to a game: nothing else is started
let playerChanged = () => {};

function element(tag, text = "", className = "") {
  const node = document.createElement(tag);
  if (text) node.textContent = text;
  if (className) node.className = className;
  return node;
}

function button(text, className, onClick) {
  const node = element("button", text, className);
  node.type = "button";
  node.addEventListener("click", onClick);
  return node;
}

const mine = (seek) => player !== null && seek.seeker.toLowerCase() === player.name.toLowerCase();

/** "1500?" (provisional), "1712", or "guest". */
function ratingText(seek) {
  if (seek.rating === null || seek.rating === undefined) return t("identity.guest");
  return `${seek.rating}${seek.provisional ? "?" : ""}`;
}

function showError(text) {
  $("people-error").textContent = text || "";
}

/** Visitors who are not signed in pick a name first (the header's dialog); true if signed in. */
function signedIn() {
  if (player) return true;
  openIdentity("guest");
  return false;
}

// --- the open seeks ------------------------------------------------------------------------

function seekItem(seek) {
  const item = element("li", "", "seek");
  item.dataset.seek = seek.id;
  const what = element("span", "", "seek-what");
  what.append(element("b", seek.title), element("span", seek.words.length ? seek.words.join(" · ") : t("people.standard_rules"), "seek-words"));
  const terms = element("span", "", "seek-terms");
  terms.append(
    element("span", seek.clock || t("people.no_clock"), "seek-clock"),
    element("span", t(seek.rated ? "profile.rated" : "profile.casual"), `tag ${seek.rated ? "rated" : "casual"}`),
  );
  const who = element("span", "", "seek-who");
  who.append(element("span", seek.seeker, "seek-name"), element("span", ratingText(seek), "seek-rating"));
  const action = mine(seek)
    ? button(t("common.cancel"), "seek-cancel", () => cancel(seek.id))
    : button(t("lobby.play"), "primary seek-accept", () => accept(seek.id));
  // The button says what it does to which seek for screen readers ("Play Hana's FlipFlop 3x3
  // seek").
  const label = mine(seek) ? t("people.cancel_label", { game: seek.title }) : t("people.accept_label", { name: seek.seeker, game: seek.title });
  action.setAttribute("aria-label", label);
  item.append(what, terms, who, action);
  return item;
}

function renderSeeks() {
  const list = [...seeks.values()];
  // "Your seek is listed" holds only while one is.
  if (!list.some(mine)) showStatus("");
  $("no-seeks").hidden = list.length > 0;
  $("seeks").replaceChildren(...list.map(seekItem));
}

async function accept(id) {
  if (going || !signedIn()) return;
  showError("");
  try {
    const taken = await api.acceptSeek(id);
    go(taken.id, taken.play, taken.match);
  } catch (err) {
    showError(err.message);
  }
}

async function cancel(id) {
  showError("");
  try {
    await api.cancelSeek(id);
    forget((entry) => entry.id === id);
  } catch (err) {
    showError(err.message);
  }
}

/** Post a seek ({game, options, clock, rated}); the new-game dialog shows a refusal. */
export async function postSeek(spec) {
  if (!player) {
    openIdentity("guest");
    throw new Error(t("people.name_first"));
  }
  const posted = await api.seek(spec);
  remember({ player: player.name, id: posted.id, waiting: null });
  showStatus(t("people.listed"));
  return posted;
}

/** Whether a new seek should be rated by default: for accounts only (guests cannot be rated). */
export function ratedByDefault() {
  return Boolean(player && player.account);
}

function showStatus(text) {
  $("people-status").textContent = text;
}

// --- a seek or a place in the pool became a match -------------------------------------------

function go(matchId, play, view) {
  going = true;
  rememberMatch({
    id: matchId,
    game: view ? view.game : "",
    title: view ? view.title : "",
    mode: "online",
    play,
    created: Date.now(),
  });
  location.href = play;
}

/** Go to the seat a seek or pool place became ({match, seat, token} of GET /api/seeks/{id}). */
function goToSeat(seat) {
  if (going) return;
  go(seat.match, `/play/${encodeURIComponent(seat.match)}?token=${encodeURIComponent(seat.token)}`, null);
}

async function accepted(message) {
  if (going) return;
  try {
    const seat = await api.seekState(message.seek);
    forget((entry) => entry.id === message.seek);
    goToSeat(seat);
  } catch (err) {
    showError(err.message);
  }
}

// --- what this tab waits for ----------------------------------------------------------------
// This tab's open seeks and pool place, in sessionStorage (this tab, across reloads): a seek
// taken while the page was away (a reload, a dropped socket) told no socket of it, so every
// new connection asks the server about each of them.
const PENDING = "flipgames:lobby-pending";

function pending() {
  try {
    const list = JSON.parse(sessionStorage.getItem(PENDING) || "[]");
    return Array.isArray(list) ? list : [];
  } catch {
    return [];
  }
}

function keep(list) {
  sessionStorage.setItem(PENDING, JSON.stringify(list));
}

/** Remember {player, id, waiting} (waiting: the pool button's {game, clock, label}, or null
 * for a seek); a player has one pool place, so a new one replaces the old. */
function remember(entry) {
  keep([...pending().filter((e) => e.id !== entry.id && !(entry.waiting && e.waiting)), entry]);
}

function forget(test) {
  keep(pending().filter((entry) => !test(entry)));
}

/** Ask the server about each remembered seek and place: taken -> go to the game; gone (or
 * another player's) -> forget it; a place still open -> show the waiting line again. */
async function recheck() {
  for (const entry of pending()) {
    if (!player || entry.player !== player.name) {
      forget((e) => e.id === entry.id);
      continue;
    }
    let seat;
    try {
      seat = await api.seekState(entry.id);
    } catch (err) {
      // 404: withdrawn, replaced or removed; another refusal will not change either.
      if (err.status >= 400) forget((e) => e.id === entry.id);
      continue;
    }
    if (seat.match) {
      forget((e) => e.id === entry.id);
      goToSeat(seat);
      return;
    }
    if (entry.waiting) {
      waiting = entry.waiting;
      showWaiting();
    }
  }
}

// --- quick pairing -------------------------------------------------------------------------

/** The preset time controls, as the new-game dialog offers them ("" is no clock). */
function clockChoices() {
  return [...$("clock").options]
    .filter((o) => o.value !== "custom")
    .map((o) => ({ value: o.value, label: o.value ? o.textContent : t("people.no_clock") }));
}

function clockSpec(value) {
  if (!value) return null;
  const [initial, increment] = value.split("+").map(Number);
  return { initial, increment };
}

function renderPairing() {
  const clocks = clockChoices();
  // A row per game, its time controls as buttons that wrap on a narrow screen.
  $("pairing").replaceChildren(...games.map((game) => {
    const row = element("li");
    const presses = element("span", "", "pairing-clocks");
    presses.append(...clocks.map((clock) => {
      const press = button(clock.label, "pair", () => joinPool(game, clock));
      press.dataset.game = game.name;
      press.dataset.clock = clock.value;
      press.setAttribute("aria-label", t("people.pair_label", { game: game.title, clock: clock.label }));
      return press;
    }));
    row.append(element("span", game.title, "pairing-game"), presses);
    return row;
  }));
}

async function joinPool(game, clock) {
  if (going || !signedIn()) return;
  showError("");
  let place;
  try {
    place = await api.pair({ game: game.name, clock: clockSpec(clock.value), rated: $("pairing-rated").checked });
  } catch (err) {
    showError(err.message);
    return;
  }
  // The socket may have told of a pairing already (the server pairs during the request).
  if (going) return;
  waiting = { game: game.name, clock: clock.value, label: t("people.waiting_what", { game: game.title, clock: clock.label }) };
  remember({ player: player.name, id: place.id, waiting });
  showWaiting();
}

async function leavePool() {
  showError("");
  try {
    await api.leavePairing();
    forget((entry) => entry.waiting !== null);
    waiting = null;
    showWaiting();
  } catch (err) {
    showError(err.message);
  }
}

function showWaiting() {
  $("pairing-waiting").hidden = waiting === null;
  $("pairing-what").textContent = waiting ? waiting.label : "";
  for (const press of document.querySelectorAll("#pairing button.pair")) {
    const pressed = waiting !== null && press.dataset.game === waiting.game && press.dataset.clock === waiting.clock;
    press.setAttribute("aria-pressed", String(pressed));
  }
}

// --- the games to watch --------------------------------------------------------------------

function liveItem(game) {
  const item = element("li", "", "live-game");
  item.dataset.match = game.id;
  const link = element("a", t("people.watch"));
  link.href = game.watch;
  const [first, second] = game.players;
  link.setAttribute("aria-label", t("people.watch_label", { first, second, game: game.title }));
  const moves = t(game.moves === 1 ? "people.move" : "people.moves", { n: game.moves });
  const details = [game.title, moves, game.clock || t("people.no_clock"), t(game.rated ? "profile.rated" : "profile.casual")];
  const watching = t("people.watching", { n: game.spectators });
  item.append(
    element("span", game.players.join(" – "), "live-players"),
    element("span", details.join(" · "), "muted"),
    element("span", watching, "live-spectators"),
    link,
  );
  return item;
}

let liveTimer = null;

async function refreshLive() {
  clearTimeout(liveTimer);
  try {
    const live = await api.live();
    $("no-live").hidden = live.length > 0;
    $("live-games").replaceChildren(...live.map(liveItem));
  } catch {
    // Kept as it was: the next read may work (a refusal here is only the reads limit).
  }
  if (document.visibilityState === "visible") liveTimer = setTimeout(refreshLive, LIVE_EVERY_MS);
}

// --- the lobby socket ----------------------------------------------------------------------

function onMessage(event) {
  let message;
  try {
    message = JSON.parse(event.data);
  } catch {
    return;
  }
  if (message.type === "seeks") {
    seeks = new Map(message.seeks.map((s) => [s.id, s]));
    renderSeeks();
    recheck(); // a new connection: anything taken while there was none?
  } else if (message.type === "seek") {
    seeks.set(message.seek.id, message.seek);
    renderSeeks();
  } else if (message.type === "gone") {
    if (seeks.delete(message.id)) {
      renderSeeks();
      refreshLive(); // a seek taken is a game to watch
    }
  } else if (message.type === "accepted") {
    accepted(message);
  } else if (message.type === "error") {
    showError(message.error.message);
  }
}

/** (Re)open the lobby socket: its player is whoever is signed in when it opens. */
function connect() {
  clearTimeout(retryTimer);
  if (socket) {
    socket.onclose = null;
    socket.close();
  }
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  const opened = new WebSocket(`${scheme}//${location.host}/ws/lobby`);
  socket = opened;
  opened.onopen = () => {
    retry = 500;
    $("people").dataset.live = "true";
  };
  opened.onmessage = onMessage;
  opened.onclose = (event) => {
    if (socket !== opened) return;
    $("people").dataset.live = "false";
    // 4xxx: the server refused this socket (it sent why); trying again cannot help.
    if (event.code >= 4000 && event.code < 5000) return;
    retryTimer = setTimeout(connect, retry);
    retry = Math.min(retry * 2, 15000);
  };
}

/** Who is signed in changed (or is first known: `force` opens the first socket). */
function identityChanged(who, { force = false } = {}) {
  const before = player ? player.name : null;
  player = who;
  playerChanged(player);
  $("people-signin").hidden = player !== null;
  $("pairing-rated").checked = ratedByDefault();
  // Seeks belong to the socket's player: a new sign-in needs a socket of its own.
  if (force || (player ? player.name : null) !== before) {
    waiting = null;
    showWaiting();
    connect();
  } else {
    renderSeeks();
  }
}

/** Start the section once the games are known; `openSeekDialog(game)` opens the new-game
 * dialog with "Anyone" chosen; `onPlayer(player)` hears who is signed in, at the start and
 * on every change. */
export async function startPeople(gameList, { openSeekDialog, onPlayer }) {
  games = gameList;
  playerChanged = onPlayer;
  $("seek-game").replaceChildren(...games.map((game) => {
    const option = element("option", game.title);
    option.value = game.name;
    return option;
  }));
  $("seek-form").addEventListener("submit", (event) => {
    event.preventDefault();
    if (!signedIn()) return;
    openSeekDialog(games.find((g) => g.name === $("seek-game").value));
  });
  $("people-guest").addEventListener("click", () => openIdentity("guest"));
  $("people-sign-in").addEventListener("click", () => openIdentity("signin"));
  $("pairing-cancel").addEventListener("click", leavePool);
  renderPairing();
  renderSeeks();
  document.addEventListener("flipgames:identity", (event) => identityChanged(event.detail));
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") refreshLive();
  });
  // Back from a game through the browser's page cache: a fresh socket, nothing on its way.
  window.addEventListener("pageshow", (event) => {
    if (!event.persisted) return;
    going = false;
    connect();
    refreshLive();
  });
  // The header may have told of the player already (and connected): then this changes nothing.
  identityChanged(await whoAmI(), { force: socket === null });
  refreshLive();
}
