/**
 * The numeric figures of a network's real-time body, for alert text and metrics.
 * Pure: no clock, no environment, never throws.
 */
import { lookUp, pathSegments } from '../rules/dot-path.ts';

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

/** Most figure fields a deployment may choose: each is a custom metric per network ($0.30 a metric-month). */
export const MAX_FIGURE_FIELDS = 10;

/** Longest figure field path: ten of them must fit in the function's environment (4 KB for all variables). */
export const MAX_FIGURE_FIELD_LENGTH = 100;

/** Prefix of every figure metric's name, keeping them apart from the monitor's own metrics. */
export const FIGURE_METRIC_PREFIX = 'Figure.';

/**
 * The CloudWatch metric name of a figure field: {@link FIGURE_METRIC_PREFIX} and the path, each character
 * outside `A-Z a-z 0-9 . _ -` replaced by `_` (so `traffic.in_pps` is `Figure.traffic.in_pps`), which keeps
 * the name ASCII and usable in a dashboard's SEARCH without quoting surprises.
 */
export function figureMetricName(path: string): string {
  return `${FIGURE_METRIC_PREFIX}${path.replace(/[^A-Za-z0-9._-]/g, '_')}`;
}

/** A parsed figure field list, or every problem with it (without the setting's name, which the caller adds). */
export type FigureFieldsParse = { ok: true; fields: string[] } | { ok: false; problems: string[] };

/**
 * Validates the figure fields: a comma list (or the items of a list), each a dot path with the syntax of the
 * status path (`traffic.in_pps`, `links.0.pps`: no empty segment, no spaces around one), at most
 * {@link MAX_FIGURE_FIELDS} of them, each at most {@link MAX_FIGURE_FIELD_LENGTH} characters, none twice, and
 * no two with the same metric name. Empty text (or an empty list) is no fields. Items are trimmed.
 */
export function parseFigureFields(value: string | readonly string[]): FigureFieldsParse {
  const items = (typeof value === 'string' ? (value.trim() === '' ? [] : value.split(',')) : value).map(
    (item) => item.trim(),
  );
  const problems: string[] = [];
  if (items.length > MAX_FIGURE_FIELDS) {
    problems.push(
      `lists ${items.length} fields, more than ${MAX_FIGURE_FIELDS} (each is a custom metric per network, ` +
        '$0.30 a month each): keep the ones you graph or alarm on',
    );
  }
  const byMetric = new Map<string, string>();
  for (const [index, item] of items.entries()) {
    const shown = JSON.stringify(item.length > 60 ? `${item.slice(0, 57)}...` : item);
    // The empty item is reported before its (zero) segments matter.
    const segments = pathSegments(item);
    if (item === '') {
      problems.push(`field ${index + 1} is empty (expected dot paths joined by commas, e.g. traffic.in_pps)`);
    } else if (/[\p{Cc}\p{Cf}]/u.test(item)) {
      problems.push(`field ${index + 1} has a control or invisible character`);
    } else if (segments.some((segment) => segment === '')) {
      problems.push(
        `${shown} has an empty segment (expected names joined by single dots, e.g. traffic.in_pps)`,
      );
    } else if (segments.some((segment) => segment.trim() !== segment)) {
      problems.push(`${shown} has spaces around a segment`);
    } else if (item.length > MAX_FIGURE_FIELD_LENGTH) {
      problems.push(`${shown} is longer than ${MAX_FIGURE_FIELD_LENGTH} characters`);
    } else {
      const metric = figureMetricName(item);
      const earlier = byMetric.get(metric);
      if (earlier === item) {
        problems.push(`lists ${shown} twice`);
      } else if (earlier !== undefined) {
        problems.push(
          `${shown} and ${JSON.stringify(earlier)} would both be metric ${metric} (characters other than ` +
            'A-Z a-z 0-9 . _ - become _): keep one',
        );
      } else {
        byMetric.set(metric, item);
      }
    }
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, fields: items };
}

/**
 * The chosen figures of a body: for each field, in the order given, its value when the path leads to a
 * finite number (own data properties only, arrays by canonical index). A missing field, or one that holds a
 * string, boolean, `null`, object or a non-finite number, is left out: it is no figure this time.
 * Never throws.
 */
export function pickFigures(body: unknown, fields: readonly string[]): Array<[string, number]> {
  const picked: Array<[string, number]> = [];
  for (const field of fields) {
    try {
      const found = lookUp(body, pathSegments(field));
      if (found.found && typeof found.value === 'number' && Number.isFinite(found.value)) {
        picked.push([field, found.value]);
      }
    } catch {
      // Only an exotic object (a Proxy with throwing traps) gets here; the field is no figure this time.
    }
  }
  return picked;
}

/** Key names that usually hold an id, a counter of versions or a time rather than a figure worth a metric. */
const NOT_A_FIGURE =
  /(?:(?:^|[._-])(?:[iI][dD]|uuid|ts|time|timestamp|epoch|at|date|updated|created|since|version|seq)|[a-z0-9](?:Id|ID|Uuid|Ts|Time|Timestamp|Epoch|At|Date|Version|Seq))$/;

/** Candidate figure fields of the network bodies seen, and a suggested choice among them. */
export interface FigureCandidates {
  /** Per body, in the order given: the numeric paths usable as figure fields, in body order. */
  readonly perBody: readonly (readonly string[])[];
  /**
   * The candidates of all bodies (first seen first) less those named like ids or times (`id`, `ts`,
   * `updated_at`, ...) or holding an epoch-like value, at most {@link MAX_FIGURE_FIELDS}.
   */
  readonly suggested: readonly string[];
}

/**
 * The numeric paths of each body that would work as figure fields (the path leads back to the same value,
 * so no key holds a dot; no comma, which would split the list; valid for {@link parseFigureFields}), and a
 * suggestion that leaves out what looks like ids and timestamps. Pure; never throws.
 */
export function figureCandidates(bodies: readonly unknown[]): FigureCandidates {
  const suspicious = new Set<string>();
  const perBody = bodies.map((body) =>
    extractFigures(body, 50)
      .filter(([path, value]) => {
        if (path.includes(',')) return false;
        // A key with spaces around it would be trimmed away from the path it came from.
        const parsed = parseFigureFields([path]);
        if (!parsed.ok || parsed.fields[0] !== path) return false;
        const found = pickFigures(body, [path]);
        if (found.length !== 1 || !Object.is(found[0]![1], value)) return false;
        // Seconds or milliseconds since 1970 between 2001 and 2286 are times, not figures.
        if (Number.isInteger(value) && ((value > 1e9 && value < 1e10) || (value > 1e12 && value < 1e13))) {
          suspicious.add(path);
        }
        return true;
      })
      .map(([path]) => path),
  );
  const all = [...new Set(perBody.flat())];
  const suggested = all
    .filter((path) => !suspicious.has(path) && !NOT_A_FIGURE.test(path))
    .slice(0, MAX_FIGURE_FIELDS);
  return { perBody, suggested };
}
