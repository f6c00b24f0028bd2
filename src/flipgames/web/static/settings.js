// The header's settings menu on every page (templates/base.html): the colour theme (light,
// dark, or the system's), the language (English, 日本語), move sounds and "your turn"
// notifications. Each choice is kept in this browser's localStorage; sounds and
// notifications are off until the player turns them on, and the browser is asked for
// permission to notify only then. Also puts the page's marked words in its language.
import { language, t, translatePage } from "./i18n.js";
import { playSound } from "./sounds.js";

const KEYS = { theme: "flipgames.theme", language: "flipgames.lang", sounds: "flipgames.sounds", notify: "flipgames.notify" };

function read(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

function write(key, value) {
  try {
    localStorage.setItem(key, value);
  } catch {
    // Storage off: the choice lasts for this page only.
  }
}

/** Whether the player turned move sounds on. */
export const soundsOn = () => read(KEYS.sounds) === "on";

/** Whether the player turned "your turn" notifications on (and the browser allows them). */
export const notificationsOn = () =>
  read(KEYS.notify) === "on" && "Notification" in window && Notification.permission === "granted";

const $ = (id) => document.getElementById(id);

function note(text) {
  const box = $("settings-note");
  box.textContent = text;
  box.hidden = !text;
}

async function switchNotifications(box) {
  if (!box.checked) {
    write(KEYS.notify, "off");
    note("");
    return;
  }
  if (!("Notification" in window)) {
    box.checked = false;
    note(t("settings.notify_unsupported"));
    return;
  }
  // Asked only now, on the player's own click: a page that asks on load gets refused.
  let answer = Notification.permission;
  if (answer !== "granted") answer = await Notification.requestPermission().catch(() => "denied");
  box.checked = answer === "granted";
  write(KEYS.notify, box.checked ? "on" : "off");
  note(box.checked ? "" : t("settings.notify_refused"));
}

function wire() {
  const menu = $("settings");
  if (!menu) return;
  const themes = menu.querySelectorAll("input[name=theme]");
  const showTheme = () => {
    const theme = document.documentElement.dataset.themeChoice || "system";
    for (const radio of themes) radio.checked = radio.value === theme;
  };
  showTheme();
  // A theme picked in another tab (boot.js applies it to the page) shows here too.
  window.addEventListener("storage", (event) => {
    if (event.key === KEYS.theme) showTheme();
  });
  for (const radio of themes) {
    radio.addEventListener("change", () => {
      write(KEYS.theme, radio.value);
      document.dispatchEvent(new Event("flipgames:theme")); // boot.js applies it
    });
  }
  for (const radio of menu.querySelectorAll("input[name=language]")) {
    radio.checked = radio.value === language();
    radio.addEventListener("change", () => {
      write(KEYS.language, radio.value);
      // Every script words what it draws as it draws it: the page is drawn again, anew.
      location.reload();
    });
  }
  const sounds = $("settings-sounds");
  sounds.checked = soundsOn();
  sounds.addEventListener("change", () => {
    write(KEYS.sounds, sounds.checked ? "on" : "off");
    if (sounds.checked) playSound("move"); // a sample (and browsers allow audio after a click)
  });
  const notify = $("settings-notify");
  notify.checked = notificationsOn();
  notify.addEventListener("change", () => switchNotifications(notify));
  // Escape and a click elsewhere close the menu, as a menu does.
  document.addEventListener("click", (event) => {
    if (menu.open && !menu.contains(event.target)) menu.open = false;
  });
  menu.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && menu.open) {
      menu.open = false;
      menu.querySelector("summary").focus();
    }
  });
}

translatePage();
document.documentElement.classList.remove("i18n-pending"); // boot.js hid the English words
wire();
