// Words and shares for review and analysis values: a value is the first player's expected
// score in [0, 1] (a win 1, a draw 1/2, a loss 0), or null when nothing could value it.

/** The first player's share of the bar (a half when unknown). */
export function firstPlayerShare(value) {
  return value === null || value === undefined ? 0.5 : value;
}

/** "White 73% · Black 27%", or "no value" when unknown. */
export function describeValue(value, players) {
  if (value === null || value === undefined) return "no value for this position";
  const first = Math.round(100 * value);
  return `${players[0]} ${first}% · ${players[1]} ${100 - first}%`;
}

/** Where a value came from, in words. */
export function sourceWords(source, exact) {
  const words = {
    solution: "exact: the game's solution",
    search: "exact: the proof search",
    engine: "estimate: the engine's evaluation as a winning chance",
    end: "the game is over",
  };
  return words[source] || (exact ? "exact" : "estimate");
}
