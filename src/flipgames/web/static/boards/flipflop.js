// FlipFlop (5x5 and 3x3): click one of your pieces, then one of its highlighted targets.
// Legal moves come from the view's `legal` list ("a1-a2", "b1xb3"); nothing is computed here.

import { GridBoard, makeFacePiece, setFace } from "./grid.js";
import { alternatingTurns, bestEntry, el, replayMoves } from "./svg.js";

const MOVE = /^([a-z][0-9]+)([-x])([a-z][0-9]+)$/;

/** Split "b1xb3" into {from, to, capture}; null for anything else. */
export function parseMove(text) {
  const match = MOVE.exec(text);
  return match ? { from: match[1], to: match[3], capture: match[2] === "x" } : null;
}

export const describeTurns = alternatingTurns;

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
      title: `${obs.size}x${obs.size} FlipFlop board`,
      squareClass: (sq) => (sq === goals.White ? "goal goal-white" : sq === goals.Black ? "goal goal-black" : ""),
      onPick: pick,
      onBackground: () => select(null),
    });
    for (const [owner, square] of Object.entries(goals)) grid.decor.append(goalBadge(grid, square, owner));
  }

  function movesFrom(square) {
    return (view.legal || []).map(parseMove).filter((m) => m && m.from === square);
  }

  function pick(payload) {
    if (payload.action) {
      select(null);
      ctx.onAction(payload.action);
    } else {
      select(payload.square === selected ? null : payload.square);
    }
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
        const text = `${move.from}${move.capture ? "x" : "-"}${move.to}`;
        grid.target(move.to, { action: text }, {
          kind: move.capture ? "capture" : "move",
          entry: analysis ? analysis.get(text) : null,
          title: text,
        });
      }
    }
    const sources = new Map();
    for (const move of (view.legal || []).map(parseMove)) {
      if (!move) continue;
      if (!sources.has(move.from)) sources.set(move.from, []);
      sources.get(move.from).push(analysis ? analysis.get(`${move.from}${move.capture ? "x" : "-"}${move.to}`) : null);
    }
    for (const [square, entries] of sources) {
      if (square === selected) continue;
      grid.target(square, {}, { kind: "source", entry: analysis ? bestEntry(entries) : null, title: `move from ${square}` });
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
      replayMoves(grid, opts, parseMove);
      const wanted = new Map(Object.entries(obs.pieces));
      grid.pieces.sync(
        wanted,
        (p) => makeFacePiece(p.colour.toLowerCase()),
        (piece, p) => setFace(piece, p.face, p.colour.toLowerCase()),
        Math.max(0, opts.fresh.length - 1),
      );
      const last = next.last ? parseMove(next.last.action) : null;
      grid.mark(last ? [last.from, last.to] : [], "last");
      // A goal with an enemy piece on it is a check (at checkmate nobody is "to move").
      const attacked = Object.entries(obs.goals)
        .filter(([colour, square]) => obs.pieces[square] && obs.pieces[square].colour !== colour)
        .map(([, square]) => square);
      grid.mark(attacked, "check");
      grid.mark([], "hint");
      drawTargets();
    },
    hint(action) {
      const move = parseMove(action);
      if (move) grid.mark([move.from, move.to], "hint");
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
