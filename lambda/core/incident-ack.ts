/**
 * Acknowledging an incident (CONTRACT §14, docs/acknowledge.md): the decision over one incident scope as read,
 * for `shieldwatch ack`/`unack` and the acknowledge link alike. An acknowledgement sets `acknowledged` on the
 * open incident, bumps `ackRev`, adds a line to its timeline and queues `incident.acknowledged` (action
 * `acknowledge`) in the same write; acknowledging an incident already acknowledged changes nothing (so a second
 * click, or two at once, publishes once); an incident that is not open (resolved, or never was) is refused.
 * Pure: the scope, the time and who are parameters.
 */
import { type Acknowledgement, type Incident, type IncidentScopeState, incidentAlert } from './incidents.ts';
import type { AlertRecord } from './types.ts';

/** Longest note kept with an acknowledgement, in characters. */
export const ACK_NOTE_MAX_CHARS = 500;
/** Longest `by` kept, in characters (an IAM ARN of a long session name fits). */
export const ACK_BY_MAX_CHARS = 300;
/** Who acknowledged through the link in an alert. */
export const ACK_BY_LINK = 'link';

/** What an acknowledgement decided. */
export type AckDecision =
  | {
      /** The incident was open and not acknowledged: write `state` and queue `alert`. */
      readonly outcome: 'acknowledged';
      readonly state: IncidentScopeState;
      readonly incident: Incident;
      readonly alert: AlertRecord;
    }
  | { readonly outcome: 'already'; readonly incident: Incident }
  /** No open incident of that id: resolved, replaced by a newer one, or never opened. */
  | { readonly outcome: 'not-open'; readonly resolved?: Incident };

/** What withdrawing an acknowledgement decided. */
export type UnackDecision =
  | { readonly outcome: 'unacknowledged'; readonly state: IncidentScopeState; readonly incident: Incident }
  | { readonly outcome: 'not-acknowledged'; readonly incident: Incident }
  | { readonly outcome: 'not-open'; readonly resolved?: Incident };

/** The rule of an incident id `<rule>@<openedAt>` (rule names hold no `@`), or undefined for another shape. */
export function incidentRuleOf(id: string): string | undefined {
  const at = id.indexOf('@');
  if (at <= 0 || at === id.length - 1) return undefined;
  const rule = id.slice(0, at);
  return /^[A-Za-z0-9_-]{1,40}$/.test(rule) ? rule : undefined;
}

/** A note or a name as kept: control characters folded to spaces, cut to `max`. */
export function cleanAckText(text: string, max: number): string {
  const folded = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim();
  return [...folded].slice(0, max).join('');
}

/**
 * Acknowledges incident `id` in `scope` (as read), by `by` at `at` (ISO-8601), with an optional note. The
 * alert takes the scope's next sequence number.
 */
export function acknowledgeIncident(
  scope: IncidentScopeState,
  id: string,
  ack: { readonly by: string; readonly at: string; readonly note?: string },
): AckDecision {
  const open = scope.open;
  if (open === undefined || open.id !== id || open.state !== 'open') {
    return scope.last?.id === id ? { outcome: 'not-open', resolved: scope.last } : { outcome: 'not-open' };
  }
  if (open.acknowledged !== undefined) return { outcome: 'already', incident: open };
  const note = ack.note === undefined ? '' : cleanAckText(ack.note, ACK_NOTE_MAX_CHARS);
  const acknowledged: Acknowledgement = {
    by: cleanAckText(ack.by, ACK_BY_MAX_CHARS) || 'unknown',
    at: ack.at,
    ...(note === '' ? {} : { note }),
  };
  const incident: Incident = {
    ...open,
    acknowledged,
    ackRev: (open.ackRev ?? 0) + 1,
    timeline: [
      ...open.timeline,
      { at: ack.at, what: 'acknowledged', count: 0, by: acknowledged.by, ...(note === '' ? {} : { note }) },
    ],
    alerts: { ...open.alerts, sent: open.alerts.sent + 1 },
  };
  const active = incident.members.filter((m) => m.leftAt === undefined);
  const alert: AlertRecord = {
    ...incidentAlert('incident.acknowledged', incident, active, ack.at),
    seq: scope.nextSeq,
    acknowledgedBy: acknowledged.by,
    ...(note === '' ? {} : { detail: note }),
  };
  return {
    outcome: 'acknowledged',
    state: { ...scope, nextSeq: scope.nextSeq + 1, open: incident },
    incident,
    alert,
  };
}

/**
 * Withdraws the acknowledgement of incident `id`: reminders and escalation apply again from the next cycle
 * (an escalation whose age passed meanwhile is due at once). Nothing is published; the timeline says who.
 */
export function unacknowledgeIncident(
  scope: IncidentScopeState,
  id: string,
  by: string,
  at: string,
): UnackDecision {
  const open = scope.open;
  if (open === undefined || open.id !== id || open.state !== 'open') {
    return scope.last?.id === id ? { outcome: 'not-open', resolved: scope.last } : { outcome: 'not-open' };
  }
  if (open.acknowledged === undefined) return { outcome: 'not-acknowledged', incident: open };
  const { acknowledged: _withdrawn, ...rest } = open;
  const incident: Incident = {
    ...rest,
    ackRev: (open.ackRev ?? 0) + 1,
    timeline: [
      ...open.timeline,
      { at, what: 'unacknowledged', count: 0, by: cleanAckText(by, ACK_BY_MAX_CHARS) },
    ],
  };
  return { outcome: 'unacknowledged', state: { ...scope, open: incident }, incident };
}
