/**
 * Following a dot path (`data.filter.state`, `links.0.pps`) into an untrusted parsed JSON body: the one
 * lookup and split behind status extraction (`status.ts`), figure fields (`figures.ts`), traffic rules
 * (`rules.ts`) and the terminal charts (`cli/chart.ts`).
 * Pure: no clock, no environment.
 */

/** Canonical array index: `0`, `12`, but not `01`, `-1`, `1.0` or `length`. */
export const ARRAY_INDEX = /^(?:0|[1-9][0-9]*)$/;

/** What a path leads to: a value, or nothing. */
export type Lookup = { found: true; value: unknown } | { found: false };

const NOT_FOUND: Lookup = { found: false };

/** The segments of a dot path, as written (no trimming, no validation); the empty path has none. */
export function pathSegments(path: string): string[] {
  return path === '' ? [] : path.split('.');
}

/**
 * The value at `segments` inside `body` (no segments: `body` itself). Only own data properties are followed,
 * so a getter never runs and `constructor` or `toString` never resolve through a prototype; arrays are
 * indexed by canonical numeric segments only (`length` is not an element); a property holding `undefined`
 * counts as missing. May throw only for an exotic object (a Proxy with throwing traps); parsed JSON never does.
 */
export function lookUp(body: unknown, segments: readonly string[]): Lookup {
  let current: unknown = body;
  for (const segment of segments) {
    if (typeof current !== 'object' || current === null) return NOT_FOUND;
    if (Array.isArray(current) && !ARRAY_INDEX.test(segment)) return NOT_FOUND;
    const descriptor = Object.getOwnPropertyDescriptor(current, segment);
    if (descriptor === undefined || !('value' in descriptor) || descriptor.value === undefined) {
      return NOT_FOUND;
    }
    current = descriptor.value;
  }
  return { found: true, value: current };
}
