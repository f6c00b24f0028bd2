// The lobby's "My games". For a signed-in player the finished games come from the server (the
// profile's games, GET /api/players/{name}: the same on every browser they sign in on); the
// games still being played come from this browser's localStorage, which keeps each seat's
// link (the server never stores a seat's token, so it cannot give the link back). A browser
// with nobody signed in lists only what localStorage holds, finished games included.

import { api } from "./api.js";
import { myMatches, outcomeText } from "./common.js";
import { t } from "./i18n.js";

const $ = (selector) => document.getElementById(selector);
// Words looked up when shown (t() is the page's language).
const OUTCOMES = {
  win: () => t("outcome.won"), draw: () => t("result.draw"), loss: () => t("outcome.lost"), aborted: () => t("profile.aborted"),
};
const ENDINGS = {
  resignation: () => t("profile.by_resignation"), agreement: () => t("profile.by_agreement"), timeout: () => t("profile.on_time"),
  forfeit: () => t("profile.by_forfeit"), aborted: () => t("profile.before_both"),
};
const MODES = { ai: () => t("mine.vs_computer"), online: () => t("mine.vs_friend"), local: () => t("mine.same_screen") };
const words = (table, key) => (key in table ? table[key]() : key);

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
const outcome = (match) => (match.result === "*" ? t("profile.aborted") : outcomeText(match));

function localItem(match) {
  const done = finished(match);
  const mode = match.mode in MODES ? MODES[match.mode]() : "";
  return item(
    done ? `/replay/${encodeURIComponent(match.id)}` : match.play,
    match.title || match.game || t("profile.game"),
    `${mode} · ${done ? `${outcome(match)} · ${t("mine.replay")}` : t("mine.continue")}`,
  );
}

function serverItem(game, titles) {
  const parts = [
    t("profile.against", { name: game.opponent || t("profile.no_player") }),
    game.ending ? `${words(OUTCOMES, game.result)} ${words(ENDINGS, game.ending)}` : words(OUTCOMES, game.result),
    game.rated ? t("profile.rated") : t("profile.casual"),
    game.date.slice(0, 10),
    t("mine.replay"),
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
        const more = item(`/players/${encodeURIComponent(profile.name)}`, t("mine.all"), t("mine.all_pages", { pages: profile.pages }));
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
