/**
 * Scrubbing the API key out of whatever the API sends back, before any of it leaves the client.
 *
 * Security-critical: every text the client hands on (error excerpts, body text and parsed body, echoed
 * headers) passes through here. For a key of at least {@link MIN_FRAGMENT_LENGTH} characters, every run of
 * {@link MIN_FRAGMENT_LENGTH} or more characters that is also a run of the key is replaced, wherever it
 * stands (also cut at the end of an excerpt or a read), and in any of the forms an echo takes: as written,
 * in another letter case (ASCII), percent-encoded (`%73`, `%2D`, any mix) and JSON-escaped (`\u0073`,
 * `\/`). A shorter key is replaced only where it stands whole and as written: a short run of characters
 * cannot be told apart from ordinary data.
 */

/** The marker that stands where the key (or a fragment of it) was. */
export const REDACTED = '[REDACTED]';

/** Shortest run of the key's characters that is scrubbed wherever it stands; also the shortest key scrubbed so. */
export const MIN_FRAGMENT_LENGTH = 8;

const W = MIN_FRAGMENT_LENGTH;

/** Scrubs one key from texts; built once per key (see {@link redactorFor}). */
export interface KeyRedactor {
  /** The text with every copy and every fragment of the key replaced by {@link REDACTED}; the same string when none. */
  text(text: string): string;
}

const NONE: KeyRedactor = { text: (text) => text };

/** The redactor for `key`. An empty key scrubs nothing. */
export function redactorFor(key: string): KeyRedactor {
  if (key.length === 0) return NONE;
  if (key.length < W) {
    return { text: (text) => (text.includes(key) ? text.replaceAll(key, REDACTED) : text) };
  }
  return new FragmentRedactor(key);
}

/** Shorthand for one text: `redactorFor(key).text(text)`. */
export function redactKey(text: string, key: string): string {
  return redactorFor(key).text(text);
}

/** ASCII letters to lower case; every other code unit as it is (so lengths never change). */
function fold(unit: number): number {
  return unit >= 0x41 && unit <= 0x5a ? unit + 0x20 : unit;
}

function hexValue(unit: number): number {
  if (unit >= 0x30 && unit <= 0x39) return unit - 0x30;
  const lower = unit | 0x20;
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x61 + 10;
  return -1;
}

const JSON_SIMPLE_ESCAPES: Readonly<Record<string, number>> = {
  '"': 0x22,
  '\\': 0x5c,
  '/': 0x2f,
  b: 0x08,
  f: 0x0c,
  n: 0x0a,
  r: 0x0d,
  t: 0x09,
};

/**
 * The redactor of a key of at least the window length. Its fields are `#private` (runtime privacy), unlike
 * the TypeScript `private` used elsewhere, because they hold the key.
 */
class FragmentRedactor implements KeyRedactor {
  /** The key, folded. */
  readonly #key: Uint16Array;
  /** For each folded code unit, where a window of the key may start with it. */
  readonly #starts = new Map<number, number[]>();

  constructor(key: string) {
    this.#key = Uint16Array.from({ length: key.length }, (_, i) => fold(key.charCodeAt(i)));
    for (let j = 0; j + W <= key.length; j++) {
      const unit = this.#key[j]!;
      const list = this.#starts.get(unit);
      if (list === undefined) this.#starts.set(unit, [j]);
      else list.push(j);
    }
  }

  text(text: string): string {
    if (text.length < W) return text;
    let ranges = this.#scan(text, false);
    // Escapes are decoded in a second pass: read as written, the characters of an escape would hide a
    // fragment that starts inside it; read decoded, they would hide a key that holds `%` or `\` itself.
    if (text.includes('%') || text.includes('\\')) ranges = merge(ranges, this.#scan(text, true));
    if (ranges.length === 0) return text;
    let out = '';
    let at = 0;
    for (let i = 0; i < ranges.length; i += 2) {
      out += text.slice(at, ranges[i]) + REDACTED;
      at = ranges[i + 1]!;
    }
    return out + text.slice(at);
  }

  /**
   * Where runs of at least {@link W} units of the key stand, as a flat list of `[start, end)` offsets into
   * `text`, merged and in order. With `decode`, one unit is one character, one `%XX` or one JSON escape.
   */
  #scan(text: string, decode: boolean): number[] {
    const ranges: number[] = [];
    const units = new Uint16Array(W);
    const offsets = new Int32Array(W);
    let seen = 0;
    let pos = 0;
    while (pos < text.length) {
      let unit = text.charCodeAt(pos);
      let width = 1;
      if (decode && (unit === 0x25 || unit === 0x5c)) {
        unit = decodeAt(text, pos, unit);
        width = decodedWidth;
      }
      units[seen % W] = fold(unit);
      offsets[seen % W] = pos;
      seen++;
      pos += width;
      if (seen < W) continue;
      const first = seen % W;
      const candidates = this.#starts.get(units[first]!);
      if (candidates === undefined) continue;
      for (const j of candidates) {
        let t = 1;
        while (t < W && units[(first + t) % W] === this.#key[j + t]) t++;
        if (t === W) {
          addRange(ranges, offsets[first]!, pos);
          break;
        }
      }
    }
    return ranges;
  }
}

/** Width in code units of the last escape {@link decodeAt} read (a scratch slot: no array per character). */
let decodedWidth = 1;

/**
 * The code unit that a `%XX` or a JSON escape at `pos` stands for, its width left in {@link decodedWidth};
 * anything else is itself, width 1.
 */
function decodeAt(text: string, pos: number, unit: number): number {
  decodedWidth = 1;
  if (unit === 0x25 /* % */ && pos + 2 < text.length) {
    const high = hexValue(text.charCodeAt(pos + 1));
    const low = hexValue(text.charCodeAt(pos + 2));
    if (high >= 0 && low >= 0) {
      decodedWidth = 3;
      return high * 16 + low;
    }
  } else if (unit === 0x5c /* \ */ && pos + 1 < text.length) {
    const next = text[pos + 1]!;
    if (next === 'u' && pos + 5 < text.length) {
      let value = 0;
      for (let i = 2; i < 6; i++) {
        const digit = hexValue(text.charCodeAt(pos + i));
        if (digit < 0) return unit;
        value = value * 16 + digit;
      }
      decodedWidth = 6;
      return value;
    }
    const simple = JSON_SIMPLE_ESCAPES[next];
    if (simple !== undefined) {
      decodedWidth = 2;
      return simple;
    }
  }
  return unit;
}

/** Appends `[start, end)` to a flat, ordered range list, joining it to the last range when they touch. */
function addRange(ranges: number[], start: number, end: number): void {
  const last = ranges.length - 1;
  if (last > 0 && start <= ranges[last]!) {
    ranges[last] = Math.max(ranges[last]!, end);
    return;
  }
  ranges.push(start, end);
}

/** The union of two flat, ordered range lists. */
function merge(a: number[], b: number[]): number[] {
  if (b.length === 0) return a;
  if (a.length === 0) return b;
  const pairs: Array<[number, number]> = [];
  for (let i = 0; i < a.length; i += 2) pairs.push([a[i]!, a[i + 1]!]);
  for (let i = 0; i < b.length; i += 2) pairs.push([b[i]!, b[i + 1]!]);
  pairs.sort((x, y) => x[0] - y[0]);
  const out: number[] = [];
  for (const [start, end] of pairs) addRange(out, start, end);
  return out;
}
