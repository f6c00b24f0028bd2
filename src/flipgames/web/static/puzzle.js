// The puzzle page (/puzzles/{game}?n=7): a position drawn by the game's own board module, a
// question, and the player's answer played on the board with the mouse (or keyboard). The
// server checks the answer with the exact solver; nothing here knows the answer before that.

import { ApiError } from "./api.js";
import { loadBoard } from "./common.js";

const $ = (selector) => document.getElementById(selector);
const GAMES = ["flipflop-3x3", "rubiks-flip", "checkered-flag"];

const parts = location.pathname.split("/").filter(Boolean);
const game = parts.length > 1 ? decodeURIComponent(parts[1]) : GAMES[0];
const asked = Number(new URLSearchParams(location.search).get("n"));
const number = Number.isInteger(asked) && asked >= 1 ? asked : 1;

let board = null;
let view = null;
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

const base = `/api/puzzles/${encodeURIComponent(game)}/${number}`;

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
  $("verdict-line").textContent = verdict.correct
    ? `Right: ${verdict.answer} is the answer.`
    : `Not quite: you played ${verdict.action}; the answer is ${verdict.answer}.`;
  $("verdict-detail").textContent = `${verdict.value}. ${verdict.explanation.split("\n")[0]}`;
  const list = $("values");
  list.replaceChildren();
  for (const entry of verdict.values) {
    const item = document.createElement("li");
    item.textContent = describe(entry);
    if (entry.best) item.classList.add("best");
    if (entry.action === verdict.action) item.classList.add("chosen");
    list.append(item);
  }
  // Boards mark a structured move (the view's legal action), never a parsed text.
  const move = (view.legal_actions || []).find((a) => a.text === verdict.answer);
  if (board.hint && move) board.hint(move);
  $("next-puzzle").focus();
}

/** One move's value in words: outcome and plies, or the exact chance to win. */
function describe(entry) {
  if (entry.win !== undefined) {
    return `${entry.action}: wins with probability ${(entry.win_float * 100).toFixed(2)}% (exactly ${entry.win})`;
  }
  const word = { win: "wins", draw: "draws", loss: "loses" }[entry.outcome] || entry.outcome;
  const plies = entry.plies === null || entry.outcome === "draw" ? "" : ` in ${entry.plies} ${entry.plies === 1 ? "ply" : "plies"}`;
  return `${entry.action}: ${word}${plies}`;
}

async function start() {
  const tabs = $("puzzle-tabs");
  const games = await request("GET", "/api/puzzles").catch(() => []);
  for (const entry of games) {
    const tab = document.createElement("a");
    tab.href = `/puzzles/${encodeURIComponent(entry.name)}`;
    tab.textContent = `${entry.title} (${entry.kind})`;
    if (entry.name === game) tab.setAttribute("aria-current", "page");
    tabs.append(tab);
  }
  let puzzle;
  try {
    puzzle = await request("GET", base);
  } catch (err) {
    $("question").textContent = err.message;
    return;
  }
  view = puzzle.view;
  document.title = `${puzzle.title} puzzle ${number} · flipgames arcade`;
  document.body.dataset.game = puzzle.game;
  $("puzzle-title").textContent = `${puzzle.title} · puzzle ${number}`;
  $("puzzle-number").textContent = `Puzzle ${number}`;
  $("question").textContent = puzzle.question;
  $("turn-dot").className = `turn-dot p${puzzle.to_move}`;
  $("rules-link").href = `/rules/${encodeURIComponent(puzzle.game)}`;
  $("next-puzzle").href = `/puzzles/${encodeURIComponent(puzzle.game)}?n=${puzzle.next}`;
  $("position-note").textContent = `Position: ${puzzle.actions.join(" ")} (flipgames puzzle ${puzzle.game} --seed ${number})`;
  const module = await loadBoard(view.board);
  board = module.createBoard($("board"), { seat: puzzle.to_move, onAction: answer, announce: () => {} });
  draw(true);
}

start();
