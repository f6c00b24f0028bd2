// The puzzle page (/puzzles/{game}?n=7): a position drawn by the game's own board module, a
// question, and the player's answer played on the board with the mouse (or keyboard). The
// server checks the answer with the exact solver; nothing here knows the answer before that.

import { ApiError } from "./api.js";
import { cap, loadBoard } from "./common.js";
import { t } from "./i18n.js";

const $ = (selector) => document.getElementById(selector);

const parts = location.pathname.split("/").filter(Boolean);
// /puzzles alone shows the first game the server lists (GET /api/puzzles): the page knows no
// game by name.
let game = parts.length > 1 ? decodeURIComponent(parts[1]) : null;
const asked = Number(new URLSearchParams(location.search).get("n"));
const number = Number.isInteger(asked) && asked >= 1 ? asked : 1;

let board = null;
let view = null;
let puzzle = null;
let answered = false;

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
  const data = await response.json().catch(() => null);
  if (!response.ok) {
    const error = data && data.error ? data.error : { code: `http_${response.status}`, message: response.statusText };
    throw new ApiError(response.status, error.code, error.message);
  }
  return data;
}

let base = null;

function draw(interactive) {
  board.update(view, { interactive, analysis: null, fresh: [], reverse: false });
}

async function answer(action) {
  if (answered) return;
  answered = true;
  draw(false);
  let verdict;
  try {
    verdict = await request("POST", `${base}/answer`, { action });
  } catch (err) {
    answered = false;
    draw(true);
    $("verdict").hidden = false;
    $("verdict-line").textContent = err.message;
    return;
  }
  showVerdict(verdict);
}

function showVerdict(verdict) {
  const box = $("verdict");
  box.hidden = false;
  box.classList.toggle("right", verdict.correct);
  box.classList.toggle("wrong", !verdict.correct);
  const chosen = verdict.values.find((entry) => entry.action === verdict.action);
  $("verdict-line").textContent = verdict.correct
    ? t("puzzle.right", { answer: verdict.answer })
    : t("puzzle.wrong", { move: verdict.action, outcome: outcome(chosen), answer: verdict.answer });
  $("verdict-detail").textContent = why(verdict.values.find((entry) => entry.best));
  const list = $("values");
  list.replaceChildren();
  for (const entry of verdict.values) {
    const item = document.createElement("li");
    item.textContent = describe(entry);
    if (entry.win) item.title = t("puzzle.exactly", { fraction: entry.win });
    if (entry.best) item.classList.add("best");
    if (entry.action === verdict.action) item.classList.add("chosen");
    list.append(item);
  }
  // Boards mark a structured move (the view's legal action), never a parsed text.
  const move = (view.legal_actions || []).find((a) => a.text === verdict.answer);
  if (board.hint && move) board.hint(move);
  $("next-puzzle").focus();
}

const moves = (n) => (n === 1 ? t("puzzle.one_move") : t("puzzle.moves", { n }));
const percent = (entry) => `${(entry.win_float * 100).toFixed(1)}%`;

/**
 * What a move leads to, in a player's words: "wins in 2 moves" counts the mover's own moves;
 * "loses (Black wins in 2 moves)" the winner's. (The solver counts plies, both sides' moves
 * together: a win in p plies is the mover's (p + 1) / 2nd move.)
 */
function outcome(entry) {
  if (entry.win_float !== undefined) return t("puzzle.gives_chance", { percent: percent(entry) });
  const other = cap(view.players[1 - puzzle.to_move]);
  const known = entry.plies !== null && entry.plies !== undefined;
  if (entry.outcome === "win") return known ? t("puzzle.wins_in", { moves: moves((entry.plies + 1) / 2) }) : t("puzzle.wins");
  if (entry.outcome === "loss") {
    return known ? t("puzzle.loses_in", { player: other, moves: moves(entry.plies / 2) }) : t("puzzle.loses");
  }
  return t("puzzle.draws");
}

/** One line of the list of every move: the move (a gear, for a gear puzzle) and its value. */
function describe(entry) {
  const name = puzzle.kind === "best-gear" ? t("puzzle.gear", { gear: entry.action }) : entry.action;
  if (entry.win_float !== undefined) {
    // The exact odds are a fraction of many digits: the item's title keeps them.
    return t("puzzle.value", { move: name, value: t("puzzle.chance", { percent: percent(entry) }) });
  }
  return t("puzzle.value", { move: name, value: outcome(entry) });
}

/** Why the answer is right, from the puzzle's kind and the answer's value. */
function why(best) {
  const player = cap(puzzle.player);
  if (puzzle.kind === "best-gear") {
    return t("puzzle.why_gear", { gear: best.action, player, percent: percent(best) });
  }
  return t("puzzle.why_move", { move: best.action, player, moves: moves(puzzle.moves) });
}

/** Before the puzzle arrives (a new one is a solver search): what is happening, so the page
 * is never blank; the game's picture joins it where the board will be once the list of games
 * (which carries it) arrives. */
function showWaiting() {
  const waiting = document.createElement("div");
  waiting.className = "board-waiting";
  waiting.setAttribute("aria-hidden", "true");
  $("board").replaceChildren(waiting);
  $("question").textContent = t("puzzle.setting_up", { n: number });
  $("puzzle-number").textContent = t("puzzle.number", { n: number });
}

async function start() {
  showWaiting();
  // Both at once where the path names the game: the list of games is quick, the puzzle may
  // need a search (on /puzzles alone the list comes first, since it names the game).
  const listed = request("GET", "/api/puzzles").catch(() => []);
  if (game === null) game = (await listed).map((entry) => entry.name)[0] || "";
  base = `/api/puzzles/${encodeURIComponent(game)}/${number}`;
  const asked = request("GET", base);
  const tabs = $("puzzle-tabs");
  for (const entry of await listed) {
    const tab = document.createElement("a");
    tab.href = `/puzzles/${encodeURIComponent(entry.name)}`;
    tab.textContent = entry.title;
    if (entry.name === game) {
      tab.setAttribute("aria-current", "page");
      const waiting = $("board").querySelector(".board-waiting");
      if (waiting) waiting.innerHTML = entry.art;
    }
    tabs.append(tab);
  }
  try {
    puzzle = await asked;
  } catch (err) {
    $("board").replaceChildren();
    $("question").textContent = err.message;
    return;
  }
  view = puzzle.view;
  document.title = `${t("puzzle.page_title", { game: puzzle.title, n: number })} · flipgames arcade`;
  document.body.dataset.game = puzzle.game;
  $("puzzle-title").textContent = t("puzzle.heading", { game: puzzle.title, n: number });
  $("question").textContent = puzzle.question;
  $("turn-dot").className = `turn-dot p${puzzle.to_move}`;
  $("rules-link").href = `/rules/${encodeURIComponent(puzzle.game)}`;
  $("next-puzzle").href = `/puzzles/${encodeURIComponent(puzzle.game)}?n=${puzzle.next}`;
  const played = view.moves.filter((move) => !move.chance).length;
  $("position-note").textContent = t("puzzle.position_note", { moves: moves(played) });
  const module = await loadBoard(view.board);
  board = module.createBoard($("board"), { seat: puzzle.to_move, onAction: answer, announce: () => {} });
  draw(true);
}

start();
