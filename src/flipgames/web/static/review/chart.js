// The review's value chart: an inline SVG drawn here (no chart library), one point per
// position, the first player's expected score from 0 (bottom) to 1 (top), marked moves
// coloured, the position on the board ringed. Points are buttons: a click picks that ply.

import { t } from "../i18n.js";

const NS = "http://www.w3.org/2000/svg";
const WIDTH = 600;
const HEIGHT = 160;
const PAD = 12;

function node(name, attributes) {
  const element = document.createElementNS(NS, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
  return element;
}

/**
 * Draw `review` (GET /api/matches/{id}/review's `review`) into `host`; `onPick(ply)` hears
 * clicks on points. Returns `{ select(ply) }` to ring the point shown on the board.
 */
export function drawChart(host, review, onPick) {
  const points = review.points;
  const last = Math.max(1, points.length - 1);
  const x = (ply) => PAD + ((WIDTH - 2 * PAD) * ply) / last;
  const y = (value) => PAD + (HEIGHT - 2 * PAD) * (1 - value);
  const svg = node("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: "review-chart", role: "group" });
  svg.setAttribute("aria-label", t("review.chart", { player: review.players[0] }));
  svg.append(node("rect", { x: PAD, y: PAD, width: WIDTH - 2 * PAD, height: HEIGHT - 2 * PAD, class: "chart-area" }));
  svg.append(node("line", { x1: PAD, x2: WIDTH - PAD, y1: y(0.5), y2: y(0.5), class: "chart-even" }));
  // The line breaks where a position has no value.
  let d = "";
  let open = false;
  for (const point of points) {
    if (point.value === null) {
      open = false;
      continue;
    }
    d += `${open ? "L" : "M"}${x(point.ply).toFixed(1)} ${y(point.value).toFixed(1)}`;
    open = true;
  }
  svg.append(node("path", { d, class: "chart-line" }));
  const ring = node("circle", { r: 7, class: "chart-ring", cx: x(0), cy: y(0.5) });
  svg.append(ring);
  const dots = new Map();
  for (const point of points) {
    if (point.value === null) continue;
    const dot = node("circle", {
      cx: x(point.ply), cy: y(point.value), r: point.mark ? 5 : 3.5,
      class: `chart-point ${point.mark || "plain"}`, tabindex: "0", role: "button",
    });
    dot.dataset.ply = String(point.ply);
    const title = node("title", {});
    const where = point.action ? t("replay.after", { move: point.action }) : t("review.chart_start");
    const words = { ply: point.ply, where, player: review.players[0], percent: Math.round(100 * point.value) };
    title.textContent = point.mark
      ? t("review.chart_point_marked", { ...words, mark: t(`review.${point.mark}`) })
      : t("review.chart_point", words);
    dot.append(title);
    dot.setAttribute("aria-label", title.textContent);
    dot.addEventListener("click", () => onPick(point.ply));
    dot.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        onPick(point.ply);
      }
    });
    dots.set(point.ply, dot);
    svg.append(dot);
  }
  host.replaceChildren(svg);
  return {
    select(ply) {
      const point = points[ply];
      const shown = point && point.value !== null;
      ring.setAttribute("visibility", shown ? "visible" : "hidden");
      if (shown) {
        ring.setAttribute("cx", x(ply));
        ring.setAttribute("cy", y(point.value));
      }
    },
  };
}
