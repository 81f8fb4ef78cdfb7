/**
 * Silences: quiet times for planned work (docs/silences.md). An alert observed inside a silence whose pattern
 * matches its event is recorded as suppressed and not sent; what it held back that still holds when the
 * silence ends is announced once then ({@link afterAlert}, {@link dueAnnouncements}). Pure: the clock,
 * randomness and the store are the caller's.
 */

import { type AlertFamily, eventFamily } from '../alerts/alert-families/index.ts';
import { sinceOf } from '../alerts/alert-since.ts';
import type { AlertRecord, NewAlertRecord } from '../types.ts';
import {
  type HeldAcknowledgement,
  type HeldChange,
  type HeldChanges,
  type Silence,
  STILL_HOLDING_EVENT,
  silenceFor,
  silenceMatches,
  silenceStatus,
} from './silence-window.ts';

// A silence itself lives in `silence-window.ts` (no alert texts there, for `shieldwatch status`); what a cycle
// needs of it is here as well, so that the held-change code and its callers have one module.
export {
  DEFAULT_PATTERN,
  eventsMatching,
  type HeldAcknowledgement,
  type HeldChange,
  type HeldChanges,
  holdsAny,
  isSilenceId,
  listedSilences,
  MAX_REASON_CHARS,
  MAX_SILENCE_MS,
  MIN_SILENCE_MS,
  mayBeSilenced,
  type NewSilence,
  newSilence,
  patternMatches,
  patternProblem,
  remainingMs,
  SILENCEABLE_EVENTS,
  type Silence,
  type SilenceRequest,
  type SilenceStatus,
  STILL_HOLDING_EVENT,
  silenceFor,
  silenceId,
  silenceMatches,
  silenceStatus,
  toHeldChanges,
  toSilence,
} from './silence-window.ts';

/**
 * Alerts of an incident (a rule's across networks, a blind spot's) that tell more of one already opened: held
 * back with it when its opening was held back (an escalation raising the stage its announcement carries). An
 * update is never remembered on its own: remembered alone, an update of an incident whose opening was
 * published would make its resolve look unopened. An escalation of such an incident is remembered as opened
 * (its resolve is sent), so the silence's end announces the stage it reached.
 */
const GROUPED_FOLLOW_UPS: ReadonlySet<string> = new Set(['incident.updated', 'incident.escalated']);

/**
 * The key of what an alert changes (its incident, or the filter status for a change without one), as its
 * event's family says ({@link AlertFamily.heldKey}); undefined for a change of nothing that could still hold.
 */
export function heldKey(alert: Pick<AlertRecord, 'event' | 'incident'>): string | undefined {
  // The family of the event, not of the record: a blind spot's `incident.*` alert is held as a rule incident's.
  return eventFamily(alert.event)?.heldKey?.(alert as AlertRecord);
}

/**
 * Most bytes (as JSON) of the changes one outbox scope remembers: they share the item with its state and its
 * outbox (a rule item's budgets, `rule-items.ts`, leave room for it). A change held back past it is suppressed
 * all the same but not announced (its resolve is then sent): a silence over a huge attack cannot grow the item
 * past DynamoDB's 400 KB limit.
 */
export const HELD_BUDGET_BYTES = 32_000;

/** What to do with one outbox alert, and the held changes after it. */
export interface HeldVerdict {
  /** The silence it is suppressed by; undefined: it is sent. */
  readonly suppressedBy?: string;
  readonly held: HeldChanges;
}

const without = (held: HeldChanges, key: string): HeldChanges =>
  Object.fromEntries(Object.entries(held).filter(([k]) => k !== key));

/**
 * The verdict on an alert about to leave the outbox (in sequence order), given what the scope's silences hold
 * back, whether it closes an incident (`closes`, its action is `resolve`), and the silence over it (undefined
 * when it is none, or when {@link mayBeSilenced} says none is looked up):
 * - a resolve whose opening was held back and never announced is suppressed with it (nothing to close), any
 *   other resolve is sent: the resolve of an incident whose trigger was published always goes out;
 * - a suppressed change is remembered; a status change back to where the held change started is suppressed
 *   with it (also just after the silence, before its end was announced), so neither is announced;
 * - a sent alert about what is held back tells its own story: the held change is forgotten.
 * Same input, same verdict: a cycle that handles the alert again after a crash decides the same. The held
 * changes come back as the same object when they do not change.
 */
export function afterAlert(
  held: HeldChanges,
  alert: AlertRecord,
  closes: boolean,
  silence: Silence | undefined,
): HeldVerdict {
  const key = heldKey(alert);
  const prior = key === undefined || !Object.hasOwn(held, key) ? undefined : held[key];
  if (prior?.closedBy === alert.seq) return { suppressedBy: prior.silence, held };
  // Markers of alerts handled before this one (in sequence order, so they have left the outbox) can go. The
  // same object when nothing changes: the outbox then removes the alert without writing `held`.
  const stale = Object.values(held).some((h) => h.closedBy !== undefined && h.closedBy < alert.seq);
  const next: HeldChanges = stale
    ? Object.fromEntries(
        Object.entries(held).filter(([, h]) => h.closedBy === undefined || h.closedBy > alert.seq),
      )
    : held;
  const open = prior?.closedBy === undefined ? prior : undefined;
  if (alert.event === ACKNOWLEDGED) return afterAcknowledgement(next, alert, silence);
  // A reminder of an incident whose opening a silence held back and that is not announced yet (the silence
  // ended this cycle): it would come before the announcement that tells of the incident. The announcement says
  // what it would (still holding); the next reminder comes on schedule.
  if (alert.event === 'incident.reminder' || alert.event === 'filter.status_reminder') {
    const waiting = Object.values(next).find(
      (h) =>
        h.incident !== undefined &&
        h.incident === alert.incident &&
        h.opened !== true &&
        h.closedBy === undefined,
    );
    if (waiting !== undefined) return { suppressedBy: silence?.id ?? waiting.silence, held: next };
  }
  if (key === undefined) {
    return silence === undefined ? { held } : { suppressedBy: silence.id, held };
  }
  if (closes) {
    if (open === undefined) return { held: next };
    if (open.opened === true) return { held: without(next, key) };
    return { suppressedBy: open.silence, held: { ...next, [key]: { ...open, closedBy: alert.seq } } };
  }
  // A status back where it was before the change held back: neither is announced (also when the way back is
  // seen just after the silence, before its end was announced).
  if (
    open !== undefined &&
    alert.event === 'filter.status_changed' &&
    open.from !== undefined &&
    alert.to === open.from
  ) {
    return {
      suppressedBy: silence?.id ?? open.silence,
      held: { ...next, [key]: { ...open, closedBy: alert.seq } },
    };
  }
  if (silence === undefined) {
    if (open === undefined) return { held: next };
    // Sent, it tells PagerDuty of the incident: an acknowledgement held back with it is all that still waits.
    const ack = open.acknowledgement;
    return {
      held: ack === undefined ? without(next, key) : { ...next, [key]: acknowledgementOnly(open, ack) },
    };
  }
  // An incident's update or escalation held back: what holds is still the opening (held back, or published);
  // a held opening learns the stage an escalation reached, for its announcement.
  if (GROUPED_FOLLOW_UPS.has(alert.event)) {
    const stage = laterStage(open, alert);
    if (stage === undefined) return { suppressedBy: silence.id, held: next };
    if (open !== undefined) return { suppressedBy: silence.id, held: { ...next, [key]: { ...open, stage } } };
    // The escalation of an incident whose opening was published: remembered as opened (its resolve is sent all
    // the same), so that the silence's end announces it still holds at this stage, to whoever that stage reaches.
    const escalated: HeldChange = {
      silence: silence.id,
      // Its own event (a blind spot's is matched as the blind spot by its id: `silenceMatches`).
      event: alert.event,
      at: alert.at,
      since: sinceOf(alert) ?? alert.at,
      ...pick(alert, ['incident', 'rule', 'network', 'to', 'expected', 'severity']),
      stage,
      opened: true,
    };
    return { suppressedBy: silence.id, held: withinBudget(next, key, escalated) };
  }
  if (open !== undefined) {
    const to = alert.to === undefined ? {} : { to: alert.to };
    const severity = alert.severity === undefined ? {} : { severity: alert.severity };
    const stage = laterStage(open, alert);
    return {
      suppressedBy: silence.id,
      held: {
        ...next,
        [key]: { ...open, since: alert.at, ...to, ...severity, ...(stage === undefined ? {} : { stage }) },
      },
    };
  }
  const continues =
    alert.event === 'filter.status_changed' &&
    alert.expected !== undefined &&
    alert.from !== undefined &&
    alert.from !== alert.expected;
  const stage = laterStage(undefined, alert);
  const change: HeldChange = {
    silence: silence.id,
    event: alert.event,
    at: alert.at,
    since: alert.at,
    ...pick(alert, ['incident', 'from', 'to', 'expected', 'severity', 'rule', 'network']),
    ...(stage === undefined ? {} : { stage }),
    ...(continues ? { opened: true } : {}),
  };
  return { suppressedBy: silence.id, held: withinBudget(next, key, change) };
}

const ACKNOWLEDGED = 'incident.acknowledged';

/**
 * The verdict on an `incident.acknowledged` (docs/silences.md, Acknowledged inside a silence). PagerDuty must hear
 * of an incident before its acknowledgement, and must hear of the acknowledgement once the incident is announced:
 * - while the incident's opening is held back (never published nor announced: a silence over it, or one that
 *   ended but whose announcement is not out yet), the acknowledgement is held back with it, whatever the silences
 *   say of acknowledgements, and sent right after its announcement;
 * - a silence over the acknowledgement itself, of an incident whose opening was published, holds it back until
 *   the silence's end, when it is sent alone (the incident still open);
 * - otherwise it is sent.
 * An acknowledgement that does not fit the held budget is handled as before this rule (suppressed when a silence
 * is over it, else sent). Same input, same verdict.
 */
function afterAcknowledgement(
  held: HeldChanges,
  alert: AlertRecord,
  silence: Silence | undefined,
): HeldVerdict {
  const key = typeof alert.incident === 'string' && alert.incident !== '' ? alert.incident : undefined;
  const open = key === undefined || !Object.hasOwn(held, key) ? undefined : held[key];
  const plain: HeldVerdict = silence === undefined ? { held } : { suppressedBy: silence.id, held };
  if (key === undefined || open?.closedBy !== undefined) return plain;
  // Handled again after a crash that left it in the outbox with `held` already written.
  if (open?.acknowledgement?.seq === alert.seq) return { suppressedBy: open.silence, held };
  const acknowledgement: HeldAcknowledgement = { seq: alert.seq, record: queuedRecord(alert) };
  if (open !== undefined && open.opened !== true) {
    const kept = withinBudget(held, key, { ...open, acknowledgement });
    return kept === held ? plain : { suppressedBy: silence?.id ?? open.silence, held: kept };
  }
  if (silence === undefined) return plain;
  const change: HeldChange =
    open === undefined
      ? {
          silence: silence.id,
          event: ACKNOWLEDGED,
          at: alert.at,
          since: alert.at,
          incident: key,
          opened: true,
        }
      : open;
  return { suppressedBy: silence.id, held: withinBudget(held, key, { ...change, acknowledgement }) };
}

/** A held change that only waits to send its acknowledgement (its incident's trigger is out). */
function acknowledgementOnly(open: HeldChange, acknowledgement: HeldAcknowledgement): HeldChange {
  const incident = open.incident ?? (acknowledgement.record.incident as string);
  return {
    silence: open.silence,
    event: ACKNOWLEDGED,
    at: acknowledgement.record.at,
    since: acknowledgement.record.at,
    incident,
    opened: true,
    acknowledgement,
  };
}

/** Outbox bookkeeping and the sequence number: what a record sent again under a new number leaves behind. */
const BOOKKEEPING = new Set(['seq', 'claimedBy', 'claimUntil', 'failures', 'lastError', 'spilled']);

/** The alert as queued, without its sequence number, its outbox bookkeeping and undefined fields. */
function queuedRecord(alert: AlertRecord): NewAlertRecord {
  return Object.fromEntries(
    Object.entries(alert).filter(([name, value]) => !BOOKKEEPING.has(name) && value !== undefined),
  ) as unknown as NewAlertRecord;
}

/** `held` with `change` under `key`, unless that grows it past {@link HELD_BUDGET_BYTES}: then `held` as it is. */
function withinBudget(held: HeldChanges, key: string, change: HeldChange): HeldChanges {
  const grown = { ...held, [key]: change };
  return Buffer.byteLength(JSON.stringify(grown)) > HELD_BUDGET_BYTES ? held : grown;
}

/** The alert's stage when it is a whole number above the held change's (absent: 1); undefined otherwise. */
function laterStage(open: HeldChange | undefined, alert: AlertRecord): number | undefined {
  const stage = alert.stage;
  if (typeof stage !== 'number' || !Number.isSafeInteger(stage) || stage <= (open?.stage ?? 1))
    return undefined;
  return stage;
}

function pick<K extends keyof AlertRecord>(
  alert: AlertRecord,
  keys: readonly K[],
): Partial<Pick<AlertRecord, K>> {
  const out: Partial<Pick<AlertRecord, K>> = {};
  for (const key of keys) if (alert[key] !== undefined) out[key] = alert[key];
  return out;
}

/** The announcements due at `nowMs`, and the held changes left. */
export interface DueAnnouncements {
  readonly alerts: ReadonlyArray<NewAlertRecord>;
  readonly held: HeldChanges;
}

/**
 * What is due once the outbox is empty: each held change whose silence has ended (or expired, or is gone) and
 * that no other silence now holds back is announced once, as a `silence.still_holding` alert with the held
 * change's incident (a trigger for an incident, so PagerDuty opens or keeps the same one). The markers of
 * closed changes are dropped (their alerts have left the outbox). Announcements in key order.
 */
export function dueAnnouncements(
  held: HeldChanges,
  silences: readonly Silence[],
  nowMs: number,
  /**
   * Whether the incident is acknowledged now, as its scope's state says; false drops a held acknowledgement
   * (withdrawn with `unack` inside the silence). Unknown (no such hook, or undefined): it is sent.
   */
  acknowledgedNow: (incident: string) => boolean | undefined = () => undefined,
): DueAnnouncements {
  const alerts: Array<NewAlertRecord> = [];
  const left: Record<string, HeldChange> = {};
  const now = new Date(nowMs).toISOString();
  for (const key of Object.keys(held).sort()) {
    const change = held[key]!;
    if (change.closedBy !== undefined) continue;
    const own = silences.find((s) => s.id === change.silence);
    if (
      (own !== undefined &&
        silenceStatus(own, nowMs) === 'active' &&
        silenceMatches(own.pattern, change.event, change.incident)) ||
      silenceFor(silences, { event: change.event, at: now, incident: change.incident }) !== undefined
    ) {
      left[key] = change;
      continue;
    }
    const ack =
      change.acknowledgement !== undefined &&
      (change.incident === undefined || acknowledgedNow(change.incident) !== false)
        ? { ...change.acknowledgement.record, at: now }
        : undefined;
    if (change.event === ACKNOWLEDGED) {
      // The acknowledgement alone of an incident whose trigger is out: sent, unless withdrawn meanwhile.
      if (ack !== undefined) alerts.push(ack);
      continue;
    }
    alerts.push({
      event: STILL_HOLDING_EVENT,
      at: now,
      heldSince: change.since,
      silence: change.silence,
      heldEvent: change.event,
      ...(change.incident === undefined ? {} : { incident: change.incident }),
      ...(change.from === undefined ? {} : { from: change.from }),
      ...(change.to === undefined ? {} : { to: change.to }),
      ...(change.expected === undefined ? {} : { expected: change.expected }),
      ...(change.severity === undefined ? {} : { severity: change.severity }),
      ...(change.rule === undefined ? {} : { rule: change.rule }),
      ...(change.network === undefined ? {} : { network: change.network }),
      ...(change.stage === undefined ? {} : { stage: change.stage }),
    });
    // After the announcement: PagerDuty acknowledges the incident it has just opened (or kept).
    if (ack !== undefined) alerts.push(ack);
  }
  return { alerts, held: left };
}
