/**
 * Network health (docs/alerts.md, Blind spots): the judge of two blind spots of one shard, pure over its own
 * state (the shard's `health#<shard>` item, docs/design/storage.md).
 *
 * - **A network that keeps failing**: its own request failed `alertAfter` cycles in a row: `network.unreachable`,
 *   and `network.recovered` when it answers again.
 * - **A rule that reads nothing**: the rule's path read no value (missing, wrong type) on a network that answered,
 *   `alertAfter` cycles in a row: `network.rule_unreadable`, and `network.rule_readable` when it reads again.
 *
 * One alert per cycle and kind (per rule for the rule kinds) lists every network concerned in that cycle.
 * Incidents: one open incident per kind and shard (per rule and shard for the rule kinds), opened by the first
 * alert and kept while any of its networks still fails; networks that cross later join it (another trigger
 * with the same id), networks that recover while others still fail are announced without an action, and the
 * recovery of the last one resolves it with the same id. So a PagerDuty `resolve` always carries the
 * `dedup_key` of its `trigger`, and never closes an incident while one of its networks still fails.
 *
 * Evidence: a network cut short by the operator, a rejected key (`api.auth_failed` says so) and a cycle in
 * which no request answered at all (`api.unreachable` says so) are no evidence: counts neither grow nor reset.
 * A failed request is no evidence about a rule's path. A cycle not newer than the last one applied changes
 * nothing ({@link cycleOrder}). Pure: times come from the observation.
 */

import { cycleOrder } from '../clock.ts';
import { type EscalationSchedule, FIRST_STAGE, type IncidentTimers } from '../incidents/escalation.ts';
import { INCIDENT_KINDS, parseIncidentId } from '../incidents/incident-kinds.ts';
import { followIncidents } from '../incidents/lifecycle.ts';
import type { AlertRecord, FailureKind, HealthMember } from '../types.ts';

/** The events of this judge. */
export type HealthEvent =
  | 'network.unreachable'
  | 'network.recovered'
  | 'network.rule_unreadable'
  | 'network.rule_readable';

/** One failing network's memory: its failed cycles in a row and how its last request failed. */
export interface DownCell {
  /** Failed cycles in a row (kept at `alertAfter` once open). */
  readonly n: number;
  /** First failed cycle of the run, ISO-8601. */
  readonly since: string;
  readonly kind?: FailureKind;
  readonly http?: number;
  /** True once announced by `network.unreachable`, until `network.recovered`. */
  readonly open?: true;
}

/** One rule on one network that answered without a value at the rule's path. */
export interface BlindCell {
  /** Cycles in a row (kept at `alertAfter` once open). */
  readonly n: number;
  readonly since: string;
  readonly open?: true;
}

/**
 * What an open blind-spot incident keeps beside its cells (CONTRACT §13-14: reminders, escalation and
 * acknowledgement apply to it as to a rule's incident), by incident id; dropped when the incident resolves.
 */
export type HealthIncidentState = IncidentTimers;

/** What the health item of a shard holds between cycles. Only failing or unreadable cells are kept. */
export interface HealthState {
  /** The observation time of the last cycle that changed this state. */
  readonly lastAt?: string;
  /** Sequence number of the item's next alert (its own outbox). */
  readonly nextSeq: number;
  /** Networks whose request failed in the last cycle(s) that gave evidence. */
  readonly down: Readonly<Record<string, DownCell>>;
  /** The open `network.unreachable` incident of the shard, while a network of it is still failing. */
  readonly downIncident?: string;
  /** By rule, then network. */
  readonly blind: Readonly<Record<string, Readonly<Record<string, BlindCell>>>>;
  /** The open `network.rule_unreadable` incident of each rule, by rule. */
  readonly blindIncidents: Readonly<Record<string, string>>;
  /** The open incidents' timers and acknowledgement, by incident id (absent: none open). */
  readonly incidents?: Readonly<Record<string, HealthIncidentState>>;
}

/**
 * Whether the health state has blind-spot incident `id` acknowledged now; undefined when it holds no timers of
 * it (the outbox's `acknowledged`: a held acknowledgement withdrawn inside a silence is not sent at its end).
 */
export function healthIncidentAcknowledged(state: HealthState, id: string): boolean | undefined {
  const incidents = state.incidents ?? {};
  return Object.hasOwn(incidents, id) ? incidents[id]!.acknowledged !== undefined : undefined;
}

/** The state before any cycle. */
export const INITIAL_HEALTH: HealthState = { nextSeq: 1, down: {}, blind: {}, blindIncidents: {} };

/** One network of the cycle, as this judge needs it. */
export interface NetworkOutcome {
  readonly network: string;
  /** True when the request answered 2xx with a JSON body. */
  readonly ok: boolean;
  readonly errorKind?: FailureKind;
  readonly httpStatus?: number;
  readonly error?: string;
  /** No evidence about this network in this cycle (cut short by the operator). */
  readonly noEvidence?: boolean;
  /**
   * When `ok` and rules were read: by rule name, whether the rule's path read a value. A rule absent here was
   * not read on this network (its `on` leaves the network out).
   */
  readonly readings?: Readonly<Record<string, boolean>>;
}

/** A rule as this judge names it. */
export interface HealthRule {
  readonly name: string;
  readonly path: string;
  /** The rule as written. */
  readonly text: string;
}

/** One cycle of one shard. */
export interface HealthInput {
  readonly at: string;
  /** The latest moment this cycle decides (see `cycleOrder`). */
  readonly decideByMs?: number;
  /** Cycles in a row before an alert (the `alertAfter` setting). */
  readonly alertAfter: number;
  /** The shard (0 for the CLI and an unsharded stack), named in incident ids. */
  readonly shard: number;
  /** The rules in force; cells of other rules are dropped. */
  readonly rules: readonly HealthRule[];
  /** Every network the shard polled in this cycle; cells of other networks are dropped. */
  readonly networks: readonly NetworkOutcome[];
  /**
   * False when no request of the cycle got an answer other than a transport failure, 5xx or 429 (the API as a
   * whole is unreachable: `api.unreachable`): then nothing here is evidence.
   */
  readonly apiAnswered: boolean;
  /** The `remindEvery` setting: `incident.reminder` of each open, unacknowledged incident; unset: none. */
  readonly remindEveryMs?: number;
  /** The `escalateAfter` setting: unset or empty, no escalation. */
  readonly escalateAfterMs?: EscalationSchedule;
}

/** What one cycle does to the state. */
export type HealthJudgement =
  | { readonly stale: true }
  | {
      readonly stale: false;
      /** False when the state is as it was: nothing to write (no write per cycle while all is well). */
      readonly changed: boolean;
      readonly state: HealthState;
      readonly alerts: readonly AlertRecord[];
    };

/** Longest error text carried by an alert's member (the email and documents cut further). */
const MAX_MEMBER_ERROR = 300;

type NewAlert = Omit<AlertRecord, 'seq'>;

/** Failure kinds that say nothing about one network: a rejected key (the API-wide incident says so). */
const NOT_NETWORK_EVIDENCE: ReadonlySet<FailureKind | undefined> = new Set(['auth']);

/**
 * Judges one cycle of one shard. Recoveries come before new failures in the alerts, as `decide` orders them;
 * the networks of an alert are in the order the shard polls them.
 */
export function judgeHealth(previous: HealthState | undefined, input: HealthInput): HealthJudgement {
  const prev = previous ?? INITIAL_HEALTH;
  if (cycleOrder(prev.lastAt, input.at, input.decideByMs) === 'stale') return { stale: true };
  const { at, alertAfter } = input;
  const polled = new Set(input.networks.map((n) => n.network));

  // Networks no longer polled leave (their open incident gets no recovery: nothing more is known of them).
  const down: Record<string, DownCell> = {};
  for (const [network, cell] of Object.entries(prev.down)) if (polled.has(network)) down[network] = cell;
  const recovered: HealthMember[] = [];
  const crossed: HealthMember[] = [];
  for (const outcome of input.networks) {
    if (!input.apiAnswered || outcome.noEvidence === true) continue;
    const cell = own(down, outcome.network);
    if (outcome.ok) {
      if (cell === undefined) continue;
      delete down[outcome.network];
      if (cell.open === true) recovered.push(memberOf(outcome.network, cell));
      continue;
    }
    if (NOT_NETWORK_EVIDENCE.has(outcome.errorKind)) continue;
    const n = Math.min(alertAfter, (cell?.n ?? 0) + 1);
    const next: DownCell = {
      n,
      since: cell?.since ?? at,
      ...(outcome.errorKind === undefined ? {} : { kind: outcome.errorKind }),
      ...(outcome.httpStatus === undefined ? {} : { http: outcome.httpStatus }),
      ...(cell?.open === true || n >= alertAfter ? { open: true as const } : {}),
    };
    down[outcome.network] = next;
    if (cell?.open !== true && next.open === true) {
      crossed.push({
        network: outcome.network,
        since: next.since,
        cycles: (cell?.n ?? 0) + 1,
        ...(outcome.errorKind === undefined ? {} : { errorKind: outcome.errorKind }),
        ...(outcome.httpStatus === undefined ? {} : { httpStatus: outcome.httpStatus }),
        ...(outcome.error === undefined ? {} : { error: outcome.error.slice(0, MAX_MEMBER_ERROR) }),
      });
    }
  }
  const downStep = stepIncident(
    prev.downIncident,
    Object.values(down).some((cell) => cell.open === true),
    Object.entries(down)
      .filter(([, cell]) => cell.open === true)
      .map(([network]) => network),
    crossed,
    recovered,
    (since) => `network.unreachable/${input.shard}/${since}`,
    at,
    ['network.unreachable', 'network.recovered'],
    {},
  );

  // Every incident open after this cycle, with its open networks, for reminders and escalation.
  const openNow: OpenHealthIncident[] = [];
  if (downStep.incident !== undefined) {
    openNow.push({
      id: downStep.incident,
      members: Object.entries(down)
        .filter(([, cell]) => cell.open === true)
        .map(([network, cell]) => memberOf(network, cell)),
      extra: {},
    });
  }
  const blind: Record<string, Record<string, BlindCell>> = {};
  const blindIncidents: Record<string, string> = {};
  const ruleAlerts: { recoveries: NewAlert[]; triggers: NewAlert[] } = { recoveries: [], triggers: [] };
  for (const rule of input.rules) {
    const cells: Record<string, BlindCell> = {};
    for (const [network, cell] of Object.entries(own(prev.blind, rule.name) ?? {})) {
      if (polled.has(network)) cells[network] = cell;
    }
    const readable: HealthMember[] = [];
    const unreadable: HealthMember[] = [];
    for (const outcome of input.networks) {
      if (!input.apiAnswered || outcome.noEvidence === true || !outcome.ok) continue;
      const read = outcome.readings === undefined ? undefined : own(outcome.readings, rule.name);
      if (read === undefined) continue;
      const cell = own(cells, outcome.network);
      if (read) {
        if (cell === undefined) continue;
        delete cells[outcome.network];
        if (cell.open === true)
          readable.push({ network: outcome.network, since: cell.since, cycles: cell.n });
        continue;
      }
      const n = Math.min(alertAfter, (cell?.n ?? 0) + 1);
      const next: BlindCell = {
        n,
        since: cell?.since ?? at,
        ...(cell?.open === true || n >= alertAfter ? { open: true as const } : {}),
      };
      cells[outcome.network] = next;
      if (cell?.open !== true && next.open === true) {
        unreadable.push({ network: outcome.network, since: next.since, cycles: (cell?.n ?? 0) + 1 });
      }
    }
    const step = stepIncident(
      own(prev.blindIncidents, rule.name),
      Object.values(cells).some((cell) => cell.open === true),
      Object.entries(cells)
        .filter(([, cell]) => cell.open === true)
        .map(([network]) => network),
      unreadable,
      readable,
      (since) => `network.rule_unreadable/${rule.name}/${input.shard}/${since}`,
      at,
      ['network.rule_unreadable', 'network.rule_readable'],
      { rule: rule.name, ruleText: rule.text, path: rule.path },
    );
    if (Object.keys(cells).length > 0) blind[rule.name] = cells;
    if (step.incident !== undefined) {
      blindIncidents[rule.name] = step.incident;
      openNow.push({
        id: step.incident,
        members: Object.entries(cells)
          .filter(([, cell]) => cell.open === true)
          .map(([network, cell]) => ({ network, since: cell.since, cycles: cell.n })),
        extra: { rule: rule.name, ruleText: rule.text, path: rule.path },
      });
    }
    if (step.recovery !== undefined) ruleAlerts.recoveries.push(step.recovery);
    if (step.trigger !== undefined) ruleAlerts.triggers.push(step.trigger);
  }

  const followed = followOpenIncidents(prev.incidents ?? {}, openNow, input);
  // Every alert of an incident carries the stage it reached (its end too: whoever got the escalation gets it).
  const stageOf = (id: string | undefined) =>
    (id === undefined ? undefined : (own(followed.incidents, id) ?? own(prev.incidents ?? {}, id)))?.stage ??
    FIRST_STAGE;
  const fresh: NewAlert[] = [
    ...(downStep.recovery === undefined ? [] : [downStep.recovery]),
    ...ruleAlerts.recoveries,
    ...(downStep.trigger === undefined ? [] : [downStep.trigger]),
    ...ruleAlerts.triggers,
  ].map((alert) => ({ ...alert, stage: stageOf(alert.incident) }));
  fresh.push(...followed.alerts);
  const body = {
    down,
    ...(downStep.incident === undefined ? {} : { downIncident: downStep.incident }),
    blind,
    blindIncidents,
    ...(Object.keys(followed.incidents).length === 0 ? {} : { incidents: followed.incidents }),
  };
  const changed =
    fresh.length > 0 ||
    JSON.stringify(canonical(body)) !==
      JSON.stringify(
        canonical({
          down: prev.down,
          ...(prev.downIncident === undefined ? {} : { downIncident: prev.downIncident }),
          blind: prev.blind,
          blindIncidents: prev.blindIncidents,
          ...(prev.incidents === undefined || Object.keys(prev.incidents).length === 0
            ? {}
            : { incidents: prev.incidents }),
        }),
      );
  if (!changed) return { stale: false, changed: false, state: prev, alerts: [] };
  let nextSeq = prev.nextSeq;
  const alerts = fresh.map((alert): AlertRecord => ({ ...alert, seq: nextSeq++ }));
  return { stale: false, changed: true, state: { lastAt: at, nextSeq, ...body }, alerts };
}

/** An incident open after a cycle: its id, its networks still failing (or unreadable), its rule's fields. */
export interface OpenHealthIncident {
  readonly id: string;
  readonly members: readonly HealthMember[];
  readonly extra: Partial<Pick<AlertRecord, 'rule' | 'ruleText' | 'path'>>;
}

/**
 * The timers of the incidents open after a cycle (docs/acknowledge.md), as a rule's incident has them
 * (`judgeIncident` steps 5 and 6): `incident.reminder` every `remindEveryMs`, `incident.escalated` once per
 * stage of `escalateAfterMs`, both only while unacknowledged. An incident opened in this cycle starts its
 * clocks now; the incidents no longer open are dropped (their end carried their stage).
 */
function followOpenIncidents(
  previous: Readonly<Record<string, HealthIncidentState>>,
  openNow: readonly OpenHealthIncident[],
  input: HealthInput,
): { incidents: Record<string, HealthIncidentState>; alerts: NewAlert[] } {
  const { at } = input;
  const { timers, alerts } = followIncidents(
    openNow.map((open) => ({
      id: open.id,
      timers: own(previous, open.id) ?? { openedAt: at, stage: FIRST_STAGE },
      alert: (event: 'incident.reminder' | 'incident.escalated', state: HealthIncidentState) =>
        healthIncidentAlert(event, open, state, at),
    })),
    at,
    input,
  );
  return { incidents: timers, alerts };
}

/** The events a blind-spot incident shares with a rule's incident (CONTRACT §14). */
export type HealthIncidentEvent = 'incident.reminder' | 'incident.escalated' | 'incident.acknowledged';

/**
 * An `incident.*` alert about a blind-spot incident: its id, its networks still failing, its stage, and for a
 * rule that reads nothing the rule's fields. The health family renders it (`alert-families/index.ts`).
 */
export function healthIncidentAlert(
  event: HealthIncidentEvent,
  open: OpenHealthIncident,
  state: HealthIncidentState,
  at: string,
): NewAlert {
  return {
    event,
    at,
    incident: open.id,
    members: open.members,
    stage: state.stage,
    detail: summary(open.members),
    ...open.extra,
  };
}

/** The member a recovery lists: the network, when its failure began, and how its last request failed. */
function memberOf(network: string, cell: DownCell): HealthMember {
  return {
    network,
    since: cell.since,
    cycles: cell.n,
    ...(cell.kind === undefined ? {} : { errorKind: cell.kind }),
    ...(cell.http === undefined ? {} : { httpStatus: cell.http }),
  };
}

/**
 * One incident of one kind over one cycle: networks that crossed join it (a trigger, opening it when none was
 * open), networks that recovered leave it (a recovery; it resolves the incident once none is left open).
 */
function stepIncident(
  openIncident: string | undefined,
  anyOpen: boolean,
  stillOpen: readonly string[],
  crossed: readonly HealthMember[],
  recovered: readonly HealthMember[],
  newId: (since: string) => string,
  at: string,
  events: readonly [trigger: HealthEvent, recovery: HealthEvent],
  extra: Partial<Pick<AlertRecord, 'rule' | 'ruleText' | 'path'>>,
): { incident?: string; trigger?: NewAlert; recovery?: NewAlert } {
  // An incident is open while a network of it fails: ids from its earliest member's first failing cycle.
  const earliest = crossed.map((m) => m.since ?? at).sort()[0];
  const incident = anyOpen
    ? (openIncident ?? (earliest === undefined ? undefined : newId(earliest)))
    : undefined;
  // A recovery belongs to the incident that was open before this cycle.
  const recoveryIncident = openIncident ?? incident;
  const remaining = stillOpen.filter((network) => !crossed.some((m) => m.network === network));
  return {
    ...(incident === undefined ? {} : { incident }),
    ...(recovered.length === 0 || recoveryIncident === undefined
      ? {}
      : {
          recovery: {
            event: events[1],
            at,
            incident: recoveryIncident,
            members: recovered,
            // The networks of the incident still failing: none, and this recovery resolves it.
            remaining: stillOpen,
            detail: summary(recovered),
            ...extra,
          },
        }),
    ...(crossed.length === 0 || incident === undefined
      ? {}
      : {
          trigger: {
            event: events[0],
            at,
            incident,
            members: crossed,
            // Networks that crossed in earlier cycles and still fail: the incident they share. A join lists
            // them even when none is left (all recovered in this cycle), so that it is told from an opening: a
            // silence holds a join back without remembering it (`alert-families/health.ts`, heldKey).
            ...(remaining.length === 0 && openIncident === undefined ? {} : { remaining }),
            detail: summary(crossed),
            ...extra,
          },
        }),
  };
}

/** A one-line summary of the members, for `events` and the generic texts: `edge-1 (client, HTTP 404), edge-2`. */
export function summary(members: readonly HealthMember[]): string {
  return members
    .map((m) => {
      const how = [m.errorKind, m.httpStatus === undefined ? undefined : `HTTP ${m.httpStatus}`].filter(
        (part) => part !== undefined,
      );
      return how.length === 0 ? m.network : `${m.network} (${how.join(', ')})`;
    })
    .join(', ')
    .slice(0, 1000);
}

/**
 * The shard whose health item holds incident `id` (`network.unreachable/<shard>/...`,
 * `network.rule_unreadable/<rule>/<shard>/...`), or undefined when `id` is no blind-spot incident's.
 */
export function healthShardOf(id: string): number | undefined {
  const ref = parseIncidentId(id);
  return ref?.home === 'health' ? ref.shard : undefined;
}

/**
 * The blind spot a reminder or escalation of a blind-spot incident tells of (`network.unreachable` or
 * `network.rule_unreadable`, from its incident id), so that a silence holds them back as it holds the blind spot's
 * own alerts (docs/silences.md); undefined for any other alert, and for an acknowledgement (someone's action:
 * only its own name or `*` holds it, as a rule incident's).
 */
export function blindSpotEventOf(
  alert: Pick<AlertRecord, 'event' | 'incident'>,
): 'network.unreachable' | 'network.rule_unreadable' | undefined {
  if (alert.event !== 'incident.reminder' && alert.event !== 'incident.escalated') return undefined;
  const ref = parseIncidentId(alert.incident);
  if (ref?.home !== 'health') return undefined;
  return INCIDENT_KINDS[ref.kind].heldAs(ref) as 'network.unreachable' | 'network.rule_unreadable';
}

/** Whether a recovery alert closes its incident (no network of it is left failing). */
export function closesIncident(alert: Pick<AlertRecord, 'remaining'>): boolean {
  return !Array.isArray(alert.remaining) || alert.remaining.length === 0;
}

function own<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/** The state's content with its keys sorted, so that two equal states encode alike. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
  );
}

/** A stored health state read back; anything unreadable is the initial state's part (a corrupt item must not break a cycle). */
export function toHealthState(stored: unknown): HealthState {
  let value: unknown = stored;
  if (typeof stored === 'string') {
    try {
      value = JSON.parse(stored);
    } catch {
      return INITIAL_HEALTH;
    }
  }
  if (typeof value !== 'object' || value === null) return INITIAL_HEALTH;
  const v = value as Record<string, unknown>;
  const record = (x: unknown) =>
    typeof x === 'object' && x !== null && !Array.isArray(x) ? (x as Record<string, never>) : {};
  const nextSeq = typeof v['nextSeq'] === 'number' && Number.isSafeInteger(v['nextSeq']) ? v['nextSeq'] : 1;
  return {
    ...(typeof v['lastAt'] === 'string' ? { lastAt: v['lastAt'] } : {}),
    nextSeq,
    down: record(v['down']),
    ...(typeof v['downIncident'] === 'string' ? { downIncident: v['downIncident'] } : {}),
    blind: record(v['blind']),
    blindIncidents: record(v['blindIncidents']),
    ...(Object.keys(record(v['incidents'])).length === 0 ? {} : { incidents: record(v['incidents']) }),
  };
}
