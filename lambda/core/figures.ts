/**
 * The numeric figures of a network's real-time body, for alert text and metrics.
 * Pure: no clock, no environment, never throws.
 */

/** Deepest leaf kept, counted in path segments: `a.b.c` is depth 3. Bounds the work a hostile body can cause. */
export const FIGURES_MAX_DEPTH = 8;

/**
 * The numeric leaves of a JSON body as `[dotPath, value]` pairs, depth-first in body order, at most
 * `maxFigures` of them (a non-integer is rounded down, a negative or NaN cap gives none).
 *
 * Only finite numbers count: booleans, numeric strings and `null` do not. Array elements are addressed by
 * index (`links.0.pps`). Leaves deeper than {@link FIGURES_MAX_DEPTH} segments are skipped, as is a body that
 * is itself a number or sits under an empty top-level key (neither has a path). Only own data properties are read.
 * "Body order" is JavaScript's own key order, which for `JSON.parse` output is the text order except that
 * integer-like keys come first. A key containing a dot yields an ambiguous path; it is kept as it is.
 * Never throws: an exotic object that does is cut short and the figures found so far are returned.
 */
export function extractFigures(body: unknown, maxFigures = 20): Array<[string, number]> {
  const figures: Array<[string, number]> = [];
  const cap = Number.isNaN(maxFigures) ? 0 : Math.floor(maxFigures);
  if (!(cap > 0)) {
    return figures;
  }

  /** Returns true once the cap is reached, so the walk stops early on a large body. */
  const visit = (node: object, prefix: string, depth: number): boolean => {
    // Object.keys on arrays too: it lists only the indexes present, so a sparse array cannot stall the walk.
    for (const key of Object.keys(node)) {
      const descriptor = Object.getOwnPropertyDescriptor(node, key);
      if (descriptor === undefined || !('value' in descriptor)) {
        continue;
      }
      const value: unknown = descriptor.value;
      const path = prefix === '' ? key : `${prefix}.${key}`;
      if (typeof value === 'number') {
        // An empty path would read as the body itself and is refused as a metric dimension.
        if (Number.isFinite(value) && path !== '') {
          figures.push([path, value]);
          if (figures.length >= cap) {
            return true;
          }
        }
      } else if (typeof value === 'object' && value !== null && depth + 1 < FIGURES_MAX_DEPTH) {
        if (visit(value, path, depth + 1)) {
          return true;
        }
      }
    }
    return false;
  };

  try {
    if (typeof body === 'object' && body !== null) {
      visit(body, '', 0);
    }
  } catch {
    // Only a Proxy with throwing traps gets here; what was found before it is still worth reporting.
  }
  return figures;
}
