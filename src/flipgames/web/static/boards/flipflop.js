// FlipFlop (5x5 and 3x3): click one of your pieces, then one of its highlighted targets.
// Legal moves are the view's structured `legal_actions` ({text, kind, from, to}); nothing is
// computed or parsed here.

import { GridBoard, makeFacePiece, setFace } from "./grid.js";
import { t } from "../i18n.js";
import { boardStyles } from "./styles.js";
import { bestEntry, el, replayMoves } from "./svg.js";

await boardStyles("flipflop.css");

export { describeTurns } from "./svg.js";

/** The board turns round for the second player (ctx.seat === 1), so the page offers "Flip board". */
export const canFlip = true;

export function createBoard(host, ctx) {
  let grid = null;
  let view = null;
  let selected = null;
  let options = {};

  function build(obs) {
    const goals = obs.goals;
    grid = new GridBoard(host, {
      size: obs.size,
      flipped: ctx.seat === 1,
      title: t("board.named", { game: `${obs.size}x${obs.size} FlipFlop` }),
      boardClass: "ff-board",
      squareClass: (sq) => (sq === goals.White ? "goal goal-white" : sq === goals.Black ? "goal goal-black" : ""),
      onPick: pick,
      onBackground: miss,
    });
    for (const [owner, square] of Object.entries(goals)) grid.decor.append(goalBadge(grid, square, owner));
  }

  const legal = () => view.legal_actions || [];
  const movesFrom = (square) => legal().filter((m) => m.from === square);

  function pick(payload) {
    if (payload.action) {
      select(null);
      ctx.onAction(payload.action);
    } else {
      select(payload.square === selected ? null : payload.square);
    }
  }

  /**
   * A click that is no target: it lets go of the picked piece. With a piece picked on a
   * square it cannot move to, a page that asks (`ctx.onMiss`, the lesson page) gets that move
   * as text so the engine can say why it is not allowed; the board itself judges nothing.
   */
  function miss(event) {
    const on = event.target.closest ? event.target.closest("[data-square]") : null;
    const square = on ? on.dataset.square : null;
    const from = selected;
    select(null);
    if (ctx.onMiss && options.interactive && from && square && square !== from) ctx.onMiss(`${from}-${square}`);
  }

  function select(square) {
    selected = square;
    drawTargets();
  }

  function drawTargets() {
    grid.targets.clear();
    grid.mark(selected ? [selected] : [], "selected");
    if (!options.interactive) return;
    const analysis = options.analysis;
    if (selected) {
      for (const move of movesFrom(selected)) {
        grid.target(move.to, { action: move.text }, {
          kind: move.kind === "capture" ? "capture" : "move",
          entry: analysis ? analysis.get(move.text) : null,
          title: move.text,
        });
      }
    }
    const sources = new Map();
    for (const move of legal()) {
      if (!sources.has(move.from)) sources.set(move.from, []);
      sources.get(move.from).push(analysis ? analysis.get(move.text) : null);
    }
    for (const [square, entries] of sources) {
      if (square === selected) continue;
      grid.target(square, {}, { kind: "source", entry: analysis ? bestEntry(entries) : null, title: t("board.move_from", { square }) });
    }
  }

  return {
    update(next, opts) {
      const obs = next.observation.board;
      if (!grid || grid.size !== obs.size) build(obs);
      view = next;
      options = opts;
      if (selected && movesFrom(selected).length === 0) selected = null;
      // Replay new moves on the piece layer so each piece glides from where it stood.
      replayMoves(grid, opts);
      const wanted = new Map(Object.entries(obs.pieces));
      grid.pieces.sync(
        wanted,
        (p) => makeFacePiece(p.colour.toLowerCase()),
        (piece, p) => setFace(piece, p.face, p.colour.toLowerCase()),
        Math.max(0, opts.fresh.length - 1),
      );
      const last = next.moves[next.moves.length - 1];
      grid.mark(last ? [last.from, last.to] : [], "last");
      // A goal with an enemy piece on it is a check (at checkmate nobody is "to move").
      const attacked = Object.entries(obs.goals)
        .filter(([colour, square]) => obs.pieces[square] && obs.pieces[square].colour !== colour)
        .map(([, square]) => square);
      grid.mark(attacked, "check");
      grid.mark([], "hint");
      drawTargets();
    },
    hint(move) {
      grid.mark([move.from, move.to], "hint");
    },
  };
}

function goalBadge(grid, square, owner) {
  const [x, y] = grid.xy(square);
  const badge = el("g", { class: `goal-badge goal-${owner.toLowerCase()}`, transform: `translate(${x} ${y})` }, [
    el("rect", { class: "goal-frame", x: 5, y: 5, width: 90, height: 90, rx: 8 }),
    el("path", { class: "pole", d: "M10 34 V8" }),
    el("path", { class: "flag", d: "M10 8 L26 13 L10 18 Z" }),
  ]);
  const title = el("title");
  title.textContent = `${owner}'s goal`;
  badge.append(title);
  return badge;
}
