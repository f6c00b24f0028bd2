// The leaderboard page: a tab per game (the games from /api/games), each listing the best
// established ratings. Names go in through textContent only.

import { api } from "./api.js";
import { toast } from "./common.js";
import { t } from "./i18n.js";

const $ = (selector) => document.getElementById(selector);

function element(tag, text = "") {
  const node = document.createElement(tag);
  if (text) node.textContent = text;
  return node;
}

async function show(game, games) {
  $("game-tabs").replaceChildren(...games.map((entry) => {
    const tab = element("a", entry.title);
    tab.href = `#${entry.name}`;
    if (entry.name === game.name) tab.setAttribute("aria-current", "page");
    tab.addEventListener("click", (event) => {
      event.preventDefault();
      history.replaceState(null, "", `#${entry.name}`);
      show(entry, games);
    });
    return tab;
  }));
  $("board-title").textContent = game.title;
  try {
    const board = await api.leaderboard(game.name);
    $("no-leaders").hidden = board.players.length > 0;
    $("leaders").replaceChildren(...board.players.map((leader) => {
      const item = element("li");
      const link = element("a", leader.name);
      link.href = `/players/${encodeURIComponent(leader.name)}`;
      item.append(link, ` ${t("leaderboard.line", { rating: Math.round(leader.rating), games: leader.games })}`);
      return item;
    }));
  } catch (err) {
    toast(err.message, "error");
  }
}

async function start() {
  const games = await api.games().catch((err) => {
    toast(err.message, "error");
    return [];
  });
  if (games.length === 0) return;
  const wanted = games.find((entry) => `#${entry.name}` === location.hash) || games[0];
  await show(wanted, games);
}

start();
