// The account page (/account): who is signed in, sign out, change the password, delete the
// account. Messages are set with textContent.
import { api } from "/static/api.js";
import { signOut } from "/static/identity.js";
import { t } from "/static/i18n.js";

const $ = (id) => document.getElementById(id);

function show(player) {
  $("account-none").hidden = Boolean(player);
  $("account-who").hidden = !player;
  const account = Boolean(player && player.account);
  $("account-password").hidden = !account;
  $("account-delete").hidden = !account;
  if (!player) return;
  $("account-name").textContent = player.name;
  $("account-guest").hidden = account;
}

function message(form, text, kind) {
  const box = form.querySelector(".account-message");
  box.textContent = text;
  box.className = `account-message ${kind}`;
  box.hidden = false;
}

async function changePassword(event) {
  event.preventDefault();
  const form = event.target;
  try {
    await api.changePassword($("password-now").value, $("password-new").value);
    form.reset();
    message(form, t("account.password_changed"), "done");
  } catch (error) {
    message(form, error.message, "error");
  }
}

async function deleteAccount(event) {
  event.preventDefault();
  const form = event.target;
  try {
    await api.deleteAccount($("delete-password").value);
    form.reset();
    await signOut(); // the header and this page show "not signed in"
  } catch (error) {
    message(form, error.message, "error");
  }
}

document.addEventListener("flipgames:identity", (event) => show(event.detail));
$("account-sign-out").addEventListener("click", () => signOut());
$("password-form").addEventListener("submit", changePassword);
$("delete-form").addEventListener("submit", deleteAccount);
