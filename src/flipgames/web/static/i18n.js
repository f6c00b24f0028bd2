// The UI's words, one catalogue per language (static/i18n/en.js, static/i18n/ja.js), and
// t(key, params) to look them up. The language is <html lang>, which boot.js set before the
// page was drawn: the player's choice from the settings menu, else the browser's own
// (navigator.language: Japanese for "ja…", English otherwise).
//
// Templates mark their static words with data-i18n="key" (the element's text), and
// data-i18n-aria-label, data-i18n-title for those attributes: translatePage() replaces them
// (settings.js runs it on every page). Scripts call t() for every word they show. Game names,
// the engines' rules text and status lines, and what players write stay as they are.
import en from "./i18n/en.js";
import ja from "./i18n/ja.js";

export const CATALOGUES = { en, ja };
export const LANGUAGES = Object.keys(CATALOGUES);

/** The page's language: "en" or "ja". */
export function language() {
  const lang = document.documentElement.lang;
  return lang in CATALOGUES ? lang : "en";
}

/**
 * The words for `key` in the page's language, with each `{name}` replaced by params.name
 * (as text: callers set the result with textContent). A key missing from a catalogue falls
 * back to English, then to the key itself, so a mistake shows rather than breaks the page
 * (tests/web/test_i18n.py keeps the catalogues complete).
 */
export function t(key, params = {}) {
  const words = CATALOGUES[language()][key] ?? en[key] ?? key;
  return words.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
}

const ATTRIBUTES = { "data-i18n-aria-label": "aria-label", "data-i18n-title": "title" };

/** Replace the marked words under `root` with the page's language. */
export function translatePage(root = document) {
  for (const element of root.querySelectorAll("[data-i18n]")) element.textContent = t(element.dataset.i18n);
  for (const [marker, attribute] of Object.entries(ATTRIBUTES)) {
    for (const element of root.querySelectorAll(`[${marker}]`)) element.setAttribute(attribute, t(element.getAttribute(marker)));
  }
}
