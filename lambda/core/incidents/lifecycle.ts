/**
 * The one lifecycle of an incident, whatever its kind (CONTRACT §13, "One lifecycle for every kind";
 * docs/design/incidents.md, One lifecycle): what a cycle does with an open incident's timers (a reminder every
 * `remindEvery`, an escalation once per stage, times a clock ahead wrote pulled back: `escalation.ts`
 * {@link followTimers}), and acknowledging and withdrawing an acknowledgement. Written once here; each kind only
 * says where its incident is held ({@link HeldIncident}: its timers, the state with them changed, its alert
 * and its view), through the holds in `incident-holds.ts`. The detectors (the status, the API, the blind
 * spots, the rules) say what they observed and which incidents are open; nothing else. Pure.
 */

import type { AckIncidentView } from '../ack/ack-page.ts';
import type { AlertRecord, NewAlertRecord } from '../types.ts';
import { type EscalationSchedule, followTimers, type IncidentTimers } from './escalation.ts';
import type { Acknowledgement } from './incidents.ts';

/** Longest note kept with an acknowledgement, in characters. */
export const ACK_NOTE_MAX_CHARS = 500;
/** Longest `by` kept, in characters (an IAM ARN of a long session name fits). */
export const ACK_BY_MAX_CHARS = 300;

/** The `incident.*` events every kind's follow-ups and acknowledgement publish. */
export type FollowUpEvent = 'incident.reminder' | 'incident.escalated' | 'incident.acknowledged';

/** An acknowledgement asked for: who, when (ISO-8601), and an optional note. */
export interface AckRequest {
  readonly by: string;
  readonly at: string;
  readonly note?: string;
}

/** What changed the timers, for a home that keeps a timeline (the rule incident item). */
export interface AckChange {
  readonly what: 'acknowledged' | 'unacknowledged';
  readonly by: string;
  readonly at: string;
  readonly note?: string;
}

/**
 * One open incident where its kind holds it (the monitor state item, a shard's health item, a rule cell, a
 * rule's incident item), as the lifecycle reads and changes it.
 */
export interface HeldIncident<S> {
  readonly id: string;
  /** Its timers as held (an incident without its own yet: as its opening tells them). */
  readonly timers: IncidentTimers;
  /** An `incident.*` alert about it at `at`, its stage and opening as `timers` tell them (its kind's fields). */
  alert(event: FollowUpEvent, timers: IncidentTimers, at: string): NewAlertRecord;
  /** The incident as the acknowledge pages show it with `timers`. */
  view(timers: IncidentTimers): AckIncidentView;
  /** The state that holds it with `timers` in place; `change` is what an acknowledge or unacknowledge did. */
  put(timers: IncidentTimers, change: AckChange): S;
}

/** What acknowledging (or withdrawing) an incident decided, in the state `S` that holds it. */
export type AckOutcome<S> =
  | {
      readonly outcome: 'acknowledged' | 'unacknowledged';
      readonly state: S;
      readonly view: AckIncidentView;
      /** `incident.acknowledged`, for an acknowledgement. */
      readonly alert?: AlertRecord;
    }
  | { readonly outcome: 'already' | 'not-acknowledged'; readonly view: AckIncidentView }
  | { readonly outcome: 'not-open' };

/** A note or a name as kept: control characters folded to spaces, cut to `max`. */
export function cleanAckText(text: string, max: number): string {
  const folded = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim();
  return [...folded].slice(0, max).join('');
}

/** The acknowledgement kept for `ack`: who and the note cleaned and bounded. */
export function acknowledgementOf(ack: AckRequest): Acknowledgement {
  const note = ack.note === undefined ? '' : cleanAckText(ack.note, ACK_NOTE_MAX_CHARS);
  return {
    by: cleanAckText(ack.by, ACK_BY_MAX_CHARS) || 'unknown',
    at: ack.at,
    ...(note === '' ? {} : { note }),
  };
}

/**
 * Acknowledges `held` (open, as read) in `state`: `acknowledged` and a bumped `ackRev` on its timers and
 * `incident.acknowledged` (who in `acknowledgedBy`, the note as its `detail`) with the state's next sequence
 * number, in one write. An incident acknowledged already changes nothing (a second click, or two at once,
 * publish once); one not open is refused.
 */
export function acknowledgeHeld<S extends { readonly nextSeq: number }>(
  state: S,
  held: HeldIncident<S> | undefined,
  ack: AckRequest,
): AckOutcome<S> {
  if (held === undefined) return { outcome: 'not-open' };
  if (held.timers.acknowledged !== undefined) return { outcome: 'already', view: held.view(held.timers) };
  const acknowledged = acknowledgementOf(ack);
  const timers: IncidentTimers = { ...held.timers, acknowledged, ackRev: (held.timers.ackRev ?? 0) + 1 };
  const alert = {
    ...held.alert('incident.acknowledged', timers, ack.at),
    seq: state.nextSeq,
    acknowledgedBy: acknowledged.by,
    ...(acknowledged.note === undefined ? {} : { detail: acknowledged.note }),
  } as AlertRecord;
  const change: AckChange = {
    what: 'acknowledged',
    by: acknowledged.by,
    at: ack.at,
    ...(acknowledged.note === undefined ? {} : { note: acknowledged.note }),
  };
  return {
    outcome: 'acknowledged',
    state: { ...held.put(timers, change), nextSeq: state.nextSeq + 1 },
    view: held.view(timers),
    alert,
  };
}

/**
 * Withdraws the acknowledgement of `held`: reminders and escalation apply again from the next cycle (an
 * escalation whose age passed meanwhile is due at once). Nothing is published.
 */
export function unacknowledgeHeld<S>(
  held: HeldIncident<S> | undefined,
  by: string,
  at: string,
): AckOutcome<S> {
  if (held === undefined) return { outcome: 'not-open' };
  if (held.timers.acknowledged === undefined)
    return { outcome: 'not-acknowledged', view: held.view(held.timers) };
  const { acknowledged: _withdrawn, ...rest } = held.timers;
  const timers: IncidentTimers = { ...rest, ackRev: (held.timers.ackRev ?? 0) + 1 };
  return {
    outcome: 'unacknowledged',
    state: held.put(timers, { what: 'unacknowledged', by: cleanAckText(by, ACK_BY_MAX_CHARS), at }),
    view: held.view(timers),
  };
}

/** What following an incident's timers needs of the settings. */
export interface FollowSettings {
  /** `incident.reminder` of each open, unacknowledged incident this often; unset: none. */
  readonly remindEveryMs?: number;
  /** The `escalateAfter` setting: the stages' ages; unset or empty: no escalation. */
  readonly escalateAfterMs?: EscalationSchedule;
}

/** One open incident a cycle follows: its id, its timers (stored, or as its opening tells them), its alerts. */
export interface FollowedIncident<A> {
  readonly id: string;
  readonly timers: IncidentTimers;
  /** Whether it reminds by `incident.reminder` (the status away reminds on a clock of its own). */
  readonly reminds?: boolean;
  /** Its `incident.reminder` or `incident.escalated` at `at`, with the timers the follow-up tells. */
  alert(event: 'incident.reminder' | 'incident.escalated', timers: IncidentTimers): A;
}

/**
 * One cycle at `at` of the open incidents' timers: for each (in the order given) its reminder then its
 * escalation when due; the timers after the cycle by id. The incidents not given are dropped (their end
 * carried their stage). With `room`, at most that many alerts: an incident whose follow-ups do not fit keeps
 * its timers as they were (counted in `deferred`), and is due again in the next cycle.
 */
export function followIncidents<A>(
  open: readonly FollowedIncident<A>[],
  at: string,
  settings: FollowSettings,
  room = Number.POSITIVE_INFINITY,
): { timers: Record<string, IncidentTimers>; alerts: A[]; deferred: number } {
  const timers: Record<string, IncidentTimers> = {};
  const alerts: A[] = [];
  let left = Math.max(0, room);
  let deferred = 0;
  for (const incident of open) {
    const followed = followTimers(incident.timers, at, {
      ...(incident.reminds === false || settings.remindEveryMs === undefined
        ? {}
        : { remindEveryMs: settings.remindEveryMs }),
      ...(settings.escalateAfterMs === undefined ? {} : { escalateAfterMs: settings.escalateAfterMs }),
    });
    const due = (followed.reminded === undefined ? 0 : 1) + (followed.escalated === undefined ? 0 : 1);
    let after = followed.timers;
    if (due > left) {
      deferred++;
      after = incident.timers;
    } else {
      left -= due;
      if (followed.reminded !== undefined)
        alerts.push(incident.alert('incident.reminder', followed.reminded));
      if (followed.escalated !== undefined)
        alerts.push(incident.alert('incident.escalated', followed.escalated));
    }
    // Defined as an own property: an id may name a network `__proto__`.
    Object.defineProperty(timers, incident.id, {
      value: after,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return { timers, alerts, deferred };
}
