/**
 * The kinds of incident (CONTRACT §13, "One lifecycle for every kind"), one entry each in a registry the
 * compiler checks, and the one reader of every incident id. A kind says what opens and closes it, its words,
 * and how a silence sees its reminders and escalations; an id says which kind it is and where the incident
 * lives (the item that holds its state and its outbox). What every kind shares (timers: `escalation.ts`
 * `followTimers`; acknowledgement: `incident-ack.ts`, `lambda/incident-acks.ts`; silences: `silence-window.ts`)
 * reads the kind from here, never from a parser of its own. Pure.
 */
import type { EventFamily } from '../alerts/alert-events.ts';
import type { AlertEvent } from '../types.ts';

/** The kinds of incident. */
export type IncidentKind = 'status' | 'api' | 'network' | 'rule_unreadable' | 'rule';

/** The monitor's own incidents, by the event that opens them (their id's first segment). */
export const MONITOR_INCIDENT_OPENERS = [
  'filter.status_changed',
  'api.unreachable',
  'api.auth_failed',
  'filter.status_unreadable',
] as const satisfies readonly AlertEvent[];

/** One of {@link MONITOR_INCIDENT_OPENERS}. */
export type MonitorIncidentOpener = (typeof MONITOR_INCIDENT_OPENERS)[number];

/**
 * An incident id read: its kind, where it lives, and what the id names.
 * - `monitor`: the monitor state item (`state/monitor`): `<opener>/<ISO time>`;
 * - `health`: a shard's health item (`health#<shard>`): `network.unreachable/<shard>/<time>`,
 *   `network.rule_unreadable/<rule>/<shard>/<time>`;
 * - `incident`: a rule's incident item across networks (`incident#<rule>`): `<rule>@<time>`;
 * - `cell`: a rule's cell on one network, in the shard's rule items: `<rule>/<network>/<ISO time>`.
 */
export type IncidentRef =
  | {
      readonly home: 'monitor';
      readonly kind: 'status' | 'api';
      readonly opener: MonitorIncidentOpener;
      readonly openedAt: string;
    }
  | {
      readonly home: 'health';
      readonly kind: 'network' | 'rule_unreadable';
      readonly shard: number;
      readonly rule?: string;
    }
  | { readonly home: 'incident'; readonly kind: 'rule'; readonly rule: string; readonly openedAt: string }
  | {
      readonly home: 'cell';
      readonly kind: 'rule';
      readonly rule: string;
      readonly network: string;
      readonly openedAt: string;
    };

/** Where an incident lives. */
export type IncidentHome = IncidentRef['home'];

/** What the registry knows of one kind. */
export interface IncidentKindSpec {
  /** Its few words (listings, the report). */
  readonly label: string;
  /** The events that open it, and those that close it. */
  readonly opens: readonly AlertEvent[];
  readonly closes: readonly AlertEvent[];
  /**
   * The event a silence holds its reminders and escalations as (the one that opened it): a silence that holds
   * its opening holds its follow-ups (docs/silences.md).
   */
  readonly heldAs: (ref: IncidentRef) => AlertEvent;
  /**
   * The alert family whose texts render its `incident.*` follow-ups (reminder, escalation, acknowledgement):
   * its words, the same as its opening's.
   */
  readonly family: (ref: IncidentRef) => EventFamily;
}

/** Every kind of incident: a new kind is one entry here (the compiler refuses one missing). */
export const INCIDENT_KINDS: Readonly<Record<IncidentKind, IncidentKindSpec>> = {
  status: {
    label: 'status away',
    opens: ['filter.status_changed'],
    closes: ['filter.status_changed'],
    heldAs: () => 'filter.status_changed',
    family: () => 'status',
  },
  api: {
    label: 'API',
    opens: ['api.unreachable', 'api.auth_failed', 'filter.status_unreadable'],
    closes: ['api.recovered', 'api.auth_restored', 'filter.status_readable'],
    heldAs: (ref) => (ref.home === 'monitor' ? ref.opener : 'api.unreachable'),
    family: () => 'incident',
  },
  network: {
    label: 'network unreachable',
    opens: ['network.unreachable'],
    closes: ['network.recovered'],
    heldAs: () => 'network.unreachable',
    family: () => 'health',
  },
  rule_unreadable: {
    label: 'rule reads nothing',
    opens: ['network.rule_unreadable'],
    closes: ['network.rule_readable'],
    heldAs: () => 'network.rule_unreadable',
    family: () => 'health',
  },
  rule: {
    label: 'rule',
    opens: ['network.rule_triggered', 'incident.opened'],
    closes: ['network.rule_resolved', 'incident.resolved'],
    heldAs: () => 'network.rule_triggered',
    // Across networks, the incident's own texts (its story); on one network, the rule's.
    family: (ref) => (ref.home === 'cell' ? 'rule' : 'grouped'),
  },
};

/** What the registry knows of one event that opens an incident of a kind but a rule's (its id's first segment). */
export interface IncidentOpenerSpec {
  readonly kind: Exclude<IncidentKind, 'rule'>;
  /** The event that ends it (a status's: the change back, severity `resolved`). */
  readonly closer: AlertEvent;
  /**
   * When it opened: the time its id names (`id`: the first failing cycle, the change away), as `status` shows
   * the monitor's own incidents; or its first alert's (`alert`), as `status` shows a blind spot.
   */
  readonly openedAt: 'id' | 'alert';
  /** What it is, as a sentence (the acknowledge pages). */
  readonly about: string;
  /** Its few words in a listing, from its rule or the status it is at. */
  readonly label: (latest: { readonly to?: string; readonly rule?: string }) => string;
}

/**
 * Every event that opens an incident of a kind but a rule's (a rule's id is `<rule>@<when>` or its cell's):
 * one entry each, checked against {@link INCIDENT_KINDS} by the test of the registry.
 */
export const INCIDENT_OPENERS = {
  'filter.status_changed': {
    kind: 'status',
    closer: 'filter.status_changed',
    openedAt: 'id',
    about: 'the filter status is away from the expected one',
    label: (latest) => `status away: ${JSON.stringify(latest.to ?? '?')}`,
  },
  'api.unreachable': {
    kind: 'api',
    closer: 'api.recovered',
    openedAt: 'id',
    about: 'the API is unreachable',
    label: () => 'API unreachable',
  },
  'api.auth_failed': {
    kind: 'api',
    closer: 'api.auth_restored',
    openedAt: 'id',
    about: 'the API key is rejected',
    label: () => 'API key rejected',
  },
  'filter.status_unreadable': {
    kind: 'api',
    closer: 'filter.status_readable',
    openedAt: 'id',
    about: 'the filter status cannot be read',
    label: () => 'filter status unreadable',
  },
  'network.unreachable': {
    kind: 'network',
    closer: 'network.recovered',
    openedAt: 'alert',
    about: 'networks are unreachable',
    label: () => 'network unreachable',
  },
  'network.rule_unreadable': {
    kind: 'rule_unreadable',
    closer: 'network.rule_readable',
    openedAt: 'alert',
    about: 'a rule reads nothing',
    label: (latest) => `rule ${latest.rule ?? '?'} reads nothing`,
  },
} as const satisfies Readonly<Record<string, IncidentOpenerSpec>>;

/** An event that opens an incident of a kind but a rule's. */
export type IncidentOpener = keyof typeof INCIDENT_OPENERS;

/** Whether `event` opens an incident of a kind but a rule's. */
export function isIncidentOpener(event: string): event is IncidentOpener {
  return Object.hasOwn(INCIDENT_OPENERS, event);
}

const RULE_NAME = /^[A-Za-z0-9_-]{1,40}$/;
const ISO_TIME = /^\d{4}-\d\d-\d\dT[\d:.]+Z$/;
const CELL_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const HEALTH_ID = /^network\.(unreachable|rule_unreadable\/([A-Za-z0-9_-]{1,40}))\/(\d{1,6})\/[^/]+$/;

/** How each home's ids are read, tried in this order (the formats do not overlap). */
const ID_FORMATS: Readonly<Record<IncidentHome, (id: string) => IncidentRef | undefined>> = {
  monitor(id) {
    const cut = id.indexOf('/');
    if (cut <= 0) return undefined;
    const head = id.slice(0, cut);
    const time = id.slice(cut + 1);
    if (!(MONITOR_INCIDENT_OPENERS as readonly string[]).includes(head)) return undefined;
    if (!ISO_TIME.test(time) || Number.isNaN(Date.parse(time))) return undefined;
    const opener = head as MonitorIncidentOpener;
    return {
      home: 'monitor',
      kind: opener === 'filter.status_changed' ? 'status' : 'api',
      opener,
      openedAt: time,
    };
  },
  health(id) {
    const match = HEALTH_ID.exec(id);
    if (match === null) return undefined;
    return match[2] === undefined
      ? { home: 'health', kind: 'network', shard: Number(match[3]) }
      : { home: 'health', kind: 'rule_unreadable', shard: Number(match[3]), rule: match[2] };
  },
  cell(id) {
    const first = id.indexOf('/');
    const last = id.lastIndexOf('/');
    if (first <= 0 || last <= first + 1 || last === id.length - 1) return undefined;
    const rule = id.slice(0, first);
    const openedAt = id.slice(last + 1);
    if (!RULE_NAME.test(rule)) return undefined;
    // The evaluator writes the cycle's ISO time (docs/rules.md): nothing else is an id of a rule cell.
    if (!CELL_TIME.test(openedAt) || Number.isNaN(Date.parse(openedAt))) return undefined;
    return { home: 'cell', kind: 'rule', rule, network: id.slice(first + 1, last), openedAt };
  },
  incident(id) {
    const at = id.indexOf('@');
    if (at <= 0 || at === id.length - 1) return undefined;
    const rule = id.slice(0, at);
    return RULE_NAME.test(rule)
      ? { home: 'incident', kind: 'rule', rule, openedAt: id.slice(at + 1) }
      : undefined;
  },
};

const HOME_ORDER: readonly IncidentHome[] = ['monitor', 'health', 'cell', 'incident'];

/** Incident id `id` read (its kind, where it lives), or undefined when it is no incident's. */
export function parseIncidentId(id: unknown): IncidentRef | undefined {
  if (typeof id !== 'string') return undefined;
  for (const home of HOME_ORDER) {
    const ref = ID_FORMATS[home](id);
    if (ref !== undefined) return ref;
  }
  return undefined;
}

/** The kind of incident `id` (an id no format reads is taken for a rule's, as the listing always has). */
export function kindOfIncident(id: string): IncidentKind {
  return parseIncidentId(id)?.kind ?? 'rule';
}

/** The event a silence holds a reminder or escalation of incident `id` as (what opened it); undefined: no id. */
export function heldAsOf(id: unknown): AlertEvent | undefined {
  const ref = parseIncidentId(id);
  return ref === undefined ? undefined : INCIDENT_KINDS[ref.kind].heldAs(ref);
}

/** The alert family that renders a follow-up of incident `id` (its kind's), or undefined when it is no incident's. */
export function familyOfIncident(id: unknown): EventFamily | undefined {
  const ref = parseIncidentId(id);
  return ref === undefined ? undefined : INCIDENT_KINDS[ref.kind].family(ref);
}
