/**
 * Maintenance windows declared in configuration (CONTRACT §17): the CDK context key `maintenance`, which reaches
 * the function as its variable of the settings catalogue (`maintenance`), the same JSON list. Checked at synth (every problem names its
 * window) and read again by the function at each start; a window's id comes from its definition, so it stays
 * the same across deploys while the window is unchanged, and a deploy without it removes it. Pure.
 */
import { type MaintenanceWindow, newWindow, type WindowRequest, windowIdOf } from './maintenance-window.ts';

/** Most windows one configuration declares. */
export const MAX_DECLARED_WINDOWS = 20;

const FIELDS = ['start', 'for', 'repeat', 'tz', 'event', 'reason', 'notify'] as const;

/** The windows of a declared list already checked (by {@link parseMaintenance}), as they stand at `nowMs`. */
export function declaredWindows(requests: readonly WindowRequest[], nowMs: number): MaintenanceWindow[] {
  const read = parseMaintenance(requests, nowMs, false);
  return read.ok ? read.windows : [];
}

/** The declared windows, and the list as canonical JSON (for the function's environment), or every problem. */
export type DeclaredWindows =
  | {
      readonly ok: true;
      readonly windows: MaintenanceWindow[];
      /** The requests, checked: what the function's configuration carries. */
      readonly requests: WindowRequest[];
      readonly text: string;
    }
  | { readonly ok: false; readonly problems: string[] };

/**
 * Reads `maintenance` (a JSON list, as text or already parsed) at `nowMs`. `checkTiming` (at synth) also
 * refuses a one-off over already or more than 90 days ahead; the function, reading it later, does not.
 */
export function parseMaintenance(value: unknown, nowMs: number, checkTiming: boolean): DeclaredWindows {
  let list: unknown = value;
  if (typeof value === 'string') {
    if (value.trim() === '') return { ok: true, windows: [], requests: [], text: '[]' };
    try {
      list = JSON.parse(value);
    } catch (error) {
      return { ok: false, problems: [`is no JSON list of windows (${(error as Error).message})`] };
    }
  }
  if (!Array.isArray(list)) {
    return {
      ok: false,
      problems: [
        'must be a JSON list of windows, e.g. [{"start":"02:00","for":"2h","repeat":"FREQ=WEEKLY;BYDAY=SU","tz":"Europe/Berlin"}]',
      ],
    };
  }
  if (list.length > MAX_DECLARED_WINDOWS) {
    return { ok: false, problems: [`declares ${list.length} windows; at most ${MAX_DECLARED_WINDOWS}`] };
  }
  const problems: string[] = [];
  const windows: MaintenanceWindow[] = [];
  const canonical: WindowRequest[] = [];
  list.forEach((entry: unknown, index) => {
    const named = nameOf(entry, index);
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) {
      problems.push(`${named}: must be an object with start, for, repeat, tz, event, reason, notify`);
      return;
    }
    const raw = entry as Record<string, unknown>;
    const unknown = Object.keys(raw).filter((k) => !(FIELDS as readonly string[]).includes(k));
    if (unknown.length > 0) {
      problems.push(`${named}: unknown field(s) ${unknown.join(', ')}; the fields are ${FIELDS.join(', ')}`);
    }
    const wrong = FIELDS.filter(
      (k) =>
        raw[k] !== undefined && (k === 'notify' ? typeof raw[k] !== 'boolean' : typeof raw[k] !== 'string'),
    );
    if (wrong.length > 0) {
      problems.push(
        `${named}: ${wrong.map((k) => (k === 'notify' ? 'notify must be true or false' : `${k} must be text`)).join('; ')}`,
      );
    }
    if (typeof raw['for'] !== 'string') {
      if (!wrong.includes('for'))
        problems.push(`${named}: for (how long each occurrence lasts, e.g. 2h) is required`);
      return;
    }
    if (unknown.length > 0 || wrong.length > 0) return;
    const request: WindowRequest = {
      ...(raw['start'] === undefined ? {} : { start: raw['start'] as string }),
      for: raw['for'],
      ...(raw['repeat'] === undefined ? {} : { repeat: raw['repeat'] as string }),
      ...(raw['tz'] === undefined ? {} : { tz: raw['tz'] as string }),
      ...(raw['event'] === undefined ? {} : { event: raw['event'] as string }),
      ...(raw['reason'] === undefined ? {} : { reason: raw['reason'] as string }),
      ...(raw['notify'] === undefined ? {} : { notify: raw['notify'] as boolean }),
    };
    if (request.repeat !== undefined && /COUNT=/i.test(request.repeat) && !request.start?.includes('T')) {
      problems.push(
        `${named}: a rule with COUNT needs a date as its start (e.g. 2026-12-06T02:00) to count from`,
      );
      return;
    }
    if (request.repeat === undefined && (request.start === undefined || !request.start.includes('T'))) {
      problems.push(
        `${named}: a one-off window declared in configuration needs a date as its start (e.g. 2026-12-06T02:00): ` +
          'HH:MM or none would move with every deploy; or give repeat',
      );
      return;
    }
    const made = newWindow(request, nowMs, windowIdOf(request), {
      source: 'context',
      label: (field) => field,
      checkTiming,
    });
    if (!made.ok) {
      problems.push(...made.problems.map((p) => `${named}: ${p}`));
      return;
    }
    if (windows.some((w) => w.id === made.window.id)) {
      problems.push(`${named}: the same window is declared twice`);
      return;
    }
    windows.push({ ...made.window, createdAt: 'context' });
    canonical.push(request);
  });
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, windows, requests: canonical, text: JSON.stringify(canonical) };
}

/** A window as its problems name it: its position and, when it has one, its reason. */
function nameOf(entry: unknown, index: number): string {
  const reason =
    typeof entry === 'object' && entry !== null && typeof (entry as { reason?: unknown }).reason === 'string'
      ? ` (${JSON.stringify((entry as { reason: string }).reason)})`
      : '';
  return `window ${index + 1}${reason}`;
}
