// Flipsiders: Checkered Flag: the loop of spaces (crash, no-passing, start/finish), both cars,
// each player's gear box (N, 1, 2, 3, C2, C3) and the two spinners showing the last spin.
// The player to move shifts with the gear buttons; the server spins.

import { cap } from "../common.js";
import { t } from "../i18n.js";
import { boardStyles } from "./styles.js";
import { describeTurns as turnsOf, el, label, valueClass, valueText } from "./svg.js";

await boardStyles("checkered-flag.css");

const W = 680;
const H = 420;
const STRAIGHT = 280;
const RADIUS = 140;
const CX = W / 2;
const CY = 210;
const LANE = 13;
const GEARS = ["C3", "C2", "N", "1", "2", "3"];
const PERIMETER = 2 * STRAIGHT + 2 * Math.PI * RADIUS;

/** Point and heading (degrees) at distance `s` along the loop, from the start line. */
function along(s, offset = 0) {
  let d = ((s % PERIMETER) + PERIMETER) % PERIMETER;
  const half = STRAIGHT / 2;
  const arc = Math.PI * RADIUS;
  let x;
  let y;
  let heading;
  let nx;
  let ny;
  if (d < half) {
    [x, y, heading, nx, ny] = [CX + d, CY + RADIUS, 0, 0, 1];
  } else if ((d -= half) < arc) {
    const a = d / RADIUS;
    [nx, ny] = [Math.sin(a), Math.cos(a)];
    [x, y, heading] = [CX + half + RADIUS * nx, CY + RADIUS * ny, -(a * 180) / Math.PI];
  } else if ((d -= arc) < STRAIGHT) {
    [x, y, heading, nx, ny] = [CX + half - d, CY - RADIUS, 180, 0, -1];
  } else if ((d -= STRAIGHT) < arc) {
    const a = d / RADIUS;
    [nx, ny] = [-Math.sin(a), -Math.cos(a)];
    [x, y, heading] = [CX - half + RADIUS * nx, CY + RADIUS * ny, 180 - (a * 180) / Math.PI];
  } else {
    d -= arc;
    [x, y, heading, nx, ny] = [CX - half + d, CY + RADIUS, 0, 0, 1];
  }
  return { x: x + nx * offset, y: y + ny * offset, heading };
}

/**
 * Turns for the move list: per turn a gear ("1".."3") with the spin that followed it, or a
 * lone "C2" / "N" out of a crash; the start spin ("start 5:3") is a turn of its own.
 */
export function describeTurns(moves) {
  return turnsOf(moves.map((move) => (move.kind === "start-spin" ? { ...move, text: `start ${move.text}` } : move)));
}

/** The last spin, from the view's structured moves: {A, B} values that came up (either may
 * be missing; the start spin is both players' Spinner B), or null. */
function lastSpin(moves) {
  for (let i = moves.length - 1; i >= 0; i -= 1) {
    const { kind, spinner, values } = moves[i];
    if (kind === "start-spin") return { B: values[0], B2: values[1], start: true };
    if (kind !== "spin") continue;
    if (spinner === "A+B") return { A: values[0], B: values[1] };
    return spinner === "A" ? { A: values[0] } : { B: values[0] };
  }
  return null;
}

// The gear buttons' words (the page's language: boot.js set it before any module ran).
const GEAR_WORDS = {
  "1": t("cf.gear_1"), "2": t("cf.gear_2"), "3": t("cf.gear_3"), C2: t("cf.to_c2"), N: t("cf.to_n"),
};

/** How to read the move list (shown under it). */
export const legend = t("cf.legend");

const DRIVING = new Set(["1", "2", "3"]);

/** A car seen from above in `player`'s colour, pointing along the track; `attrs` go on its group. */
function carShape(player, attrs = {}) {
  const { class: extra = "", ...rest } = attrs;
  return el("g", { class: `car player-${player} ${extra}`.trim(), ...rest }, [
    el("g", { class: "car-body" }, [
      el("rect", { class: "wheel", x: -11, y: -9, width: 7, height: 4, rx: 1 }),
      el("rect", { class: "wheel", x: 5, y: -9, width: 7, height: 4, rx: 1 }),
      el("rect", { class: "wheel", x: -11, y: 5, width: 7, height: 4, rx: 1 }),
      el("rect", { class: "wheel", x: 5, y: 5, width: 7, height: 4, rx: 1 }),
      el("path", { class: "hull", d: "M-14 -6 L8 -6 Q16 -4 16 0 Q16 4 8 6 L-14 6 Z" }),
      el("rect", { class: "cockpit", x: -4, y: -3, width: 8, height: 6, rx: 2 }),
    ]),
  ]);
}

export function createBoard(host, ctx) {
  const svg = el("svg", { class: "board-svg cf-board", viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": t("cf.track") });
  const trackGroup = el("g", { class: "track" });
  const carGroup = el("g", { class: "cars" });
  const infield = el("g", { class: "infield" });
  svg.append(trackGroup, infield, carGroup);
  const buttons = document.createElement("div");
  buttons.className = "cf-gears";
  host.replaceChildren(svg, buttons);
  let built = null;
  let cars = [];
  let spinners = {};
  let boxes = [];
  let view = null;
  let gears = null; // each car's gear in the last picture, to notice crashes

  function buildTrack(track) {
    trackGroup.replaceChildren();
    const step = PERIMETER / track.length;
    const crash = new Set(track.crash);
    const block = new Set(track.no_passing);
    trackGroup.append(el("rect", { class: "grass", x: 0, y: 0, width: W, height: H, rx: 22 }));
    const lane = [];
    for (let i = 0; i <= 120; i += 1) {
      const p = along((PERIMETER * i) / 120);
      lane.push(`${p.x.toFixed(1)},${p.y.toFixed(1)}`);
    }
    trackGroup.append(el("polyline", { class: "asphalt", points: lane.join(" ") }));
    for (let i = 0; i < track.length; i += 1) {
      const space = (track.start + i) % track.length;
      const p = along(i * step);
      const kind = i === 0 ? "start" : crash.has(space) && block.has(space) ? "crash no-passing" : crash.has(space) ? "crash" : block.has(space) ? "no-passing" : "plain";
      const g = el("g", {
        class: `space ${kind}`,
        transform: `translate(${p.x.toFixed(1)} ${p.y.toFixed(1)}) rotate(${p.heading.toFixed(1)})`,
        "data-space": space,
      });
      g.append(el("rect", { x: -step / 2 + 1, y: -28, width: step - 2, height: 56, rx: 3 }));
      if (kind.includes("crash")) g.append(el("path", { class: "crash-x", d: "M-6 -6 L6 6 M6 -6 L-6 6" }));
      if (kind.includes("no-passing")) g.append(el("path", { class: "np-bars", d: "M-8 -20 h16 M-8 -15 h16 M-8 15 h16 M-8 20 h16" }));
      if (i === 0) {
        for (let r = 0; r < 8; r += 1) {
          for (let c = 0; c < 2; c += 1) {
            if ((r + c) % 2 === 0) g.append(el("rect", { class: "check", x: -step / 2 + 1 + c * ((step - 2) / 2), y: -28 + r * 7, width: (step - 2) / 2, height: 7 }));
          }
        }
      }
      if (i % 4 === 0 && i > 0) {
        const out = along(i * step, 40);
        trackGroup.append(label(out.x.toFixed(1), out.y.toFixed(1), String(space), "space-number"));
      }
      const title = el("title");
      title.textContent = `space ${space}${kind === "plain" ? "" : ` (${kind.replace(" ", ", ")})`}`;
      g.append(title);
      trackGroup.append(g);
    }
    const flag = along(0, -47);
    trackGroup.append(label(flag.x, flag.y, t("cf.start_finish"), "start-word"));
  }

  function buildInfield(faces) {
    infield.replaceChildren();
    spinners = {};
    for (const [name, x, side] of [["A", CX - 70, -1], ["B", CX + 70, 1]]) {
      const list = faces[name];
      const r = 46;
      const dial = el("g", { class: `cf-dial cf-dial-${name}`, transform: `translate(${x} ${CY - 62})`, "data-spinner": name });
      dial.append(el("circle", { class: "dial-face", r }));
      list.forEach((face, i) => {
        const a0 = (2 * Math.PI * i) / list.length - Math.PI / 2;
        const a1 = (2 * Math.PI * (i + 1)) / list.length - Math.PI / 2;
        const mid = (a0 + a1) / 2;
        dial.append(el("path", {
          class: `sector ${i % 2 ? "odd" : "even"}`,
          d: `M0 0 L${r * Math.cos(a0)} ${r * Math.sin(a0)} A${r} ${r} 0 0 1 ${r * Math.cos(a1)} ${r * Math.sin(a1)} Z`,
        }));
        dial.append(label((r * 0.7 * Math.cos(mid)).toFixed(1), (r * 0.7 * Math.sin(mid)).toFixed(1), String(face), "face-number"));
      });
      const arrow = el("g", { class: "arrow" }, [el("path", { d: "M-5 0 L0 -46 L5 0 Z" }), el("circle", { r: 7 })]);
      dial.append(arrow, label(0, r + 14, t("cf.spinner", { name }), "dial-name"));
      dial.append(el("circle", { class: "result-badge", cx: side * (r + 24), cy: 0, r: 20 }));
      const result = label(side * (r + 24), 1, "", "spin-result");
      dial.append(result);
      infield.append(dial);
      spinners[name] = { arrow, faces: list, result, turns: 0, value: null };
    }
    boxes = [0, 1].map((player) => {
      const y = CY + 24 + player * 38;
      const box = el("g", { class: `gearbox player-${player}`, transform: `translate(${CX - 150} ${y})`, "data-gearbox": player });
      // The box's car is the one on the track (same shape, same colour), not a symbol.
      box.append(carShape(player, { class: "box-car", transform: "translate(6 0)" }));
      const circles = {};
      GEARS.forEach((gear, i) => {
        const g = el("g", { class: `gear gear-${gear}`, transform: `translate(${48 + i * 42} 0)`, "data-gear-circle": gear });
        g.append(el("circle", { r: 15 }), label(0, 1, gear, "gear-label"));
        box.append(g);
        circles[gear] = g;
      });
      infield.append(box);
      return circles;
    });
  }

  function buildCars() {
    carGroup.replaceChildren();
    cars = [0, 1].map((player) => {
      const car = carShape(player, { "data-car": player });
      carGroup.append(car);
      return { node: car, distance: null };
    });
  }

  function placeCar(index, distance, length) {
    const car = cars[index];
    const step = PERIMETER / length;
    const offset = index === 0 ? LANE : -LANE;
    const at = (d) => {
      const p = along(d * step, offset);
      return `translate(${p.x.toFixed(1)}px, ${p.y.toFixed(1)}px) rotate(${p.heading.toFixed(1)}deg)`;
    };
    const from = car.distance;
    car.node.style.transform = at(distance);
    if (from !== null && from !== distance) {
      // Drive through every space passed (or back, in a replay), one keyframe per space.
      const frames = [];
      const dir = distance > from ? 1 : -1;
      for (let d = from; d !== distance + dir; d += dir) frames.push({ transform: at(d) });
      car.node.animate(frames, { duration: Math.min(1400, 90 * frames.length + 200), easing: "ease-in-out" });
    }
    car.distance = distance;
  }

  function setSpinner(name, value) {
    const spinner = spinners[name];
    if (!spinner) return;
    const index = spinner.faces.indexOf(value);
    spinner.result.textContent = value === undefined ? "" : String(value);
    if (index < 0) {
      spinner.value = null;
      return;
    }
    if (spinner.value === value) return;
    const angle = (360 * (index + 0.5)) / spinner.faces.length;
    // A fresh spin always turns forward at least twice round before settling.
    spinner.turns += 2;
    spinner.arrow.style.transform = `rotate(${spinner.turns * 360 + angle}deg)`;
    spinner.value = value;
  }

  function drawButtons(obs, options) {
    buttons.replaceChildren();
    if (!options.interactive) return;
    // Structured actions: {text, kind: "gear" or "leave-crash", gear}.
    const legal = view.legal_actions || [];
    for (const action of legal) {
      const button = document.createElement("button");
      const entry = options.analysis ? options.analysis.get(action.text) : null;
      button.type = "button";
      button.className = `gear-button ${valueClass(entry)}`.trim();
      button.dataset.gear = action.gear;
      const knob = document.createElement("span");
      knob.className = "gear-knob";
      knob.textContent = action.gear;
      const words = document.createElement("span");
      words.textContent = GEAR_WORDS[action.gear] || action.gear;
      button.append(knob, words);
      if (entry) button.title = valueText(entry);
      button.addEventListener("click", () => ctx.onAction(action.text));
      buttons.append(button);
    }
    const box = boxes[obs.mover];
    for (const action of legal) {
      const circle = box && box[action.gear];
      if (circle) circle.classList.add("choosable");
    }
  }

  // A car whose gear box went from a driving gear to a crash circle has just crashed: say so
  // (the page announces it) and mark the car until its next move.
  function noticeCrashes(obs, options) {
    const now = obs.cars.map((car) => car.gear);
    obs.cars.forEach((car, player) => {
      const crashed = gears && !options.reverse && DRIVING.has(gears[player]) && car.gear.startsWith("C");
      const node = cars[player].node;
      if (crashed) {
        node.classList.add("crashed");
        const name = view.players[player] || t("moves.player_n", { n: player + 1 });
        const text = t("cf.crashed", { player: cap(name), space: car.space, gear: car.gear });
        if (ctx.announce) ctx.announce(text);
      } else if (gears && gears[player] !== car.gear) {
        node.classList.remove("crashed");
      }
    });
    gears = now;
  }

  return {
    update(next, options) {
      view = next;
      const obs = next.observation.board;
      if (built !== JSON.stringify(obs.track)) {
        buildTrack(obs.track);
        buildInfield(obs.spinners);
        buildCars();
        built = JSON.stringify(obs.track);
      }
      obs.cars.forEach((car, i) => placeCar(i, car.distance, obs.track.length));
      noticeCrashes(obs, options);
      boxes.forEach((circles, player) => {
        for (const [gear, node] of Object.entries(circles)) {
          node.classList.toggle("engaged", obs.cars[player].gear === gear);
          node.classList.remove("choosable");
        }
      });
      const spin = lastSpin(next.moves || []);
      for (const g of svg.querySelectorAll(".gearbox")) g.classList.toggle("to-move", Number(g.dataset.gearbox) === obs.mover && next.status !== "finished");
      setSpinner("A", spin ? spin.A : undefined);
      setSpinner("B", spin ? spin.B : undefined);
      // The start spin is both players spinning B: show both numbers.
      if (spin && spin.start) spinners.B.result.textContent = `${spin.B}:${spin.B2}`;
      drawButtons(obs, options);
    },
    hint(action) {
      for (const button of buttons.querySelectorAll(".gear-button")) button.classList.toggle("hinted", button.dataset.gear === action.gear);
    },
  };
}
