import { DynamoStore } from '../../lambda/adapters/dynamo-store.ts';
import { DynamoSilenceStore } from '../../lambda/adapters/silence-store.ts';
import { loadStoreConfig } from '../../lambda/config.ts';
import { formatDuration } from '../../lambda/core/alerts/alert-time.ts';
import type { IncidentKind, MonitorState } from '../../lambda/core/detect/decide.ts';
import { extractFigures } from '../../lambda/core/detect/figures.ts';
import type { HealthState } from '../../lambda/core/detect/network-health.ts';
import { displayStatus } from '../../lambda/core/detect/status.ts';
import { isIncidentTransition } from '../../lambda/core/incidents/incident-membership.ts';
import type { IncidentScopeState } from '../../lambda/core/incidents/incidents.ts';
import { parseRules, readRules } from '../../lambda/core/rules/rules.ts';
import { remainingMs, type Silence, silenceStatus } from '../../lambda/core/silences/silence-window.ts';
import type { FailureKind, Snapshot } from '../../lambda/core/types.ts';
import type { OutboxEntry, RuleScopeState, VersionedState } from '../../lambda/ports.ts';
import { SETTINGS } from '../../lambda/settings.ts';
import { defineCommand } from '../args.ts';
import { toHistoryEntry } from '../entries.ts';
import { clip, palette, printable, printableJson, renderTable, useColour } from '../format.ts';
import { type CliIo, println } from '../io.ts';
import { openStore, storeCall } from '../store/open.ts';

/** Numeric fields shown per network. */
const FIGURES_SHOWN = 6;

/** How the confirmed filter status stands against the expected one. */
export type Standing = 'expected' | 'away' | 'no expected status';

/** The newest snapshot of a target, as `status` shows it. */
export interface LastObservation {
  readonly at: string;
  /** Milliseconds between `at` and the moment `status` ran. */
  readonly ageMs: number;
  readonly ok: boolean;
  readonly status?: string;
  readonly error?: string;
  readonly httpStatus?: number;
  readonly latencyMs?: number;
  /** A network's first numeric fields (dot path → value). */
  readonly figures?: Readonly<Record<string, number>>;
}

/** What `shieldwatch status --format json` prints. */
export interface StatusReport {
  /** When the report was made, ISO-8601. */
  readonly at: string;
  readonly filter: {
    /** The last confirmed status, exact; `null` before the first readable one. */
    readonly status: string | null;
    readonly since: string | null;
    readonly forMs: number | null;
    /** `SHIELDWATCH_EXPECTED_STATUS`, when set. */
    readonly expected: string | null;
    readonly standing: Standing;
    /** A new status seen fewer times in a row than the confirmations asked for. */
    readonly candidate: { readonly status: string; readonly count: number; readonly since: string } | null;
    /**
     * While the status is away from the expected one: its incident (`filter.status_changed/<when>`, what `ack`
     * takes), its escalation stage and its acknowledgement.
     */
    readonly incident: {
      readonly id: string;
      readonly stage: number;
      readonly acknowledged: { readonly by: string; readonly at: string; readonly note?: string } | null;
    } | null;
    readonly last: LastObservation | null;
  };
  readonly networks: ReadonlyArray<{ readonly id: string; readonly last: LastObservation | null }>;
  /** Incidents about the monitor's view of the API: open ones, and those counting towards an alert. */
  readonly incidents: ReadonlyArray<{
    readonly kind: IncidentKind;
    readonly open: boolean;
    readonly since: string | null;
    readonly forMs: number | null;
    readonly cycles: number;
    readonly lastError: string | null;
    /** Once open: its id (`api.unreachable/<first failing cycle>`, what `ack` takes); null while counting. */
    readonly id: string | null;
    /** Escalation stage (1 until the first escalation). */
    readonly stage: number;
    readonly acknowledged: { readonly by: string; readonly at: string; readonly note?: string } | null;
  }>;
  /**
   * Open rule incidents, from every rule item of every shard: the rule, the network, since when, and the
   * value the rule reads in the network's newest stored snapshot (null when none is readable).
   */
  readonly ruleIncidents: ReadonlyArray<{
    readonly rule: string;
    readonly network: string;
    readonly since: string | null;
    readonly forMs: number | null;
    readonly incident: string | null;
    readonly value: number | boolean | null;
    readonly valueAt: string | null;
    /** True while the trigger's alert waits behind the per-item alert cap (docs/rules.md). */
    readonly held: boolean;
    /** The rule item it lives in (`rules#<shard>[#<chunk>]`). */
    readonly item: string;
    /** Acknowledged (`groupBy=none`: the cell keeps when, not who: `incidents show` names who). */
    readonly state: 'open' | 'acknowledged';
    readonly acknowledgedAt: string | null;
  }>;
  /**
   * Open incidents across networks (`SHIELDWATCH_GROUP_BY=rule`, CONTRACT §13), from the incident items: one
   * per rule, with every network that joined (active ones first; each with its peak).
   * The table shows these instead of their rule's per-network rows (which stay in `ruleIncidents`).
   */
  readonly groupedIncidents: ReadonlyArray<{
    /** `<rule>@<openedAt>`: the `incident` of the alerts, PagerDuty's dedup_key. */
    readonly id: string;
    readonly rule: string;
    readonly state: 'open' | 'acknowledged';
    readonly since: string;
    readonly forMs: number;
    /** Escalation stage (1 until the first escalation). */
    readonly stage: number;
    readonly networks: ReadonlyArray<{
      readonly network: string;
      /** False once its rule resolved on it (the incident stays open for the others). */
      readonly active: boolean;
      /** Its worst reading in the incident, and when (the reading now: `ruleIncidents`). */
      readonly peak: number | boolean | null;
      readonly peakAt: string | null;
    }>;
    readonly acknowledged: { readonly by: string; readonly at: string; readonly note?: string } | null;
  }>;
  /**
   * Open blind-spot incidents (docs/alerts.md, Blind spots), from every shard's health item (`health#<shard>`):
   * a network whose own request keeps failing (`unreachable`), or a rule whose path reads nothing on networks
   * that answer (`rule_unreadable`), each with the networks still concerned.
   */
  readonly networkIncidents: ReadonlyArray<{
    /** `network.unreachable/<shard>/<at>` or `network.rule_unreadable/<rule>/<shard>/<at>`: what `ack` takes. */
    readonly id: string;
    readonly kind: 'unreachable' | 'rule_unreadable';
    readonly shard: number;
    /** The rule and its path (`rule_unreadable` only; the path null when the rule is no longer recorded). */
    readonly rule: string | null;
    readonly path: string | null;
    readonly since: string | null;
    readonly forMs: number | null;
    /** Escalation stage (1 until the first escalation). */
    readonly stage: number;
    /** The networks still failing (or reading nothing), each since when and how its last request failed. */
    readonly networks: ReadonlyArray<{
      readonly network: string;
      readonly since: string;
      readonly cycles: number;
      readonly failure: FailureKind | null;
      readonly httpStatus: number | null;
    }>;
    readonly acknowledged: { readonly by: string; readonly at: string; readonly note?: string } | null;
  }>;
  /** What the monitor's own cycles recorded: the last applied cycle, its networks and the rules in force. */
  readonly monitor: {
    /** The observation time of the last cycle that recorded them; null when none did (none ran, or an older version). */
    readonly lastCycleAt: string | null;
    /** The monitor's networks: its last cycle's, and those any rule item (of any shard) judges. */
    readonly networks: readonly string[];
    readonly rules: readonly string[];
  };
  /** Where the networks shown come from: the monitor's record, or `--networks`. */
  readonly networksFrom: 'monitor' | 'option';
  /** Active silences (and those set to start later), the soonest to end first, with their time left. */
  readonly silences: ReadonlyArray<{
    readonly id: string;
    readonly status: 'active' | 'pending';
    readonly pattern: string;
    readonly reason: string | null;
    readonly startsAt: string;
    readonly endsAt: string;
    readonly remainingMs: number;
  }>;
  /**
   * Alerts waiting, per outbox: `monitor`, then each rule item by key, then each incident item
   * (`incident#<rule>`), then each shard's health item (`health#<shard>`). Only outboxes with alerts.
   */
  readonly outboxes: ReadonlyArray<{ readonly outbox: string; readonly pending: number }>;
  /** Alerts in every outbox: decided, not yet published (or their removal not yet written). */
  readonly pending: ReadonlyArray<{
    /** `monitor`, or the rule, incident or health item's key. */
    readonly outbox: string;
    readonly rule: string | null;
    readonly network: string | null;
    readonly value: number | boolean | null;
    readonly seq: number;
    readonly event: string;
    readonly at: string;
    readonly from: string | null;
    readonly to: string | null;
    readonly failures: number;
    readonly lastError: string | null;
    readonly claimed: boolean;
  }>;
}

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

/** A rule item as `status` reads it: its key, state and outbox. */
export interface RuleItemView {
  readonly key: string;
  readonly loaded: VersionedState<RuleScopeState>;
}

/** One open rule cell, as `status` shows it. */
interface OpenCell {
  readonly rule: string;
  readonly network: string;
  readonly since?: string;
  readonly incident?: string;
  readonly acknowledgedAt?: string;
  readonly held: boolean;
  readonly item: string;
}

/**
 * The open rule cells of every item. An edit may leave a copy of a cell in two items for a while: the copy
 * judged last (the item's newest cycle) stands, as in the cycle itself.
 */
function openRuleCells(items: readonly RuleItemView[]): OpenCell[] {
  const newest = new Map<string, { readonly asOf: string; readonly cell: OpenCell | undefined }>();
  for (const { key, loaded } of items) {
    const asOf = loaded.state.rules.lastAt ?? '';
    for (const [rule, cells] of Object.entries(loaded.state.rules.cells)) {
      for (const [network, cell] of Object.entries(cells)) {
        const id = JSON.stringify([rule, network]);
        const before = newest.get(id);
        if (before !== undefined && before.asOf >= asOf) continue;
        newest.set(id, {
          asOf,
          cell: cell.open
            ? {
                rule,
                network,
                ...(cell.triggeredAt === undefined ? {} : { since: cell.triggeredAt }),
                ...(cell.incident === undefined ? {} : { incident: cell.incident }),
                // An open cell with a held trigger: triggered, its alert waiting behind the per-item cap.
                held: cell.held?.event === 'network.rule_triggered',
                item: key,
                ...(cell.timers?.acknowledged === undefined
                  ? {}
                  : { acknowledgedAt: cell.timers.acknowledged.at }),
              }
            : undefined,
        });
      }
    }
  }
  return [...newest.values()].flatMap(({ cell }) => (cell === undefined ? [] : [cell]));
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

/** The value `rule` reads in a network's snapshot, or null. */
function ruleValue(
  ruleText: string | undefined,
  snapshot: Snapshot | undefined,
): { value: number | boolean; at: string } | null {
  if (ruleText === undefined || snapshot === undefined || !snapshot.ok) return null;
  const data = toHistoryEntry(snapshot).data;
  const [rule] = parseRules(ruleText).rules;
  if (data === undefined || rule === undefined) return null;
  const reading = readRules([rule], data)[rule.name];
  return reading?.kind === 'value' ? { value: reading.value, at: snapshot.at } : null;
}

/** Builds the report from what the store holds. Pure: the time comes in as `nowMs`. */
export function statusReport(input: {
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
  readonly incidentScopes?: ReadonlyArray<{
    readonly rule: string;
    readonly loaded: VersionedState<IncidentScopeState>;
  }>;
  /** Every shard's health item (`health#<shard>`): its state and outbox. @default [] */
  readonly healthItems?: ReadonlyArray<{
    readonly shard: number;
    readonly loaded: VersionedState<HealthState>;
  }>;
  /** The newest snapshot of each network with an open rule incident (and of those shown). */
  readonly lastOf?: (network: string) => Snapshot | undefined;
  /** @default 'monitor' */
  readonly networksFrom?: 'monitor' | 'option';
}): StatusReport {
  const { state, expected, nowMs } = input;
  const ruleItems = [...(input.ruleItems ?? [])].sort((a, b) => a.key.localeCompare(b.key));
  const recordedRules = state.polled?.rules ?? [];
  const ruleTextOf = (name: string): string | undefined =>
    recordedRules.find((text) => parseRules(text).rules[0]?.name === name);
  const sinceFor = (since: string | undefined) =>
    since === undefined ? null : Math.max(0, nowMs - Date.parse(since));
  const status = state.status ?? null;
  const standing: Standing =
    expected === undefined || status === null
      ? 'no expected status'
      : status === expected
        ? 'expected'
        : 'away';
  // The timers of the monitor's own incidents (docs/acknowledge.md): stage and acknowledgement, by id.
  const timersOf = (id: string | null) =>
    id !== null && state.incidentTimers !== undefined && Object.hasOwn(state.incidentTimers, id)
      ? state.incidentTimers[id]
      : undefined;
  const incidents = (
    Object.entries(state.incidents) as Array<[IncidentKind, MonitorState['incidents']['auth']]>
  )
    .filter(([, incident]) => incident.open || incident.count > 0)
    .map(([kind, incident]) => {
      const id =
        incident.open && incident.since !== undefined ? `${API_OPENERS[kind]}/${incident.since}` : null;
      const timers = timersOf(id);
      return {
        kind,
        open: incident.open,
        since: incident.since ?? null,
        forMs: sinceFor(incident.since),
        cycles: incident.count,
        lastError: incident.lastError ?? null,
        id,
        stage: timers?.stage ?? 1,
        acknowledged: timers?.acknowledged ?? null,
      };
    });
  const away = state.awayIncident ?? null;
  const incidentScopes = [...(input.incidentScopes ?? [])].sort((a, b) => a.rule.localeCompare(b.rule));
  const groupedIncidents = incidentScopes.flatMap(({ loaded }) => {
    const open = loaded.state.open;
    if (open === undefined || open.state !== 'open') return [];
    // Active members first, each group in joining order.
    const members = [
      ...open.members.filter((m) => m.leftAt === undefined),
      ...open.members.filter((m) => m.leftAt !== undefined),
    ];
    return [
      {
        id: open.id,
        rule: open.rule,
        state: open.acknowledged === undefined ? ('open' as const) : ('acknowledged' as const),
        since: open.openedAt,
        forMs: sinceFor(open.openedAt) ?? 0,
        stage: open.stage,
        networks: members.map((m) => ({
          network: m.network,
          active: m.leftAt === undefined,
          peak: m.peak ?? null,
          peakAt: m.peakAt ?? null,
        })),
        acknowledged: open.acknowledged ?? null,
      },
    ];
  });
  const healthItems = [...(input.healthItems ?? [])].sort((a, b) => a.shard - b.shard);
  const networkIncidents = healthItems.flatMap(({ shard, loaded: { state: health } }) => {
    const timersOf = (id: string) =>
      Object.hasOwn(health.incidents ?? {}, id) ? health.incidents?.[id] : undefined;
    const incidentOf = (
      id: string,
      kind: 'unreachable' | 'rule_unreadable',
      rule: string | null,
      cells: ReadonlyArray<[string, { since: string; n: number; kind?: FailureKind; http?: number }]>,
    ) => {
      const timers = timersOf(id);
      // Opened by the cycle of its first alert; an older item without timers: its oldest network's run.
      const since = timers?.openedAt ?? cells.map(([, c]) => c.since).sort()[0] ?? null;
      return {
        id,
        kind,
        shard,
        rule,
        path: rule === null ? null : (parseRules(ruleTextOf(rule) ?? '').rules[0]?.path ?? null),
        since,
        forMs: sinceFor(since ?? undefined),
        stage: timers?.stage ?? 1,
        networks: cells.map(([network, cell]) => ({
          network,
          since: cell.since,
          cycles: cell.n,
          failure: cell.kind ?? null,
          httpStatus: cell.http ?? null,
        })),
        acknowledged: timers?.acknowledged ?? null,
      };
    };
    return [
      ...(health.downIncident === undefined
        ? []
        : [
            incidentOf(
              health.downIncident,
              'unreachable',
              null,
              Object.entries(health.down).filter(([, cell]) => cell.open === true),
            ),
          ]),
      ...Object.entries(health.blindIncidents)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([rule, id]) =>
          incidentOf(
            id,
            'rule_unreadable',
            rule,
            Object.entries(Object.hasOwn(health.blind, rule) ? (health.blind[rule] ?? {}) : {}).filter(
              ([, cell]) => cell.open === true,
            ),
          ),
        ),
    ];
  });
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
              stage: timersOf(away)?.stage ?? 1,
              acknowledged: timersOf(away)?.acknowledged ?? null,
            },
      last: lastObservation(input.filter, nowMs),
    },
    networks: input.networks.map(({ id, last }) => ({ id, last: lastObservation(last, nowMs) })),
    incidents,
    ruleIncidents: openRuleCells(ruleItems).map((cell) => {
      const read = ruleValue(ruleTextOf(cell.rule), input.lastOf?.(cell.network));
      // A cell whose network is a member of its rule's incident across networks is that incident's (the id
      // its alerts carry), not one of its own (CONTRACT §15, One view).
      const scope = incidentScopes.find((s) => s.rule === cell.rule)?.loaded.state;
      const grouped =
        cell.incident !== undefined &&
        scope?.open !== undefined &&
        isIncidentTransition(scope, { network: cell.network, incident: cell.incident });
      return {
        rule: cell.rule,
        network: cell.network,
        since: cell.since ?? null,
        forMs: sinceFor(cell.since),
        incident: grouped ? scope.open!.id : (cell.incident ?? null),
        value: read?.value ?? null,
        valueAt: read?.at ?? null,
        held: cell.held,
        item: cell.item,
        state: cell.acknowledgedAt === undefined ? ('open' as const) : ('acknowledged' as const),
        acknowledgedAt: cell.acknowledgedAt ?? null,
      };
    }),
    groupedIncidents,
    networkIncidents,
    monitor: {
      lastCycleAt: state.polled?.at ?? null,
      networks: monitorNetworks(state, ruleItems),
      rules: recordedRules,
    },
    networksFrom: input.networksFrom ?? 'monitor',
    silences: (input.silences ?? [])
      .map((silence) => ({ silence, status: silenceStatus(silence, nowMs) }))
      .filter((s): s is { silence: Silence; status: 'active' | 'pending' } => s.status !== 'ended')
      .sort(
        (a, b) =>
          a.silence.endsAt.localeCompare(b.silence.endsAt) || a.silence.id.localeCompare(b.silence.id),
      )
      .map(({ silence, status }) => ({
        id: silence.id,
        status,
        pattern: silence.pattern,
        reason: silence.reason ?? null,
        startsAt: silence.startsAt,
        endsAt: silence.endsAt,
        remainingMs: remainingMs(silence, nowMs),
      })),
    outboxes: [
      { outbox: 'monitor', pending: input.outbox.length },
      ...ruleItems.map((item) => ({ outbox: item.key, pending: item.loaded.outbox.length })),
      ...incidentScopes.map((scope) => ({
        outbox: `incident#${scope.rule}`,
        pending: scope.loaded.outbox.length,
      })),
      ...healthItems.map((item) => ({ outbox: `health#${item.shard}`, pending: item.loaded.outbox.length })),
    ].filter((o) => o.pending > 0),
    pending: [
      ...input.outbox.map((entry) => ({ outbox: 'monitor', entry })),
      ...ruleItems.flatMap((item) => item.loaded.outbox.map((entry) => ({ outbox: item.key, entry }))),
      ...incidentScopes.flatMap((scope) =>
        scope.loaded.outbox.map((entry) => ({ outbox: `incident#${scope.rule}`, entry })),
      ),
      ...healthItems.flatMap((item) =>
        item.loaded.outbox.map((entry) => ({ outbox: `health#${item.shard}`, entry })),
      ),
    ].map(({ outbox, entry }) => ({
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
    })),
  };
}

/** ` (HTTP 200, 34 ms)`; a failure's error already names its HTTP status, so then only the time. */
function answerOf(last: LastObservation): string {
  const parts = [
    ...(last.ok && last.httpStatus !== undefined ? [`HTTP ${last.httpStatus}`] : []),
    ...(last.latencyMs === undefined ? [] : [`${last.latencyMs} ms`]),
  ];
  return parts.length === 0 ? '' : ` (${parts.join(', ')})`;
}

/** The event that opens each API incident of the monitor state: the first segment of its id. */
const API_OPENERS: Readonly<Record<IncidentKind, string>> = {
  auth: 'api.auth_failed',
  unreachable: 'api.unreachable',
  unreadable: 'filter.status_unreadable',
};

const quoted = (status: string): string => clip(printable(JSON.stringify(displayStatus(status))), 60);

function renderText(report: StatusReport, io: CliIo): string {
  const colour = palette(useColour(io.stdout, io.env));
  const { filter } = report;
  const lines: string[] = [];
  if (filter.status === null) {
    lines.push('filter status  (none confirmed yet: no readable status has been observed)');
  } else {
    const shown = quoted(filter.status);
    const value =
      filter.standing === 'expected'
        ? `${colour.green(shown)} (expected)`
        : filter.standing === 'away'
          ? `${colour.red(shown)} (AWAY from expected ${quoted(filter.expected ?? '')})`
          : `${shown} (no expected status: set ${SETTINGS.expectedStatus.env} to mark it)`;
    const since =
      filter.since === null ? '' : `  since ${filter.since} (for ${formatDuration(filter.forMs ?? 0)})`;
    lines.push(`filter status  ${value}${since}`);
  }
  if (filter.incident !== null) {
    const ack = filter.incident.acknowledged;
    lines.push(
      `  incident     ${clip(printable(filter.incident.id), 60)}  stage ${filter.incident.stage}  ${
        ack === null
          ? colour.red('OPEN')
          : colour.yellow(`ACKNOWLEDGED by ${clip(printable(ack.by), 40)} at ${ack.at}`)
      }`,
    );
  }
  if (filter.candidate !== null) {
    lines.push(
      `  candidate    ${quoted(filter.candidate.status)} seen ${filter.candidate.count} cycle(s) in a row since ${filter.candidate.since}, not confirmed yet`,
    );
  }
  const last = filter.last;
  lines.push(
    last === null
      ? '  last seen    never (no filter snapshot stored)'
      : `  last seen    ${formatDuration(last.ageMs)} ago, ${last.at}: ${
          last.ok
            ? `${colour.green('ok')} ${quoted(last.status ?? '')}`
            : `${colour.red('FAIL')} ${clip(printable(last.error ?? ''), 100)}`
        }${answerOf(last)}`,
  );

  const { monitor } = report;
  lines.push('');
  if (report.networksFrom === 'option') {
    lines.push('networks       as given by --networks');
  } else if (monitor.lastCycleAt === null) {
    lines.push(
      monitor.networks.length === 0
        ? 'networks       none recorded yet: no cycle of this version of the monitor has been applied to this store'
        : `networks       ${monitor.networks.length} judged by the monitor's rules (its last cycle recorded no list)`,
    );
  } else {
    lines.push(
      `networks       ${monitor.networks.length} polled by the monitor (its record of its last cycle, ${monitor.lastCycleAt}, ${formatDuration(Math.max(0, Date.parse(report.at) - Date.parse(monitor.lastCycleAt)))} ago)`,
    );
  }
  if (report.networks.length === 0) {
    if (report.networksFrom === 'monitor' && monitor.lastCycleAt !== null)
      lines.push('  none: the monitor polls the filter status only');
  } else {
    const rows = report.networks.map(({ id, last: seen }) => [
      clip(printable(id), 40),
      seen === null ? '-' : `${formatDuration(seen.ageMs)} ago`,
      seen === null ? 'never' : seen.ok ? colour.green('ok') : colour.red('FAIL'),
      seen === null
        ? 'no snapshot stored'
        : clip(
            printable(
              seen.ok
                ? Object.entries(seen.figures ?? {})
                    .map(([path, value]) => `${path}=${value}`)
                    .join(' ') || '(no numeric fields)'
                : (seen.error ?? ''),
            ),
            100,
          ),
    ]);
    lines.push(renderTable(['id', 'age', 'result', 'figures / error'], rows).replace(/^/gm, '  '));
    const more = report.networksFrom === 'monitor' ? monitor.networks.length - report.networks.length : 0;
    if (more > 0)
      lines.push(`  ... and ${more} more (--networks A,B shows given ones; --format json lists them all)`);
  }

  lines.push('');
  if (monitor.lastCycleAt === null) {
    lines.push('rules          none recorded yet');
  } else if (monitor.rules.length === 0) {
    lines.push('rules          none in force');
  } else {
    lines.push(`rules          ${monitor.rules.length} in force`);
    for (const text of monitor.rules) lines.push(`  ${clip(printable(text), 150)}`);
  }

  const since = (at: string | null, forMs: number | null): string =>
    at === null ? '-' : `since ${at} (for ${formatDuration(forMs ?? 0)})`;
  lines.push('');
  // A rule whose networks form one open incident (SHIELDWATCH_GROUP_BY=rule) shows as that incident, one row;
  // the per-network rows are for rules that are not grouped (SHIELDWATCH_GROUP_BY=none).
  const groupedRules = new Set(report.groupedIncidents.map((incident) => incident.rule));
  const perNetwork = report.ruleIncidents.filter((incident) => !groupedRules.has(incident.rule));
  const openCount =
    report.incidents.filter((i) => i.open).length +
    report.groupedIncidents.length +
    report.networkIncidents.length +
    perNetwork.length;
  if (
    report.incidents.length === 0 &&
    report.groupedIncidents.length === 0 &&
    report.networkIncidents.length === 0 &&
    perNetwork.length === 0
  ) {
    lines.push(`incidents      ${colour.green('none open')}`);
  } else {
    lines.push(
      `incidents      ${openCount === 0 ? colour.green('none open') : colour.red(`${openCount} open`)}`,
    );
    if (report.incidents.length > 0) {
      const rows = report.incidents.map((incident) => [
        incident.kind,
        incident.acknowledged !== null
          ? colour.yellow(`ACKNOWLEDGED by ${clip(printable(incident.acknowledged.by), 40)}`)
          : incident.open
            ? colour.red('OPEN')
            : colour.yellow('counting'),
        since(incident.since, incident.forMs),
        String(incident.cycles),
        clip(printable(incident.lastError ?? ''), 80),
        incident.id === null ? '-' : clip(printable(incident.id), 60),
      ]);
      lines.push(
        renderTable(['api', 'state', 'since', 'cycles', 'last error', 'incident'], rows).replace(/^/gm, '  '),
      );
    }
    if (report.groupedIncidents.length > 0) {
      const rows = report.groupedIncidents.map((incident) => {
        const active = incident.networks.filter((n) => n.active);
        const listed = active
          .slice(0, 5)
          .map((n) => `${n.network} peak ${n.peak === null ? '-' : String(n.peak)}`)
          .join(', ');
        const more = active.length > 5 ? `, +${active.length - 5} more` : '';
        const left = incident.networks.length - active.length;
        return [
          clip(printable(incident.id), 60),
          clip(printable(incident.rule), 40),
          incident.state === 'acknowledged'
            ? colour.yellow(`ACKNOWLEDGED by ${clip(printable(incident.acknowledged?.by ?? '?'), 40)}`)
            : colour.red('OPEN'),
          since(incident.since, incident.forMs),
          clip(printable(`${active.length}: ${listed}${more}${left > 0 ? ` (${left} resolved)` : ''}`), 120),
        ];
      });
      lines.push(
        renderTable(['incident', 'rule', 'state', 'since', 'networks (peak)'], rows).replace(/^/gm, '  '),
      );
    }
    if (report.networkIncidents.length > 0) {
      const rows = report.networkIncidents.map((incident) => {
        const listed = incident.networks
          .slice(0, 5)
          .map((n) => {
            const how = [n.failure, n.httpStatus === null ? null : `HTTP ${n.httpStatus}`].filter(
              (x) => x !== null,
            );
            return how.length === 0 ? n.network : `${n.network} (${how.join(', ')})`;
          })
          .join(', ');
        const more = incident.networks.length > 5 ? `, +${incident.networks.length - 5} more` : '';
        return [
          clip(printable(incident.id), 60),
          incident.kind === 'unreachable'
            ? 'unreachable'
            : clip(printable(`rule unreadable: ${incident.rule ?? '?'} (${incident.path ?? 'path ?'})`), 60),
          incident.acknowledged !== null
            ? colour.yellow(`ACKNOWLEDGED by ${clip(printable(incident.acknowledged.by), 40)}`)
            : colour.red('OPEN'),
          since(incident.since, incident.forMs),
          clip(printable(`${incident.networks.length}: ${listed}${more}`), 120),
        ];
      });
      lines.push(
        renderTable(['incident', 'blind spot', 'state', 'since', 'networks'], rows).replace(/^/gm, '  '),
      );
    }
    if (perNetwork.length > 0) {
      const rows = perNetwork.map((incident) => [
        clip(printable(incident.rule), 40),
        clip(printable(incident.network), 40),
        `${colour.red('OPEN')}${incident.held ? ' (alert held)' : ''}`,
        since(incident.since, incident.forMs),
        incident.value === null
          ? '- (no readable value stored)'
          : `${String(incident.value)} at ${incident.valueAt ?? '?'}`,
      ]);
      lines.push(renderTable(['rule', 'network', 'state', 'since', 'last value'], rows).replace(/^/gm, '  '));
    }
  }

  lines.push('');
  if (report.silences.length === 0) {
    lines.push(`silences       ${colour.green('none active')}`);
  } else {
    const active = report.silences.filter((x) => x.status === 'active').length;
    lines.push(
      `silences       ${colour.yellow(`${active} active`)}${active === report.silences.length ? '' : `, ${report.silences.length - active} to start`} (matching alerts are recorded, not sent)`,
    );
    const rows = report.silences.map((silence) => [
      silence.id,
      clip(printable(silence.pattern), 40),
      silence.status === 'active'
        ? `until ${silence.endsAt} (${formatDuration(silence.remainingMs)} left)`
        : `from ${silence.startsAt} until ${silence.endsAt}`,
      clip(printable(silence.reason ?? ''), 60),
    ]);
    lines.push(renderTable(['id', 'events', 'time', 'reason'], rows).replace(/^/gm, '  '));
  }

  lines.push('');
  if (report.pending.length === 0) {
    lines.push(`pending alerts ${colour.green('none')} (every outbox is empty)`);
  } else {
    lines.push(
      `pending alerts ${colour.yellow(String(report.pending.length))} (in the outbox, sent by the next cycle): ${report.outboxes
        .map((o) => `${o.outbox} ${o.pending}`)
        .join(', ')}`,
    );
    const rows = report.pending.map((alert) => [
      alert.outbox,
      String(alert.seq),
      alert.event,
      alert.at,
      alert.rule !== null
        ? clip(
            printable(
              `${alert.rule} on ${alert.network ?? '?'}${alert.value === null ? '' : `: ${String(alert.value)}`}`,
            ),
            60,
          )
        : alert.from === null && alert.to === null
          ? '-'
          : `${alert.from === null ? '-' : quoted(alert.from)} -> ${alert.to === null ? '-' : quoted(alert.to)}`,
      `${alert.failures}${alert.claimed ? ' (being sent)' : ''}`,
      clip(printable(alert.lastError ?? ''), 80),
    ]);
    lines.push(
      renderTable(['outbox', 'seq', 'event', 'at', 'what', 'failures', 'last error'], rows).replace(
        /^/gm,
        '  ',
      ),
    );
  }
  return lines.join('\n');
}

/** Networks whose last figures the table shows at most (JSON lists every recorded one without figures). */
const NETWORKS_SHOWN = 50;

/** `--networks A,B`, or undefined when not given. */
function networksOption(networks: string | undefined): string[] | undefined {
  if (networks === undefined) return undefined;
  return [
    ...new Set(
      networks
        .split(',')
        .map((id) => id.trim())
        .filter((id) => id !== ''),
    ),
  ];
}

export const statusCommand = defineCommand({
  name: 'status',
  description: [
    'Reads the store only (no API request) and shows the monitor as its own cycles left it:',
    '  - the confirmed filter status and since when; against SHIELDWATCH_EXPECTED_STATUS, when set, it is',
    '    labelled (expected) in green or (AWAY from expected ...) in red, away with its incident id, stage',
    '    and acknowledgement; a status seen but not yet confirmed; the last filter snapshot and its age;',
    '  - the networks the monitor polled, as its last cycle recorded them (not SHIELDWATCH_NETWORKS of',
    '    this terminal), each with its last figures (or error) and their age; the first 50 in the table;',
    '  - the rules in force, as the monitor last applied them;',
    '  - incidents: about the API (key rejected, unreachable, status unreadable), open (with its id and',
    '    acknowledgement) or counting; each',
    '    open incident of a rule across networks (SHIELDWATCH_GROUP_BY=rule: id, rule, since when,',
    '    acknowledged, its networks with their peaks); and each open rule incident of a rule not grouped',
    '    (rule, network, since when, the value the rule reads in the newest snapshot of that network);',
    '  - active silences, with the time left;',
    '    each open blind-spot incident (a network whose requests keep failing, with how; a rule whose path',
    '    reads nothing), acknowledged or not;',
    "  - pending alerts: every outbox (the monitor's, each rule item's, each incident's and each shard's",
    '    health item), decided but',
    '    not yet published.',
    'Colour only on a terminal, never with NO_COLOR set; every colour has a label too.',
  ].join('\n'),
  options: {
    networks: {
      type: 'string',
      value: 'A,B',
      description: "show these networks instead of the monitor's own",
    },
    format: {
      type: 'string',
      value: 'FORMAT',
      choices: ['table', 'json'],
      default: 'table',
      description: 'json is the same, every recorded network listed',
    },
  },
  examples: [
    'status',
    'status --networks edge-1,edge-2',
    'status --format json',
    'status --stack Shieldwatch',
  ],
  notes: [
    'Needs only the store settings (SHIELDWATCH_TABLE, AWS settings or the embedded store).',
    'Exit codes: 0 shown; 1 the store could not be read (or this directory has none); 2 bad usage.',
  ].join('\n'),
  async run(values, io: CliIo) {
    const format = values.format;
    const given = networksOption(values.networks);
    const rawExpected = io.env[SETTINGS.expectedStatus.env];
    // Compared exactly, as the monitor does: not trimmed; only blank means unset.
    const expected = rawExpected !== undefined && rawExpected.trim() !== '' ? rawExpected : undefined;
    const config = loadStoreConfig(io.env);
    const store = await openStore(io.env, config.table, { readOnly: true });
    try {
      const view = new DynamoStore(store.client, config.table);
      const silenceView = new DynamoSilenceStore(store.client, config.table);
      const report = await storeCall(store, async () => {
        const [{ state, outbox }, filter, ruleItems, silences, incidentScopes, healthItems] =
          await Promise.all([
            view.load(),
            view.querySnapshots({ kind: 'filter' }, { limit: 1 }),
            view.allRuleItems(),
            silenceView.list(),
            view.findIncidents(),
            view.allHealthItems(),
          ]);
        // The networks shown, and those with an open rule incident (for the value their rule reads now).
        const recorded = monitorNetworks(state, ruleItems);
        const shown = given ?? (format === 'json' ? recorded : recorded.slice(0, NETWORKS_SHOWN));
        const draft = statusReport({
          state,
          outbox,
          filter: filter[0],
          networks: [],
          expected,
          nowMs: 0,
          ruleItems,
        });
        const wanted = [...new Set([...shown, ...draft.ruleIncidents.map((i) => i.network)])];
        const found = new Map<string, Snapshot | undefined>();
        // A few at a time: a sharded monitor may record thousands of networks.
        for (let i = 0; i < wanted.length; i += 25) {
          const batch = wanted.slice(i, i + 25);
          const snapshots = await Promise.all(
            batch.map((networkId) => view.querySnapshots({ kind: 'network', networkId }, { limit: 1 })),
          );
          for (const [j, id] of batch.entries()) found.set(id, snapshots[j]?.[0]);
        }
        return statusReport({
          state,
          outbox,
          filter: filter[0],
          networks: shown.map((id) => ({ id, last: found.get(id) })),
          expected,
          nowMs: io.now(),
          ruleItems,
          silences,
          incidentScopes,
          healthItems,
          lastOf: (id) => found.get(id),
          networksFrom: given === undefined ? 'monitor' : 'option',
        });
      });
      // Which store this is (a deployed stack's table, the embedded one): the answer depends on it.
      println(
        io.stdout,
        format === 'json'
          ? printableJson({ ...report, store: store.description }, 2)
          : `${renderText(report, io)}\nstore          ${printable(store.description)}`,
      );
      return 0;
    } finally {
      store.client.destroy();
    }
  },
});
