// A square board drawn in SVG: squares, coordinates and the layers every grid game uses
// (marks for the last move and hints, animated pieces, click targets). Also the two-faced
// rook/bishop piece shared by FlipFlop and FlipFour.
//
//   const grid = new GridBoard(host, { size: 5, flipped: false, onPick: (p) => ... });
//   grid.pieces.sync(wanted, makePiece, updatePiece);

import { PieceLayer, TargetLayer, coordinates, el, squareName, squareXY } from "./svg.js";
import { t } from "../i18n.js";

export const CELL = 100;
export const MARGIN = 34;

export class GridBoard {
  /**
   * `below` adds room under the board (for a tray of pieces in hand); `squareClass(square)`
   * names extra classes per square (goals, light/dark); `boardClass` is the board module's root
   * class, which its stylesheet's rules start from ("ff-board").
   */
  constructor(host, { size, flipped = false, onPick, onBackground, below = 0, squareClass, title, boardClass }) {
    this.size = size;
    this.flipped = flipped;
    const side = size * CELL + 2 * MARGIN;
    this.svg = el("svg", {
      class: `board-svg ${boardClass}`,
      viewBox: `0 0 ${side} ${side + below}`,
      // A labelled group, not an image: it holds the clickable (focusable) targets.
      role: "group",
      "aria-label": title || t("board.game"),
    });
    this.frame = el("rect", { class: "frame", x: 4, y: 4, width: side - 8, height: side - 8, rx: 18 });
    this.squares = el("g", { class: "squares" });
    for (let file = 0; file < size; file += 1) {
      for (let rank = 0; rank < size; rank += 1) {
        const square = squareName(file, rank);
        const [x, y] = this.xy(square);
        const shade = (file + rank) % 2 === 0 ? "dark" : "light";
        const cls = ["square", shade, squareClass ? squareClass(square) : ""].join(" ").trim();
        this.squares.append(el("rect", { class: cls, x, y, width: CELL, height: CELL, "data-square": square }));
      }
    }
    this.marks = el("g", { class: "marks" });
    this.decor = el("g", { class: "decor" });
    const pieceGroup = el("g", { class: "pieces" });
    this.targetGroup = el("g", { class: "targets" });
    this.tray = el("g", { class: "tray", transform: `translate(0 ${side})` });
    this.svg.append(
      this.frame,
      this.squares,
      coordinates(size, CELL, flipped, MARGIN),
      this.decor,
      this.marks,
      pieceGroup,
      this.targetGroup,
      this.tray,
    );
    this.pieces = new PieceLayer(pieceGroup, (square) => this.xy(square));
    this.targets = new TargetLayer(this.targetGroup, onPick);
    if (onBackground) this.svg.addEventListener("click", onBackground);
    host.replaceChildren(this.svg);
  }

  xy(square) {
    return squareXY(square, this.size, CELL, this.flipped, MARGIN);
  }

  /** Outline squares with a class ("last", "hint", "selected"); replaces that class's marks. */
  mark(squares, cls) {
    for (const old of this.marks.querySelectorAll(`.${cls}`)) old.remove();
    for (const square of squares) {
      const [x, y] = this.xy(square);
      this.marks.append(el("rect", { class: `mark ${cls}`, x: x + 3, y: y + 3, width: CELL - 6, height: CELL - 6, rx: 8 }));
    }
  }

  target(square, payload, options) {
    const [x, y] = this.xy(square);
    return this.targets.add(x, y, CELL, { square, ...payload }, options);
  }
}

/** Arms of a rook face (+) or a bishop face (x), with arrow tips showing how it moves. */
function faceArms(kind) {
  const group = el("g", { class: `face ${kind}` });
  const angles = kind === "rook" ? [0, 90, 180, 270] : [45, 135, 225, 315];
  for (const angle of angles) {
    group.append(el("g", { transform: `rotate(${angle} 50 50)` }, [
      el("rect", { class: "arm", x: 45, y: 22, width: 10, height: 28, rx: 3 }),
      el("path", { class: "tip", d: "M50 13 L60 26 L40 26 Z" }),
    ]));
  }
  group.append(el("circle", { class: "hub", cx: 50, cy: 50, r: 8 }));
  return group;
}

/** A round two-faced piece for `owner` ("white" | "black") with both faces drawn. */
export function makeFacePiece(owner) {
  return el("g", { class: `piece-${owner}` }, [
    el("g", { class: "spin" }, [
      el("circle", { class: "shadow", cx: 52, cy: 55, r: 38 }),
      el("circle", { class: "disc", cx: 50, cy: 50, r: 38 }),
      el("circle", { class: "rim", cx: 50, cy: 50, r: 31 }),
      faceArms("rook"),
      faceArms("bishop"),
    ]),
  ]);
}

/** Show `face` ("rook" | "bishop"); true when the piece turned over. */
export function setFace(piece, face, owner) {
  const before = piece.dataset.face;
  piece.dataset.face = face;
  piece.dataset.owner = owner;
  piece.setAttribute("role", "img");
  piece.setAttribute("aria-label", `${owner} ${face}`);
  return before !== undefined && before !== face;
}
