// The game review on the replay page: asks GET /api/matches/{id}/review (a background job on
// the server; polled while it runs, with its progress shown), draws the value chart, and
// follows the replay: clicking a point shows that position on the board (the replay's
// "replay:go" event) with its best moves, and "Analyse from here" opens the analysis board.

import { matchIdFromPath } from "../api.js";
import { t } from "../i18n.js";
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
  if (!response.ok) throw new Error(data && data.error ? data.error.message : t("review.server_answered", { status: response.status }));
  return data;
}

function showPoint(ply) {
  if (!review) return;
  const point = review.points[ply];
  if (!point) return;
  chart.select(ply);
  const mover = point.by === null || point.by < 0 ? null : review.players[point.by];
  let move = t("replay.start");
  if (point.action && mover) move = t("review.ply", { ply: point.ply, player: mover, move: point.action });
  else if (point.action) move = t("review.ply_chance", { ply: point.ply, move: point.action });
  $("review-move").textContent = point.mark ? `${move} · ${t(`review.${point.mark}`)}` : move;
  $("review-move").className = `review-move ${point.mark || ""}`;
  $("review-value").textContent = t("review.value", {
    value: describeValue(point.value, review.players),
    source: sourceWords(point.source, point.exact),
  });
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

// A mark's count in words, singular and plural (a mark's name alone is review.{mark}).
const COUNTS = {
  inaccuracy: ["review.inaccuracy_n", "review.inaccuracies_n"],
  mistake: ["review.mistake_n", "review.mistakes_n"],
  blunder: ["review.blunder_n", "review.blunders_n"],
};

function summary() {
  // Every mark is counted, the zeros too ("0 blunders" is news).
  const words = Object.entries(review.marks).map(([label, count]) => t(COUNTS[label][count === 1 ? 0 : 1], { n: count }));
  $("review-status").textContent = t("review.marked", { marks: words.join(t("review.separator")) });
}

async function start() {
  $("review-status").textContent = t("review.reviewing");
  for (;;) {
    let answer;
    try {
      answer = await ask();
    } catch (err) {
      $("review-status").textContent = t("review.none", { reason: err.message });
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
    $("review-status").textContent = t("review.progress", { done: answer.done, total: answer.total });
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
