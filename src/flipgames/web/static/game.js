// The game page (/play/{id}?token=... for a seat, /watch/{id} for spectators): draws the
// match with the game's board module, sends the player's actions, and follows the match
// live over the WebSocket. The page's parts are the modules under game/: state.js (the one
// state object), play.js (views, drawing, actions, the live socket), help.js (hints and
// analysis), social.js (draws, resigning, rematch, sharing), lookback.js (earlier
// positions), turn.js (the turn's title and sound) and chat.js (the chat panel of an online
// game, on the live socket play.js opens).

import { wireHelp } from "./game/help.js";
import { wireLookback } from "./game/lookback.js";
import { start, wirePlay } from "./game/play.js";
import { wireSocial } from "./game/social.js";
import { token } from "./game/state.js";
import { wireSound } from "./game/turn.js";

wirePlay();
wireHelp();
wireSocial();
wireLookback();
wireSound();
document.body.classList.toggle("spectator", !token);
start();
