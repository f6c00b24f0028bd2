// FlipFour: drop a piece from your hand (pick its face in the tray under the board, then a
// square) or click a piece on the board and one of its targets. Four in a line wins.

import { CELL, GridBoard, MARGIN, makeFacePiece, setFace } from "./grid.js";
import { t } from "../i18n.js";
import { boardStyles } from "./styles.js";
import { bestEntry, describeTurns as turnsOf, el, label, onActivate, replayMoves } from "./svg.js";

await boardStyles("flipfour.css");

const OWNERS = ["white", "black"];
// The view's structured actions name faces; the tray labels them.
const FACES = ["rook", "bishop"];
const LETTERS = { rook: "R", bishop: "B" };
// The faces as the pieces draw them: the notation's R and B are letters no player sees.
const SYMBOLS = { rook: "+", bishop: "×" };

/** A structured move or action in the board's words: "+ drop c5", or "c3-e5" (its squares). */
export function moveText(move) {
  return move.kind === "drop" ? `${SYMBOLS[move.face]} drop ${move.to}` : move.text;
}

/** Turns for the move list, each move as drawn (see moveText). */
export function describeTurns(moves) {
  return turnsOf(moves.map((move) => ({ ...move, text: moveText(move) })));
}

const TRAY = 130;

/** The board turns round for the second player (ctx.seat === 1), so the page offers "Flip board". */
export const canFlip = true;

export function createBoard(host, ctx) {
  let grid = null;
  let view = null;
  let options = {};
  // What the player has picked: {square} of a board piece or {face} from the hand.
  let picked = null;

  function build() {
    grid = new GridBoard(host, {
      size: 5,
      flipped: ctx.seat === 1,
      below: TRAY,
      title: t("board.named", { game: "FlipFour" }),
      boardClass: "f4-board",
      onPick: pick,
      onBackground: miss,
    });
  }

  /**
   * A click that is no target lets go of what was picked. With a piece or a face picked and a
   * square of the board clicked that it cannot go to, a page that asks (`ctx.onMiss`, the
   * lesson page) gets that move as text so the engine can say why; the board judges nothing.
   */
  function miss(event) {
    const on = event.target.closest ? event.target.closest("[data-square]") : null;
    const square = on ? on.dataset.square : null;
    const was = picked;
    choose(null);
    if (!ctx.onMiss || !options.interactive || !was || !square || square === was.square) return;
    ctx.onMiss(was.face ? `${LETTERS[was.face]}@${square}` : `${was.square}-${square}`);
  }

  function pick(payload) {
    if (payload.action) {
      choose(null);
      ctx.onAction(payload.action);
      return;
    }
    const same = picked && payload.square === picked.square && payload.face === picked.face;
    choose(same ? null : payload);
  }

  function choose(next) {
    picked = next;
    drawTargets();
    drawTray();
  }

  // Structured actions: {text, kind: "drop", face, to} or {text, kind: "move", from, to}.
  const legal = () => view.legal_actions || [];

  function drawTargets() {
    grid.targets.clear();
    grid.mark(picked && picked.square ? [picked.square] : [], "selected");
    if (!options.interactive) return;
    const analysis = options.analysis;
    const entry = (text) => (analysis ? analysis.get(text) : null);
    if (picked) {
      for (const action of legal()) {
        const fits = picked.face ? action.kind === "drop" && action.face === picked.face : action.from === picked.square;
        if (fits) grid.target(action.to, { action: action.text }, { entry: entry(action.text), title: moveText(action) });
      }
    }
    const sources = new Map();
    for (const action of legal()) {
      if (!action.from) continue;
      if (!sources.has(action.from)) sources.set(action.from, []);
      sources.get(action.from).push(entry(action.text));
    }
    for (const [square, entries] of sources) {
      if (picked && square === picked.square) continue;
      grid.target(square, {}, { kind: "source", entry: analysis ? bestEntry(entries) : null, title: t("board.move_from", { square }) });
    }
  }

  // The tray: each side's pieces in hand, and for the mover the two faces to drop.
  function drawTray() {
    grid.tray.replaceChildren();
    const obs = view.observation.board;
    const side = 5 * CELL + 2 * MARGIN;
    obs.in_hand.forEach((count, player) => {
      const right = player === (ctx.seat === 1 ? 0 : 1);
      const x0 = right ? side - MARGIN - 4 * 34 : MARGIN;
      const hand = el("g", { class: "hand", "data-hand": player });
      hand.append(label(x0 + 68, 18, t("f4.in_hand", { player: view.players[player], count }), "tray-label"));
      for (let i = 0; i < 4; i += 1) {
        const disc = el("circle", { cx: x0 + 17 + i * 34, cy: 55, r: 14, class: `hand-disc piece-${OWNERS[player]} ${i < count ? "" : "used"}` });
        hand.append(disc);
      }
      grid.tray.append(hand);
    });
    if (!options.interactive) return;
    const drops = new Set(legal().filter((a) => a.kind === "drop").map((a) => a.face));
    const mover = OWNERS[view.observation.to_move];
    FACES.forEach((face, i) => {
      if (!drops.has(face)) return;
      const chosen = picked && picked.face === face;
      const button = el("g", {
        class: `drop-choice ${chosen ? "chosen" : ""}`,
        transform: `translate(${side / 2 - 92 + i * 96} 8) scale(0.88)`,
        role: "button",
        tabindex: 0,
        "data-drop": LETTERS[face],
        "aria-label": face === "rook" ? t("f4.drop_rook") : t("f4.drop_bishop"),
      });
      button.append(el("rect", { class: "drop-bg", x: -4, y: -4, width: 108, height: 134, rx: 14 }));
      const piece = makeFacePiece(mover);
      setFace(piece, face, mover);
      piece.classList.add("piece");
      button.append(piece, label(50, 114, `${SYMBOLS[face]} drop`, "drop-label"));
      onActivate(button, () => pick({ face }));
      grid.tray.append(button);
    });
  }

  return {
    update(next, opts) {
      if (!grid) build();
      view = next;
      options = opts;
      picked = null;
      replayMoves(grid, opts);
      const wanted = new Map(Object.entries(next.observation.board.pieces));
      grid.pieces.sync(
        wanted,
        (p) => makeFacePiece(OWNERS[p.owner]),
        (piece, p) => setFace(piece, p.face, OWNERS[p.owner]),
        Math.max(0, opts.fresh.length - 1),
      );
      const last = next.moves[next.moves.length - 1];
      grid.mark(last ? [last.from, last.to].filter(Boolean) : [], "last");
      grid.mark(next.observation.board.winning_line || [], "win");
      grid.mark([], "hint");
      drawTargets();
      drawTray();
    },
    hint(action) {
      grid.mark([action.from, action.to].filter(Boolean), "hint");
    },
  };
}
