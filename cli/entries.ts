/** Stored snapshots and events as `history`, `events`, `status` and `demo` show them. */
import { displayStatus } from '../lambda/core/detect/status.ts';
import type { Snapshot } from '../lambda/core/types.ts';
import type { StoredEvent } from '../lambda/ports.ts';
import { clip, type Format, printable, printableJson, renderCsv, renderTable } from './format.ts';

/** One snapshot as `history --format json` prints it (docs/cli.md, JSON and CSV). */
export interface HistoryEntry {
  at: string;
  ok: boolean;
  status?: string;
  data?: unknown;
  error?: string;
  httpStatus?: number;
  latencyMs?: number;
}

/** The public shape of a stored snapshot: `data` is the body as received, absent when not stored. */
export function toHistoryEntry(snapshot: Snapshot): HistoryEntry {
  let data: unknown;
  if (snapshot.bodyText !== undefined) {
    try {
      data = JSON.parse(snapshot.bodyText);
    } catch {
      data = undefined;
    }
  }
  return {
    at: snapshot.at,
    ok: snapshot.ok,
    ...(snapshot.status === undefined ? {} : { status: snapshot.status }),
    ...(data === undefined ? {} : { data }),
    ...(snapshot.error === undefined ? {} : { error: snapshot.error }),
    ...(snapshot.httpStatus === undefined ? {} : { httpStatus: snapshot.httpStatus }),
    ...(snapshot.latencyMs === undefined ? {} : { latencyMs: snapshot.latencyMs }),
  };
}

/** One event as `events --format json` prints it (docs/cli.md, JSON and CSV). */
export interface EventEntry {
  at: string;
  event: string;
  from?: string;
  to?: string;
  detail?: string;
  /** The silence that suppressed the alert: it was recorded, never sent (docs/silences.md). */
  suppressedBy?: string;
  /** Rule alerts (docs/rules.md): the rule, the network and the value observed. */
  rule?: string;
  network?: string;
  value?: number | boolean;
  /** Incidents across networks (`incident.*`): the incident and the networks the alert was about. */
  incident?: string;
  networks?: string[];
}

export function toEventEntry(event: StoredEvent): EventEntry {
  return {
    at: event.at,
    event: event.event,
    ...(event.from === undefined ? {} : { from: event.from }),
    ...(event.to === undefined ? {} : { to: event.to }),
    ...(event.detail === undefined ? {} : { detail: event.detail }),
    ...(event.suppressedBy === undefined ? {} : { suppressedBy: event.suppressedBy }),
    ...(event.rule === undefined ? {} : { rule: event.rule }),
    ...(event.network === undefined ? {} : { network: event.network }),
    ...(event.value === undefined ? {} : { value: event.value }),
    ...(event.story === undefined || event.incident === undefined
      ? {}
      : { incident: event.incident, networks: event.story.members.map((m) => m.network) }),
  };
}

/** What the table's detail column says: the incident's detail, or a rule alert's rule, network and value. */
function detailOf(e: EventEntry): string {
  if (e.detail !== undefined) return e.detail;
  if (e.rule === undefined) return '';
  if (e.networks !== undefined) {
    const n = e.networks.length;
    return `${e.rule} on ${n} network${n === 1 ? '' : 's'}: ${e.networks.slice(0, 3).join(', ')}${n > 3 ? ', ...' : ''}`;
  }
  return `${e.rule} on ${e.network ?? '?'}${e.value === undefined ? '' : `: ${String(e.value)}`}`;
}

/** Events as `events` prints them: an aligned table, JSON or CSV. */
export function renderEvents(entries: readonly EventEntry[], format: Format): string {
  if (format === 'json') return printableJson(entries, 2);
  if (format === 'csv') {
    return renderCsv(
      ['at', 'event', 'from', 'to', 'detail', 'suppressedBy', 'rule', 'network', 'value'],
      entries.map((e) => [
        e.at,
        e.event,
        e.from,
        e.to,
        e.detail,
        e.suppressedBy,
        e.rule,
        e.network,
        e.value === undefined ? undefined : String(e.value),
      ]),
    );
  }
  if (entries.length === 0) return 'no events in that window';
  const show = (s: string | undefined) =>
    s === undefined ? '' : clip(printable(JSON.stringify(displayStatus(s))), 40);
  // The silence column only when a silence suppressed one of them, so the usual table stays narrow.
  const silenced = entries.some((e) => e.suppressedBy !== undefined);
  return renderTable(
    ['at', 'event', 'from', 'to', 'detail', ...(silenced ? ['silenced by'] : [])],
    entries.map((e) => [
      e.at,
      e.event,
      show(e.from),
      show(e.to),
      clip(printable(detailOf(e)), 60),
      ...(silenced ? [printable(e.suppressedBy ?? '')] : []),
    ]),
  );
}
