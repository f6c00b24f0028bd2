// Words and shares for review and analysis values: a value is the first player's expected
// score in [0, 1] (a win 1, a draw 1/2, a loss 0), or null when nothing could value it.

import { t } from "../i18n.js";

/** The first player's share of the bar (a half when unknown). */
export function firstPlayerShare(value) {
  return value === null || value === undefined ? 0.5 : value;
}

/** "White 73% · Black 27%", or "no value" when unknown. */
export function describeValue(value, players) {
  if (value === null || value === undefined) return t("value.none");
  const first = Math.round(100 * value);
  return t("value.shares", { first: players[0], first_percent: first, second: players[1], second_percent: 100 - first });
}

/** Where a value came from, in words. */
export function sourceWords(source, exact) {
  const keys = {
    solution: "value.solution",
    round: "value.round",
    search: "value.search",
    engine: "value.engine",
    end: "value.end",
  };
  if (source in keys) return t(keys[source]);
  return exact ? t("value.exact") : t("value.estimate");
}
