// The header's player area on every page (templates/base.html): signed out, "Play as guest",
// "Sign in" and "Sign up"; signed in, the player's name (a link to /account) and "Sign out".
// The session is an HttpOnly cookie: this script never sees it, it only asks who is signed in.
// Every name and message is set with textContent, never as HTML.
//
// Other scripts hear of a change as the "flipgames:identity" event on document, with the
// player ({name, account}) or null as its detail.
import { api } from "/static/api.js";
import { t } from "/static/i18n.js";

// The words are looked up when the dialog opens (t() is the page's language).
const MODES = {
  guest: {
    title: () => t("identity.guest_title"),
    submit: () => t("identity.play"),
    hint: () => t("identity.guest_hint"),
    password: false,
    run: (name) => api.guest(name),
  },
  signin: {
    title: () => t("identity.signin"),
    submit: () => t("identity.signin"),
    hint: () => "",
    password: true,
    autocomplete: "current-password",
    run: (name, password) => api.signIn(name, password),
  },
  signup: {
    title: () => t("identity.signup"),
    submit: () => t("identity.signup_submit"),
    hint: () => t("identity.signup_hint"),
    password: true,
    autocomplete: "new-password",
    run: (name, password) => api.signUp(name, password),
  },
};

let current = null;
let mode = "signin";

function button(text, className, onClick) {
  const element = document.createElement("button");
  element.type = "button";
  element.className = className;
  element.textContent = text;
  element.addEventListener("click", onClick);
  return element;
}

function render(area) {
  area.replaceChildren();
  if (current) {
    const me = document.createElement("a");
    me.className = "identity-me";
    me.href = "/account";
    me.textContent = current.name;
    me.title = current.account ? t("identity.your_account") : t("identity.as_guest");
    area.append(me);
    if (!current.account) {
      const tag = document.createElement("span");
      tag.className = "identity-tag";
      tag.textContent = t("identity.guest");
      // A guest who signs up keeps its games: the account is the same player.
      area.append(tag, button(t("identity.signup"), "identity-button", () => open("signup")));
    }
    area.append(button(t("identity.signout"), "identity-button", signOut));
  } else {
    area.append(
      button(t("identity.play_as_guest"), "identity-button", () => open("guest")),
      button(t("identity.signin"), "identity-button", () => open("signin")),
      button(t("identity.signup"), "identity-button primary", () => open("signup")),
    );
  }
}

function changed(player) {
  current = player;
  const area = document.getElementById("identity");
  if (area) render(area);
  document.dispatchEvent(new CustomEvent("flipgames:identity", { detail: player }));
}

/** Open the sign-in dialog as "guest", "signin" or "signup" (the lobby's "Play people"
 * offers it to visitors who are not signed in). */
export function open(which) {
  mode = which;
  const spec = MODES[which];
  const dialog = document.getElementById("identity-dialog");
  document.getElementById("identity-title").textContent = spec.title();
  document.getElementById("identity-submit").textContent = spec.submit();
  dialog.querySelector(".identity-hint").textContent = spec.hint();
  const password = document.getElementById("identity-password");
  password.value = "";
  password.required = spec.password;
  password.autocomplete = spec.autocomplete || "off";
  dialog.querySelector(".identity-password").hidden = !spec.password;
  showError(null);
  dialog.showModal();
  document.getElementById("identity-name").focus();
}

function showError(text) {
  const box = document.querySelector("#identity-dialog .identity-error");
  box.textContent = text || "";
  box.hidden = !text;
}

async function submit(event) {
  event.preventDefault();
  const name = document.getElementById("identity-name").value.trim();
  const password = document.getElementById("identity-password").value;
  try {
    const answer = await MODES[mode].run(name, password);
    document.getElementById("identity-dialog").close();
    changed({ name: answer.name, account: mode !== "guest" });
  } catch (error) {
    showError(error.message);
  }
}

/** Sign out and tell the page (the account page's button uses it too). */
export async function signOut() {
  try {
    await api.signOut();
  } finally {
    changed(null);
  }
}

/** Who is signed in now ({name, account}), or null. */
export async function whoAmI() {
  try {
    return await api.me();
  } catch {
    return null; // 401: nobody; any other failure: shown as signed out too
  }
}

async function start() {
  const area = document.getElementById("identity");
  if (!area) return;
  document.getElementById("identity-form").addEventListener("submit", submit);
  document.getElementById("identity-cancel").addEventListener("click", () => {
    document.getElementById("identity-dialog").close();
  });
  render(area);
  changed(await whoAmI());
}

start();
