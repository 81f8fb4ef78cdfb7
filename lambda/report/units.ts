/**
 * The unit of a network figure, for the report's axes and legends (docs/report.md): read from the field's
 * name (`traffic.in_pps` is packets per second), or set by the `figureUnits` setting where a name says nothing.
 * Pure.
 */

/** A figure's unit as shown on an axis; `''` when the name says nothing (a plain number). */
export type FigureUnit = string;

/** Words of a field name and the unit each means, as rates per second (the API reports real-time rates). */
const UNIT_WORDS: ReadonlyArray<readonly [RegExp, FigureUnit]> = [
  [/^(pps|packets?|pkts?)$/, 'pps'],
  [/^(bps|bits?)$/, 'bps'],
  [/^(bytes?|octets?)$/, 'B/s'],
  [/^(rps|requests?|reqs?)$/, 'req/s'],
  [/^(cps|connections?|conns?)$/, 'conn/s'],
  [/^(percent|pct|ratio_?pct)$/, '%'],
];

/** Longest unit accepted from the `figureUnits` setting: it is drawn beside every axis value. */
export const MAX_UNIT_LENGTH = 12;

/** The words of a dot path, last first: `traffic.inPps` -> `pps`, `in`, `traffic`. */
function wordsOf(path: string): string[] {
  return path
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9%]+/)
    .filter((word) => word !== '')
    .reverse();
}

/**
 * The unit of the figure at `path`: the override when there is one, else the unit its name says (the word
 * nearest the end that names one: `traffic.in_pps` and `packets.in` -> `pps`, `traffic.in.bps` and
 * `bits_in` -> `bps`, `bytes` -> `B/s`), else `''`. A name that ends in `pps` or `bps` glued to another
 * word (`inpps`) counts too.
 */
export function unitOf(path: string, overrides: ReadonlyMap<string, FigureUnit> = new Map()): FigureUnit {
  const set = overrides.get(path);
  if (set !== undefined) return set;
  for (const word of wordsOf(path)) {
    for (const [pattern, unit] of UNIT_WORDS) if (pattern.test(word)) return unit;
  }
  const last = wordsOf(path)[0] ?? '';
  if (/pps$/.test(last)) return 'pps';
  if (/bps$/.test(last)) return 'bps';
  return '';
}

/** What {@link parseFigureUnits} made of the setting. */
export type FigureUnitsParse =
  | { readonly ok: true; readonly units: ReadonlyMap<string, FigureUnit> }
  | { readonly ok: false; readonly problems: string[] };

/**
 * Parses the `figureUnits` setting: `PATH=UNIT,PATH=UNIT`, e.g. `traffic.in=pps,traffic.volume=B/s`. A unit is
 * 1 to {@link MAX_UNIT_LENGTH} printable characters without `,` or `=`; `PATH=` (empty) says the figure has no
 * unit. Every problem is reported, without the setting's name (the caller adds it).
 */
export function parseFigureUnits(text: string): FigureUnitsParse {
  const units = new Map<string, FigureUnit>();
  const problems: string[] = [];
  for (const raw of text.split(',')) {
    const item = raw.trim();
    if (item === '') continue;
    const eq = item.indexOf('=');
    const path = eq < 0 ? item : item.slice(0, eq).trim();
    const unit = eq < 0 ? undefined : item.slice(eq + 1).trim();
    if (unit === undefined || path === '') {
      problems.push(
        `expects PATH=UNIT items separated by commas (e.g. traffic.in=pps), got ${JSON.stringify(item)}`,
      );
      continue;
    }
    if (unit.length > MAX_UNIT_LENGTH || unit.includes('=') || /[\p{Cc}\p{Cf}]/u.test(unit)) {
      problems.push(
        `unit of ${JSON.stringify(path)} must be at most ${MAX_UNIT_LENGTH} printable characters without "=", got ${JSON.stringify(unit)}`,
      );
      continue;
    }
    if (units.has(path)) {
      problems.push(`names ${JSON.stringify(path)} twice`);
      continue;
    }
    units.set(path, unit);
  }
  return problems.length === 0 ? { ok: true, units } : { ok: false, problems };
}

const SUFFIXES = ['', 'k', 'M', 'G', 'T', 'P'];

/** `1176897` -> `1.18M`: short enough for a table cell on a phone; the page's script has the same rule. */
export function siNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  let v = Math.abs(value);
  let i = 0;
  while (v >= 1000 && i < SUFFIXES.length - 1) {
    v /= 1000;
    i++;
  }
  const digits = v >= 100 || Number.isInteger(v) ? 0 : v >= 10 ? 1 : 2;
  return `${value < 0 ? '-' : ''}${Number(v.toFixed(digits))}${SUFFIXES[i]}`;
}

/** A value with its unit: `1.18M pps`, `42` (no unit). */
export function withUnit(value: number, unit: FigureUnit): string {
  return unit === '' ? siNumber(value) : `${siNumber(value)} ${unit}`;
}
