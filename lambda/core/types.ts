/**
 * Domain types shared by the pure core, the adapters and the entry points.
 * Nothing here reads the clock, the environment or the network.
 */
import type { EventsOf } from './alerts/alert-events.ts';
import type { IncidentStory } from './incidents/incidents.ts';
import type { RuleAlertFields } from './rules/rule-types.ts';

/** Why an observation failed. Recorded on every failed snapshot and counted in metrics. */
export type FailureKind =
  /** 401 or 403: the key was rejected. */
  | 'auth'
  /** 429. */
  | 'rate_limited'
  /** 5xx. */
  | 'server'
  /** Any other non-2xx answer (other 4xx, 1xx, 3xx redirects, which are never followed). */
  | 'client'
  /** Time-out, refused, reset, DNS, TLS, or the cycle's deadline. */
  | 'transport'
  /** A 2xx answer we cannot use: not JSON, too large, or the status path does not resolve to a scalar. */
  | 'contract'
  /**
   * Snapshots only: the operator stopped the request (the CLI's second Ctrl-C). No evidence about the API
   * either way: no judge sees it, and uptime counts its time as a gap.
   */
  | 'cut_short';

/** The failure kinds of the API's answers (all but the operator's stop). */
export type ApiFailureKind = Exclude<FailureKind, 'cut_short'>;

/** One answer of the protection API, as the client saw it. The client never throws. */
export interface ApiResponse {
  /** True when the answer was 2xx and its body parsed as JSON. */
  readonly ok: boolean;
  /** HTTP status code, when an answer arrived. */
  readonly httpStatus?: number;
  /** Time from sending the request (after a concurrency slot was free) to the last byte, in ms; retries included. */
  readonly latencyMs: number;
  /** The parsed body, when it was JSON. */
  readonly json?: unknown;
  /**
   * The body text as received (strict UTF-8, BOM removed, the key scrubbed), when it was read within the size
   * cap; the text `json` was parsed from.
   */
  readonly text?: string;
  /** Size of the body in bytes, when known (read, or announced by Content-Length). */
  readonly bodyBytes?: number;
  /** What went wrong, for people; never contains the key. */
  readonly error?: string;
  /** What went wrong, for machines. */
  readonly errorKind?: ApiFailureKind;
  /** Number of attempts made (1 when no retry happened). */
  readonly attempts: number;
}

/** What a snapshot observed. */
export type Target = { readonly kind: 'filter' } | { readonly kind: 'network'; readonly networkId: string };

/** One stored observation: the filter status or one network's real-time stats, success or failure. */
export interface Snapshot {
  readonly target: Target;
  /** Observation time, ISO-8601 UTC with milliseconds. */
  readonly at: string;
  /** Identifies the cycle that made it (several cycles may run at the same millisecond). */
  readonly cycleId: string;
  readonly ok: boolean;
  /** Filter snapshots only: the status read from the body, exact. */
  readonly status?: string;
  /** Filter snapshots only: the dot path the status came from. */
  readonly statusPath?: string;
  /**
   * The body as received, when it was JSON and small enough to store, alone and within its cycle's budget;
   * otherwise `bodyBytes` and an `error` say why it is not kept.
   */
  readonly bodyText?: string;
  readonly bodyBytes?: number;
  readonly httpStatus?: number;
  readonly latencyMs?: number;
  readonly error?: string;
  readonly errorKind?: FailureKind;
}

/** Names of the alerts shieldwatch sends (the SNS `event` message attribute). */
export type AlertEvent =
  | 'filter.status_changed'
  | 'api.auth_failed'
  | 'api.auth_restored'
  | 'api.unreachable'
  | 'api.recovered'
  | 'filter.status_unreadable'
  | 'filter.status_readable'
  | 'filter.status_reminder'
  | 'network.rule_triggered'
  | 'network.rule_resolved'
  | 'network.unreachable'
  | 'network.recovered'
  | 'network.rule_unreadable'
  | 'network.rule_readable'
  | 'incident.opened'
  | 'incident.updated'
  | 'incident.reminder'
  | 'incident.resolved'
  | 'incident.acknowledged'
  | 'incident.escalated'
  | 'silence.still_holding'
  | 'maintenance.started'
  | 'maintenance.ended'
  | 'monitor.test'
  | 'monitor.digest';

/**
 * How serious a status change is, with the expected status setting set: `high` when the status is away
 * from the expected one, `resolved` when it came back to it. A traffic rule's trigger is `high`, its
 * resolve `resolved`.
 */
export type Severity = 'high' | 'resolved';

/**
 * An alert waiting in the outbox (or being sent). Holds data only: the text is rendered when it is sent,
 * so it stays small in the state item. Each family's record names its own times (a reminder's
 * `statusSince`, a rule alert's `triggeredAt`, an incident alert's `openedAt`, an announcement's `heldSince`):
 * stored, they share the one attribute `since` (`alert-since.ts`).
 */
export type AlertRecord =
  | StatusAlertRecord
  | ApiAlertRecord
  | RuleAlertRecord
  | HealthAlertRecord
  | IncidentAlertRecord
  | SilenceAlertRecord
  | MaintenanceAlertRecord
  | TestAlertRecord
  | DigestAlertRecord;

/** A record of the events `E`: the discriminant `event`, and the fields any alert may hold. */
export type AlertRecordOf<E extends AlertEvent> = AlertFields & { readonly event: E };

/** An alert before its outbox numbers it: any family's record without `seq` (each family keeps its own fields). */
export type NewAlertRecord = AlertRecord extends infer R
  ? R extends AlertRecord
    ? Omit<R, 'seq'>
    : never
  : never;
/** `filter.status_changed`, `filter.status_reminder` (`alert-families/status.ts`). */
export type StatusAlertRecord = AlertRecordOf<EventsOf<'status'>> & {
  /** Reminders: when the current status was first seen, ISO-8601 (how long it has lasted is `at` minus this). */
  readonly statusSince?: string;
};
/** The monitor's own incidents with the API and their ends (`alert-families/api.ts`). */
export type ApiAlertRecord = AlertRecordOf<EventsOf<'incident' | 'recovery'>>;
/** `network.rule_triggered`, `network.rule_resolved` (`alert-families/rule.ts`); `triggeredAt` is theirs. */
export type RuleAlertRecord = AlertRecordOf<EventsOf<'rule'>> & Pick<Partial<RuleAlertFields>, 'triggeredAt'>;
/** The blind spots: `network.unreachable`, `network.rule_unreadable` and their ends (`alert-families/health.ts`). */
export type HealthAlertRecord = AlertRecordOf<EventsOf<'health'>>;
/** `incident.*`: a rule's incident across networks (`alert-families/incident.ts`). */
export type IncidentAlertRecord = AlertRecordOf<EventsOf<'grouped'>> & {
  /**
   * When the incident opened, ISO-8601 (also in `story.openedAt`; a record stored without a story has only
   * this).
   */
  readonly openedAt?: string;
};
/** `silence.still_holding` (`alert-families/silence.ts`). */
export type SilenceAlertRecord = AlertRecordOf<EventsOf<'silence'>> & {
  /** When the change the silence held back began, ISO-8601 (its `heldEvent`'s time). */
  readonly heldSince?: string;
};
/**
 * `maintenance.started`, `maintenance.ended` (`alert-families/maintenance.ts`): `silence` is the window's id,
 * `detail` its reason; `windowSince` the occurrence's start.
 */
export type MaintenanceAlertRecord = AlertRecordOf<EventsOf<'maintenance'>> & {
  /** When the occurrence began, ISO-8601. */
  readonly windowSince?: string;
};
/** `monitor.test` (`alert-families/test.ts`). */
export type TestAlertRecord = AlertRecordOf<EventsOf<'test'>>;
/**
 * `monitor.digest` (`alert-families/digest.ts`, CONTRACT §19): the period at a glance, as one JSON text in
 * `digest` ({@link DigestAlertBody}); `at` is when it was made.
 */
export type DigestAlertRecord = AlertRecordOf<EventsOf<'digest'>>;

/**
 * The fields any family's record may hold, as outbox and event items store them (the codecs in
 * `adapters/dynamo-items.ts` read them back field by field, whatever the event): the texts read each field
 * defensively, so a record stored by another version still renders. A time that means something different in
 * each family is not here but on that family's record ({@link StatusAlertRecord} and the others).
 */
export interface AlertFields extends Partial<Omit<RuleAlertFields, 'triggeredAt'>> {
  /** Position in the outbox; alerts are sent in this order. */
  readonly seq: number;
  /** When the change was seen (the observation time), ISO-8601. */
  readonly at: string;
  /** Previous status (status changes) — exact. */
  readonly from?: string;
  /** New status (status changes) — exact. */
  readonly to?: string;
  /** When the previous status was first seen, ISO-8601 (status changes). */
  readonly previousSince?: string;
  /** The expected status, when one is configured (status changes and reminders). */
  readonly expected?: string;
  readonly severity?: Severity;
  /** Cycles in a row behind the decision (incidents), or confirmations (status changes). */
  readonly cycles?: number;
  /** A short human explanation (incidents: the last error). */
  readonly detail?: string;
  /**
   * `silence.still_holding` only: the silence that held back the change it announces (docs/silences.md), and
   * the event it held back.
   */
  readonly silence?: string;
  readonly heldEvent?: AlertEvent;
  /**
   * Network health alerts (`network.unreachable`, `network.rule_unreadable` and their ends, `network-health.ts`):
   * the networks this alert is about, in the order the shard polls them.
   */
  readonly members?: readonly HealthMember[];
  /** Network health alerts: the networks of the incident still failing after this cycle (none: it is over). */
  readonly remaining?: readonly string[];
  /** `network.rule_unreadable` / `network.rule_readable`: the rule's path. */
  readonly path?: string;
  /** `incident.*` only: the members the alert is about and the incident's totals (docs/design/incidents.md). */
  readonly story?: IncidentStory;
  /**
   * Incident alerts: the incident's escalation stage when the alert was queued (docs/acknowledge.md), sent as
   * the message attribute `stage`; absent means 1.
   */
  readonly stage?: number;
  /** `incident.acknowledged`: who acknowledged (an IAM principal, an OS user, or `link`); the note is `detail`. */
  readonly acknowledgedBy?: string;
  /**
   * `monitor.digest` only: the digest, its period and the page's address as one JSON text (`digest-body.ts`):
   * text, so that any reading it names (a peak) is stored as it is, whatever DynamoDB numbers hold.
   */
  readonly digest?: string;
}

/** One network named by a network health alert (docs/alerts.md, Blind spots). */
export interface HealthMember {
  readonly network: string;
  /** When its failure (or its unreadable path) was first seen, ISO-8601. */
  readonly since?: string;
  /** Cycles in a row behind the alert. */
  readonly cycles?: number;
  /** How its request failed (`network.unreachable`, `network.recovered`: its last failure). */
  readonly errorKind?: FailureKind;
  readonly httpStatus?: number;
  /** The failure's text, for people (`network.unreachable` only). */
  readonly error?: string;
}

/** Numeric figures found in one network's latest real-time body, for alert text and metrics. */
export interface NetworkFigures {
  readonly networkId: string;
  /** When these figures were observed, ISO-8601. */
  readonly at: string;
  /** Dot path of each numeric leaf and its value, in body order, capped. */
  readonly figures: ReadonlyArray<readonly [path: string, value: number]>;
  /** Set when the latest observation failed. */
  readonly error?: string;
}

/**
 * The SNS protocols each alert has its own text for (`MessageStructure: json`), in the message's order:
 * - `default`: the text of every protocol not listed (the email's text);
 * - `email`: the plain-text email;
 * - `sms`: at most 160 characters;
 * - `https`: the AWS Chatbot custom-notification document, as JSON (Slack and Teams; docs/channels.md);
 * - `sqs`: the alert as a plain JSON document with `incident` and `action` (the queues to PagerDuty and webhooks).
 * A protocol added here is a field {@link RenderedAlert} requires (so rendering does not compile without its
 * text) and a key the SNS publisher sends.
 */
export const MESSAGE_PROTOCOLS = ['default', 'email', 'sms', 'https', 'sqs'] as const;

/** One of {@link MESSAGE_PROTOCOLS}. */
export type MessageProtocol = (typeof MESSAGE_PROTOCOLS)[number];

/** One text per {@link MessageProtocol}. */
export type ProtocolTexts = { readonly [P in MessageProtocol]: string };

/** A rendered SNS message: one text per protocol ({@link MESSAGE_PROTOCOLS}) plus the subject and attributes. */
export interface RenderedAlert extends ProtocolTexts {
  /** ASCII, at most 99 characters. */
  readonly subject: string;
  /** String message attributes: always `event`; `from` and `to` for status changes; `rule` and `network` for rule alerts. */
  readonly attributes: Readonly<Record<string, string>>;
}
