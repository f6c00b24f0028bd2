// The lobby (/): every game with its pitch, art and rules link; a "new game" dialog with the
// opponent (computer level, friend online, same screen, or anyone: a seek posted in the
// lobby), the seat and the game's rule options as GET /api/games describes them; "Play
// people" (people.js); and "My games" (my-games.js).

import { api } from "./api.js";
import { cap, levelName, rememberMatch } from "./common.js";
import { t } from "./i18n.js";
import { listMine } from "./my-games.js";
import { postSeek, ratedByDefault, startPeople } from "./people.js";

const $ = (selector) => document.getElementById(selector);
let games = [];
let chosen = null;

function card(game) {
  const item = document.createElement("article");
  item.className = "game-card";
  item.dataset.game = game.name;
  item.innerHTML = `<div class="card-art" aria-hidden="true">${game.art}</div>
    <div class="card-body"><h2></h2><p class="pitch"></p><p class="tags"></p></div>
    <div class="card-actions"><a class="rules-link"></a><button type="button" class="primary play"><span class="play-word"></span><span class="sr-only"></span></button></div>`;
  item.querySelector("h2").textContent = game.title;
  // Every card has a Play button: its name says which game it starts.
  item.querySelector(".play .play-word").textContent = t("lobby.play");
  item.querySelector(".play .sr-only").textContent = ` ${game.title}`;
  item.querySelector(".pitch").textContent = game.pitch;
  const tags = [[t("lobby.players", { n: game.players.length }), ""]];
  if (game.has_chance) tags.push([t("lobby.luck"), ""]);
  if (game.solved) tags.push([t("lobby.solved"), "solved"]);
  if (game.options.length) tags.push([t("lobby.rule_options", { n: game.options.length }), ""]);
  item.querySelector(".tags").replaceChildren(...tags.map(([words, kind]) => {
    const tag = document.createElement("span");
    tag.className = `tag ${kind}`;
    tag.textContent = words;
    return tag;
  }));
  const rules = item.querySelector(".rules-link");
  rules.href = `/rules/${encodeURIComponent(game.name)}`;
  rules.innerHTML = `<span></span><span class="sr-only"></span>`;
  rules.firstElementChild.textContent = t("lobby.rules");
  rules.querySelector(".sr-only").textContent = t("lobby.rules_of", { game: game.title });
  if (game.lesson) {
    const learn = document.createElement("a");
    learn.className = "rules-link learn-link";
    learn.href = `/learn/${encodeURIComponent(game.name)}`;
    learn.innerHTML = `<span></span><span class="sr-only"></span>`;
    learn.firstElementChild.textContent = t("lobby.learn");
    learn.querySelector(".sr-only").textContent = t("lobby.learn_of", { game: game.title });
    rules.after(learn);
  }
  item.querySelector(".play").addEventListener("click", () => openDialog(game));
  return item;
}

function option(opt) {
  const field = document.createElement("label");
  field.className = "field";
  // Players' words for the option and its choices; the value sent is the option's own.
  field.textContent = opt.label;
  if (opt.help) field.title = opt.help;
  let input;
  if (opt.choices && opt.choices.length) {
    input = document.createElement("select");
    opt.choices.forEach((choice, index) => {
      const o = document.createElement("option");
      o.value = choice;
      o.textContent = opt.choice_words ? opt.choice_words[index] : String(choice);
      input.append(o);
    });
  } else {
    input = document.createElement("input");
    input.type = typeof opt.default === "number" ? "number" : "text";
    if (opt.minimum !== null && opt.minimum !== undefined) input.min = opt.minimum;
    if (opt.maximum !== null && opt.maximum !== undefined) input.max = opt.maximum;
  }
  input.name = `option:${opt.name}`;
  input.value = opt.default;
  input.dataset.option = opt.name;
  input.dataset.kind = typeof opt.default;
  field.append(input);
  if (opt.help) {
    const help = document.createElement("small");
    help.textContent = opt.help;
    field.append(help);
  }
  return field;
}

/** Open the new-game dialog for `game`, with the opponent `mode` chosen when given. */
function openDialog(game, mode = null) {
  chosen = game;
  if (mode) document.querySelector(`input[name=mode][value=${mode}]`).checked = true;
  $("new-game-title").textContent = game.title;
  $("new-game-pitch").textContent = game.pitch;
  $("new-game-art").innerHTML = game.art;
  $("new-game-rules").href = `/rules/${encodeURIComponent(game.name)}`;
  $("new-game-error").textContent = "";
  $("new-game-status").hidden = true;
  const level = $("level");
  level.replaceChildren(...game.levels.map((name) => {
    const o = document.createElement("option");
    o.value = name;
    o.textContent = levelName(name);
    return o;
  }));
  // Outside engines the server's operator registered play as levels named engine:NAME.
  if ((game.engines || []).length) {
    const group = document.createElement("optgroup");
    group.label = t("lobby.outside_engines");
    group.append(...game.engines.map((name) => {
      const o = document.createElement("option");
      o.value = `engine:${name}`;
      o.textContent = t("lobby.engine", { name });
      return o;
    }));
    level.append(group);
  }
  const seat = $("seat");
  seat.replaceChildren(...[0, 1].map((player) => {
    const o = document.createElement("option");
    o.value = player;
    o.textContent = cap(game.players[player]);
    return o;
  }));
  const fieldset = $("options");
  fieldset.replaceChildren(fieldset.querySelector("legend"));
  for (const opt of game.options) fieldset.append(option(opt));
  // Rule options are for players who know the game: folded away, so that Start stays in
  // sight (Flip Switch has nine of them).
  $("advanced-rules").hidden = game.options.length === 0;
  $("advanced-rules").open = false;
  $("rated").checked = ratedByDefault();
  syncMode();
  $("new-game").showModal();
}

function syncMode() {
  const mode = new FormData($("new-game-form")).get("mode");
  const people = mode === "online" || mode === "seek";
  $("level-field").hidden = mode !== "ai";
  // Clocks are for two people online: the computer takes no time, one screen has one mover.
  $("clock-field").hidden = !people;
  $("clock-custom").hidden = !people || $("clock").value !== "custom";
  // A seek's seats are drawn when it is taken, and a stranger's game has no hints.
  $("seat-field").hidden = mode === "local" || mode === "seek";
  $("assist-field").hidden = mode === "seek";
  $("rated-field").hidden = mode !== "seek";
  $("start").textContent = mode === "seek" ? t("lobby.post_seek") : t("lobby.start");
  // Help is on against the computer and off between two people unless the creator turns it
  // on (for both: everyone in the match sees the setting).
  $("assist").checked = mode === "ai";
  $("assist-label").textContent = mode === "ai" ? t("lobby.assist") : t("lobby.assist_both");
}

async function startGame(event) {
  event.preventDefault();
  const form = new FormData($("new-game-form"));
  const mode = form.get("mode");
  const options = {};
  for (const input of $("options").querySelectorAll("[data-option]")) {
    options[input.dataset.option] = input.dataset.kind === "number" ? Number(input.value) : input.value;
  }
  const spec = { game: chosen.name, options, mode, assist: $("assist").checked };
  if (mode === "ai") spec.level = form.get("level");
  if (mode !== "local") spec.seat = Number(form.get("seat"));
  const clock = $("clock").value;
  if ((mode === "online" || mode === "seek") && clock === "custom") {
    spec.clock = { initial: Number($("clock-initial").value), increment: Number($("clock-increment").value) };
  } else if ((mode === "online" || mode === "seek") && clock) {
    const [initial, increment] = clock.split("+").map(Number);
    spec.clock = { initial, increment };
  }
  if (mode === "seek") {
    await seek({ game: chosen.name, options, clock: spec.clock || null, rated: $("rated").checked });
    return;
  }
  $("start").disabled = true;
  // The answer comes at once (the computer's first move, if it has one, follows on the game
  // page): this shows only on a slow connection.
  const status = $("new-game-status");
  $("new-game-status-text").textContent = t("lobby.setting_up");
  status.hidden = false;
  try {
    const created = await api.create(spec);
    rememberMatch({
      id: created.id,
      game: chosen.name,
      title: chosen.title,
      mode,
      play: created.links.play,
      invite: mode === "online" ? created.links.invite : null,
      created: Date.now(),
    });
    location.href = created.links.play;
  } catch (err) {
    $("new-game-error").textContent = err.message;
    status.hidden = true;
  } finally {
    $("start").disabled = false;
  }
}

/** Post the dialog's seek; the dialog closes and the seek shows in "Play people". */
async function seek(spec) {
  $("start").disabled = true;
  try {
    await postSeek(spec);
    $("new-game").close();
    $("people").scrollIntoView({ block: "start" });
  } catch (err) {
    $("new-game-error").textContent = err.message;
  } finally {
    $("start").disabled = false;
  }
}

async function start() {
  const grid = $("games");
  try {
    games = await api.games();
  } catch (err) {
    grid.textContent = t("lobby.games_failed", { error: err.message });
    return;
  }
  grid.replaceChildren(...games.map(card));
  grid.setAttribute("aria-busy", "false");
  startPeople(games, {
    openSeekDialog: (game) => openDialog(game, "seek"),
    onPlayer: (player) => listMine(player, games),
  });
  const wanted = new URLSearchParams(location.search).get("game");
  const game = games.find((g) => g.name === wanted);
  if (game) openDialog(game);
}

for (const radio of document.querySelectorAll("input[name=mode]")) radio.addEventListener("change", syncMode);
$("clock").addEventListener("change", syncMode);
$("new-game-form").addEventListener("submit", startGame);
$("new-game-close").addEventListener("click", () => $("new-game").close());
start();
