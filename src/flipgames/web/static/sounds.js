// The game page's sounds, made by the Web Audio API as they play (no audio file is fetched):
// a short wooden knock for a move and a brighter two-note turn for a capture or a flip, played
// each time the page shows a new move, the player's or the opponent's, when the settings
// menu's "Move sounds" is on (settings.js); and one note when the turn arrives, when the page's
// "Sound on my turn" is on (game/turn.js).

let audio = null;

/** One tone: a sine that starts at `from` Hz, glides to `to` and fades out over `seconds`. */
function tone(context, { from, to, start, seconds, volume }) {
  const oscillator = context.createOscillator();
  const gain = context.createGain();
  oscillator.type = "sine";
  oscillator.frequency.setValueAtTime(from, start);
  oscillator.frequency.exponentialRampToValueAtTime(to, start + seconds);
  gain.gain.setValueAtTime(volume, start);
  gain.gain.exponentialRampToValueAtTime(0.001, start + seconds);
  oscillator.connect(gain).connect(context.destination);
  oscillator.start(start);
  oscillator.stop(start + seconds);
}

const SOUNDS = {
  move: [{ from: 320, to: 180, at: 0, seconds: 0.09, volume: 0.25 }],
  flip: [
    { from: 520, to: 660, at: 0, seconds: 0.08, volume: 0.18 },
    { from: 780, to: 990, at: 0.07, seconds: 0.12, volume: 0.16 },
  ],
  turn: [{ from: 660, to: 660, at: 0, seconds: 0.25, volume: 0.15 }],
};

/** Play "move", "flip" (a capture or a flip) or "turn". */
export function playSound(name) {
  try {
    audio = audio || new AudioContext();
    if (audio.state === "suspended") audio.resume();
    const now = audio.currentTime;
    for (const part of SOUNDS[name]) tone(audio, { ...part, start: now + part.at });
  } catch {
    // No audio on this device: the move shows all the same.
  }
}

/** The sound for a batch of new moves: a flip's if any of them captures or turns a piece
 * over (the structured moves' kind), else a move's. */
export function soundFor(moves) {
  return moves.some((move) => ["capture", "flip", "reveal"].includes(move.kind)) ? "flip" : "move";
}
