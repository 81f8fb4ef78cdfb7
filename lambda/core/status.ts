/**
 * Reading the filter status out of an untrusted JSON body (CONTRACT §5).
 * Pure: no clock, no environment, never throws.
 */

/** Paths tried in this order when `SHIELDWATCH_STATUS_PATH` is not set; the first that holds a scalar wins. */
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

/** Canonical array index: `0`, `12`, but not `01`, `-1`, `1.0` or `length`. */
const ARRAY_INDEX = /^(?:0|[1-9][0-9]*)$/;

/**
 * Validates a dot path such as `data.filter.state` (the value of `SHIELDWATCH_STATUS_PATH`).
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
  const segments = trimmed.split('.');
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
 * Never throws; error texts are short (under 200 characters) and say what was found instead.
 */
export function extractStatus(body: unknown, path?: string): StatusReading {
  try {
    return path === undefined ? readDefault(body) : readConfigured(body, path);
  } catch {
    // Only an exotic object (a Proxy with throwing traps) gets here; parsed JSON never does.
    return { ok: false, error: 'status could not be read from the body' };
  }
}

/** The status as shown where text must not be empty: `(empty)` for the empty status, the status otherwise. */
export function displayStatus(status: string): string {
  return status === '' ? '(empty)' : status;
}

function readConfigured(body: unknown, path: string): StatusReading {
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
  return bounded(status, normalized);
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

function readDefault(body: unknown): StatusReading {
  for (const path of DEFAULT_STATUS_PATHS) {
    const lookup = lookUp(body, path.split('.'));
    if (lookup.found) {
      const status = scalarText(lookup.value);
      if (status !== undefined) {
        return bounded(status, path);
      }
    }
  }
  const hint = isContainer(body) ? '' : `the body is ${describe(body)}; `;
  return {
    ok: false,
    error: `no status found at ${DEFAULT_STATUS_PATHS.join(', ')} (${hint}set SHIELDWATCH_STATUS_PATH)`,
  };
}

type Lookup = { found: true; value: unknown } | { found: false };

const NOT_FOUND: Lookup = { found: false };

function lookUp(body: unknown, segments: readonly string[]): Lookup {
  let current: unknown = body;
  for (const segment of segments) {
    const child = ownChild(current, segment);
    if (!child.found) {
      return NOT_FOUND;
    }
    current = child.value;
  }
  return { found: true, value: current };
}

function ownChild(container: unknown, key: string): Lookup {
  if (!isContainer(container)) {
    return NOT_FOUND;
  }
  if (Array.isArray(container) && !ARRAY_INDEX.test(key)) {
    return NOT_FOUND;
  }
  // A descriptor rather than `container[key]`: a getter never runs and a prototype is never consulted.
  const descriptor = Object.getOwnPropertyDescriptor(container, key);
  if (descriptor === undefined || !('value' in descriptor) || descriptor.value === undefined) {
    return NOT_FOUND;
  }
  return { found: true, value: descriptor.value };
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
