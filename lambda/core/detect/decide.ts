import { RECOVERY_EVENTS } from '../alerts/alert-events.ts';
import { cycleOrder } from '../clock.ts';
import { type EscalationSchedule, FIRST_STAGE } from '../incidents/escalation.ts';
import {
  followMonitorIncidents,
  type MonitorIncidentTimersById,
  monitorIncidentTime,
  type OpenMonitorIncident,
  ownTimers,
  toMonitorIncidentTimers,
} from '../incidents/monitor-incidents.ts';
import type { AlertEvent, AlertRecord, FailureKind, NewAlertRecord } from '../types.ts';

/** The problems with the monitor's own view of the API that raise an incident alert. */
export type IncidentKind = 'auth' | 'unreachable' | 'unreadable';

/** How one incident stands after the last applied cycle. */
export interface IncidentState {
  /** Cycles in a row that showed the problem. */
  readonly count: number;
  /** True once its alert was raised, until its recovery alert. */
  readonly open: boolean;
  /** First cycle of the current run, ISO-8601. */
  readonly since?: string;
  /** Last error text seen for it. */
  readonly lastError?: string;
}

/** A new status seen fewer times in a row than the confirmations asked for. */
export interface Candidate {
  readonly status: string;
  readonly count: number;
  readonly firstAt: string;
}

/** What the monitor knows between cycles. Persisted as one item; alerts to send live beside it. */
export interface MonitorState {
  /** The last confirmed filter status, exact. Absent until the first readable observation. */
  readonly status?: string;
  /** When `status` was first seen. */
  readonly statusSince?: string;
  /** Observation time of the newest cycle applied; older cycles are stale and change nothing. */
  readonly lastObservationAt?: string;
  readonly candidate?: Candidate;
  readonly incidents: Readonly<Record<IncidentKind, IncidentState>>;
  /** Sequence number the next alert gets. */
  readonly nextSeq: number;
  /** When the last reminder about the current status went out. */
  readonly lastReminderAt?: string;
  /**
   * While the confirmed status is away from the expected one: the id of that incident, shared by the change
   * away, its reminders, further changes while still away, and the change back (docs/channels.md).
   */
  readonly awayIncident?: string;
  /**
   * The id of the away incident the settings closed (the `expectedStatus` setting unset, or set to the status
   * seen; its `incident.resolved` went out), kept while the status stays as it was: if the expected status is set
   * away from it again, that is a new incident (a new id, from that cycle), not the closed one rebuilt from
   * `statusSince`. Absent otherwise, and in items written before it existed (they read as before).
   */
  readonly awayClosed?: string;
  /**
   * The timers of each open incident above (the status away, the API's), by incident id: when it opened, its
   * escalation stage, an API incident's last reminder, its acknowledgement (docs/acknowledge.md). Dropped when
   * the incident ends; absent in items written before acknowledgement reached these incidents.
   */
  readonly incidentTimers?: MonitorIncidentTimersById;
  /**
   * What the last applied cycle polled and judged by, for `shieldwatch status` (README.md, Commands: status): set by
   * the cycle on the state it writes anyway (no write of its own), not by {@link decide}.
   */
  readonly polled?: PolledRecord;
}

/** The networks and rules of the last applied cycle of the monitor (the shard that polls the filter). */
export interface PolledRecord {
  /** The cycle's observation time, ISO-8601. */
  readonly at: string;
  /** The networks that cycle requested (a sharded stack: this shard's; the others' rule items name theirs). */
  readonly networks: readonly string[];
  /** The traffic rules in force, as written. */
  readonly rules: readonly string[];
}

/** The outcome of one request of a cycle. */
export interface RequestOutcome {
  readonly ok: boolean;
  readonly errorKind?: FailureKind;
  readonly error?: string;
  readonly httpStatus?: number;
}

/** The filter status as one cycle saw it. */
export type FilterObservation =
  | { readonly ok: true; readonly status: string }
  | {
      readonly ok: false;
      readonly errorKind?: FailureKind;
      readonly error: string;
      readonly httpStatus?: number;
    };

/** What one cycle saw, reduced to what decisions need. */
export interface CycleObservation {
  /** Observation time of the cycle (its filter request), ISO-8601. */
  readonly at: string;
  /** Absent when this cycle did not poll the filter. */
  readonly filter?: FilterObservation;
  /** Every request of the cycle, the filter's included. */
  readonly outcomes: readonly RequestOutcome[];
}

/** Tunables of the decisions. */
export interface DecideSettings {
  /** Cycles in a row before an unreachable / unreadable incident alert. */
  readonly alertAfter: number;
  /** Cycles in a row a new status must be seen before it is a change. */
  readonly confirmations: number;
  /** The status things should be in; a change away from it is `high`, back to it `resolved`. */
  readonly expectedStatus?: string;
  /**
   * A reminder of every open, unacknowledged incident this often (ms): `filter.status_reminder` while the status
   * stays away from `expectedStatus`, `incident.reminder` of an API incident.
   */
  readonly remindEveryMs?: number;
  /** The `escalateAfter` setting: `incident.escalated` once per stage of an open, unacknowledged incident. */
  readonly escalateAfterMs?: EscalationSchedule;
}

/** The result of applying one cycle to the state. */
export interface Decision {
  readonly state: MonitorState;
  /** New alerts for the outbox, in order, with their sequence numbers. */
  readonly alerts: readonly AlertRecord[];
  /** True when the cycle was older than one already applied: the state is unchanged. */
  readonly stale: boolean;
  /**
   * The last applied cycle's time, when it lay further ahead than any tolerated clock could have written it
   * (docs/design/cycle.md, Clocks): it was disregarded and this cycle applied.
   */
  readonly skewedLastAt?: string;
}

const CLOSED: IncidentState = { count: 0, open: false };

/** The state before any cycle. */
export const INITIAL_STATE: MonitorState = {
  incidents: { auth: CLOSED, unreachable: CLOSED, unreadable: CLOSED },
  nextSeq: 1,
};

/**
 * A stored monitor state read back: as stored, its incidents' timers checked entry by entry (a damaged one is left
 * out); an item written before they existed reads as it always did.
 */
export function monitorStateOf(stored: unknown): MonitorState {
  const state = stored as MonitorState;
  if (typeof state !== 'object' || state === null || state.incidentTimers === undefined) return state;
  const { incidentTimers, ...rest } = state;
  const timers = toMonitorIncidentTimers(incidentTimers);
  return timers === undefined ? rest : { ...rest, incidentTimers: timers };
}

type NewAlert = NewAlertRecord;

const KEY_SILENT_KINDS: ReadonlySet<FailureKind> = new Set(['auth', 'rate_limited', 'server']);

const UNREACHABLE_KINDS: ReadonlySet<FailureKind | undefined> = new Set([
  'transport',
  'server',
  'rate_limited',
]);

function isUnreadableAnswer(filter: FilterObservation | undefined): boolean {
  return (
    filter !== undefined &&
    !filter.ok &&
    filter.errorKind === 'contract' &&
    filter.httpStatus !== undefined &&
    filter.httpStatus >= 200 &&
    filter.httpStatus < 300
  );
}

interface IncidentStep {
  readonly state: IncidentState;
  readonly alert?: NewAlert;
}

/**
 * Advances one incident by one cycle. `hit` means the cycle showed the problem, `clear` that it showed
 * its absence; neither (for example a cycle whose every request timed out, for the key) leaves it be.
 */
function stepIncident(
  incident: IncidentState,
  hit: { error: string } | undefined,
  clear: boolean,
  at: string,
  threshold: number,
  events: readonly [raised: AlertEvent, resolved: AlertEvent],
): IncidentStep {
  if (hit !== undefined) {
    const count = incident.count + 1;
    const since = incident.count === 0 ? at : (incident.since ?? at);
    const next: IncidentState = {
      count,
      open: incident.open || count >= threshold,
      since,
      lastError: hit.error,
    };
    if (!incident.open && next.open) {
      return {
        state: next,
        alert: {
          event: events[0],
          at,
          cycles: count,
          detail: hit.error,
          incident: incidentId(events[0], since),
        },
      };
    }
    return { state: next };
  }
  if (!clear) return { state: incident };
  if (incident.open) {
    return {
      state: CLOSED,
      alert: {
        event: events[1],
        at,
        cycles: incident.count,
        incident: incidentId(events[0], incident.since ?? at),
        ...(incident.since === undefined ? {} : { previousSince: incident.since }),
        ...(incident.lastError === undefined ? {} : { detail: incident.lastError }),
      },
    };
  }
  return { state: incident.count === 0 ? incident : CLOSED };
}

/** The id of an incident: the event that opened it and when its first failing cycle was seen. */
function incidentId(opened: AlertEvent, since: string): string {
  return `${opened}/${since}`;
}

/** The status away-from-expected incident: where `status` (first seen `since`) stands against the expected one. */
function awayIncidentOf(
  status: string | undefined,
  since: string | undefined,
  expectedStatus: string | undefined,
  open: string | undefined,
): string | undefined {
  if (expectedStatus === undefined || status === undefined || status === expectedStatus) return undefined;
  // Still away: the incident that is open goes on (a state from before incidents had ids opens one at `since`).
  return open ?? (since === undefined ? undefined : incidentId('filter.status_changed', since));
}

type StatusFields = Pick<
  MonitorState,
  'status' | 'statusSince' | 'candidate' | 'awayIncident' | 'awayClosed'
>;

/**
 * The away incident open after the previous state, by this cycle's settings: the one that was open goes on;
 * one the settings closed is not rebuilt from `statusSince` (its resolve went out): away again by the settings,
 * it is a new incident from `at`.
 */
function openAwayOf(prev: MonitorState, at: string, expectedStatus: string | undefined): string | undefined {
  if (prev.awayIncident === undefined && prev.awayClosed !== undefined) {
    return awayIncidentOf(prev.status, at, expectedStatus, undefined);
  }
  return awayIncidentOf(prev.status, prev.statusSince, expectedStatus, prev.awayIncident);
}

/**
 * The `incident.resolved` of the away incident open in the previous state that this cycle's settings no longer
 * hold open (the expected status unset, or set to the status seen): sent once, by the cycle that closes it.
 */
function closedBySettings(
  prev: MonitorState,
  openAway: string | undefined,
  at: string,
  expectedStatus: string | undefined,
): NewAlert | undefined {
  const id = prev.awayIncident;
  if (id === undefined || openAway !== undefined || prev.status === undefined) return undefined;
  return {
    event: 'incident.resolved',
    at,
    incident: id,
    openedAt: ownTimers(prev.incidentTimers ?? {}, id)?.openedAt ?? monitorIncidentTime(id),
    to: prev.status,
    ...(expectedStatus === undefined ? {} : { expected: expectedStatus }),
    severity: 'resolved',
  };
}

function stepStatus(
  prev: MonitorState,
  filter: FilterObservation | undefined,
  at: string,
  settings: DecideSettings,
): { fields: StatusFields; alert?: NewAlert; closed?: NewAlert } {
  const { confirmations, expectedStatus } = settings;
  const openAway = openAwayOf(prev, at, expectedStatus);
  // The settings closed the incident that was open (whatever this cycle saw): its resolve, once.
  const closed = closedBySettings(prev, openAway, at, expectedStatus);
  const awayClosed = openAway === undefined ? (closed?.incident ?? prev.awayClosed) : undefined;
  const kept = {
    status: prev.status,
    statusSince: prev.statusSince,
    candidate: prev.candidate,
    awayIncident: openAway,
    awayClosed,
  };
  const withClosed = closed === undefined ? {} : { closed };
  // Unreadable observations are never a change, and neither count towards nor break a confirmation run.
  if (filter === undefined || !filter.ok) return { fields: kept, ...withClosed };
  const seen = filter.status;
  if (prev.status === undefined) {
    const awayIncident = awayIncidentOf(seen, at, expectedStatus, undefined);
    return { fields: { status: seen, statusSince: at, candidate: undefined, awayIncident } };
  }
  if (seen === prev.status) return { fields: { ...kept, candidate: undefined }, ...withClosed };
  const candidate: Candidate =
    prev.candidate?.status === seen
      ? { ...prev.candidate, count: prev.candidate.count + 1 }
      : { status: seen, count: 1, firstAt: at };
  if (candidate.count < confirmations) return { fields: { ...kept, candidate }, ...withClosed };
  const awayIncident = awayIncidentOf(seen, candidate.firstAt, expectedStatus, openAway);
  // A change away opens (or continues) the incident; a change back closes the one that was open.
  const incident = awayIncident ?? openAway;
  return {
    ...withClosed,
    fields: { status: seen, statusSince: candidate.firstAt, candidate: undefined, awayIncident },
    alert: {
      event: 'filter.status_changed',
      at: candidate.firstAt,
      from: prev.status,
      to: seen,
      ...(prev.statusSince === undefined ? {} : { previousSince: prev.statusSince }),
      cycles: candidate.count,
      ...(expectedStatus === undefined
        ? {}
        : { expected: expectedStatus, severity: seen === expectedStatus ? 'resolved' : 'high' }),
      ...(incident === undefined ? {} : { incident }),
    },
  };
}

/**
 * A reminder while the confirmed status stays away from the expected one, every `remindEveryMs` since it
 * began or since the last reminder. Only a cycle that read the status reminds: it shows the status is
 * still away.
 */
function stepReminder(
  state: Pick<MonitorState, 'status' | 'statusSince' | 'lastReminderAt' | 'awayIncident'>,
  filter: FilterObservation | undefined,
  at: string,
  settings: DecideSettings,
  acknowledged: boolean,
): { lastReminderAt?: string; alert?: NewAlert } {
  const { expectedStatus, remindEveryMs } = settings;
  // A reminder time ahead of this cycle (a clock ahead wrote it, docs/design/cycle.md, Clocks) counts as now, so that the
  // next reminder is one interval on, not one interval after a time that has not come yet.
  const ahead = state.lastReminderAt !== undefined && Date.parse(state.lastReminderAt) > Date.parse(at);
  const lastReminderAt = ahead ? at : state.lastReminderAt;
  const kept = lastReminderAt === undefined ? {} : { lastReminderAt };
  // An acknowledged incident gets no reminders (CONTRACT §14); withdrawn, the next one is due by the same clock.
  if (acknowledged) return kept;
  if (expectedStatus === undefined || remindEveryMs === undefined || filter?.ok !== true) return kept;
  if (state.status === undefined || state.status === expectedStatus || state.statusSince === undefined)
    return kept;
  const from = Date.parse(lastReminderAt ?? state.statusSince);
  // The status's time ahead of this cycle (a clock ahead wrote it) and no reminder yet: reminders count from
  // now, kept, as every incident's timers are pulled back (escalation.ts followTimers), not from a time that
  // has not come yet.
  if (!(from <= Date.parse(at))) return { lastReminderAt: at };
  if (Date.parse(at) - from < remindEveryMs) return kept;
  return {
    lastReminderAt: at,
    alert: {
      event: 'filter.status_reminder',
      at,
      to: state.status,
      statusSince: state.statusSince,
      expected: expectedStatus,
      severity: 'high',
      ...(state.awayIncident === undefined ? {} : { incident: state.awayIncident }),
    },
  };
}

/** The event that opens each API incident of {@link MonitorState.incidents}. */
const API_OPENERS = {
  auth: 'api.auth_failed',
  reach: 'api.unreachable',
  readable: 'filter.status_unreadable',
} as const;

/**
 * The incidents open after a cycle: the status away from the expected one, and each API incident whose alert
 * went out. One opened by this cycle opens now; one without timers in an older item, when its id says.
 */
function openIncidentsAfter(
  status: StatusFields,
  api: Readonly<Record<keyof typeof API_OPENERS, IncidentStep>>,
  at: string,
  settings: DecideSettings,
): OpenMonitorIncident[] {
  const open: OpenMonitorIncident[] = [];
  for (const [name, opener] of Object.entries(API_OPENERS) as Array<[keyof typeof API_OPENERS, AlertEvent]>) {
    const { state, alert } = api[name];
    if (!state.open || state.since === undefined) continue;
    const id = incidentId(opener, state.since);
    open.push({
      id,
      opener: API_OPENERS[name],
      openedAt: alert === undefined ? monitorIncidentTime(id) : at,
      fields: state.lastError === undefined ? {} : { detail: state.lastError },
    });
  }
  const away = status.awayIncident;
  if (away !== undefined && status.status !== undefined) {
    open.push({
      id: away,
      opener: 'filter.status_changed',
      openedAt: monitorIncidentTime(away),
      fields: {
        to: status.status,
        ...(settings.expectedStatus === undefined ? {} : { expected: settings.expectedStatus }),
        severity: 'high',
      },
    });
  }
  return open;
}

/**
 * Applies one cycle's observation to the monitor state: status baseline and changes (with confirmations),
 * and the incidents about the monitor's own view of the API. Pure: same input, same output.
 *
 * - The first readable status is the baseline: no alert.
 * - An unreadable status is never a change.
 * - A rejected key (401/403) alerts at once and never counts as unreachable.
 * - Unreachable (every request failed by transport, 5xx or 429) and unreadable (a 2xx answer without a
 *   readable status) alert after `alertAfter` cycles in a row; each alerts once and once on recovery.
 * - A cycle not newer than the last applied one is stale and changes nothing, unless the last one's time came
 *   from a clock ahead (`decideByMs`, the latest moment this cycle decides; see `cycleOrder`): then it is
 *   disregarded, so that one cycle from a clock ahead cannot blind the monitor (docs/design/cycle.md, Clocks).
 * - Each incident has an id shared by every alert about it (docs/channels.md): an API incident's raise
 *   and recovery `EVENT/FIRST-FAILING-CYCLE`; with an expected status, the change away, its reminders, further
 *   changes while away and the change back `filter.status_changed/WHEN-IT-WENT-AWAY`. When the settings close it
 *   (the expected status unset, or set to the status seen) its `incident.resolved` goes out once; set away from
 *   the status again, a new incident opens at that cycle (`awayClosed`), not the closed one's id again.
 * - Each open incident has timers (`incidentTimers`, docs/acknowledge.md): while unacknowledged, an API
 *   incident's `incident.reminder` every `remindEveryMs` (the status's is `filter.status_reminder`) and
 *   `incident.escalated` once per stage of `escalateAfterMs`; acknowledged (`core/incidents/incident-ack.ts`), neither.
 *   Every alert of an escalated incident carries its `stage`.
 */
export function decide(
  previous: MonitorState | undefined,
  observation: CycleObservation,
  settings: DecideSettings,
  decideByMs?: number,
): Decision {
  const prev = previous ?? INITIAL_STATE;
  const at = observation.at;
  const order = cycleOrder(prev.lastObservationAt, at, decideByMs);
  if (order === 'stale') return { state: prev, alerts: [], stale: true };
  const outcomes = observation.outcomes;
  const authFailure = outcomes.find((o) => o.errorKind === 'auth');
  const answeredWithoutAuthFailure = outcomes.some(
    // A 5xx or 429 (often from a gateway in front of the API) says nothing about the key.
    (o) =>
      o.ok || (o.httpStatus !== undefined && o.errorKind !== undefined && !KEY_SILENT_KINDS.has(o.errorKind)),
  );
  const unreachable =
    outcomes.length > 0 &&
    authFailure === undefined &&
    outcomes.every((o) => UNREACHABLE_KINDS.has(o.errorKind));
  const unreachableError = outcomes.find((o) => o.error !== undefined)?.error ?? 'every request failed';
  const filter = observation.filter;

  const auth = stepIncident(
    prev.incidents.auth,
    authFailure === undefined ? undefined : { error: authFailure.error ?? 'the API key was rejected' },
    answeredWithoutAuthFailure && authFailure === undefined,
    at,
    1,
    ['api.auth_failed', 'api.auth_restored'],
  );
  const reach = stepIncident(
    prev.incidents.unreachable,
    unreachable ? { error: unreachableError } : undefined,
    !unreachable && outcomes.length > 0,
    at,
    settings.alertAfter,
    ['api.unreachable', 'api.recovered'],
  );
  const unreadableHit =
    isUnreadableAnswer(filter) && filter !== undefined && !filter.ok ? { error: filter.error } : undefined;
  const readable = stepIncident(
    prev.incidents.unreadable,
    unreadableHit,
    filter?.ok === true,
    at,
    settings.alertAfter,
    ['filter.status_unreadable', 'filter.status_readable'],
  );
  const status = stepStatus(prev, filter, at, settings);
  const prevTimers = prev.incidentTimers ?? {};
  const awayId = status.fields.awayIncident;
  const awayAcknowledged = awayId !== undefined && ownTimers(prevTimers, awayId)?.acknowledged !== undefined;
  // A change starts the reminder clock afresh; otherwise it runs from the last reminder.
  const reminder =
    status.alert === undefined
      ? stepReminder(
          { ...status.fields, lastReminderAt: prev.lastReminderAt },
          filter,
          at,
          settings,
          awayAcknowledged,
        )
      : {};
  const followed = followMonitorIncidents(
    prevTimers,
    openIncidentsAfter(status.fields, { auth, reach, readable }, at, settings),
    at,
    settings,
  );
  // Every alert of an incident carries the stage it reached (its end too: whoever got the escalation gets it);
  // the status's reminder the stage before this cycle's escalation, as an API incident's. Stage 1 is left
  // implicit (the attribute `stage` says 1 without it), as before these incidents escalated.
  const staged = (alert: NewAlert, timers: MonitorIncidentTimersById): NewAlert => {
    const stage =
      alert.incident === undefined
        ? undefined
        : (ownTimers(timers, alert.incident) ?? ownTimers(prevTimers, alert.incident))?.stage;
    return stage === undefined || stage <= FIRST_STAGE ? alert : { ...alert, stage };
  };

  const fresh: NewAlert[] = [];
  // Recoveries first, so a reader sees "reachable again" before what the recovered API then says.
  for (const step of [reach, auth, readable]) {
    if (step.alert !== undefined && RECOVERY_EVENTS.has(step.alert.event)) fresh.push(step.alert);
  }
  for (const step of [auth, reach, readable]) {
    if (step.alert !== undefined && !RECOVERY_EVENTS.has(step.alert.event)) fresh.push(step.alert);
  }
  // The away incident the settings closed ends before any change this cycle saw.
  if (status.closed !== undefined) fresh.push(status.closed);
  if (status.alert !== undefined) fresh.push(status.alert);
  const changes = fresh.map((alert) => staged(alert, followed.timers));
  const reminders = [
    ...(reminder.alert === undefined ? [] : [staged(reminder.alert, prevTimers)]),
    ...followed.reminders,
  ];

  let nextSeq = prev.nextSeq;
  const alerts = [...changes, ...reminders, ...followed.escalations].map(
    (alert): AlertRecord => ({ ...alert, seq: nextSeq++ }),
  );
  const state: MonitorState = {
    ...(status.fields.status === undefined ? {} : { status: status.fields.status }),
    ...(status.fields.statusSince === undefined ? {} : { statusSince: status.fields.statusSince }),
    ...(status.fields.candidate === undefined ? {} : { candidate: status.fields.candidate }),
    lastObservationAt: at,
    incidents: { auth: auth.state, unreachable: reach.state, unreadable: readable.state },
    nextSeq,
    ...(reminder.lastReminderAt === undefined ? {} : { lastReminderAt: reminder.lastReminderAt }),
    ...(status.fields.awayIncident === undefined ? {} : { awayIncident: status.fields.awayIncident }),
    ...(status.fields.awayClosed === undefined ? {} : { awayClosed: status.fields.awayClosed }),
    ...(Object.keys(followed.timers).length === 0 ? {} : { incidentTimers: followed.timers }),
  };
  return {
    state,
    alerts,
    stale: false,
    ...(order === 'after-clock-ahead' && prev.lastObservationAt !== undefined
      ? { skewedLastAt: prev.lastObservationAt }
      : {}),
  };
}
