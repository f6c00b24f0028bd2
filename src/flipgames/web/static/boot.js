// Runs in the head of every page, before the body is drawn (a classic script, not a module,
// so the browser waits for it): the colour theme and the language are set on <html> before
// the first paint, so a dark page never flashes light. The choices are the settings menu's
// (settings.js), kept in localStorage; "system" follows prefers-color-scheme, live.
(() => {
  const root = document.documentElement;
  const read = (key) => {
    try {
      return localStorage.getItem(key);
    } catch {
      return null; // storage off (a private window's policy): the defaults
    }
  };
  const dark = window.matchMedia("(prefers-color-scheme: dark)");
  const apply = () => {
    const chosen = read("flipgames.theme");
    const theme = chosen === "light" || chosen === "dark" ? chosen : dark.matches ? "dark" : "light";
    root.dataset.theme = theme;
    root.dataset.themeChoice = chosen === "light" || chosen === "dark" ? chosen : "system";
  };
  apply();
  dark.addEventListener("change", apply);
  // The settings menu (settings.js) announces a new choice with this event; another tab's
  // choice arrives as a storage event.
  document.addEventListener("flipgames:theme", apply);
  window.addEventListener("storage", (event) => {
    if (event.key === "flipgames.theme") apply();
  });
  // The language: the player's choice, else the browser's; i18n.js reads it from <html lang>.
  const lang = read("flipgames.lang");
  const browser = (navigator.language || "en").toLowerCase();
  root.lang = lang === "en" || lang === "ja" ? lang : browser.startsWith("ja") ? "ja" : "en";
  // The templates' words are English until settings.js translates them: hide them till then,
  // so a Japanese page does not flash English (settings.css shows them after 2 s whatever
  // happens, so a script that never runs cannot leave a page blank).
  if (root.lang !== "en") root.classList.add("i18n-pending");
})();
