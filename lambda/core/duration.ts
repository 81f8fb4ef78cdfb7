/** The one duration syntax of the project: a whole number and a unit, e.g. `500ms`, `90s`, `30m`, `24h`, `7d`, `2w`. */

/** Every duration unit and its length in milliseconds. */
export const DURATION_UNITS_MS = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
} as const satisfies Readonly<Record<string, number>>;

/** A unit of {@link DURATION_UNITS_MS}. */
export type DurationUnit = keyof typeof DURATION_UNITS_MS;

const ALL_UNITS = Object.keys(DURATION_UNITS_MS) as DurationUnit[];

/**
 * Parses a duration: a whole number, optional spaces and a unit of `units` (any case), with spaces around
 * allowed. Returns milliseconds, or `undefined` for anything else; range checks are the caller's.
 */
export function parseDuration(text: string, units: readonly DurationUnit[] = ALL_UNITS): number | undefined {
  const match = /^(\d+)\s*([a-z]+)$/i.exec(text.trim());
  if (match === null) return undefined;
  const unit = match[2]!.toLowerCase() as DurationUnit;
  if (!units.includes(unit)) return undefined;
  const ms = Number(match[1]) * DURATION_UNITS_MS[unit];
  return Number.isFinite(ms) ? ms : undefined;
}
