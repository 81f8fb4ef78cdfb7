/**
 * "Did you mean ...?" for names typed by hand: settings, context keys, commands, options.
 * Pure: no I/O.
 */

/**
 * Edit distance between two strings (optimal string alignment): insertions, deletions, substitutions and
 * swaps of two neighbouring characters each count one, so `NETWROKS` is one step from `NETWORKS`.
 */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      }
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The candidate nearest to `word`, ignoring case, or undefined when none is near enough to be a likely
 * typo: at most a third of the word's length away (at least 1, at most 3 edits), or the word a prefix of
 * the candidate (`TOPIC` for `TOPIC_ARN`) or the other way round, from 3 characters on, unless `prefixes`
 * is false. `ignorePrefix` (e.g. the prefix all env names share) is left out of the lengths, so a short suffix does not
 * get a lax match.
 */
export function nearest(
  word: string,
  candidates: readonly string[],
  ignorePrefix = '',
  prefixes = true,
): string | undefined {
  const strip = (text: string) =>
    text.toUpperCase().startsWith(ignorePrefix.toUpperCase())
      ? text.slice(ignorePrefix.length).toLowerCase()
      : text.toLowerCase();
  const typed = strip(word);
  if (typed === '') return undefined;
  const limit = Math.min(3, Math.max(1, Math.floor(typed.length / 3)));
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const known = strip(candidate);
    const distance = editDistance(typed, known);
    const prefix =
      prefixes &&
      Math.min(typed.length, known.length) >= 3 &&
      (known.startsWith(typed) || typed.startsWith(known));
    if (distance > limit && !prefix) continue;
    if (best === undefined || distance < best.distance) best = { candidate, distance };
  }
  return best?.candidate;
}

/** ` (did you mean X?)` for the nearest candidate, or an empty string. */
export function didYouMean(word: string, candidates: readonly string[], ignorePrefix = ''): string {
  const match = nearest(word, candidates, ignorePrefix);
  return match === undefined ? '' : ` (did you mean ${match}?)`;
}
