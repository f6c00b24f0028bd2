// The only door between the pages and the engine: the HTTP + WebSocket API of docs/web-api.md.
//
// Usage:
//   import { api, ApiError, LiveMatch } from "/static/api.js";
//   const games = await api.games();
//   const live = new LiveMatch(id, token, { onView: (view) => draw(view) });
//   live.start();

/** A refusal from the server, carrying its stable error code and its message. */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

async function request(method, path, body) {
  const init = { method, headers: { Accept: "application/json" } };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (err) {
    throw new ApiError(0, "network", `the server cannot be reached (${err.message})`);
  }
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    // A proxy error page or similar: report the status below with the raw text.
  }
  if (!response.ok) {
    const error = data && data.error ? data.error : null;
    // FastAPI's own validation errors use {"detail": ...}; show them rather than nothing.
    const detail = data && data.detail ? JSON.stringify(data.detail) : text.slice(0, 200);
    throw new ApiError(
      response.status,
      error ? error.code : "http_" + response.status,
      error ? error.message : `${response.status} ${response.statusText}: ${detail}`,
    );
  }
  return data;
}

const q = (token) => (token ? `?token=${encodeURIComponent(token)}` : "");
const m = (id) => `/api/matches/${encodeURIComponent(id)}`;

/** One function per endpoint of the API contract. */
export const api = {
  games: () => request("GET", "/api/games"),
  rules: (name) => request("GET", `/api/games/${encodeURIComponent(name)}/rules`),
  create: (spec) => request("POST", "/api/matches", spec),
  view: (id, token, { wait = false } = {}) =>
    request("GET", m(id) + q(token) + (wait ? `${token ? "&" : "?"}wait=true` : "")),
  act: (id, token, action, ply) => request("POST", `${m(id)}/actions`, { token, action, ply }),
  undo: (id, token) => request("POST", `${m(id)}/undo`, { token }),
  resign: (id, token) => request("POST", `${m(id)}/resign`, { token }),
  draw: (id, token, answer) => request("POST", `${m(id)}/draw`, { token, answer }),
  takeback: (id, token, answer) => request("POST", `${m(id)}/takeback`, { token, answer }),
  abort: (id, token) => request("POST", `${m(id)}/abort`, { token }),
  profile: (name, page = 1) => request("GET", `/api/players/${encodeURIComponent(name)}?page=${encodeURIComponent(page)}`),
  leaderboard: (game) => request("GET", `/api/leaderboard/${encodeURIComponent(game)}`),
  rematch: (id, token) => request("POST", `${m(id)}/rematch`, { token }),
  position: (id, ply) => request("GET", `${m(id)}/position?ply=${encodeURIComponent(ply)}`),
  hint: (id, token) => request("GET", `${m(id)}/hint${q(token)}`),
  analysis: (id, token) => request("GET", `${m(id)}/analysis${q(token)}`),
  replay: (id) => request("GET", `${m(id)}/replay`),
  recordUrl: (id) => `${m(id)}/record`,
  // Players and sessions: the session is the HttpOnly cookie these set (scripts never see it).
  me: () => request("GET", "/api/session"),
  guest: (name) => request("POST", "/api/players", { name }),
  signUp: (name, password) => request("POST", "/api/accounts", { name, password }),
  signIn: (name, password) => request("POST", "/api/session", { name, password }),
  signOut: () => request("DELETE", "/api/session"),
  changePassword: (password, newPassword) =>
    request("POST", "/api/account/password", { password, new_password: newPassword }),
  deleteAccount: (password) => request("DELETE", "/api/account", { password }),
  // The public lobby: seeks, quick pairing and the live games (its socket: people.js).
  seeks: () => request("GET", "/api/seeks"),
  seek: (spec) => request("POST", "/api/seeks", spec),
  seekState: (id) => request("GET", `/api/seeks/${encodeURIComponent(id)}`),
  cancelSeek: (id) => request("DELETE", `/api/seeks/${encodeURIComponent(id)}`),
  acceptSeek: (id) => request("POST", `/api/seeks/${encodeURIComponent(id)}/accept`),
  pair: (spec) => request("POST", "/api/pairing", spec),
  leavePairing: () => request("DELETE", "/api/pairing"),
  live: () => request("GET", "/api/live"),
  lessons: () => request("GET", "/api/lessons"),
  lesson: (game) => request("GET", `/api/lessons/${encodeURIComponent(game)}`),
  attempt: (game, step, action) =>
    request("POST", `/api/lessons/${encodeURIComponent(game)}/${encodeURIComponent(step)}/attempt`, { action }),
};

/**
 * A match kept up to date over the WebSocket, reconnecting with exponential backoff.
 *
 * Every (re)connection receives the current view first, so catching up after a drop is the
 * same as connecting: nothing is replayed on the client. `onStatus` hears "live",
 * "reconnecting" (with the delay in ms) and "closed".
 */
export class LiveMatch {
  constructor(id, token, { onView, onError, onStatus, onPresence = null, minDelay = 500, maxDelay = 15000 }) {
    this.id = id;
    this.token = token;
    this.onView = onView;
    this.onPresence = onPresence;
    this.onError = onError || (() => {});
    this.onStatus = onStatus || (() => {});
    this.minDelay = minDelay;
    this.maxDelay = maxDelay;
    this.delay = minDelay;
    this.socket = null;
    this.timer = null;
  }

  url() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const url = `${scheme}//${location.host}/ws/matches/${encodeURIComponent(this.id)}${q(this.token)}`;
    return this.onPresence ? `${url}${this.token ? "&" : "?"}presence=true` : url;
  }

  start() {
    this.connect();
    // A laptop waking up or a phone coming back online should not wait for the backoff timer.
    window.addEventListener("online", () => this.reconnectNow());
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible") this.reconnectNow();
    });
  }

  connect() {
    clearTimeout(this.timer);
    const socket = new WebSocket(this.url());
    this.socket = socket;
    socket.addEventListener("open", () => {
      this.delay = this.minDelay;
      this.onStatus("live");
    });
    socket.addEventListener("message", (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      if (message.type === "view") this.onView(message.match);
      else if (message.type === "presence" && this.onPresence) this.onPresence(message.seats);
      else if (message.type === "error") this.onError(message.error);
    });
    socket.addEventListener("close", (event) => {
      if (this.socket !== socket) return;
      // 4xxx closes are the server refusing us (unknown match, bad token): retrying cannot help.
      if (event.code >= 4000 && event.code < 5000) {
        this.onStatus("closed", event.reason);
        return;
      }
      this.scheduleReconnect();
    });
  }

  scheduleReconnect() {
    const wait = this.delay;
    this.delay = Math.min(this.delay * 2, this.maxDelay);
    this.onStatus("reconnecting", wait);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.connect(), wait);
  }

  reconnectNow() {
    const open = this.socket && this.socket.readyState <= WebSocket.OPEN;
    if (!open) {
      this.delay = this.minDelay;
      this.connect();
    }
  }
}

/** The match id from a path like /play/{id} or /replay/{id}. */
export function matchIdFromPath() {
  const parts = location.pathname.split("/").filter(Boolean);
  return decodeURIComponent(parts[parts.length - 1] || "");
}

/** Copy text to the clipboard, falling back to a hidden textarea on insecure origins. */
export async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(text);
    return;
  }
  const area = document.createElement("textarea");
  area.value = text;
  area.style.position = "fixed";
  area.style.opacity = "0";
  document.body.append(area);
  area.select();
  document.execCommand("copy");
  area.remove();
}
