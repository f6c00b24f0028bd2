// The game page's state: one object that every part of the page reads and changes, so what
// the page knows about the match is in one place (the parts: play.js, help.js, social.js,
// lookback.js, turn.js; game.js starts them).

import { matchIdFromPath } from "../api.js";

export const id = matchIdFromPath();
export const token = new URLSearchParams(location.search).get("token");
export const $ = (selector) => document.getElementById(selector);

export const state = {
  view: null, // the match as the server last sent it
  board: null, // what the board module drew: update() and hint()
  boardModule: null,
  info: null, // the game's entry from /api/games
  busy: false, // a request that changes the match is out
  thinking: false, // a move against the computer is on its way to the server
  liveState: "connecting", // the WebSocket: "live", "reconnecting" or "closed"
  askingForMove: false, // a waiting read (no live socket) is out for the computer's move
  analysis: null, // {key, map: action -> {value, remoteness}} while the switch is on
  analysisWanted: null, // the position key an analysis request is out for
  hint: null, // {key, move} of the last hint shown
  presence: null, // the seats with the match open (online), from the socket
  lookback: null, // an earlier position being looked at: a view-like frame, or null
  flipped: false, // the player turned the board round
  myTurnBefore: false, // for the turn notification: only when the turn arrives
  resignArmed: false, // Resign asks to be clicked again
  resultClosed: false, // the player closed the game-over sheet (phones)
  drawnBoard: null, // what the board last drew: {key, interactive, analysis}
};

/** A structured move or action in the board's words (FlipFour: "+ drop c5"), else its text. */
export const moveWords = (move) => (state.boardModule && state.boardModule.moveText ? state.boardModule.moveText(move) : move.text);

/** Identifies a position: an undo followed by another move reaches the same ply elsewhere. */
export const positionKey = (v) => `${v.ply}|${v.history.join(" ")}`;

export function interactive() {
  const view = state.view;
  return Boolean(token) && !state.busy && view.status !== "finished" && (view.legal_actions || []).length > 0;
}

/** The analysis of the position on screen, or null. */
export function shownAnalysis() {
  const { analysis, view } = state;
  return analysis && view && analysis.key === positionKey(view) ? analysis.map : null;
}

/** The computer is to move (the server says so), or a move that makes it move is out. */
export function computerThinking() {
  return state.thinking || Boolean(state.view && state.view.thinking);
}
