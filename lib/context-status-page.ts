/**
 * The context keys of the hosted status page (docs/status-page.md): `statusPage` (off, private or public) and
 * `statusPageEvery` (how often the publisher rewrites it). Pure: every problem names its key.
 */
import { parseDuration } from '../lambda/core/duration.ts';
import { show } from './context-values.ts';

/** The context keys of the status page. */
export const STATUS_PAGE_CONTEXT_KEYS = ['statusPage', 'statusPageEvery'] as const;

/** One of {@link STATUS_PAGE_CONTEXT_KEYS}. */
export type StatusPageContextKey = (typeof STATUS_PAGE_CONTEXT_KEYS)[number];

/** Who may open the page: `private` through CloudFront signed URLs only, `public` anyone (reduced content). */
export type StatusPageMode = 'private' | 'public';

/** The values of `statusPage`. */
export const STATUS_PAGE_MODES = ['off', 'private', 'public'] as const;

/** Default of `statusPageEvery`. */
export const DEFAULT_STATUS_PAGE_EVERY = '5m';
/**
 * Shortest `statusPageEvery`: EventBridge Scheduler's shortest rate is one minute, and a publish of a week's
 * history takes seconds; rewriting the page more often than that would cost reads for nothing.
 */
export const MIN_STATUS_PAGE_EVERY_MINUTES = 1;
/** Longest `statusPageEvery`: a page older than an hour hides the present, which is its first job. */
export const MAX_STATUS_PAGE_EVERY_MINUTES = 60;

/** The status page of one deployment. */
export interface StatusPageSettings {
  readonly mode: StatusPageMode;
  /** Minutes between two publishes, from {@link MIN_STATUS_PAGE_EVERY_MINUTES} to {@link MAX_STATUS_PAGE_EVERY_MINUTES}. */
  readonly everyMinutes: number;
}

/**
 * Reads `statusPage` and `statusPageEvery`. `settings` is undefined when the page is off (the default);
 * `statusPageEvery` set while the page is off is a problem, because it would be silently ignored.
 */
export function parseStatusPageContext(present: (key: StatusPageContextKey) => unknown): {
  readonly settings: StatusPageSettings | undefined;
  readonly problems: readonly string[];
} {
  const problems: string[] = [];
  const rawMode = present('statusPage');
  const modeText = typeof rawMode === 'string' ? rawMode.trim().toLowerCase() : rawMode;
  const mode =
    modeText === undefined || modeText === false
      ? 'off'
      : (STATUS_PAGE_MODES as readonly unknown[]).includes(modeText)
        ? (modeText as (typeof STATUS_PAGE_MODES)[number])
        : undefined;
  if (mode === undefined) {
    problems.push(`statusPage: expected off, private or public, got ${show(rawMode)}`);
  }

  const rawEvery = present('statusPageEvery');
  let everyMinutes: number | undefined;
  const ms =
    typeof rawEvery === 'string'
      ? parseDuration(rawEvery.trim(), ['m', 'h'])
      : rawEvery === undefined
        ? 0
        : -1;
  if (rawEvery === undefined) {
    everyMinutes = parseDuration(DEFAULT_STATUS_PAGE_EVERY)! / 60_000;
  } else if (
    ms === undefined ||
    ms % 60_000 !== 0 ||
    ms < MIN_STATUS_PAGE_EVERY_MINUTES * 60_000 ||
    ms > MAX_STATUS_PAGE_EVERY_MINUTES * 60_000
  ) {
    problems.push(
      `statusPageEvery: expected a duration in minutes or hours like 5m or 1h, from ` +
        `${MIN_STATUS_PAGE_EVERY_MINUTES}m to ${MAX_STATUS_PAGE_EVERY_MINUTES}m, got ${show(rawEvery)}`,
    );
  } else {
    everyMinutes = ms / 60_000;
    if (mode === 'off') {
      problems.push(
        'statusPageEvery: needs statusPage (private or public): set it too, e.g. -c statusPage=private, ' +
          'or leave statusPageEvery unset',
      );
    }
  }
  if (problems.length > 0 || mode === undefined || mode === 'off' || everyMinutes === undefined) {
    return { settings: undefined, problems };
  }
  return { settings: { mode, everyMinutes }, problems };
}
