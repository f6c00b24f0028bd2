// The lobby's "My games". For a signed-in player the finished games come from the server (the
// profile's games, GET /api/players/{name}: the same on every browser they sign in on); the
// games still being played come from this browser's localStorage, which keeps each seat's
// link (the server never stores a seat's token, so it cannot give the link back). A browser
// with nobody signed in lists only what localStorage holds, finished games included.

import { api } from "./api.js";
import { myMatches, outcomeText } from "./common.js";

const $ = (selector) => document.getElementById(selector);
const OUTCOMES = { win: "You won", draw: "Draw", loss: "You lost", aborted: "Aborted" };
const ENDINGS = {
  resignation: "by resignation", agreement: "by agreement", timeout: "on time",
  forfeit: "by forfeit", aborted: "before both had moved",
};
const MODES = { ai: "vs computer", online: "vs friend", local: "same screen" };

function item(href, title, detail) {
  const entry = document.createElement("li");
  const link = document.createElement("a");
  link.href = href;
  link.textContent = title;
  const words = document.createElement("span");
  words.className = "muted";
  words.textContent = ` ${detail}`;
  entry.append(link, words);
  return entry;
}

// A finished match has its result ("*" for an aborted one); one still in play has none yet.
const finished = (match) => Boolean(match.result);
const outcome = (match) => (match.result === "*" ? "Aborted" : outcomeText(match));

function localItem(match) {
  const done = finished(match);
  const mode = MODES[match.mode] || "";
  return item(
    done ? `/replay/${encodeURIComponent(match.id)}` : match.play,
    match.title || match.game || "Game",
    `${mode} · ${done ? `${outcome(match)} · replay` : "in progress · continue"}`,
  );
}

function serverItem(game, titles) {
  const parts = [
    game.opponent ? `against ${game.opponent}` : "against no player",
    game.ending ? `${OUTCOMES[game.result] || game.result} ${ENDINGS[game.ending] || game.ending}` : OUTCOMES[game.result] || game.result,
    game.rated ? "rated" : "casual",
    game.date.slice(0, 10),
    "replay",
  ];
  return item(`/replay/${encodeURIComponent(game.match)}`, titles[game.game] || game.game, parts.join(" · "));
}

/** List "My games" for `player` ({name, account} or null); `games` gives the titles. */
export async function listMine(player, games) {
  const titles = Object.fromEntries(games.map((game) => [game.name, game.title]));
  const local = myMatches();
  let items = local.map(localItem);
  let source = "this browser";
  if (player) {
    try {
      const profile = await api.profile(player.name);
      // In play: only this browser has the seat links. Finished: the server's list.
      const listed = new Set(profile.games.map((game) => game.match));
      const playing = local.filter((match) => !finished(match) && match.play && !listed.has(match.id));
      items = [...playing.map(localItem), ...profile.games.map((game) => serverItem(game, titles))];
      source = "server";
      if (profile.pages > 1) {
        const more = item(`/players/${encodeURIComponent(profile.name)}`, "All your games", `(${profile.pages} pages) on your profile`);
        items.push(more);
      }
    } catch {
      // The server's list could not be read: this browser's own list instead.
    }
  }
  $("mine").hidden = items.length === 0;
  $("mine").dataset.source = source;
  $("my-games").replaceChildren(...items);
}
