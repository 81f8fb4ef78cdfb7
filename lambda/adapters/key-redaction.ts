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
 *
 * A JSON body is scrubbed as JSON ({@link KeyRedactor.json}): in its strings (values and property names),
 * so that it stays JSON and its numbers stay the numbers the API sent. A number is scrubbed only for a key
 * that a number could spell (made only of digits and `+-.eE`): a key with any other character cannot be
 * echoed as a number, and a counter whose digits happen to repeat the key's digits is data, not an echo.
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
  /**
   * A JSON text scrubbed as JSON, still JSON: each string (value or property name) in which {@link text}
   * finds the key, as written or once decoded, is written again with the key replaced (a string whose
   * scrubbed form would still hold it becomes `"[REDACTED]"` whole). Numbers are left as written, unless the
   * key could be spelled by a number (digits and `+-.eE` only): then a number in which {@link text} finds the
   * key becomes the string `"[REDACTED]"`. Whitespace, punctuation and every other token stay as written, so
   * numbers keep their exact text. The same string when nothing was found. Meant for a text that parsed; any
   * other text comes back with its string-like and number-like runs treated the same way.
   */
  json(text: string): string;
}

const NONE: KeyRedactor = { text: (text) => text, json: (text) => text };

/** Characters a JSON number is written with: a key made only of these could come back as a number. */
const NUMBER_SPELLED = /^[0-9+\-.eE]+$/;

/** The redactor for `key`. An empty key scrubs nothing. */
export function redactorFor(key: string): KeyRedactor {
  if (key.length === 0) return NONE;
  const numbers = NUMBER_SPELLED.test(key);
  if (key.length < W) {
    const text = (text: string): string => (text.includes(key) ? text.replaceAll(key, REDACTED) : text);
    return { text, json: (body) => scrubJson(body, text, numbers) };
  }
  return new FragmentRedactor(key, numbers);
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
  /** Whether a number could spell the key (see {@link NUMBER_SPELLED}). */
  readonly #numbers: boolean;

  constructor(key: string, numbers: boolean) {
    this.#numbers = numbers;
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

  json(text: string): string {
    return scrubJson(text, (piece) => this.text(piece), this.#numbers);
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

/** What stands where a whole string or number of a JSON text is replaced. */
const QUOTED_REDACTED = JSON.stringify(REDACTED);

/**
 * See {@link KeyRedactor.json}. Walks the tokens of a JSON text without parsing it into values: only a
 * string or number in which the key is found is written again; everything else is copied as it stands.
 */
function scrubJson(text: string, scrub: (text: string) => string, numbers: boolean): string {
  const pieces: string[] = [];
  let copied = 0;
  let pos = 0;
  while (pos < text.length) {
    const unit = text.charCodeAt(pos);
    if (unit === 0x22 /* " */) {
      const end = stringEnd(text, pos);
      const token = text.slice(pos, end);
      const clean = scrubStringToken(token, scrub);
      if (clean !== token) {
        pieces.push(text.slice(copied, pos), clean);
        copied = end;
      }
      pos = end;
    } else if (numbers && isNumberUnit(unit)) {
      let end = pos + 1;
      while (end < text.length && isNumberUnit(text.charCodeAt(end))) end++;
      const token = text.slice(pos, end);
      if (scrub(token) !== token) {
        pieces.push(text.slice(copied, pos), QUOTED_REDACTED);
        copied = end;
      }
      pos = end;
    } else if (numbers) {
      pos++;
    } else {
      // Only strings can hold the key: jump to the next one.
      const next = text.indexOf('"', pos + 1);
      pos = next < 0 ? text.length : next;
    }
  }
  if (pieces.length === 0) return text;
  pieces.push(text.slice(copied));
  return pieces.join('');
}

/** Just past the closing quote of the string token that opens at `start` (or the text's end when unclosed). */
function stringEnd(text: string, start: number): number {
  let pos = start + 1;
  while (pos < text.length) {
    const unit = text.charCodeAt(pos);
    if (unit === 0x22) return pos + 1;
    pos += unit === 0x5c /* \ */ ? 2 : 1;
  }
  return text.length;
}

function isNumberUnit(unit: number): boolean {
  return (
    (unit >= 0x30 && unit <= 0x39) ||
    unit === 0x2d /* - */ ||
    unit === 0x2b /* + */ ||
    unit === 0x2e /* . */ ||
    unit === 0x65 /* e */ ||
    unit === 0x45 /* E */
  );
}

/**
 * One string token (quotes included), scrubbed: the key is looked for in the token as written (escapes
 * decoded once, by {@link KeyRedactor.text}) and in its value (where an escape of an escape, such as
 * `\u0025\u0037\u0033`, has become `%73`). A token with neither is returned as it is; otherwise its
 * scrubbed value, written again as JSON. Should the written form still hold the key (a key with `\` or `"`
 * that the escapes of the new form would spell), the whole string is replaced.
 */
function scrubStringToken(token: string, scrub: (text: string) => string): string {
  const escaped = token.includes('\\');
  if (!escaped) {
    // No escape: the value is the text between the quotes, and scanning it is scanning the token.
    const value = token.slice(1, token.endsWith('"') && token.length > 1 ? -1 : undefined);
    const clean = scrub(value);
    return clean === value ? token : written(clean, scrub);
  }
  let value: string;
  try {
    value = JSON.parse(token) as string;
  } catch {
    // Not a string token (only in a text that is not JSON): it is kept only if nothing is found in it.
    return scrub(token) === token ? token : QUOTED_REDACTED;
  }
  const clean = scrub(value);
  if (clean === value && scrub(token) === token) return token;
  return written(clean, scrub);
}

/** `value` as a JSON string, or `"[REDACTED]"` when the value or its written form still holds the key. */
function written(value: string, scrub: (text: string) => string): string {
  const out = JSON.stringify(value);
  return scrub(value) === value && scrub(out) === out ? out : QUOTED_REDACTED;
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
