/**
 * The expected filter status against the statuses the API was seen to report: whether the setting names one
 * of them exactly, or differs from one only in case or spaces (the monitor compares exactly, so
 * an expected status `Active` against an API that says `active` keeps the status away for good), or is
 * a likely typo of one, or names a status never seen. Pure: no I/O.
 */
import { nearest } from '../nearest.ts';

/** How the expected status stands against the statuses seen. */
export type ExpectedStatusVerdict =
  /** The status now is the expected one. */
  | { readonly kind: 'now' }
  /**
   * Reported before (the stored history), but not now: `now` is the status reported instead, undefined when
   * none could be read now.
   */
  | { readonly kind: 'seen'; readonly now: string | undefined }
  /**
   * Not one of the statuses seen, but `status` is the same text but for case, spaces, or both, or a likely
   * typo of it (`near`). `now`: that status is the one reported now.
   */
  | {
      readonly kind: 'differs';
      readonly status: string;
      readonly how: 'case' | 'spaces' | 'case and spaces' | 'near';
      readonly now: boolean;
    }
  /** Neither reported now nor ever seen (as far as `seen` goes), nor near any status that was. */
  | { readonly kind: 'never'; readonly now: string | undefined };

/** The status without any white space (inner spaces, tabs, and spaces around). */
function withoutSpaces(status: string): string {
  return status.replace(/\s+/gu, '');
}

/**
 * How `expected` stands against `now` (the status read now, when one was) and `seen` (statuses reported
 * before, e.g. in the stored history; `now` need not be among them). Exact first: the expected status seen
 * anywhere is never called a near miss of another.
 */
export function judgeExpectedStatus(
  expected: string,
  now: string | undefined,
  seen: readonly string[],
): ExpectedStatusVerdict {
  if (now === expected) return { kind: 'now' };
  if (seen.includes(expected)) return { kind: 'seen', now };
  // The status now first: the one the operator most likely meant.
  const candidates = [...new Set([...(now === undefined ? [] : [now]), ...seen])];
  const lower = expected.toLowerCase();
  const bare = withoutSpaces(expected);
  const bareLower = bare.toLowerCase();
  for (const status of candidates) {
    const how =
      status.toLowerCase() === lower
        ? 'case'
        : withoutSpaces(status) === bare
          ? 'spaces'
          : withoutSpaces(status).toLowerCase() === bareLower
            ? 'case and spaces'
            : undefined;
    if (how !== undefined) return { kind: 'differs', status, how, now: status === now };
  }
  const near = nearest(bare, candidates.map(withoutSpaces), '', false);
  if (near !== undefined && bare.length >= 3) {
    const status = candidates.find((c) => withoutSpaces(c) === near) ?? near;
    return { kind: 'differs', status, how: 'near', now: status === now };
  }
  return { kind: 'never', now };
}
