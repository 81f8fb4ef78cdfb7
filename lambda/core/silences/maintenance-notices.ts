/**
 * The notices of maintenance windows (CONTRACT §17): `maintenance.started` when an occurrence of a window made
 * with `notify` is under way, `maintenance.ended` once it is over (its end, `silence end`, the window cancelled
 * or removed from the context), each once per occurrence. Decided over the notices' own state item (pk `state`,
 * sk `maintenance`) and committed with its outbox in one conditional write, like every alert, so duplicate and
 * concurrent cycles, and several shards, send each once. Pure.
 */
import type { AlertRecord } from '../types.ts';
import type { Silence } from './silence-window.ts';

/** What the notices remember of one window: its occurrence last announced as started, and whether it ended. */
export interface WindowNotice {
  /** The occurrence's start, ISO-8601. */
  readonly occurrence: string;
  readonly ended: boolean;
  readonly reason?: string;
}

/** The notices' state: the last cycle's time (older cycles are stale) and each window's last occurrence. */
export interface NoticeState {
  readonly nextSeq: number;
  readonly lastAt?: string;
  readonly windows: Readonly<Record<string, WindowNotice>>;
}

export const INITIAL_NOTICES: NoticeState = { nextSeq: 1, windows: {} };

/** The notices' state as stored, read back; what is not one reads as none. */
export function toNoticeState(stored: unknown): NoticeState {
  let value: unknown = stored;
  if (typeof stored === 'string') {
    try {
      value = JSON.parse(stored);
    } catch {
      return INITIAL_NOTICES;
    }
  }
  if (typeof value !== 'object' || value === null) return INITIAL_NOTICES;
  const v = value as Record<string, unknown>;
  const nextSeq = typeof v['nextSeq'] === 'number' && Number.isSafeInteger(v['nextSeq']) ? v['nextSeq'] : 1;
  const windows: Record<string, WindowNotice> = {};
  if (typeof v['windows'] === 'object' && v['windows'] !== null) {
    for (const [id, w] of Object.entries(v['windows'] as Record<string, unknown>)) {
      if (typeof w !== 'object' || w === null) continue;
      const n = w as Record<string, unknown>;
      if (typeof n['occurrence'] !== 'string' || typeof n['ended'] !== 'boolean') continue;
      windows[id] = {
        occurrence: n['occurrence'],
        ended: n['ended'],
        ...(typeof n['reason'] === 'string' ? { reason: n['reason'] } : {}),
      };
    }
  }
  return { nextSeq, ...(typeof v['lastAt'] === 'string' ? { lastAt: v['lastAt'] } : {}), windows };
}

/** What the notices decide in one cycle. */
export type NoticeDecision =
  | { readonly stale: true }
  | {
      readonly stale: false;
      readonly changed: boolean;
      readonly state: NoticeState;
      readonly alerts: AlertRecord[];
    };

/**
 * The notices due at `at` (the cycle's time), given every silence and window occurrence the cycle reads
 * (`SilenceStore.list()`). Only occurrences of windows with `notify` count. A cycle not newer than the last one
 * decided is stale: it changes nothing (a late duplicate must not end an occurrence a newer cycle started).
 */
export function decideNotices(prev: NoticeState, silences: readonly Silence[], at: string): NoticeDecision {
  const atMs = Date.parse(at);
  if (prev.lastAt !== undefined && Date.parse(prev.lastAt) >= atMs) return { stale: true };
  const active = new Map<string, Silence>();
  for (const s of silences) {
    if (s.window?.notify !== true) continue;
    const start = Date.parse(s.startsAt);
    const end = Date.parse(s.endsAt);
    if (start <= atMs && atMs < end) active.set(s.id, s);
  }
  const windows: Record<string, WindowNotice> = { ...prev.windows };
  const fresh: Array<Omit<AlertRecord, 'seq'>> = [];
  const ended = (id: string, notice: WindowNotice) => {
    fresh.push({
      event: 'maintenance.ended',
      at,
      silence: id,
      windowSince: notice.occurrence,
      ...(notice.reason === undefined ? {} : { detail: notice.reason }),
    } as Omit<AlertRecord, 'seq'>);
  };
  // Ends first: an occurrence over (or a window gone) before the next one of the same window starts.
  for (const [id, notice] of Object.entries(prev.windows).sort(([a], [b]) => a.localeCompare(b))) {
    if (notice.ended) continue;
    if (active.get(id)?.startsAt === notice.occurrence) continue;
    ended(id, notice);
    windows[id] = { ...notice, ended: true };
  }
  for (const [id, s] of [...active.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    if (prev.windows[id]?.occurrence === s.startsAt) continue;
    const notice: WindowNotice = {
      occurrence: s.startsAt,
      ended: false,
      ...(s.reason === undefined ? {} : { reason: s.reason }),
    };
    fresh.push({
      event: 'maintenance.started',
      at,
      silence: id,
      windowSince: s.startsAt,
      ...(s.reason === undefined ? {} : { detail: s.reason }),
    } as Omit<AlertRecord, 'seq'>);
    windows[id] = notice;
  }
  // What ended and whose window has no occurrence under way is forgotten once its end is out (in the outbox).
  for (const [id, notice] of Object.entries(windows)) {
    if (notice.ended && !active.has(id) && !silences.some((s) => s.id === id)) delete windows[id];
  }
  let nextSeq = prev.nextSeq;
  const alerts = fresh.map((alert) => ({ ...alert, seq: nextSeq++ }) as AlertRecord);
  const changed = alerts.length > 0 || Object.keys(windows).length !== Object.keys(prev.windows).length;
  return { stale: false, changed, state: { nextSeq, lastAt: at, windows }, alerts };
}
