/** Times and durations in alert texts. Pure: times come from the alert record, never from the clock. */

/** One instant of an alert, in the forms its texts use. */
export interface Moment {
  readonly ms: number;
  /** ISO-8601 UTC with milliseconds. */
  readonly iso: string;
  /** `Sun, 22 Nov 2026 10:04:05 UTC`. */
  readonly human: string;
  /** `2026-11-22 10:04 UTC`, for the SMS. */
  readonly short: string;
}

/** The instant of an ISO-8601 text, or undefined when `value` is not a valid time. */
export function momentOf(value: unknown): Moment | undefined {
  if (typeof value !== 'string') {
    return undefined;
  }
  const ms = Date.parse(value);
  if (!Number.isFinite(ms)) {
    return undefined;
  }
  const date = new Date(ms);
  const iso = date.toISOString();
  const parts = /^([+-]?\d+-\d\d-\d\d)T(\d\d:\d\d)/.exec(iso);
  return {
    ms,
    iso,
    human: date.toUTCString().replace(/GMT$/, 'UTC'),
    short: parts === null ? iso : `${parts[1]} ${parts[2]} UTC`,
  };
}

/**
 * A duration for people, in its two largest units, rounded down: `45s`, `12m 5s`, `3h 2m`, `2d 4h`
 * (a zero second unit is left out: `3h`). Negative, NaN or infinite → `unknown`.
 */
export function formatDuration(ms: number): string {
  if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) {
    return 'unknown';
  }
  const seconds = Math.floor(ms / 1000);
  if (seconds < 60) {
    return `${seconds}s`;
  }
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) {
    return twoUnits(minutes, 'm', seconds % 60, 's');
  }
  const hours = Math.floor(minutes / 60);
  if (hours < 24) {
    return twoUnits(hours, 'h', minutes % 60, 'm');
  }
  return twoUnits(Math.floor(hours / 24), 'd', hours % 24, 'h');
}

function twoUnits(major: number, majorUnit: string, minor: number, minorUnit: string): string {
  return minor === 0 ? `${major}${majorUnit}` : `${major}${majorUnit} ${minor}${minorUnit}`;
}
