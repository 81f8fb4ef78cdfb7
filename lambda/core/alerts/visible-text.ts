/**
 * Text that a reader can trust: ASCII folding for the subject and SMS, and visible escapes (`<U+202E>`) for the
 * characters a reader cannot see (controls, format characters such as zero-width spaces and bidirectional
 * overrides, unusual spaces), so that a text from the API can neither hide in an alert nor reorder it.
 * Pure. (`hidden-characters.ts` refuses such characters in configuration; here they are shown, not refused.)
 */

/** Characters NFKD leaves alone (or turns into something unhelpful) that have an obvious ASCII form. */
const TYPOGRAPHIC: ReadonlyMap<string, string> = new Map([
  ['\u2018', "'"],
  ['\u2019', "'"],
  ['\u201A', "'"],
  ['\u201B', "'"],
  ['\u2032', "'"],
  ['\u2035', "'"],
  ['\u02BC', "'"],
  ['\u2039', "'"],
  ['\u203A', "'"],
  ['\u201C', '"'],
  ['\u201D', '"'],
  ['\u201E', '"'],
  ['\u201F', '"'],
  ['\u2033', '"'],
  ['\u2036', '"'],
  ['\u00AB', '"'],
  ['\u00BB', '"'],
  ['\u2010', '-'],
  ['\u2011', '-'],
  ['\u2012', '-'],
  ['\u2013', '-'],
  ['\u2014', '-'],
  ['\u2015', '-'],
  ['\u2043', '-'],
  ['\u2212', '-'],
  ['\u2026', '...'],
  ['\u00A0', ' '],
  ['\u2007', ' '],
  ['\u202F', ' '],
  ['\u00DF', 'ss'],
  ['\u00C6', 'AE'],
  ['\u00E6', 'ae'],
  ['\u0152', 'OE'],
  ['\u0153', 'oe'],
  ['\u00D8', 'O'],
  ['\u00F8', 'o'],
  ['\u0141', 'L'],
  ['\u0142', 'l'],
  ['\u0110', 'D'],
  ['\u0111', 'd'],
  ['\u00D0', 'D'],
  ['\u00F0', 'd'],
  ['\u00DE', 'Th'],
  ['\u00FE', 'th'],
  ['\u0131', 'i'],
]);

const PRINTABLE_ASCII = /^[\x20-\x7E]*$/;
const COMBINING_MARK = /^\p{M}$/u;
const SPACE_LIKE = /^[\t\n\v\f\r\u0085\u2028\u2029\p{Zs}]$/u;
const INVISIBLE = /^[\p{Cc}\p{Cf}]$/u;
/** Controls, format characters (zero-width, bidi controls, BOM, soft hyphen, tags), line separators, spaces. */
const HIDDEN = /[\p{Cc}\p{Cf}\p{Zs}\u2028\u2029]/u;
const HIDDEN_ALL = /[\p{Cc}\p{Cf}\p{Zs}\u2028\u2029]/gu;
/** What a one-line free text may show as a plain space instead of an escape. */
const LINE_BREAK_OR_TAB = /[\t\n\r]/;

/**
 * Transliterates text to printable ASCII (0x20–0x7E): typographic quotes, dashes, ellipsis and no-break spaces
 * become their ASCII forms, a few letters that do not decompose (ß, æ, ø, ł, ...) are spelled out, NFKD
 * splits the rest and combining marks are dropped (`é` → `e`).
 * Whitespace controls (tab, newlines, line separators) and other spaces become one space each; other control
 * and invisible format characters (zero-width space, BOM, soft hyphen) are removed; every other code point
 * (CJK, emoji, a lone surrogate) becomes one `?`. For text from the API, use {@link foldVisible}.
 */
export function asciiFold(text: string): string {
  if (typeof text !== 'string') {
    return '';
  }
  if (PRINTABLE_ASCII.test(text)) {
    return text;
  }
  let out = '';
  for (const char of text) {
    out += foldChar(char);
  }
  return out;
}

/**
 * {@link asciiFold} for text from the API: every hidden character (control, format character, space other
 * than U+0020, line separator) becomes a visible escape such as `<U+202E>` instead of vanishing or turning
 * into a space, so that `ON` and `ON<U+200B>` stay apart. With `breaks: 'space'` (free text such as an error
 * excerpt), tab, LF and CR read as one space each.
 */
export function foldVisible(text: string, breaks: 'escape' | 'space' = 'escape'): string {
  if (typeof text !== 'string') {
    return '';
  }
  if (PRINTABLE_ASCII.test(text)) {
    return text;
  }
  let out = '';
  for (const char of text) {
    if (char !== ' ' && HIDDEN.test(char)) {
      out += breaks === 'space' && LINE_BREAK_OR_TAB.test(char) ? ' ' : codePointEscape(char);
    } else {
      out += foldChar(char);
    }
  }
  return out;
}

/**
 * Every code point outside printable ASCII as `<U+XXXX>`, and spaces at either end too: the form that tells
 * two texts apart when they look the same (`ОN`, with a Cyrillic О, is `<U+041E>N`).
 */
export function escapeNonAscii(text: string): string {
  let out = '';
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    out += code >= 0x20 && code <= 0x7e ? char : codePointEscape(char);
  }
  return out.replace(/^ +| +$/g, (spaces) => '<U+0020>'.repeat(spaces.length));
}

/**
 * Hidden characters (see {@link foldVisible}) as `<U+XXXX>`, everything else as it is: for the email, which
 * keeps letters of every script. With `breaks: 'space'`, tab, LF and CR read as one space each.
 */
export function escapeHidden(text: string, breaks: 'escape' | 'space' = 'escape'): string {
  return text.replace(HIDDEN_ALL, (char) =>
    char === ' ' ? char : breaks === 'space' && LINE_BREAK_OR_TAB.test(char) ? ' ' : codePointEscape(char),
  );
}

/**
 * Cuts `text` to at most `max` UTF-16 code units, ending with `...` when it was cut (with `max` under 3, only
 * dots fit). A surrogate pair is never split.
 */
export function shorten(text: string, max: number): string {
  const limit = Number.isNaN(max) ? 0 : Math.max(0, Math.floor(max));
  if (text.length <= limit) {
    return text;
  }
  if (limit < 3) {
    return '.'.repeat(limit);
  }
  let cut = limit - 3;
  if (cut > 0 && isHighSurrogate(text.charCodeAt(cut - 1))) {
    cut -= 1;
  }
  return `${text.slice(0, cut)}...`;
}

/** `<U+202E>`: four to six upper-case hex digits. */
function codePointEscape(char: string): string {
  return `<U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}>`;
}

function foldChar(char: string): string {
  const mapped = TYPOGRAPHIC.get(char);
  if (mapped !== undefined) {
    return mapped;
  }
  let out = '';
  for (const part of char.normalize('NFKD')) {
    out += foldCodePoint(part);
  }
  return out;
}

function foldCodePoint(char: string): string {
  const code = char.codePointAt(0) ?? 0;
  if (code >= 0x20 && code <= 0x7e) {
    return char;
  }
  const mapped = TYPOGRAPHIC.get(char);
  if (mapped !== undefined) {
    return mapped;
  }
  if (COMBINING_MARK.test(char)) {
    return '';
  }
  if (SPACE_LIKE.test(char)) {
    return ' ';
  }
  if (INVISIBLE.test(char)) {
    return '';
  }
  return '?';
}

export function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Free text for an email: shortened, on one line (tab, LF and CR read as spaces), every other hidden
 * character (controls, format characters such as U+202E, unusual spaces) as `<U+XXXX>`, a lone surrogate
 * as U+FFFD. At most `max` characters.
 */
export function cleanText(text: string, max: number): string {
  const visible = escapeHidden(shorten(text, max), 'space').replace(LONE_SURROGATE, '\uFFFD');
  return shorten(visible, max);
}
