/**
 * A filter status's colour in the report and the hosted page: one of {@link STATUS_COLOURS} hues chosen from
 * the status text alone (FNV-1a), so a status keeps its colour from one report to the next and from one run
 * to the next, whatever other statuses the window holds or how long each was held. The hues have no red and
 * no green: those say good and bad, and only an expected status (the expected-status setting) says which is
 * which (the expected status is green, one away from it is marked red). Pure.
 */

/** Hues in the page's CSS: `--s0` .. `--s7`. */
export const STATUS_COLOURS = 8;

/** The index of a status's hue, the same for the same text everywhere. */
export function statusColour(status: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(status, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % STATUS_COLOURS;
}
