// The profile page (/players/NAME): ratings per game, a rating-history chart drawn here as
// inline SVG (one point per rated game), wins/draws/losses, and the finished games a page at
// a time, each linking to its replay. Every name and text from the server goes in through
// textContent: nothing is parsed as HTML.

import { api } from "./api.js";
import { toast } from "./common.js";
import { t } from "./i18n.js";

const $ = (selector) => document.getElementById(selector);
const SVG = "http://www.w3.org/2000/svg";
const name = decodeURIComponent(location.pathname.split("/").filter(Boolean)[1] || "");
let titles = {};
let page = 1;
let chartGame = null;

function element(tag, text = "", className = "") {
  const node = document.createElement(tag);
  if (text) node.textContent = text;
  if (className) node.className = className;
  return node;
}

function svg(tag, attributes) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  return node;
}

const title = (game) => titles[game] || game;
const shown = (rating) => `${Math.round(rating.rating)}${rating.provisional ? "?" : ""}`;

function renderRatings(profile) {
  const games = [...new Set([...Object.keys(profile.ratings), ...Object.keys(profile.results)])];
  $("ratings").hidden = games.length === 0;
  $("no-ratings").hidden = games.length > 0;
  $("ratings-rows").replaceChildren(...games.map((game) => {
    const row = element("tr");
    const rating = profile.ratings[game];
    const results = profile.results[game] || { wins: 0, draws: 0, losses: 0 };
    row.append(
      element("td", title(game)),
      element("td", rating ? shown(rating) : "–"),
      element("td", rating ? String(rating.games) : "0"),
      element("td", String(results.wins)),
      element("td", String(results.draws)),
      element("td", String(results.losses)),
    );
    return row;
  }));
}

/** The rating after each rated game of `points`, as a line with a point per game. */
export function ratingChart(points, { width = 600, height = 220, pad = 36 } = {}) {
  const chart = svg("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": t("profile.chart_label") });
  const ratings = points.map((p) => p.rating);
  const low = Math.floor((Math.min(...ratings) - 20) / 50) * 50;
  const high = Math.ceil((Math.max(...ratings) + 20) / 50) * 50;
  const x = (i) => pad + (points.length === 1 ? (width - 2 * pad) / 2 : (i * (width - 2 * pad)) / (points.length - 1));
  const y = (r) => height - pad - ((r - low) * (height - 2 * pad)) / (high - low);
  chart.append(svg("line", { class: "axis", x1: pad, y1: height - pad, x2: width - pad, y2: height - pad }));
  for (const value of [low, high]) {
    const label = svg("text", { x: 4, y: y(value) + 4 });
    label.textContent = String(value);
    chart.append(label);
  }
  chart.append(svg("polyline", { class: "line", points: points.map((p, i) => `${x(i)},${y(p.rating)}`).join(" ") }));
  points.forEach((p, i) => {
    const dot = svg("circle", { class: "point", cx: x(i), cy: y(p.rating), r: 4 });
    const tip = svg("title", {});
    tip.textContent = t("profile.chart_point", { rating: Math.round(p.rating), n: i + 1, date: p.date.slice(0, 10) });
    dot.append(tip);
    chart.append(dot);
  });
  const summary = svg("desc", {});
  summary.textContent = t("profile.chart_summary", { count: points.length, ratings: ratings.map(Math.round).join(", ") });
  chart.prepend(summary);
  return chart;
}

function renderHistory(profile) {
  const games = Object.keys(profile.history);
  $("history-card").hidden = games.length === 0;
  if (games.length === 0) return;
  if (!games.includes(chartGame)) chartGame = games[0];
  $("history-tabs").replaceChildren(...games.map((game) => {
    const tab = element("a", title(game));
    tab.href = "#";
    if (game === chartGame) tab.setAttribute("aria-current", "page");
    tab.addEventListener("click", (event) => {
      event.preventDefault();
      chartGame = game;
      renderHistory(profile);
    });
    return tab;
  }));
  $("rating-chart").replaceChildren(ratingChart(profile.history[chartGame]));
}

const OUTCOMES = {
  win: () => t("profile.won"), draw: () => t("profile.drawn"), loss: () => t("profile.lost"), aborted: () => t("profile.aborted"),
};
const ENDINGS = {
  resignation: () => t("profile.by_resignation"), agreement: () => t("profile.by_agreement"), timeout: () => t("profile.on_time"),
  forfeit: () => t("profile.by_forfeit"), aborted: () => t("profile.before_both"),
};

function renderGames(profile) {
  $("no-games").hidden = profile.games.length > 0;
  $("games").replaceChildren(...profile.games.map((game) => {
    const item = element("li");
    const link = element("a", title(game.game));
    link.href = `/replay/${encodeURIComponent(game.match)}`;
    item.append(
      element("span", game.result in OUTCOMES ? OUTCOMES[game.result]() : game.result, "outcome"),
      link,
      element("span", t("profile.against", { name: game.opponent || t("profile.no_player") })),
      element("span", !game.ending ? t("profile.on_the_board") : game.ending in ENDINGS ? ENDINGS[game.ending]() : game.ending, "muted"),
      element("span", game.rated ? t("profile.rated") : t("profile.casual"), "muted"),
      element("time", game.date.slice(0, 10), "muted"),
    );
    return item;
  }));
  $("newer").hidden = profile.page <= 1;
  $("older").hidden = profile.page >= profile.pages;
  $("page-label").textContent = profile.pages > 1 ? t("profile.page", { page: profile.page, pages: profile.pages }) : "";
}

async function load() {
  try {
    const profile = await api.profile(name, page);
    document.title = `${profile.name} · flipgames arcade`;
    $("player-name").textContent = profile.account ? profile.name : t("profile.guest_name", { name: profile.name });
    renderRatings(profile);
    renderHistory(profile);
    renderGames(profile);
  } catch (err) {
    $("player-name").textContent = t("profile.no_such_player");
    toast(err.message, "error");
  }
}

async function start() {
  const games = await api.games().catch(() => []);
  titles = Object.fromEntries(games.map((game) => [game.name, game.title]));
  $("newer").addEventListener("click", () => { page -= 1; load(); });
  $("older").addEventListener("click", () => { page += 1; load(); });
  await load();
}

start();
