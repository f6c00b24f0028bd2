// The rules page (/rules/{game}): the engine's own rules summary, laid out for reading, with
// tabs for the other games and a button to start one. The rules text is the engine's, in
// English whatever the page's language (its chrome follows the catalogue).

import { api, matchIdFromPath } from "./api.js";
import { showDiagrams } from "./diagrams.js";
import { t } from "./i18n.js";

const name = matchIdFromPath();
const $ = (selector) => document.getElementById(selector);

/**
 * Turn plain rules text into headings, paragraphs and lists (text only, never HTML). The
 * engine's first line is the game's title with where its rules come from; the page has its
 * own header, so that line is left out.
 */
function layout(text, title) {
  const blocks = [];
  let list = null;
  const lines = text.split("\n");
  if (lines.length && lines[0].toLowerCase().includes(title.toLowerCase())) lines.shift();
  for (const raw of lines) {
    const line = raw.trimEnd();
    const bullet = /^\s*[-*•]\s+(.*)$/.exec(line);
    if (bullet) {
      if (!list) {
        list = document.createElement("ul");
        blocks.push(list);
      }
      const item = document.createElement("li");
      item.textContent = bullet[1];
      list.append(item);
      continue;
    }
    if (list && /^\s{2,}\S/.test(line)) {
      list.lastElementChild.textContent += ` ${line.trim()}`;
      continue;
    }
    list = null;
    if (!line.trim()) continue;
    const heading = /^[A-Z][^.]{0,40}:$/.test(line.trim()) || /^#+\s/.test(line);
    const node = document.createElement(heading ? "h3" : "p");
    node.textContent = line.replace(/^#+\s*/, "");
    const previous = blocks[blocks.length - 1];
    // A paragraph goes on until a sentence ends: a line ending in ":" or ")" can be the middle
    // of one ("... must pass (notation:" / "pass); ...").
    if (!heading && previous && previous.tagName === "P" && !/[.!?]$/.test(previous.textContent)) {
      previous.textContent += ` ${node.textContent}`;
      continue;
    }
    blocks.push(node);
  }
  return blocks;
}

async function start() {
  const games = await api.games().catch(() => []);
  const tabs = $("rules-tabs");
  for (const game of games) {
    const tab = document.createElement("a");
    tab.href = `/rules/${encodeURIComponent(game.name)}`;
    tab.textContent = game.title;
    if (game.name === name) tab.setAttribute("aria-current", "page");
    tabs.append(tab);
  }
  const article = $("rules");
  try {
    const rules = await api.rules(name);
    document.title = `${t("rules.page_title", { game: rules.title })} · flipgames arcade`;
    const header = document.createElement("header");
    header.className = "rules-header";
    const info = games.find((game) => game.name === rules.name);
    header.innerHTML = `<div class="card-art">${info ? info.art : ""}</div><div><h2></h2><p class="muted"></p>` +
      `<a class="button primary"></a></div>`;
    header.querySelector("h2").textContent = rules.title;
    header.querySelector("p").textContent = info ? info.pitch : "";
    header.querySelector("a").textContent = t("rules.play", { game: rules.title });
    header.querySelector("a").href = `/?game=${encodeURIComponent(rules.name)}`;
    article.replaceChildren(header, ...layout(rules.text, rules.title));
    // Not awaited: the rules text is read while the diagrams are drawn.
    showDiagrams(header, rules.name);
  } catch (err) {
    article.textContent = err.message;
  }
}

start();
