/**
 * Reading the filter status out of an untrusted JSON body (docs/design/cycle.md, Filter status).
 * Pure: no clock, no environment, never throws.
 */
import { SETTINGS } from '../../settings.ts';
import { ARRAY_INDEX, lookUp, pathSegments } from '../rules/dot-path.ts';

/** Paths tried in this order when the status path setting is not set; the first that holds a scalar wins. */
export const DEFAULT_STATUS_PATHS = [
  'status',
  'state',
  'data.status',
  'data.state',
  'filter.status',
  'filter.state',
] as const;

/** Result of {@link parseStatusPath}: the path's segments, or why the text is not a usable path. */
export type StatusPathParse = { ok: true; segments: string[] } | { ok: false; error: string };

/** The status read from a body (exact text and the path it came from), or why none could be read. */
export type StatusReading = { ok: true; status: string; path: string } | { ok: false; error: string };

/** Longest path quoted in an error text, so that errors stay short enough for logs and stored items. */
const MAX_PATH_IN_ERROR = 60;

/**
 * Validates a dot path such as `data.filter.state` (the value of the status path setting).
 * The input is trimmed; every segment must be non-empty and have no spaces around it. Numeric segments
 * index arrays (`items.0.state`). Any other character is allowed, as JSON keys may hold anything but a dot.
 */
export function parseStatusPath(path: string): StatusPathParse {
  if (typeof path !== 'string') {
    return { ok: false, error: 'status path must be a string' };
  }
  const trimmed = path.trim();
  if (trimmed === '') {
    return { ok: false, error: 'status path is empty (expected a dot path such as data.filter.state)' };
  }
  const segments = pathSegments(trimmed);
  if (segments.some((segment) => segment === '')) {
    return {
      ok: false,
      error: `status path ${quotePath(trimmed)} has an empty segment (expected names joined by single dots, such as data.filter.state)`,
    };
  }
  if (segments.some((segment) => segment.trim() !== segment)) {
    return { ok: false, error: `status path ${quotePath(trimmed)} has spaces around a segment` };
  }
  return { ok: true, segments };
}

/** Longest status accepted, in UTF-16 code units; a longer one is an unreadable status. */
export const MAX_STATUS_LENGTH = 1024;

/**
 * Reads the filter status from a parsed body.
 *
 * With `path` (any string, validated with {@link parseStatusPath}), the status is the value at that path;
 * without it (`undefined`), the first of {@link DEFAULT_STATUS_PATHS} that holds a string, number or boolean
 * (missing paths, `null`, objects and arrays are passed over).
 * A string is returned exactly as it is (empty, whitespace, any unicode); a number or boolean as its JSON text.
 * Only own data properties are followed, so `constructor` or `toString` never resolve through a prototype,
 * and arrays are indexed by canonical numeric segments only (`length` is not a status).
 * A status longer than {@link MAX_STATUS_LENGTH} is unreadable.
 *
 * `sourceText` is the text `body` was parsed from. With it, a number whose parsed value is not the number
 * written (an integer past 2^53, a number that overflows to Infinity or underflows to 0, more digits than a
 * double holds) is its exact source text, so different numbers never read as the same status; a number the
 * double holds exactly is its JSON text as before (`1.0` and `1e0` are `1`).
 * Never throws; error texts are short (under 200 characters) and say what was found instead.
 */
export function extractStatus(body: unknown, path?: string, sourceText?: string): StatusReading {
  try {
    return path === undefined ? readDefault(body, sourceText) : readConfigured(body, path, sourceText);
  } catch {
    // Only an exotic object (a Proxy with throwing traps) gets here; parsed JSON never does.
    return { ok: false, error: 'status could not be read from the body' };
  }
}

/** The status as shown where text must not be empty: `(empty)` for the empty status, the status otherwise. */
export function displayStatus(status: string): string {
  return status === '' ? '(empty)' : status;
}

function readConfigured(body: unknown, path: string, sourceText: string | undefined): StatusReading {
  const parsed = parseStatusPath(path);
  if (!parsed.ok) {
    return { ok: false, error: parsed.error };
  }
  const normalized = parsed.segments.join('.');
  const lookup = lookUp(body, parsed.segments);
  if (!lookup.found) {
    const why = isContainer(body) ? '' : ` (the body is ${describe(body)})`;
    return { ok: false, error: `status path ${quotePath(normalized)} not found in the body${why}` };
  }
  const status = scalarText(lookup.value);
  if (status === undefined) {
    return {
      ok: false,
      error: `status path ${quotePath(normalized)} holds ${describe(lookup.value)}, not a status`,
    };
  }
  return bounded(exactNumber(lookup.value, status, sourceText, parsed.segments), normalized);
}

/**
 * A status longer than {@link MAX_STATUS_LENGTH} is unreadable: no filter has such a status, and it would
 * not fit the monitor state, the alert attributes or a DynamoDB item beside its body.
 */
function bounded(status: string, path: string): StatusReading {
  if (status.length > MAX_STATUS_LENGTH) {
    return {
      ok: false,
      error: `status at ${quotePath(path)} is ${status.length} characters long (at most ${MAX_STATUS_LENGTH})`,
    };
  }
  return { ok: true, status, path };
}

function readDefault(body: unknown, sourceText: string | undefined): StatusReading {
  for (const path of DEFAULT_STATUS_PATHS) {
    const segments = pathSegments(path);
    const lookup = lookUp(body, segments);
    if (lookup.found) {
      const status = scalarText(lookup.value);
      if (status !== undefined) {
        return bounded(exactNumber(lookup.value, status, sourceText, segments), path);
      }
    }
  }
  const hint = isContainer(body) ? '' : `the body is ${describe(body)}; `;
  return {
    ok: false,
    error: `no status found at ${DEFAULT_STATUS_PATHS.join(', ')} (${hint}set ${SETTINGS.statusPath.env})`,
  };
}

function isContainer(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

function scalarText(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return value;
    case 'boolean':
      return String(value);
    case 'number':
      // JSON has no NaN or Infinity; String keeps them readable should a caller pass one anyway.
      return Number.isFinite(value) ? JSON.stringify(value) : String(value);
    default:
      return undefined;
  }
}

/**
 * A number status as its source text when parsing lost what was written: the value written (read from the
 * source at the same path) and the parsed double's JSON text are compared as decimals, so only a number the
 * double does not hold exactly changes from its JSON text.
 */
function exactNumber(
  value: unknown,
  shown: string,
  sourceText: string | undefined,
  segments: readonly string[],
): string {
  if (typeof value !== 'number' || sourceText === undefined) return shown;
  const written = numberAt(sourceText, segments);
  // The source must be the number that was parsed; anything else means the text is not the body's.
  if (written === undefined || !Object.is(Number(written), value)) return shown;
  const a = decimal(written);
  return a !== undefined && a === decimal(shown) ? shown : written;
}

const JSON_NUMBER = /^(-?)(0|[1-9]\d*)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** A JSON number's exact value as `sign digits e exponent` (no leading or trailing zeros); undefined for other text. */
function decimal(text: string): string | undefined {
  const match = JSON_NUMBER.exec(text);
  if (match === null) return undefined;
  const [, sign, whole, fraction = '', exponent = '0'] = match;
  let digits = `${whole}${fraction}`.replace(/^0+/, '');
  if (digits === '') return '0';
  const trailing = digits.length - digits.replace(/0+$/, '').length;
  digits = digits.slice(0, digits.length - trailing);
  // BigInt: an exponent may have more digits than a double holds.
  const power = BigInt(exponent) - BigInt(fraction.length) + BigInt(trailing);
  return `${sign}${digits}e${power}`;
}

/**
 * The source text of the number at `segments` in a JSON text, found the way `JSON.parse` resolves it (the
 * last of duplicate names wins); undefined when the text does not hold a number there. One pass, no recursion.
 */
function numberAt(text: string, segments: readonly string[]): string | undefined {
  let pos = skipSpace(text, 0);
  for (const segment of segments) {
    const open = text[pos];
    if (open === '{') {
      let found: number | undefined;
      pos = skipSpace(text, pos + 1);
      if (text[pos] === '}') return undefined;
      for (;;) {
        const end = stringEnd(text, pos);
        if (end === undefined) return undefined;
        const name = text.slice(pos, end);
        pos = skipSpace(text, end);
        if (text[pos] !== ':') return undefined;
        pos = skipSpace(text, pos + 1);
        if ((name.includes('\\') ? (JSON.parse(name) as string) : name.slice(1, -1)) === segment) found = pos;
        const after = valueEnd(text, pos);
        if (after === undefined) return undefined;
        pos = skipSpace(text, after);
        if (text[pos] === ',') pos = skipSpace(text, pos + 1);
        else if (text[pos] === '}') break;
        else return undefined;
      }
      if (found === undefined) return undefined;
      pos = found;
    } else if (open === '[' && ARRAY_INDEX.test(segment)) {
      pos = skipSpace(text, pos + 1);
      for (let index = Number(segment); index > 0; index--) {
        const after = valueEnd(text, pos);
        if (after === undefined) return undefined;
        pos = skipSpace(text, after);
        if (text[pos] !== ',') return undefined;
        pos = skipSpace(text, pos + 1);
      }
    } else {
      return undefined;
    }
  }
  NUMBER_TOKEN.lastIndex = pos;
  return NUMBER_TOKEN.exec(text)?.[0];
}

const NUMBER_TOKEN = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

function skipSpace(text: string, pos: number): number {
  while (pos < text.length) {
    const c = text.charCodeAt(pos);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) break;
    pos++;
  }
  return pos;
}

/** End (after the closing quote) of the JSON string that starts at `pos`; undefined when there is none. */
function stringEnd(text: string, pos: number): number | undefined {
  if (text[pos] !== '"') return undefined;
  for (let i = pos + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5c) i++;
    else if (c === 0x22) return i + 1;
  }
  return undefined;
}

/** End of the JSON value that starts at `pos`: strings skipped whole, containers by counting brackets. */
function valueEnd(text: string, pos: number): number | undefined {
  const first = text[pos];
  if (first === '"') return stringEnd(text, pos);
  if (first !== '{' && first !== '[') {
    let i = pos;
    while (i < text.length && !',]} \t\n\r'.includes(text[i]!)) i++;
    return i > pos ? i : undefined;
  }
  let depth = 0;
  for (let i = pos; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      const end = stringEnd(text, i);
      if (end === undefined) return undefined;
      i = end - 1;
    } else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return undefined;
}

function describe(value: unknown): string {
  if (value === null) {
    return 'null';
  }
  if (Array.isArray(value)) {
    return 'an array';
  }
  switch (typeof value) {
    case 'object':
      return 'an object';
    case 'undefined':
      return 'nothing';
    case 'string':
      return 'a string';
    case 'number':
      return 'a number';
    case 'boolean':
      return 'a boolean';
    default:
      return `a ${typeof value}`;
  }
}

/** Quotes a path for an error text: JSON-escaped (control characters stay visible), long ones shortened. */
function quotePath(path: string): string {
  const codePoints = Array.from(path);
  const short =
    codePoints.length > MAX_PATH_IN_ERROR
      ? `${codePoints.slice(0, MAX_PATH_IN_ERROR - 3).join('')}...`
      : path;
  const quoted = JSON.stringify(short);
  // Escapes can multiply the length (\u0000 is six characters for one).
  return quoted.length > 2 * MAX_PATH_IN_ERROR ? `${quoted.slice(0, 2 * MAX_PATH_IN_ERROR - 4)}..."` : quoted;
}
