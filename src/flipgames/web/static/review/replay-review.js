// The game review on the replay page: asks GET /api/matches/{id}/review (a background job on
// the server; polled while it runs, with its progress shown), draws the value chart, and
// follows the replay: clicking a point shows that position on the board (the replay's
// "replay:go" event) with its best moves, and "Analyse from here" opens the analysis board.

import { matchIdFromPath } from "../api.js";
import { drawChart } from "./chart.js";
import { describeValue, sourceWords } from "./values.js";

const $ = (selector) => document.getElementById(selector);
const id = matchIdFromPath();
const POLL_MS = 400;

let review = null;
let chart = null;
let options = {};

async function ask() {
  const response = await fetch(`/api/matches/${encodeURIComponent(id)}/review`, { headers: { Accept: "application/json" } });
  const data = await response.json().catch(() => null);
  if (!response.ok) throw new Error(data && data.error ? data.error.message : `the server answered ${response.status}`);
  return data;
}

function showPoint(ply) {
  if (!review) return;
  const point = review.points[ply];
  if (!point) return;
  chart.select(ply);
  const mover = point.by === null || point.by < 0 ? null : review.players[point.by];
  const move = point.action ? `Ply ${point.ply} · ${mover ? `${mover}: ` : "chance: "}${point.action}` : "Start position";
  $("review-move").textContent = point.mark ? `${move} · ${point.mark}` : move;
  $("review-move").className = `review-move ${point.mark || ""}`;
  $("review-value").textContent = `${describeValue(point.value, review.players)} (${sourceWords(point.source, point.exact)})`;
  const best = $("review-best");
  best.replaceChildren(...point.best.map((text) => Object.assign(document.createElement("li"), { textContent: text })));
  $("review-best-title").hidden = point.best.length === 0;
  const params = new URLSearchParams();
  if (point.position !== null) params.set("position", point.position);
  else params.set("moves", review.points.slice(1, ply + 1).map((p) => p.action).join(" "));
  if (Object.keys(options).length) params.set("options", JSON.stringify(options));
  $("review-analyse").href = `/analysis/${encodeURIComponent(review.game)}?${params}`;
  $("review-analyse").hidden = false;
}

function summary() {
  const plural = { inaccuracy: "inaccuracies", mistake: "mistakes", blunder: "blunders" };
  const words = Object.entries(review.marks).map(([label, count]) => `${count} ${count === 1 ? label : plural[label] || label}`);
  $("review-status").textContent = `Marked: ${words.join(", ")}.`;
}

async function start() {
  $("review-status").textContent = "Reviewing the game…";
  for (;;) {
    let answer;
    try {
      answer = await ask();
    } catch (err) {
      $("review-status").textContent = `No review: ${err.message}`;
      return;
    }
    if (answer.status === "done") {
      review = answer.review;
      break;
    }
    if (answer.status === "failed") {
      $("review-status").textContent = answer.error;
      return;
    }
    $("review-progress").hidden = false;
    $("review-progress").max = answer.total;
    $("review-progress").value = answer.done;
    $("review-status").textContent = `Reviewing the game… ${answer.done} of ${answer.total} positions`;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  options = review.options;
  $("review-progress").hidden = true;
  chart = drawChart($("review-chart"), review, (ply) => {
    document.dispatchEvent(new CustomEvent("replay:go", { detail: { index: ply } }));
  });
  summary();
  showPoint(current);
}

let current = 0;
document.addEventListener("replay:step", (event) => {
  current = event.detail.index;
  showPoint(current);
});

start();
