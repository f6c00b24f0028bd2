// The game page's chat (online matches): the players' room for the two seats, the
// spectators' room for everyone else (the server sends each socket its own room only: see
// docs/web-players.md, "Chat"). Lines come over the match's WebSocket, opened with
// ?chat=true; a history message (on each (re)connection, and when the operator removed lines)
// replaces what the panel shows. Signing in or out on the page opens the socket again, so the
// server knows who writes. Every line is set as text (never as HTML, and a link stays text). Mute hides the other side's lines: the opponent's for a player, the spectators'
// room for a spectator; it is kept in localStorage per match.

import { LiveMatch } from "../api.js";
import { cap } from "../common.js";
import { t } from "../i18n.js";
import { $, id, state } from "./state.js";

const MAX_CHARS = 140;
const muteKey = `flipgames.chat.muted.${id}`;
let lines = [];

/** The match's live socket: with the chat for an online match, else the plain one. */
export function liveMatch(matchId, seatToken, handlers) {
  if (!state.view || state.view.mode !== "online") return new LiveMatch(matchId, seatToken, handlers);
  const live = new ChattingMatch(matchId, seatToken, handlers, receive);
  wireChat(live);
  return live;
}

class ChattingMatch extends LiveMatch {
  constructor(matchId, seatToken, handlers, onChat) {
    super(matchId, seatToken, handlers);
    this.onChat = onChat;
  }

  url() {
    const url = super.url();
    return `${url}${url.includes("?") ? "&" : "?"}chat=true`;
  }

  connect() {
    super.connect();
    const socket = this.socket;
    socket.addEventListener("message", (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      if (message.type === "chat" && this.socket === socket) this.onChat(message.lines, message.history);
    });
  }

  /** Open a new socket (the handshake carries the session cookie as it is now), then close
   * the old one, whose close is then ignored. */
  renew() {
    const old = this.socket;
    this.connect();
    if (old) old.close();
  }

  /** Send a line; false when the socket is not open. */
  say(text) {
    if (!this.socket || this.socket.readyState !== WebSocket.OPEN) return false;
    this.socket.send(JSON.stringify({ type: "chat", text }));
    return true;
  }
}

const isPlayer = () => state.view && state.view.seat !== null && state.view.seat !== undefined;
const muted = () => localStorage.getItem(muteKey) === "1";

function receive(received, history) {
  if (history) lines = [];
  const known = new Set(lines.map((line) => line.number));
  lines = lines.concat(received.filter((line) => !known.has(line.number))).sort((a, b) => a.number - b.number);
  render();
}

/** Who wrote a line, in words: their name, else their seat's side ("you" for this seat). */
function writer(line) {
  const mine = line.room === "players" && line.seat === state.view.seat;
  const who = line.name || (line.seat !== null ? cap(state.view.players[line.seat] || "") : "");
  return mine ? t("chat.you", { name: who }) : who;
}

function hidden(line) {
  if (!muted()) return false;
  return isPlayer() ? line.seat !== state.view.seat : true;
}

function render() {
  const list = $("chat-lines");
  list.replaceChildren();
  const shown = lines.filter((line) => !hidden(line));
  for (const line of shown) {
    const item = document.createElement("li");
    item.className = "chat-line";
    item.dataset.number = line.number;
    const who = document.createElement("span");
    who.className = "chat-who";
    who.textContent = writer(line);
    const words = document.createElement("span");
    words.className = "chat-text";
    words.textContent = line.text;
    item.append(who, " ", words);
    list.append(item);
  }
  $("chat-empty").hidden = shown.length > 0;
  const mute = $("chat-mute");
  mute.setAttribute("aria-pressed", String(muted()));
  const which = isPlayer() ? "opponent" : "spectators";
  mute.textContent = t(muted() ? `chat.unmute_${which}` : `chat.mute_${which}`);
  $("chat-muted").hidden = !muted();
  list.scrollTop = list.scrollHeight;
}

function wireChat(live) {
  const player = isPlayer();
  $("chat").hidden = false;
  $("chat-title").textContent = t(player ? "chat.title_players" : "chat.title_spectators");
  $("chat-note").textContent = t(player ? "chat.note_players" : "chat.note_spectators");
  $("chat-input").maxLength = MAX_CHARS;
  $("chat-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const input = $("chat-input");
    const text = input.value.trim();
    if (!text) return;
    if (live.say(text)) input.value = "";
    else $("chat-status").textContent = t("chat.offline");
  });
  $("chat-input").addEventListener("input", () => {
    $("chat-status").textContent = "";
  });
  // identity.js announces every sign-in and sign-out (and who is signed in, once loaded).
  document.addEventListener("flipgames:identity", () => live.renew());
  $("chat-mute").addEventListener("click", () => {
    if (muted()) localStorage.removeItem(muteKey);
    else localStorage.setItem(muteKey, "1");
    render();
  });
  render();
}
