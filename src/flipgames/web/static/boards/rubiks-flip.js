// Rubik's Flip: a turn is chosen in steps on the board: the opponent tile to flip (and, with
// flip=flap, the empty square it is turned over onto), then the colour in the tray and the
// square to place on. The steps only filter the view's structured `legal_actions`
// ({text, to, colour, flip: null or {from, to}}).

import { CELL, GridBoard, MARGIN } from "./grid.js";
import { t } from "../i18n.js";
import { boardStyles } from "./styles.js";
import { bestEntry, el, label, onActivate, replayMoves } from "./svg.js";

await boardStyles("rubiks-flip.css");

export { describeTurns } from "./svg.js";

export const COLOUR_NAMES = { R: "red", B: "blue", Y: "yellow", W: "white" };
const OTHER = { R: "B", B: "R", Y: "W", W: "Y" };

/**
 * A structured turn as the steps of choosing it: the square flipped (`flip`), where the tile
 * lands when that is another square (`to`, flip=flap only), the square placed on and the colour.
 */
export function turnSteps(action) {
  const { flip } = action;
  return {
    text: action.text,
    flip: flip ? flip.from : null,
    to: flip && flip.to !== flip.from ? flip.to : null,
    place: action.to,
    colour: action.colour,
  };
}

const TRAY = 150;

export function createBoard(host, ctx) {
  let grid = null;
  let view = null;
  let options = {};
  let flip = null; // chosen flip square
  let to = null; // chosen flap destination
  let colour = null; // chosen colour letter

  function build() {
    grid = new GridBoard(host, {
      size: 4,
      flipped: false,
      below: TRAY,
      title: t("board.named", { game: "Rubik's Flip" }),
      boardClass: "rf-board",
      onPick: pick,
      onBackground: () => reset(),
    });
  }

  const turns = () => (view.legal_actions || []).map(turnSteps);
  const flapping = () => turns().some((t) => t.to);
  const needsFlip = () => turns().some((t) => t.flip);
  const entry = (text) => (options.analysis ? options.analysis.get(text) : null);

  function reset() {
    flip = null;
    to = null;
    redraw();
  }

  function pick(payload) {
    if (payload.action) {
      const text = payload.action;
      reset();
      ctx.onAction(text);
    } else if (payload.stage === "flip") {
      flip = payload.square;
      to = null;
      redraw();
    } else if (payload.stage === "to") {
      to = payload.square;
      redraw();
    }
  }

  // Which step the player is on, and the turns still possible after the choices so far.
  function stage() {
    const open = turns().filter((t) => (!flip || t.flip === flip) && (!to || t.to === to));
    if (needsFlip() && !flip) return { step: "flip", open };
    if (flapping() && !to) return { step: "to", open };
    return { step: "place", open };
  }

  function redraw() {
    grid.targets.clear();
    grid.mark([flip, to].filter(Boolean), "selected");
    drawPreview();
    drawTray();
    if (!options.interactive) return;
    const { step, open } = stage();
    const groups = new Map();
    const key = step === "flip" ? "flip" : step === "to" ? "to" : "place";
    for (const t of open) {
      if (step === "place" && t.colour !== colour) continue;
      if (!groups.has(t[key])) groups.set(t[key], []);
      groups.get(t[key]).push(t);
    }
    for (const [square, group] of groups) {
      const best = options.analysis ? bestEntry(group.map((t) => entry(t.text))) : null;
      if (step === "place") {
        grid.target(square, { action: group[0].text }, { entry: best, title: group[0].text });
      } else {
        grid.target(square, { stage: step }, {
          kind: step === "flip" ? "source" : "move",
          entry: best,
          title: step === "flip" ? t("board.flip", { square }) : t("board.onto", { square }),
        });
      }
    }
  }

  // Show the chosen flip before the turn is sent: a ghost of the turned-over tile.
  function drawPreview() {
    for (const old of grid.marks.querySelectorAll(".preview")) old.remove();
    if (!flip) return;
    const tile = view.observation.board.squares[flip];
    if (!tile) return;
    const [x, y] = grid.xy(to || flip);
    const ghost = makeTile();
    ghost.classList.add("preview");
    ghost.setAttribute("transform", `translate(${x} ${y})`);
    setTile(ghost, { ...tile, colour: OTHER[tile.colour], locked: false });
    grid.marks.append(ghost);
  }

  function drawTray() {
    grid.tray.replaceChildren();
    const obs = view.observation.board;
    const side = 4 * CELL + 2 * MARGIN;
    obs.tiles_in_hand.forEach((count, player) => {
      const x = player === 0 ? MARGIN : side - MARGIN - 150;
      const [a, b] = obs.colours[player];
      const hand = el("g", { class: "hand", "data-hand": player });
      hand.append(label(x + 75, 18, `${view.players[player]}: ${count}`, "tray-label"));
      for (let i = 0; i < 8; i += 1) {
        const c = i % 2 === 0 ? a : b;
        hand.append(el("rect", { class: `mini-tile colour-${c} ${i < count ? "" : "used"}`, x: x + i * 19, y: 36, width: 16, height: 16, rx: 3 }));
      }
      grid.tray.append(hand);
    });
    if (!options.interactive) return;
    const mine = obs.colours[view.observation.to_move];
    if (!mine.includes(colour)) colour = mine[0];
    const { step } = stage();
    const prompt = {
      flip: "1. Flip a tile",
      to: "2. Where it lands",
      place: "Colour, then square",
    }[step];
    grid.tray.append(label(side / 2 - 64, 98, prompt, "tray-prompt"));
    mine.forEach((c, i) => {
      const button = el("g", {
        class: `colour-choice ${c === colour ? "chosen" : ""}`,
        transform: `translate(${side / 2 + 60 + i * 62} 68)`,
        role: "button",
        tabindex: 0,
        "data-colour": c,
        "aria-label": `place ${COLOUR_NAMES[c]} side up`,
      });
      button.append(
        el("rect", { class: "choice-bg", x: -4, y: -4, width: 60, height: 60, rx: 10 }),
        el("rect", { class: `tile-face colour-${c}`, x: 4, y: 4, width: 44, height: 44, rx: 7 }),
      );
      onActivate(button, () => {
        colour = c;
        redraw();
      });
      grid.tray.append(button);
    });
  }

  return {
    update(next, opts) {
      if (!grid) build();
      view = next;
      options = opts;
      flip = null;
      to = null;
      // A flip onto another square (flip=flap) carries the tile there.
      replayMoves(grid, opts, (move) => (move.flip && move.flip.to !== move.flip.from ? move.flip : null));
      const wanted = new Map(Object.entries(next.observation.board.squares).filter(([, tile]) => tile));
      grid.pieces.sync(wanted, makeTile, setTile, Math.max(0, opts.fresh.length - 1));
      const lastMove = next.moves[next.moves.length - 1];
      const last = lastMove ? turnSteps(lastMove) : null;
      grid.mark(last ? [last.flip, last.to, last.place].filter(Boolean) : [], "last");
      grid.mark(next.observation.board.winning_squares || [], "win");
      grid.mark([], "hint");
      redraw();
    },
    hint(action) {
      const t = turnSteps(action);
      grid.mark([t.flip, t.to, t.place].filter(Boolean), "hint");
    },
  };
}

function makeTile() {
  return el("g", {}, [
    el("g", { class: "spin" }, [
      el("rect", { class: "shadow", x: 12, y: 14, width: 80, height: 80, rx: 12 }),
      el("rect", { class: "tile-face", x: 10, y: 10, width: 80, height: 80, rx: 12 }),
      el("rect", { class: "tile-gloss", x: 18, y: 16, width: 64, height: 22, rx: 8 }),
      el("path", {
        class: "lock",
        d: "M66 70 h18 v14 h-18 Z M69 70 v-5 a6 6 0 0 1 12 0 v5",
      }),
    ]),
  ]);
}

/** Paint a tile's colour and lock; true when the colour changed (it was flipped). */
function setTile(tile, data) {
  const before = tile.dataset.colour;
  tile.dataset.colour = data.colour;
  tile.dataset.owner = data.owner;
  tile.classList.toggle("locked", Boolean(data.locked));
  tile.setAttribute("role", "img");
  tile.setAttribute("aria-label", `${COLOUR_NAMES[data.colour]} tile${data.locked ? ", locked" : ""}`);
  return before !== undefined && before !== data.colour;
}
