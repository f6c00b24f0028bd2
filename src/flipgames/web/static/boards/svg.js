// Shared pieces of every board: SVG building, square names, animated piece layers, targets
// and analysis colours. A board module exports `createBoard(host, ctx)` returning an object
// with `update(view, options)` and `hint(action)`; see boards/flipflop.js for the simplest one.

const NS = "http://www.w3.org/2000/svg";

/** Build an SVG element: el("circle", { r: 4, class: "dot" }, [children]). */
export function el(tag, attrs = {}, children = []) {
  const node = document.createElementNS(NS, tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value !== null && value !== undefined && value !== false) node.setAttribute(key, value);
  }
  for (const child of children) node.append(child);
  return node;
}

/** A text element, centred on (x, y). */
export function label(x, y, text, cls = "") {
  const node = el("text", { x, y, class: cls, "text-anchor": "middle", "dominant-baseline": "central" });
  node.textContent = text;
  return node;
}

export const FILES = "abcdefghijklmnopqrstuvwxyz";

/** A square's name from the view's board data ("c3") -> [2, 2] (file index, rank index). */
export function parseSquare(name) {
  return [FILES.indexOf(name[0]), Number(name.slice(1)) - 1];
}

export const squareName = (file, rank) => FILES[file] + (rank + 1);

/**
 * Pixel position of a square's top-left corner on a board drawn with rank 1 at the bottom,
 * or at the top when the board is seen from the second player's side (`flipped`).
 */
export function squareXY(square, size, cell, flipped, margin) {
  const [file, rank] = parseSquare(square);
  const col = flipped ? size - 1 - file : file;
  const row = flipped ? rank : size - 1 - rank;
  return [margin + col * cell, margin + row * cell];
}

/** File letters and rank numbers around a square grid. */
export function coordinates(size, cell, flipped, margin) {
  const group = el("g", { class: "coords" });
  for (let i = 0; i < size; i += 1) {
    const col = flipped ? size - 1 - i : i;
    const row = flipped ? i : size - 1 - i;
    group.append(label(margin + col * cell + cell / 2, margin + size * cell + margin / 2, FILES[i]));
    group.append(label(margin / 2, margin + row * cell + cell / 2, String(i + 1)));
  }
  return group;
}

/** How long one step of an animation chain waits for the previous one (ms); see app.css. */
export const STEP_MS = 420;

/**
 * Pieces keyed by square that glide when they move. Before `sync`, the board replays the new
 * actions with `move` so the element that stood on `from` is the one that slides to `to`;
 * `sync` then makes the layer match the observation exactly (creating, updating, removing),
 * so a wrong guess in `move` can only cost an animation, never a wrong picture.
 */
export class PieceLayer {
  constructor(group, position) {
    this.group = group;
    this.position = position;
    this.items = new Map();
  }

  move(from, to, step) {
    const piece = this.items.get(from);
    if (!piece) return;
    const victim = this.items.get(to);
    if (victim && victim !== piece) this.discard(victim, step);
    this.items.delete(from);
    this.items.set(to, piece);
    piece.style.setProperty("--delay", `${step * STEP_MS}ms`);
  }

  swap(a, b, step) {
    const pa = this.items.get(a);
    const pb = this.items.get(b);
    this.items.delete(a);
    this.items.delete(b);
    for (const [piece, square] of [[pa, b], [pb, a]]) {
      if (!piece) continue;
      this.items.set(square, piece);
      piece.style.setProperty("--delay", `${step * STEP_MS}ms`);
    }
  }

  discard(piece, step) {
    piece.style.setProperty("--delay", `${step * STEP_MS}ms`);
    piece.classList.add("leaving");
    piece.addEventListener("animationend", () => piece.remove(), { once: true });
    setTimeout(() => piece.remove(), (step + 2) * STEP_MS);
  }

  /**
   * Match `wanted` (square -> data). `create(data)` returns a new element; `update(element,
   * data)` refreshes it and returns true when the piece turned over (to play the flip).
   */
  sync(wanted, create, update, freshStep = 0) {
    for (const [square, piece] of this.items) {
      if (!wanted.has(square)) {
        this.items.delete(square);
        this.discard(piece, freshStep);
      }
    }
    for (const [square, data] of wanted) {
      let piece = this.items.get(square);
      const [x, y] = this.position(square);
      if (!piece) {
        piece = create(data, square);
        piece.classList.add("piece", "arriving");
        piece.style.setProperty("--delay", `${freshStep * STEP_MS}ms`);
        piece.style.transform = `translate(${x}px, ${y}px)`;
        piece.dataset.square = square;
        update(piece, data, square);
        this.group.append(piece);
        this.items.set(square, piece);
        continue;
      }
      piece.classList.remove("arriving");
      piece.style.transform = `translate(${x}px, ${y}px)`;
      piece.dataset.square = square;
      if (update(piece, data, square)) restartAnimation(piece, "flipping");
    }
  }
}

/**
 * Glide the pieces of the moves new since the last picture (`options.fresh`, structured moves
 * from the view) from their `from` square to their `to` square, or back for an undo
 * (`options.reverse`). `path(move)` gives {from, to} for a move that carries a piece, or null.
 */
export function replayMoves(grid, options, path = (move) => move) {
  const steps = options.reverse ? [...options.fresh].reverse() : options.fresh;
  steps.forEach((move, step) => {
    const way = path(move);
    if (!way || !way.from || !way.to) return;
    if (options.reverse) grid.pieces.move(way.to, way.from, 0);
    else grid.pieces.move(way.from, way.to, step);
  });
}

/** Re-run a CSS animation that is named by a class. */
export function restartAnimation(node, cls) {
  node.classList.remove(cls);
  // Reading layout makes the browser forget the finished animation before the class returns.
  void node.getBoundingClientRect();
  node.classList.add(cls);
}

/** "win" | "draw" | "loss" for an analysis entry (numbers: expected value, by sign). */
export function valueClass(entry) {
  if (!entry) return "";
  const v = entry.value;
  if (typeof v === "number") return v > 0 ? "win" : v < 0 ? "loss" : "draw";
  return v;
}

/** Short text for an analysis entry: "W 3" = wins in 3 plies, "D", "L 5". */
export function valueText(entry) {
  if (!entry) return "";
  const cls = valueClass(entry);
  const letter = { win: "W", draw: "D", loss: "L" }[cls] || "?";
  if (typeof entry.value === "number") return `${entry.value > 0 ? "+" : ""}${entry.value.toFixed(2)}`;
  return entry.remoteness === null || entry.remoteness === undefined ? letter : `${letter}${entry.remoteness}`;
}

const RANK = { win: 2, draw: 1, loss: 0 };

/** The best entry for the mover among several actions (for a piece with several moves). */
export function bestEntry(entries) {
  let best = null;
  for (const entry of entries) {
    if (!entry) continue;
    if (!best) {
      best = entry;
      continue;
    }
    const a = RANK[valueClass(entry)];
    const b = RANK[valueClass(best)];
    // Among wins the quickest, among losses the slowest is best.
    const better = a > b || (a === b && a === 2 && entry.remoteness < best.remoteness) ||
      (a === b && a === 0 && entry.remoteness > best.remoteness);
    if (better) best = entry;
  }
  return best;
}

/**
 * A layer of click targets. `add(x, y, w, h, action, kind)` puts a highlighted, clickable
 * square; its colour follows the analysis entry for `action` when the analysis is on.
 */
/**
 * Call `handler` when an SVG button is clicked or, having the focus, gets Enter or Space; the
 * event stops there so the board's background click does not also fire.
 */
export function onActivate(node, handler) {
  const activate = (event) => {
    event.stopPropagation();
    const board = node.ownerSVGElement;
    handler(event);
    // A step of a turn (a piece picked) redraws the targets and takes the focused one away:
    // the focus goes on to the first target of the next step instead of falling to the page.
    if (board && board.isConnected && !board.contains(document.activeElement)) {
      const next = board.querySelector(".targets .target:not(.source)") || board.querySelector(".targets .target");
      if (next) next.focus();
    }
  };
  node.addEventListener("click", activate);
  node.addEventListener("keydown", (event) => {
    if (event.key === "Enter" || event.key === " ") activate(event);
  });
}

export class TargetLayer {
  constructor(group, onPick) {
    this.group = group;
    this.onPick = onPick;
  }

  clear() {
    this.group.replaceChildren();
  }

  add(x, y, size, payload, { kind = "move", entry = null, title = "" } = {}) {
    const target = el("g", {
      class: `target ${kind} ${valueClass(entry)}`.trim(),
      transform: `translate(${x} ${y})`,
      "data-target": payload.square || "",
      role: "button",
      tabindex: 0,
      "aria-label": title || payload.square || "target",
    });
    target.append(el("rect", { class: "hit", width: size, height: size, rx: size * 0.08 }));
    if (kind === "capture") {
      target.append(el("circle", { class: "ring", cx: size / 2, cy: size / 2, r: size * 0.44 }));
    } else if (!kind.startsWith("source")) {
      target.append(el("circle", { class: "dot", cx: size / 2, cy: size / 2, r: size * 0.13 }));
    }
    if (entry) {
      // Right-aligned in the square's top corner, so a long tag ("W15", "+0.25") stays inside
      // its square and the board.
      const tag = el("text", { x: size * 0.93, y: size * 0.22, class: "value-tag", "text-anchor": "end" });
      tag.textContent = valueText(entry);
      target.append(tag);
    }
    if (title) {
      const tip = el("title");
      tip.textContent = title;
      target.append(tip);
    }
    onActivate(target, () => this.onPick(payload));
    this.group.append(target);
    return target;
  }
}

/**
 * The view's structured moves as turns for the move list: [{player, parts: [{text, chance}]}].
 * A chance outcome joins the turn it follows (a flip's shape, a gear's spin); one with no turn
 * before it (Checkered Flag's start spin) is a turn of its own, with no player.
 */
export function describeTurns(moves) {
  const turns = [];
  for (const move of moves) {
    const last = turns[turns.length - 1];
    if (move.chance && last && last.player !== null) last.parts.push({ text: move.text, chance: true });
    else turns.push({ player: move.by === 0 || move.by === 1 ? move.by : null, parts: [{ text: move.text, chance: move.chance }] });
  }
  return turns;
}
