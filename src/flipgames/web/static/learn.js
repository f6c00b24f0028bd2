// The "Learn to play" page (/learn/{game}): a game's lesson, one guided position at a time,
// drawn by the game's own board module. The learner plays on the board; the server's rules
// engine judges every move (POST /api/lessons/{game}/{step}/attempt) and answers in words.
// Nothing here knows a rule: the page shows what the server says.

import { api } from "./api.js";
import { loadBoard } from "./common.js";
import { t } from "./i18n.js";

const $ = (selector) => document.getElementById(selector);

const parts = location.pathname.split("/").filter(Boolean);
const game = decodeURIComponent(parts[1] || "");

let lesson = null;
let module = null;
let board = null;
let number = 1;
let busy = false;
// The steps done in this visit, to tick them in the list.
const done = new Set();

const step = () => lesson.steps[number - 1];

function feedback(text, kind) {
  const box = $("feedback");
  box.hidden = !text;
  box.textContent = text;
  box.className = `learn-feedback ${kind || ""}`.trim();
}

/** Draw `view` on a fresh board (a step's position, or where the learner's move led). */
function draw(view, interactive) {
  board = module.createBoard($("board"), {
    seat: view.seat,
    onAction: attempt,
    // Boards that can tell a move the rules do not allow (FlipFlop's: a piece picked, then a
    // square it cannot reach) hand it here, so the engine can say why.
    onMiss: attempt,
    announce: () => {},
  });
  board.update(view, { interactive, analysis: null, fresh: [], reverse: false });
}

function showStep(n) {
  number = n;
  const current = step();
  $("step-count").textContent = t("learn.step_count", { number: n, total: lesson.steps.length });
  $("step-title").textContent = current.title;
  $("rule").textContent = current.rule;
  $("goal").textContent = current.goal;
  $("turn-dot").className = `turn-dot p${current.view.seat}`;
  $("intro").hidden = n !== 1;
  $("show-me").hidden = false;
  $("try-again").hidden = true;
  $("next-step").hidden = true;
  feedback("", "");
  for (const item of $("steps").children) {
    const at = Number(item.dataset.step);
    item.classList.toggle("current", at === n);
    if (at === n) item.setAttribute("aria-current", "step");
    else item.removeAttribute("aria-current");
  }
  draw(current.view, true);
}

async function attempt(action) {
  if (busy) return;
  busy = true;
  let verdict;
  try {
    verdict = await api.attempt(game, number, action);
  } catch (err) {
    feedback(err.message, "wrong");
    busy = false;
    return;
  }
  busy = false;
  if (verdict.achieved) {
    done.add(number);
    const item = $("steps").children[number - 1];
    item.classList.add("done");
    item.querySelector(".tick").textContent = "✓";
    feedback(verdict.message, "right");
    // On the board that showed the step, so the move (and a flip, a spin) is animated.
    const fresh = verdict.view.moves.slice(step().view.moves.length);
    board.update(verdict.view, { interactive: false, analysis: null, fresh, reverse: false });
    $("show-me").hidden = true;
    $("try-again").hidden = false;
    if (verdict.next) {
      $("next-step").hidden = false;
      $("next-step").focus();
    } else {
      finish();
    }
    return;
  }
  // A wrong move: say why, and put the step's position back to try again.
  feedback(verdict.message, "wrong");
  draw(step().view, true);
}

function finish() {
  $("done").hidden = false;
  $("done-text").textContent = t("learn.complete_text", { game: lesson.title });
  $("play-now").focus();
}

async function start() {
  const listed = api.lessons().catch(() => []);
  try {
    lesson = await api.lesson(game);
  } catch (err) {
    $("goal").textContent = err.message;
    return;
  }
  const tabs = $("learn-tabs");
  for (const entry of await listed) {
    const tab = document.createElement("a");
    tab.href = `/learn/${encodeURIComponent(entry.name)}`;
    tab.textContent = entry.title;
    if (entry.name === game) tab.setAttribute("aria-current", "page");
    tabs.append(tab);
  }
  document.title = `${t("learn.page_title", { game: lesson.title })} · flipgames arcade`;
  document.body.dataset.game = game;
  $("learn-title").textContent = t("learn.page_title", { game: lesson.title });
  $("intro").textContent = lesson.intro;
  $("rules-link").href = `/rules/${encodeURIComponent(game)}`;
  $("read-rules").href = `/rules/${encodeURIComponent(game)}`;
  $("play-now").href = `/?game=${encodeURIComponent(game)}`;
  for (const entry of lesson.steps) {
    const item = document.createElement("li");
    item.dataset.step = entry.number;
    const button = document.createElement("button");
    button.type = "button";
    button.className = "link-button";
    button.textContent = entry.title;
    button.addEventListener("click", () => showStep(entry.number));
    const tick = document.createElement("span");
    tick.className = "tick";
    tick.setAttribute("aria-hidden", "true");
    item.append(tick, button);
    $("steps").append(item);
  }
  $("show-me").addEventListener("click", () => {
    if (board.hint) board.hint(step().solution);
    feedback(t("learn.one_way", { move: step().solution.text }), "");
  });
  $("try-again").addEventListener("click", () => showStep(number));
  $("next-step").addEventListener("click", () => showStep(number + 1));
  module = await loadBoard(lesson.steps[0].view.board);
  showStep(1);
}

start();
