// A board's stylesheets. Each board module loads its own (boards/NAME.css, next to its script,
// every rule under the board's root class) after boards/board.css, which every board shares;
// app.css holds page styles only, so no page class can restyle a board (the page's loading
// "spinner" once dragged Checkered Flag's dials across the track).
//
//   await boardStyles("flip-switch.css"); // at the top of boards/flip-switch.js

const sheets = new Map();

function sheet(name) {
  if (!sheets.has(name)) {
    sheets.set(name, new Promise((resolve, reject) => {
      const link = document.createElement("link");
      link.rel = "stylesheet";
      link.href = new URL(name, import.meta.url).href;
      link.addEventListener("load", () => resolve(link));
      link.addEventListener("error", () => reject(new Error(`the board's styles did not load: ${link.href}`)));
      document.head.append(link);
    }));
  }
  return sheets.get(name);
}

/** Load board.css and the board's own stylesheet `name` (once each); resolves when both apply. */
export function boardStyles(name) {
  return Promise.all([sheet("board.css"), sheet(name)]);
}
