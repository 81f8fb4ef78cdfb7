/**
 * The monitor's own incidents (CONTRACT §13-14; docs/acknowledge.md): the filter status away from the expected
 * one (`filter.status_changed/<when it went away>`) and the API's (`api.unreachable/<first failing cycle>`,
 * `api.auth_failed/...`, `filter.status_unreadable/...`), all held by the monitor state item. Their timers
 * (when each opened, its escalation stage, its last reminder, its acknowledgement) live there too, by incident
 * id, as a blind spot's live in its health item; their reminders, escalations and acknowledgements are
 * `incident.*` alerts with the incident's id, which the status and API families render (`familyOf` tells them
 * by the id's first segment, {@link monitorIncidentOpenerOf}). The status's reminder stays
 * `filter.status_reminder` (its own clock, `MonitorState.lastReminderAt`). Pure.
 */

import type { AlertRecordOf, NewAlertRecord, RenderedAlert } from '../types.ts';
import { FIRST_STAGE, type IncidentTimers } from './escalation.ts';
import { type MonitorIncidentOpener, parseIncidentId } from './incident-kinds.ts';
import { type FollowSettings, followIncidents } from './lifecycle.ts';

export { MONITOR_INCIDENT_OPENERS, type MonitorIncidentOpener } from './incident-kinds.ts';

/**
 * The `incident.*` events a monitor incident shares with a rule's (CONTRACT §14); `incident.resolved` only ends the
 * status away that the settings closed (the expected status unset, or set to the status seen; decide.ts).
 */
export type MonitorIncidentEvent =
  | 'incident.reminder'
  | 'incident.escalated'
  | 'incident.acknowledged'
  | 'incident.resolved';

/** An `incident.*` alert about one of the monitor's incidents; `openedAt` is stored as `since` (`alert-since.ts`). */
export type MonitorIncidentAlertRecord = AlertRecordOf<MonitorIncidentEvent> & {
  /** When the incident opened, ISO-8601 (the status's: when it went away). */
  readonly openedAt?: string;
};

/**
 * What the monitor state keeps of one open incident beside what opened it; dropped when it ends. An API
 * incident's reminders count from `lastRemindAt`; the status's from `MonitorState.lastReminderAt`.
 */
export type MonitorIncidentTimers = IncidentTimers;

/** The timers of every open monitor incident, by id. */
export type MonitorIncidentTimersById = Readonly<Record<string, MonitorIncidentTimers>>;

/**
 * The event that opened incident `id` when it is one of the monitor's (`<opener>/<ISO time>`), else undefined
 * (a rule's `<rule>@<at>`, a blind spot's `network.*`, anything else).
 */
export function monitorIncidentOpenerOf(id: unknown): MonitorIncidentOpener | undefined {
  const ref = parseIncidentId(id);
  return ref?.home === 'monitor' ? ref.opener : undefined;
}

/** The time incident `id` names (when it went away, its first failing cycle). */
export function monitorIncidentTime(id: string): string {
  return id.slice(id.indexOf('/') + 1);
}

/** What tells an `incident.*` record's kind: its id, and what it carries. */
interface IncidentRecordShape {
  readonly event?: unknown;
  readonly incident?: unknown;
  readonly story?: unknown;
  readonly members?: unknown;
  readonly rule?: unknown;
  readonly to?: unknown;
}

/**
 * Whether `alert` is an `incident.*` alert about one of the monitor's incidents (a reminder, an escalation, an
 * acknowledgement, the end of the status away closed by the settings): told by its record's shape, as a blind spot's is, so that it renders by the family it was
 * made for whatever its id holds: neither a rule incident's `story` (nor its `rule`) nor a blind spot's `members`.
 */
export function isMonitorIncidentAlert(alert: IncidentRecordShape): boolean {
  return (
    (alert.event === 'incident.reminder' ||
      alert.event === 'incident.escalated' ||
      alert.event === 'incident.acknowledged' ||
      alert.event === 'incident.resolved') &&
    alert.story === undefined &&
    alert.members === undefined &&
    alert.rule === undefined
  );
}

/**
 * The family that renders a monitor incident's `incident.*` alert: the status's when its id says so, or (an id
 * that says nothing) when it names a status; else the API's.
 */
export function monitorIncidentFamilyOf(alert: IncidentRecordShape): 'status' | 'api' {
  const opener = monitorIncidentOpenerOf(alert.incident);
  return opener === 'filter.status_changed' || (opener === undefined && typeof alert.to === 'string')
    ? 'status'
    : 'api';
}

/** One incident the monitor state holds open after a cycle, and what its alerts say of it. */
export interface OpenMonitorIncident {
  readonly id: string;
  readonly opener: MonitorIncidentOpener;
  /** When it opened, for an incident without timers yet: this cycle's time, or (an older item) its id's. */
  readonly openedAt: string;
  /** The fields its `incident.*` alerts carry: the status and the expected one, or the last error. */
  readonly fields: Pick<NewAlertRecord, 'to' | 'expected' | 'severity' | 'detail'>;
}

/** What {@link followMonitorIncidents} needs of the settings (the status reminds on a clock of its own). */
export type { FollowSettings } from './lifecycle.ts';

/**
 * The timers of the incidents open after a cycle at `at` (docs/acknowledge.md), as a blind spot's are: an API
 * incident's `incident.reminder` every `remindEveryMs`, every incident's `incident.escalated` once per stage of
 * `escalateAfterMs`, both only while unacknowledged. Reminders first (at the stage reached), then escalations.
 * The incidents no longer open are dropped (their end carried their stage).
 */
export function followMonitorIncidents(
  previous: MonitorIncidentTimersById,
  openNow: readonly OpenMonitorIncident[],
  at: string,
  settings: FollowSettings,
): {
  timers: Record<string, MonitorIncidentTimers>;
  reminders: NewAlertRecord[];
  escalations: NewAlertRecord[];
} {
  const { timers, alerts } = followIncidents(
    openNow.map((open) => ({
      id: open.id,
      timers: ownTimers(previous, open.id) ?? { openedAt: open.openedAt, stage: FIRST_STAGE },
      // The status reminds on its own clock (`filter.status_reminder`, decide.ts).
      reminds: open.opener !== 'filter.status_changed',
      alert: (event: 'incident.reminder' | 'incident.escalated', state: MonitorIncidentTimers) =>
        monitorIncidentAlert(event, open, state, at),
    })),
    at,
    settings,
  );
  return {
    timers,
    reminders: alerts.filter((a) => a.event === 'incident.reminder'),
    escalations: alerts.filter((a) => a.event === 'incident.escalated'),
  };
}

/** An `incident.*` alert about a monitor incident: its id, when it opened, its stage, what it is about. */
export function monitorIncidentAlert(
  event: MonitorIncidentEvent,
  open: Pick<OpenMonitorIncident, 'id' | 'fields'>,
  state: Pick<MonitorIncidentTimers, 'openedAt' | 'stage'>,
  at: string,
): NewAlertRecord {
  return { event, at, incident: open.id, openedAt: state.openedAt, stage: state.stage, ...open.fields };
}

/** The timers of `id`, when `timers` has its own entry for it. */
export function ownTimers(timers: MonitorIncidentTimersById, id: string): MonitorIncidentTimers | undefined {
  return Object.hasOwn(timers, id) ? timers[id] : undefined;
}

/**
 * Whether the monitor state has its own incident `id` acknowledged now; undefined when it holds no timers of it
 * (the outbox's `acknowledged`: a held acknowledgement withdrawn inside a silence is not sent at its end).
 */
export function monitorIncidentAcknowledged(
  state: { readonly incidentTimers?: MonitorIncidentTimersById },
  id: string,
): boolean | undefined {
  const timers = state.incidentTimers === undefined ? undefined : ownTimers(state.incidentTimers, id);
  return timers === undefined ? undefined : timers.acknowledged !== undefined;
}

/**
 * Stored timers read back: entries that are not an object with a string `openedAt` and a whole `stage` of at
 * least 1 are left out (a damaged item must not break a cycle); an item written before they existed has none.
 */
export function toMonitorIncidentTimers(stored: unknown): MonitorIncidentTimersById | undefined {
  if (typeof stored !== 'object' || stored === null || Array.isArray(stored)) return undefined;
  const out: Record<string, MonitorIncidentTimers> = {};
  for (const [id, value] of Object.entries(stored as Record<string, unknown>)) {
    if (typeof value !== 'object' || value === null) continue;
    const v = value as Record<string, unknown>;
    const stage = v['stage'];
    if (typeof v['openedAt'] !== 'string' || typeof stage !== 'number' || !Number.isSafeInteger(stage))
      continue;
    const ack = v['acknowledged'] as Record<string, unknown> | undefined;
    const acknowledged =
      typeof ack === 'object' &&
      ack !== null &&
      typeof ack['by'] === 'string' &&
      typeof ack['at'] === 'string'
        ? {
            by: ack['by'],
            at: ack['at'],
            ...(typeof ack['note'] === 'string' ? { note: ack['note'] } : {}),
          }
        : undefined;
    out[id] = {
      openedAt: v['openedAt'],
      stage: Math.max(FIRST_STAGE, stage),
      ...(typeof v['lastRemindAt'] === 'string' ? { lastRemindAt: v['lastRemindAt'] } : {}),
      ...(acknowledged === undefined ? {} : { acknowledged }),
      ...(typeof v['ackRev'] === 'number' && Number.isSafeInteger(v['ackRev'])
        ? { ackRev: v['ackRev'] }
        : {}),
    };
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

/**
 * The events of the monitor's own incidents that open or remind of one and so carry the acknowledge link
 * (docs/acknowledge.md, The link) besides the `incident.*` ones `ack-link.ts` names: the change away from the
 * expected status (`action=trigger`; not the change back), its reminder, and the API's incidents.
 */
export const MONITOR_ACK_LINK_EVENTS: ReadonlySet<string> = new Set([
  'filter.status_changed',
  'filter.status_reminder',
  'api.unreachable',
  'api.auth_failed',
  'filter.status_unreadable',
]);

/** The monitor incident a rendered alert that opens or reminds of it is about, or undefined. */
export function monitorAckLinkIncident(rendered: RenderedAlert): string | undefined {
  if (!MONITOR_ACK_LINK_EVENTS.has(rendered.attributes['event'] ?? '')) return undefined;
  try {
    const document = JSON.parse(rendered.sqs) as { incident?: unknown; action?: unknown };
    // A change without an expected status opens nothing; the change back closes: nothing to take.
    if (rendered.attributes['event'] === 'filter.status_changed' && document.action !== 'trigger')
      return undefined;
    return monitorIncidentOpenerOf(document.incident) === undefined
      ? undefined
      : (document.incident as string);
  } catch {
    return undefined;
  }
}
