// Flip Switch: click a face-down tile to flip it (the server draws its shape at that moment,
// so no page ever knows it early), or click a face-up tile and then a highlighted neighbour
// to switch the two.

import { CELL, GridBoard, MARGIN } from "./grid.js";
import { describeTurns as turnsOf, el, label, parseSquare, valueClass } from "./svg.js";
import { cap } from "../common.js";
import { t } from "../i18n.js";
import { boardStyles } from "./styles.js";

await boardStyles("flip-switch.css");

/**
 * Turns for the move list (a flip's revealed shape is a chance move: it joins the flip's
 * turn). Once a match has reached its second round, each round's first turn is headed
 * "Round N": the view's moves carry the round they were played in.
 */
export function describeTurns(moves) {
  const rounds = [];
  for (const move of moves) {
    const last = rounds[rounds.length - 1];
    if (last && last.round === move.round) last.moves.push(move);
    else rounds.push({ round: move.round, moves: [move] });
  }
  if (rounds.length < 2) return turnsOf(moves);
  return rounds.flatMap(({ round, moves: played }) => {
    const turns = turnsOf(played);
    turns[0].heading = t("fs.round", { n: round });
    return turns;
  });
}

const STAR = (() => {
  const points = [];
  for (let i = 0; i < 10; i += 1) {
    const r = i % 2 === 0 ? 30 : 13;
    const a = (Math.PI / 5) * i - Math.PI / 2;
    points.push(`${(50 + r * Math.cos(a)).toFixed(1)},${(53 + r * Math.sin(a)).toFixed(1)}`);
  }
  return points.join(" ");
})();

/** One SVG outline per shape the engine can use, drawn in a 100x100 box. */
export const SHAPES = {
  heart: () => el("path", { d: "M50 78 C22 58 16 42 26 30 C35 20 47 24 50 34 C53 24 65 20 74 30 C84 42 78 58 50 78 Z" }),
  square: () => el("rect", { x: 27, y: 27, width: 46, height: 46, rx: 4 }),
  star: () => el("polygon", { points: STAR }),
  circle: () => el("circle", { cx: 50, cy: 50, r: 24 }),
  triangle: () => el("path", { d: "M50 24 L77 73 L23 73 Z" }),
  diamond: () => el("path", { d: "M50 21 L77 50 L50 79 L23 50 Z" }),
  cross: () => el("path", { d: "M42 24 h16 v18 h18 v16 h-18 v18 h-16 v-18 h-18 v-16 h18 Z" }),
  moon: () => el("path", { d: "M58 23 A28 28 0 1 0 58 77 A22 22 0 1 1 58 23 Z" }),
};

const playerName = (view, player) => cap(view.players[player] || `player ${player + 1}`);

/** "Player 1 scored heart: a1 b2 c3", saying so when a later switch broke the line up. */
function scoredText(view, line) {
  const broken = line.standing ? "" : " (broken up later)";
  return `${playerName(view, line.player)} scored ${line.shape}: ${line.squares.join(" ")}${broken}`;
}

/** Whether a scoring line's tiles still show its shape on `grid` (rows of shape names). */
function standing(line, grid) {
  return line.squares.every((square) => {
    const [file, rank] = parseSquare(square);
    return grid[rank][file] === line.shape;
  });
}

/**
 * The result card: who scored which shape with which line; in a match of several rounds,
 * per round how it ended, a small picture of the board it ended on with its scoring lines,
 * and its lines in words.
 */
export function resultLines(view) {
  const obs = view.observation.board;
  if (obs.rounds < 2) {
    return (obs.scoring || []).map((line) => scoredText(view, { ...line, standing: standing(line, obs.grid) }));
  }
  return (obs.rounds_played || []).flatMap((played) => {
    const ending = roundEnding(view, played);
    const summary = document.createElement("div");
    summary.className = "fs-round";
    summary.dataset.round = played.round;
    const words = document.createElement("span");
    words.textContent = ending;
    summary.append(words, miniBoard(played, `the board at the end of round ${played.round}`));
    return [summary, ...played.scoring.map((line) => scoredText(view, line))];
  });
}

/** "Round 1: Player 1 won with heart and star", "Round 2 drawn: ...". */
function roundEnding(view, played) {
  return played.winner === null
    ? `Round ${played.round} ${played.how}`
    : `Round ${played.round}: ${playerName(view, played.winner)} ${played.how}`;
}

/** A round's final grid, small, with the lines that scored in it and still stand there. */
function miniBoard(played, title) {
  const size = played.grid.length;
  const svg = el("svg", { class: "fs-mini", viewBox: `0 0 ${size * 20} ${size * 20}`, role: "img", "aria-label": title });
  played.grid.forEach((row, rank) => row.forEach((shape, file) => {
    const y = (size - 1 - rank) * 20;
    svg.append(el("rect", { class: `cell ${shape ? "" : "face-down"}`.trim(), x: file * 20 + 1, y: y + 1, width: 18, height: 18, rx: 3 }));
    if (shape) svg.append(el("g", { class: `shape shape-${shape}`, transform: `translate(${file * 20} ${y}) scale(0.2)` }, [SHAPES[shape]()]));
  }));
  for (const line of played.scoring.filter((l) => l.standing)) {
    const ends = [line.squares[0], line.squares[line.squares.length - 1]].map((square) => {
      const [file, rank] = parseSquare(square);
      return [file * 20 + 10, (size - 1 - rank) * 20 + 10];
    });
    svg.append(el("line", {
      class: `scoring-line p${line.player}`,
      x1: ends[0][0], y1: ends[0][1], x2: ends[1][0], y2: ends[1][1],
      "data-squares": line.squares.join(" "),
    }));
  }
  return svg;
}

const TRAY = 140;

export function createBoard(host, ctx) {
  let grid = null;
  let view = null;
  let options = {};
  let selected = null;

  let lines = null; // the scoring lines, drawn over the tiles
  let roundsSeen = null; // rounds finished in the last picture, to say when one ends

  function build(size) {
    grid = new GridBoard(host, {
      size,
      flipped: false,
      below: TRAY,
      title: t("board.named", { game: "Flip Switch" }),
      boardClass: "fs-board",
      onPick: pick,
      onBackground: () => select(null),
    });
    lines = el("g", { class: "scoring-lines" });
    grid.svg.insertBefore(lines, grid.targetGroup);
  }

  // A line that scored is drawn solid while its tiles still show its shape; one a later
  // switch broke up is only a dashed trace, so no solid line ever crosses other shapes.
  function drawScoring() {
    lines.replaceChildren();
    const obs = view.observation.board;
    for (const line of obs.scoring || []) {
      const whole = standing(line, obs.grid);
      const ends = [line.squares[0], line.squares[line.squares.length - 1]].map((square) => {
        const [x, y] = grid.xy(square);
        return [x + CELL / 2, y + CELL / 2];
      });
      const stroke = el("line", {
        class: `scoring-line p${line.player} ${whole ? "" : "broken"}`.trim(),
        x1: ends[0][0], y1: ends[0][1], x2: ends[1][0], y2: ends[1][1],
        "data-squares": line.squares.join(" "),
      });
      const tip = el("title");
      tip.textContent = scoredText(view, { ...line, standing: whole });
      stroke.append(tip);
      lines.append(stroke);
    }
  }

  // Structured actions: {text, kind: "flip", square}, {kind: "switch", from, to}, {kind: "pass"}.
  const legal = () => view.legal_actions || [];
  const ofKind = (kind) => legal().filter((a) => a.kind === kind);
  const entry = (text) => (options.analysis ? options.analysis.get(text) : null);

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
    for (const { text, square } of ofKind("flip")) {
      grid.target(square, { action: text }, { kind: "source flip", entry: entry(text), title: t("board.flip", { square }) });
    }
    const starts = new Set();
    const partners = new Set();
    for (const { text, from: a, to: b } of ofKind("switch")) {
      if (selected === a || selected === b) {
        const other = selected === a ? b : a;
        partners.add(other);
        grid.target(other, { action: text }, { kind: "move", entry: entry(text), title: t("board.switch", { move: text }) });
      }
      starts.add(a);
      starts.add(b);
    }
    // A neighbour that completes a switch is only that: drawing its own "switch from" target
    // over it would make the click select it instead of switching.
    for (const square of starts) {
      if (square !== selected && !partners.has(square)) {
        grid.target(square, {}, { kind: "source", title: t("board.switch_from", { square }) });
      }
    }
  }

  function drawTray() {
    grid.tray.replaceChildren();
    const obs = view.observation.board;
    const side = obs.size * CELL + 2 * MARGIN;
    [0, 1].forEach((player) => {
      const x = player === 0 ? MARGIN : side / 2 + 10;
      const box = el("g", { class: `credits ${view.observation.to_move === player ? "to-move" : ""}`, "data-credits": player });
      // The name over the player's credits, the rounds won under them: on one line the two
      // players' labels ran into each other.
      box.append(label(x + 100, 14, playerName(view, player), "tray-label"));
      if (obs.rounds > 1) {
        const won = obs.round_wins[player];
        box.append(label(x + 100, 86, won === 1 ? t("fs.one_round_won") : t("fs.rounds_won", { n: won }), "tray-note rounds-won"));
      }
      for (let i = 0; i < obs.target; i += 1) {
        const shape = obs.credited[player][i];
        const slot = el("g", { transform: `translate(${x + 100 - obs.target * 24 + i * 48} 26) scale(0.46)` }, [
          el("rect", { class: "credit-slot", x: 4, y: 4, width: 92, height: 92, rx: 14 }),
        ]);
        if (shape) slot.append(el("g", { class: `shape shape-${shape}` }, [SHAPES[shape]()]));
        box.append(slot);
      }
      grid.tray.append(box);
    });
    const hidden = Object.entries(obs.unrevealed).filter(([, n]) => n > 0).map(([s, n]) => `${n} ${s}`);
    const tiles = hidden.length ? t("fs.face_down", { tiles: hidden.join(", ") }) : t("fs.all_face_up");
    const round = obs.rounds > 1 ? `${t("fs.round_of", { n: obs.round, of: obs.rounds })} · ` : "";
    grid.tray.append(label(side / 2, 112, `${round}${tiles}`, "tray-note"));
    const pass = ofKind("pass")[0];
    if (options.interactive && pass) {
      const button = el("g", { class: `pass-choice ${valueClass(entry(pass.text))}`, role: "button", tabindex: 0, "data-action": pass.text }, [
        el("rect", { x: side / 2 - 40, y: 118, width: 80, height: 20, rx: 10 }),
        label(side / 2, 128, t("fs.pass"), "drop-label"),
      ]);
      button.addEventListener("click", (event) => {
        event.stopPropagation();
        ctx.onAction(pass.text);
      });
      grid.tray.append(button);
    }
  }

  return {
    update(next, opts) {
      const obs = next.observation.board;
      if (!grid || grid.size !== obs.size) build(obs.size);
      view = next;
      options = opts;
      // The action that ends a round deals the next one's face-down grid at once: say how
      // the round ended (not when going back, in a replay or a look back).
      const played = obs.rounds_played || [];
      const ended = roundsSeen !== null && played.length > roundsSeen && !opts.reverse;
      if (ended && obs.rounds > 1 && ctx.announce) {
        const coming = played.length < obs.rounds ? ` · ${t("fs.round_begins", { n: played.length + 1 })}` : "";
        ctx.announce(`${roundEnding(view, played[played.length - 1])}${coming}`);
      }
      roundsSeen = played.length;
      selected = null;
      const steps = opts.reverse ? [...opts.fresh].reverse() : opts.fresh;
      steps.forEach((move, step) => {
        if (move.kind === "switch") grid.pieces.swap(move.from, move.to, opts.reverse ? 0 : step);
      });
      const wanted = new Map();
      obs.grid.forEach((row, rank) => row.forEach((shape, file) => {
        wanted.set(String.fromCharCode(97 + file) + (rank + 1), { shape, nullified: shape !== null && Object.hasOwn(obs.nullified, shape) });
      }));
      if (obs.flipping) wanted.get(obs.flipping.square).flipping = true;
      grid.pieces.sync(wanted, makeTile, setTile, Math.max(0, opts.fresh.length - 1));
      // The last move's squares: a switch's two, a flip's (or its revealed shape's) one.
      const last = next.moves[next.moves.length - 1];
      grid.mark(last ? [last.from, last.to, last.square].filter(Boolean) : [], "last");
      // The banned switch is one made before: its squares are in that move's data.
      const banned = obs.banned_switch ? next.moves.findLast((m) => m.kind === "switch" && m.text === obs.banned_switch) : null;
      grid.mark(banned ? [banned.from, banned.to] : [], "banned");
      grid.mark([], "hint");
      drawScoring();
      drawTargets();
      drawTray();
    },
    hint(action) {
      grid.mark([action.from, action.to, action.square].filter(Boolean), "hint");
    },
  };
}

function makeTile() {
  return el("g", {}, [
    el("g", { class: "spin" }, [
      el("rect", { class: "shadow", x: 9, y: 11, width: 84, height: 84, rx: 12 }),
      el("rect", { class: "tile-back", x: 8, y: 8, width: 84, height: 84, rx: 12 }),
      el("path", { class: "back-pattern", d: "M50 20 L80 50 L50 80 L20 50 Z M50 34 L66 50 L50 66 L34 50 Z" }),
      el("rect", { class: "tile-front", x: 8, y: 8, width: 84, height: 84, rx: 12 }),
      el("g", { class: "shape" }),
    ]),
  ]);
}

/** Show a tile's shape (or its back); true when it turned face up. */
function setTile(tile, data) {
  const before = tile.dataset.shape;
  const shape = data.shape || "";
  tile.dataset.shape = shape;
  tile.classList.toggle("face-down", !shape);
  tile.classList.toggle("nullified", data.nullified);
  tile.classList.toggle("being-flipped", Boolean(data.flipping));
  const holder = tile.querySelector(".shape");
  if (holder.dataset.drawn !== shape) {
    holder.replaceChildren(...(shape ? [SHAPES[shape]()] : []));
    holder.setAttribute("class", `shape shape-${shape}`);
    holder.dataset.drawn = shape;
  }
  tile.setAttribute("role", "img");
  tile.setAttribute("aria-label", shape ? `${shape}${data.nullified ? " (nullified)" : ""}` : "face-down tile");
  return before !== undefined && before !== shape;
}
