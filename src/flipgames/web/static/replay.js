// The replay page (/replay/{id}): a finished match step by step, with buttons, a slider,
// the arrow keys, autoplay, and the move list to jump anywhere.

import { api, matchIdFromPath } from "./api.js";
import {
  endingDetail, engineStatus, loadBoard, recordFileName, renderMoves, renderPlayers, resultTitle, statusLine,
  toast,
} from "./common.js";
import { t } from "./i18n.js";

const id = matchIdFromPath();
const $ = (selector) => document.getElementById(selector);

let frames = [];
let index = 0;
let shown = null;
let board = null;
let boardModule = null;
let timer = null;
let match = null; // the match as it ended (its result and, if any, its ending outside the rules)

const icon = (d) => `<svg class="icon" viewBox="0 0 24 24" aria-hidden="true"><path d="${d}"/></svg>`;
const PLAY = icon("M7 5l12 7-12 7z");
const PAUSE = icon("M8 5v14M16 5v14");

function go(to) {
  index = Math.max(0, Math.min(frames.length - 1, to));
  const frame = frames[index];
  const before = shown ? shown.moves : null;
  const after = frame.moves;
  const forward = before && after.length >= before.length;
  const fresh = before ? (forward ? after.slice(before.length) : before.slice(after.length)) : [];
  board.update(frame, { interactive: false, analysis: null, fresh, reverse: Boolean(before) && !forward });
  shown = frame;
  $("slider").value = index;
  $("step-label").textContent = `${index} / ${frames.length - 1}`;
  $("prev").disabled = $("first").disabled = index === 0;
  $("next").disabled = $("last").disabled = index === frames.length - 1;
  const last = frame.last ? t("replay.after", { move: frame.last.action }) : t("replay.start");
  // The last position of a match resigned, agreed drawn or lost on time is still in play for
  // the engine ("White to move"): there the match's own ending is what happened.
  const ended = index === frames.length - 1 && match.ending;
  $("status-text").textContent = [last, ended ? statusLine(match) : engineStatus(frame)].filter(Boolean).join(" · ");
  $("turn-dot").className = `turn-dot p${frame.current_player}`;
  renderPlayers($("players"), frame);
  const final = frames[frames.length - 1];
  renderMoves($("moves"), boardModule.describeTurns(final.moves), {
    players: final.players,
    current: frame.history.length,
    onPick: (count) => go(frames.findIndex((f) => f.history.length === count)),
  });
  // The game review (static/review/replay-review.js) follows the position shown.
  document.dispatchEvent(new CustomEvent("replay:step", { detail: { index } }));
}

function play() {
  if (timer) {
    clearInterval(timer);
    timer = null;
    $("play").innerHTML = PLAY;
    $("play").setAttribute("aria-label", t("replay.play"));
    return;
  }
  if (index === frames.length - 1) go(0);
  $("play").innerHTML = PAUSE;
  $("play").setAttribute("aria-label", t("replay.pause"));
  timer = setInterval(() => {
    if (index >= frames.length - 1) play();
    else go(index + 1);
  }, 900);
}

/**
 * The replay endpoint sends bare snapshots ({ply, action, by, observation, ...}); give each
 * the match's fixed fields and the history so far (the finished match's structured moves up
 * to the snapshot's ply), so boards draw it like any view.
 */
function asViews(match, snapshots) {
  return snapshots.map((frame) => {
    const last = frame.action ? { action: frame.action, by: frame.by } : null;
    const moves = match.moves.slice(0, frame.ply);
    const history = moves.map((move) => move.text);
    return { ...match, ...frame, mode: "replay", seat: null, seats: [], legal: [], legal_actions: [], history, moves, last };
  });
}

async function start() {
  try {
    let data;
    [match, data] = await Promise.all([api.view(id), api.replay(id)]);
    frames = asViews(match, data.frames);
  } catch (err) {
    $("game-title").textContent = t("replay.not_available");
    $("status-text").textContent = err.message;
    return;
  }
  const final = frames[frames.length - 1];
  document.title = `${t("replay.page_title", { game: final.title })} · flipgames arcade`;
  $("game-title").textContent = t("replay.heading", { game: final.title });
  $("rules-link").href = `/rules/${encodeURIComponent(final.game)}`;
  // The result is the match's: the last frame is only the engine's position, which a
  // resignation or an agreed draw leaves in play.
  $("result-title").textContent = resultTitle(match);
  $("result-detail").textContent = endingDetail(match);
  $("record-link").href = api.recordUrl(id);
  $("record-link").download = recordFileName(match.game);
  document.body.dataset.game = final.game;
  boardModule = await loadBoard(final.board);
  board = boardModule.createBoard($("board"), { seat: null, onAction: () => toast(t("replay.is_replay")) });
  $("slider").max = frames.length - 1;
  go(0);
}

$("first").addEventListener("click", () => go(0));
// The review's chart asks for a position by its index (its ply).
document.addEventListener("replay:go", (event) => {
  if (frames.length) go(event.detail.index);
});
$("prev").addEventListener("click", () => go(index - 1));
$("next").addEventListener("click", () => go(index + 1));
$("last").addEventListener("click", () => go(frames.length - 1));
$("play").addEventListener("click", play);
$("slider").addEventListener("input", (event) => go(Number(event.target.value)));
document.addEventListener("keydown", (event) => {
  if (event.target instanceof HTMLInputElement && event.target.type !== "range") return;
  if (event.key === "ArrowLeft") go(index - 1);
  else if (event.key === "ArrowRight") go(index + 1);
  else if (event.key === "Home") go(0);
  else if (event.key === "End") go(frames.length - 1);
  else return;
  event.preventDefault();
});

start();
