/**
 * Builds `shieldwatch status`'s {@link StatusReport} from what the store holds (cli/status/gather.ts reads it):
 * the filter status, the networks and rules the monitor recorded, the open incidents (cli/status/report-incidents.ts),
 * the silences, the outboxes. Pure: the time comes in as `nowMs`.
 */
import type { MonitorState } from '../../lambda/core/detect/decide.ts';
import { extractFigures } from '../../lambda/core/detect/figures.ts';
import { parseRules } from '../../lambda/core/rules/rules.ts';
import { remainingMs, type Silence, silenceStatus } from '../../lambda/core/silences/silence-window.ts';
import type { Snapshot } from '../../lambda/core/types.ts';
import type { OutboxEntry } from '../../lambda/ports.ts';
import { toHistoryEntry } from '../entries.ts';
import {
  apiIncidents,
  groupedIncidents,
  type HealthItemView,
  type IncidentScopeView,
  monitorTimersOf,
  networkIncidents,
  ruleIncidents,
} from './report-incidents.ts';
import type { LastObservation, RuleItemView, Standing, StatusReport, StatusSilence } from './report-types.ts';

/** Numeric fields shown per network. */
const FIGURES_SHOWN = 6;

function lastObservation(snapshot: Snapshot | undefined, nowMs: number): LastObservation | null {
  if (snapshot === undefined) return null;
  const entry = toHistoryEntry(snapshot);
  const figures =
    snapshot.target.kind === 'network' && entry.data !== undefined
      ? Object.fromEntries(extractFigures(entry.data, FIGURES_SHOWN))
      : undefined;
  return {
    at: snapshot.at,
    ageMs: Math.max(0, nowMs - Date.parse(snapshot.at)),
    ok: snapshot.ok,
    ...(snapshot.status === undefined ? {} : { status: snapshot.status }),
    ...(snapshot.error === undefined ? {} : { error: snapshot.error }),
    ...(snapshot.httpStatus === undefined ? {} : { httpStatus: snapshot.httpStatus }),
    ...(snapshot.latencyMs === undefined ? {} : { latencyMs: snapshot.latencyMs }),
    ...(figures === undefined ? {} : { figures }),
  };
}

/**
 * The monitor's networks as its cycles recorded them: the last applied cycle's (the shard that polls the
 * filter) and every network a rule item of any shard judges, in that order, without repeats.
 */
export function monitorNetworks(state: MonitorState, items: readonly RuleItemView[]): string[] {
  const networks = new Set(state.polled?.networks ?? []);
  for (const { loaded } of items) {
    for (const cells of Object.values(loaded.state.rules.cells)) {
      for (const network of Object.keys(cells)) networks.add(network);
    }
  }
  return [...networks];
}

/** What {@link statusReport} is built from: what the store holds, and the time. */
export interface StatusInput {
  readonly state: MonitorState;
  readonly outbox: readonly OutboxEntry[];
  readonly filter: Snapshot | undefined;
  readonly networks: ReadonlyArray<{ readonly id: string; readonly last: Snapshot | undefined }>;
  readonly expected: string | undefined;
  readonly nowMs: number;
  /** Every rule item of every shard. @default [] */
  readonly ruleItems?: readonly RuleItemView[];
  /** Every stored silence. @default [] */
  readonly silences?: readonly Silence[];
  /** Every incident item (`state` / `incident#<rule>`): its rule, state and outbox. @default [] */
  readonly incidentScopes?: readonly IncidentScopeView[];
  /** Every shard's health item (`health#<shard>`): its state and outbox. @default [] */
  readonly healthItems?: readonly HealthItemView[];
  /** The newest snapshot of each network with an open rule incident (and of those shown). */
  readonly lastOf?: (network: string) => Snapshot | undefined;
  /** @default 'monitor' */
  readonly networksFrom?: 'monitor' | 'option';
}

/** The silences active or still to start, the soonest to end first, with their time left. */
function silencesOf(silences: readonly Silence[], nowMs: number): StatusReport['silences'] {
  return silences
    .map((silence) => ({ silence, status: silenceStatus(silence, nowMs) }))
    .filter((s): s is { silence: Silence; status: 'active' | 'pending' } => s.status !== 'ended')
    .sort(
      (a, b) => a.silence.endsAt.localeCompare(b.silence.endsAt) || a.silence.id.localeCompare(b.silence.id),
    )
    .map(({ silence, status }) => ({
      id: silence.id,
      status,
      pattern: silence.pattern,
      reason: silence.reason ?? null,
      startsAt: silence.startsAt,
      endsAt: silence.endsAt,
      remainingMs: remainingMs(silence, nowMs),
    }));
}

/**
 * The quiet time of the present: of the silences shown, the active one that ends last and the pending one that
 * starts first (the earlier id on a tie, as the list sorts them).
 */
function quietOf(silences: StatusReport['silences']): StatusReport['quiet'] {
  let active: StatusSilence | null = null;
  let next: StatusSilence | null = null;
  for (const s of silences) {
    if (s.status === 'active') {
      if (active === null || s.endsAt > active.endsAt) active = s;
    } else if (next === null || s.startsAt < next.startsAt) next = s;
  }
  return { active, next };
}

/** Every outbox with its entries: the monitor's, each rule item's, each incident item's, each health item's. */
function outboxesOf(
  input: StatusInput,
  ruleItems: readonly RuleItemView[],
  incidentScopes: readonly IncidentScopeView[],
  healthItems: readonly HealthItemView[],
): Array<{ outbox: string; entries: readonly OutboxEntry[] }> {
  return [
    { outbox: 'monitor', entries: input.outbox },
    ...ruleItems.map((item) => ({ outbox: item.key, entries: item.loaded.outbox })),
    ...incidentScopes.map((scope) => ({ outbox: `incident#${scope.rule}`, entries: scope.loaded.outbox })),
    ...healthItems.map((item) => ({ outbox: `health#${item.shard}`, entries: item.loaded.outbox })),
  ];
}

function pendingOf(
  outboxes: ReadonlyArray<{ outbox: string; entries: readonly OutboxEntry[] }>,
  nowMs: number,
): StatusReport['pending'] {
  return outboxes
    .flatMap(({ outbox, entries }) => entries.map((entry) => ({ outbox, entry })))
    .map(({ outbox, entry }) => ({
      outbox,
      rule: entry.rule ?? null,
      network: entry.network ?? null,
      value: entry.value ?? null,
      seq: entry.seq,
      event: entry.event,
      at: entry.at,
      from: entry.from ?? null,
      to: entry.to ?? null,
      failures: entry.failures ?? 0,
      lastError: entry.lastError ?? null,
      claimed: entry.claimedBy !== undefined && (entry.claimUntil ?? 0) > nowMs,
    }));
}

/** Builds the report from what the store holds. Pure: the time comes in as `nowMs`. */
export function statusReport(input: StatusInput): StatusReport {
  const { state, expected, nowMs } = input;
  const ruleItems = [...(input.ruleItems ?? [])].sort((a, b) => a.key.localeCompare(b.key));
  const incidentScopes = [...(input.incidentScopes ?? [])].sort((a, b) => a.rule.localeCompare(b.rule));
  const healthItems = [...(input.healthItems ?? [])].sort((a, b) => a.shard - b.shard);
  const recordedRules = state.polled?.rules ?? [];
  const ruleTextOf = (name: string): string | undefined =>
    recordedRules.find((text) => parseRules(text).rules[0]?.name === name);
  const status = state.status ?? null;
  const standing: Standing =
    expected === undefined || status === null
      ? 'no expected status'
      : status === expected
        ? 'expected'
        : 'away';
  const away = state.awayIncident ?? null;
  const outboxes = outboxesOf(input, ruleItems, incidentScopes, healthItems);
  const silences = silencesOf(input.silences ?? [], nowMs);
  return {
    at: new Date(nowMs).toISOString(),
    filter: {
      status,
      since: state.statusSince ?? null,
      forMs: state.statusSince === undefined ? null : Math.max(0, nowMs - Date.parse(state.statusSince)),
      expected: expected ?? null,
      standing,
      candidate:
        state.candidate === undefined
          ? null
          : { status: state.candidate.status, count: state.candidate.count, since: state.candidate.firstAt },
      incident:
        away === null
          ? null
          : {
              id: away,
              stage: monitorTimersOf(state, away)?.stage ?? 1,
              acknowledged: monitorTimersOf(state, away)?.acknowledged ?? null,
            },
      last: lastObservation(input.filter, nowMs),
    },
    networks: input.networks.map(({ id, last }) => ({ id, last: lastObservation(last, nowMs) })),
    incidents: apiIncidents(state, nowMs),
    ruleIncidents: ruleIncidents({ ruleItems, incidentScopes, ruleTextOf, lastOf: input.lastOf, nowMs }),
    groupedIncidents: groupedIncidents(incidentScopes, nowMs),
    networkIncidents: networkIncidents(healthItems, ruleTextOf, nowMs),
    monitor: {
      lastCycleAt: state.polled?.at ?? null,
      networks: monitorNetworks(state, ruleItems),
      rules: recordedRules,
    },
    networksFrom: input.networksFrom ?? 'monitor',
    silences,
    quiet: quietOf(silences),
    outboxes: outboxes
      .map(({ outbox, entries }) => ({ outbox, pending: entries.length }))
      .filter((o) => o.pending > 0),
    pending: pendingOf(outboxes, nowMs),
  };
}
