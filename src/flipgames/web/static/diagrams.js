// The rules page's diagrams: each rule's key position, drawn by the game's own board module
// from the game's lesson (GET /api/lessons/{game}), with the move that shows the rule marked,
// and the way to the lesson ("Learn to play"). Pictures only: nothing here is clickable but
// the link.

import { api } from "./api.js";
import { loadBoard } from "./common.js";
import { t } from "./i18n.js";

/** A figure for one lesson step: the board at its position, the solution marked. */
function figure(module, step) {
  const node = document.createElement("figure");
  node.className = "rule-diagram";
  const host = document.createElement("div");
  host.className = "board-host";
  const caption = document.createElement("figcaption");
  const title = document.createElement("b");
  title.textContent = step.title;
  const goal = document.createElement("span");
  goal.textContent = `${step.goal} ${t("rules.picture_move", { move: step.solution.text })}`;
  caption.append(title, goal);
  node.append(host, caption);
  const board = module.createBoard(host, { seat: step.view.seat, onAction: () => {}, announce: () => {} });
  board.update(step.view, { interactive: false, analysis: null, fresh: [], reverse: false });
  if (board.hint) board.hint(step.solution);
  // A picture, not a control: one image with the step's words as its name.
  for (const svg of host.querySelectorAll("svg.board-svg")) {
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", `${step.title}: ${step.goal}`);
  }
  for (const focusable of host.querySelectorAll("[tabindex]")) focusable.setAttribute("tabindex", "-1");
  return node;
}

/**
 * Put `game`'s lesson diagrams after the rules page's `header`, and a "Learn to play" link in
 * it; a game without a lesson gets neither.
 */
export async function showDiagrams(header, game) {
  let lesson;
  try {
    lesson = await api.lesson(game);
  } catch {
    return;
  }
  const link = document.createElement("a");
  link.className = "button";
  link.href = `/learn/${encodeURIComponent(game)}`;
  link.textContent = t("rules.learn", { game: lesson.title });
  header.querySelector(".button")?.after(" ", link);
  const section = document.createElement("section");
  section.className = "rule-diagram-section";
  section.setAttribute("aria-label", t("rules.pictures"));
  const heading = document.createElement("h3");
  heading.textContent = t("rules.pictures");
  const grid = document.createElement("div");
  grid.className = "rule-diagrams";
  section.append(heading, grid);
  header.after(section);
  const module = await loadBoard(lesson.steps[0].view.board);
  for (const step of lesson.steps) grid.append(figure(module, step));
}
