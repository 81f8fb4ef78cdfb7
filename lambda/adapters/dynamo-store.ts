import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  DynamoDBDocumentClient,
  QueryCommand,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { SINCE_ATTRIBUTE, sinceField } from '../core/alerts/alert-since.ts';
import { INITIAL_STATE, type MonitorState, monitorStateOf } from '../core/detect/decide.ts';
import type { HealthState } from '../core/detect/network-health.ts';
import { type Incident, type IncidentScopeState, withMembers } from '../core/incidents/incidents.ts';
import type { Rule } from '../core/rules/rule-types.ts';
import type { HeldChanges } from '../core/silences/silence.ts';
import type {
  AlertEvent,
  AlertRecord,
  FailureKind,
  HealthMember,
  NewAlertRecord,
  Snapshot,
  Target,
} from '../core/types.ts';
import type {
  FoundIncidentScope,
  FoundRuleItem,
  HealthStateStore,
  HistoryQuery,
  IncidentStore,
  OutboxEntry,
  OutboxRef,
  RuleScope,
  RuleScopeState,
  RuleStateStore,
  SnapshotStore,
  StateStore,
  StoredEvent,
  VersionedState,
} from '../ports.ts';
import {
  dropUndefined,
  fromSnapshotItem,
  fromStoredAlert,
  num,
  snapshotItem,
  storyOf,
  str,
} from './dynamo-items.ts';
import { HEALTH_SCOPE_PREFIX, healthLayout } from './health-item.ts';
import { INCIDENT_SCOPE_PREFIX, incidentLayout } from './incident-items.ts';
import { DynamoIncidentMemberStore } from './incident-members.ts';
import {
  alertsPerCommit,
  decodeRuleScope,
  encodeRuleScope,
  INITIAL_RULE_SCOPE,
  planRuleScopes,
  RULE_SCOPE_PREFIX,
} from './rule-items.ts';
import {
  DynamoScopeStore,
  isConditionFailure,
  type KeyRange,
  queryItems,
  type ScopeConnection,
  type ScopeLayout,
  writeBatch,
} from './scope-store.ts';
import { KEY, targetKey } from './table-schema.ts';

export { MAX_STORED_BODY_BYTES } from '../core/detect/observation.ts';
export { ensureTable } from './dynamo-table.ts';
export { KEY, TTL_ATTRIBUTE, targetKey } from './table-schema.ts';

const BATCH_SIZE = 25;
const seq12 = (seq: number): string => String(seq).padStart(12, '0');

/** The monitor state item (pk `state`, sk `monitor`); its spilled alerts' keys are bare sequence numbers. */
const MONITOR_LAYOUT: ScopeLayout<MonitorState> = {
  stateSort: KEY.stateSort,
  spillSort: seq12,
  // Digits sort below ':', rule items' spilled alerts (`rules#...`) above it.
  spillRange: { condition: 'sk < :above', values: { ':above': ':' } },
  initial: INITIAL_STATE,
  encode: (state) => state,
  // Its incidents' timers (docs/acknowledge.md) checked; an item without them reads as before.
  decode: monitorStateOf,
};

/**
 * A rule item (pk `state`, sk `rules#<shard>[#<chunk>]`): its state as compact text, its spilled alerts under
 * `<key>/<seq>` and its event items under `<at>#<key>#<seq>`, so that its sequence numbers (its own) never
 * meet the monitor's or another rule item's. `/` never occurs in a key, so no key's range holds another's.
 */
function ruleLayout(key: string): ScopeLayout<RuleScopeState> {
  return {
    stateSort: key,
    spillSort: (seq) => `${key}/${seq12(seq)}`,
    spillRange: { condition: 'begins_with(sk, :scope)', values: { ':scope': `${key}/` } },
    eventScope: key,
    initial: INITIAL_RULE_SCOPE,
    encode: encodeRuleScope,
    decode: decodeRuleScope,
  };
}

/** The state items (pk `state`) whose sort key begins with `prefix`. */
const stateItemsFrom = (prefix: string): KeyRange => ({
  condition: 'pk = :pk AND begins_with(sk, :prefix)',
  values: { ':pk': KEY.state, ':prefix': prefix },
});

/**
 * What each role over the table shares: its connection (client, table, request counters) and, in a view made by
 * {@link withSignal}, an abort signal.
 */
abstract class TableRole {
  constructor(protected readonly conn: ScopeConnection) {}

  /**
   * The same role over the same table and counters, each of its requests aborted once `signal` aborts, so a store
   * that does not answer cannot hold a cycle (or the SDK's retries a process) past its deadline.
   */
  withSignal(signal: AbortSignal): this {
    return Object.assign(Object.create(this) as this, { conn: { ...this.conn, signal } });
  }

  /** Per-request options: this view's abort signal. */
  protected get http(): { abortSignal: AbortSignal } | undefined {
    return this.conn.signal === undefined ? undefined : { abortSignal: this.conn.signal };
  }
}

/**
 * A stored rule alert's `triggeredAt`, or incident alert's `openedAt`: the attribute `since` under the name its
 * family gives it (`alert-since.ts`); nothing for another family.
 */
function eventTimes(item: Record<string, unknown>): Pick<StoredEvent, 'triggeredAt' | 'openedAt'> {
  const field = sinceField(item['event']);
  const since = str(item[SINCE_ATTRIBUTE]);
  return since !== undefined && (field === 'triggeredAt' || field === 'openedAt') ? { [field]: since } : {};
}

/** A blind spot's stored networks, each with a string `network` (anything else stored is left out). */
function storedMembers(stored: unknown): HealthMember[] | undefined {
  if (!Array.isArray(stored)) return undefined;
  return stored.flatMap((m: unknown) => {
    if (typeof m !== 'object' || m === null) return [];
    const { network, since, cycles, errorKind, httpStatus, error } = m as Record<string, unknown>;
    if (typeof network !== 'string') return [];
    return [
      dropUndefined({
        network,
        since: str(since),
        cycles: num(cycles),
        errorKind: str(errorKind) as FailureKind | undefined,
        httpStatus: num(httpStatus),
        error: str(error),
      }),
    ];
  });
}

/** The snapshots of every target and the alert events (the history): written by the cycle, read by the CLI. */
export class DynamoSnapshotStore extends TableRole implements SnapshotStore {
  async putSnapshots(snapshots: readonly Snapshot[], expiresAt: number): Promise<void> {
    const requests = snapshots.map((s) => ({ PutRequest: { Item: snapshotItem(s, expiresAt) } }));
    const chunks: (typeof requests)[] = [];
    for (let i = 0; i < requests.length; i += BATCH_SIZE) chunks.push(requests.slice(i, i + BATCH_SIZE));
    await Promise.all(chunks.map((chunk) => writeBatch(this.conn, chunk)));
  }

  async querySnapshots(target: Target, query: HistoryQuery): Promise<Snapshot[]> {
    const items = await this.queryRange(targetKey(target), query);
    return items.map(fromSnapshotItem);
  }

  async queryEvents(query: HistoryQuery): Promise<StoredEvent[]> {
    const items = await this.queryRange(KEY.event, query);
    return items.map((item) => {
      const numbers = fromStoredAlert({ ruleValues: item['ruleValues'] });
      return dropUndefined({
        at: str(item['at']) ?? '',
        event: str(item['event']) as AlertEvent,
        from: str(item['from']),
        to: str(item['to']),
        seq: num(item['seq']) ?? 0,
        detail: str(item['detail']),
        suppressedBy: str(item['suppressedBy']),
        // What the report needs to pair an incident's start with its end (docs/report.md).
        severity: str(item['severity']),
        previousSince: str(item['previousSince']),
        // Rule alerts (docs/rules.md).
        rule: str(item['rule']),
        network: str(item['network']),
        ruleText: str(item['ruleText']),
        incident: str(item['incident']),
        // A rule alert's `triggeredAt`, an incident alert's `openedAt` (`alert-since.ts`).
        ...eventTimes(item),
        story: storyOf(item['story']),
        // A blind spot's networks (incidents lists them), who acknowledged.
        members: storedMembers(item['members']),
        remaining: Array.isArray(item['remaining'])
          ? item['remaining'].filter((n): n is string => typeof n === 'string')
          : undefined,
        path: str(item['path']),
        acknowledgedBy: str(item['acknowledgedBy']),
        ...numbers,
      } as StoredEvent);
    });
  }

  /** Reads a key range page by page (DynamoDB returns at most 1 MB a page), oldest first. */
  private async queryRange(pk: string, query: HistoryQuery): Promise<Record<string, unknown>[]> {
    const newestFirst = query.limit !== undefined;
    const items: Record<string, unknown>[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const input: QueryCommandInput = {
        TableName: this.conn.table,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :lo AND :hi',
        ExpressionAttributeValues: {
          ':pk': pk,
          ':lo': query.since === undefined ? '0' : keyTime(query.since),
          // '~' sorts after every character of an ISO timestamp and '#', so `until` is inclusive.
          ':hi': `${query.until === undefined ? '9999' : keyTime(query.until)}~`,
        },
        ScanIndexForward: !newestFirst,
        ...(startKey === undefined ? {} : { ExclusiveStartKey: startKey }),
        ...(query.limit === undefined ? {} : { Limit: Math.min(1000, query.limit - items.length) }),
      };
      this.conn.stats.reads++;
      const out = await this.conn.doc.send(new QueryCommand(input), this.http);
      items.push(...((out.Items ?? []) as Record<string, unknown>[]));
      startKey = out.LastEvaluatedKey;
      query.onPage?.(items.length);
    } while (startKey !== undefined && (query.limit === undefined || items.length < query.limit));
    return newestFirst ? items.reverse() : items;
  }
}

/**
 * A time bound as the sort keys write times (`toISOString`: UTC, milliseconds), so that it compares as the time
 * it is: `2026-11-30T00:00:00Z` (the digest's period, without milliseconds) sorts after
 * `2026-11-30T00:00:00.000Z#...` as a string ('Z' after '.'), and a lower bound so written left out what was
 * written at that very time. A date-time with an offset compares as its UTC time. Anything else (a date alone,
 * a prefix) is kept as is.
 */
export function keyTime(bound: string): string {
  if (!/^\d{4}-\d{2}-\d{2}T/.test(bound)) return bound;
  const ms = Date.parse(bound);
  return Number.isFinite(ms) ? new Date(ms).toISOString() : bound;
}

/** The monitor state item (`state/monitor`) and its outbox: the status judge's state. */
export class DynamoMonitorStateStore extends DynamoScopeStore<MonitorState> {
  constructor(conn: ScopeConnection) {
    super(conn, MONITOR_LAYOUT);
  }
}

/** The rule items of every shard (`rules#<shard>[#<chunk>]`, docs/design/rule-state.md): the rules judge's state. */
export class DynamoRuleStateStore extends TableRole implements RuleStateStore {
  /** The store of one rule item (its sort key under pk `state`, e.g. `rules#0`). */
  ruleScope(key: string): DynamoScopeStore<RuleScopeState> {
    return new DynamoScopeStore(this.conn, ruleLayout(key));
  }

  ruleItem(key: string): StateStore<RuleScopeState> {
    return this.ruleScope(key);
  }

  ruleScopes(shard: number, rules: readonly Rule[], networks: readonly string[]): RuleScope[] {
    return planRuleScopes(shard, rules, networks).map((plan) => ({
      ...plan,
      maxAlerts: alertsPerCommit(rules, plan.networks),
      store: this.ruleScope(plan.key),
    }));
  }

  async findRuleItems(shard: number): Promise<FoundRuleItem[]> {
    const prefix = `${RULE_SCOPE_PREFIX}${shard}`;
    const found: FoundRuleItem[] = [];
    // `rules#<shard>` and `rules#<shard>#<chunk>` sort between the prefix and the prefix with '$' (after
    // '#'); `rules#<shard>0...` (another shard) sorts after both.
    const range: KeyRange = {
      condition: 'pk = :pk AND sk BETWEEN :lo AND :hi',
      values: { ':pk': KEY.state, ':lo': prefix, ':hi': `${prefix}$` },
    };
    for await (const item of queryItems(this.conn, range)) {
      const key = str(item['sk']);
      if (key === undefined || (key !== prefix && !key.startsWith(`${prefix}#`))) continue;
      const store = this.ruleScope(key);
      found.push({ key, loaded: await store.fromItem(item), store });
    }
    return found;
  }

  /**
   * Every rule item of every shard, for `shieldwatch status`: one strongly consistent Query on pk `state`,
   * sk from `rules#`, paged (spilled alerts, `<key>/<seq>`, come with their item's load, not as items).
   */
  async allRuleItems(): Promise<FoundRuleItem[]> {
    const found: FoundRuleItem[] = [];
    for await (const item of queryItems(this.conn, stateItemsFrom(RULE_SCOPE_PREFIX))) {
      const key = str(item['sk']);
      if (key === undefined || key.includes('/')) continue;
      const store = this.ruleScope(key);
      found.push({ key, loaded: await store.fromItem(item), store });
    }
    return found;
  }

  async discardRuleItem(key: string, version: number, heldRev = 0): Promise<boolean> {
    this.conn.stats.writes++;
    try {
      await this.conn.doc.send(
        new DeleteCommand({
          TableName: this.conn.table,
          Key: { pk: KEY.state, sk: key },
          ConditionExpression:
            'version = :version AND attribute_not_exists(spilled) AND ' +
            '(attribute_not_exists(outbox) OR size(outbox) = :zero) AND ' +
            '(attribute_not_exists(heldRev) OR heldRev = :heldRev)',
          ExpressionAttributeValues: { ':version': version, ':zero': 0, ':heldRev': heldRev },
        }),
        this.http,
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }
}

/** The network health item of each shard: the health judge's state. */
export class DynamoHealthStateStore extends TableRole implements HealthStateStore {
  /** The network health item of a shard (`health#<shard>`, docs/design/storage.md). */
  healthScope(shard: number): DynamoScopeStore<HealthState> {
    return new DynamoScopeStore(this.conn, healthLayout(shard));
  }

  /**
   * Every shard's health item, for `shieldwatch status`: one strongly consistent Query on pk `state`, sk from
   * `health#`, paged (spilled alerts live under pk `outbox` and come with their item's load).
   */
  async allHealthItems(): Promise<FoundHealthItem[]> {
    const found: FoundHealthItem[] = [];
    for await (const item of queryItems(this.conn, stateItemsFrom(HEALTH_SCOPE_PREFIX))) {
      const suffix = str(item['sk'])?.slice(HEALTH_SCOPE_PREFIX.length) ?? '';
      // Only `health#<shard>` items: anything else under the prefix is no health item of this version.
      if (!/^\d{1,6}$/.test(suffix)) continue;
      const shard = Number(suffix);
      found.push({ shard, loaded: await this.healthScope(shard).fromItem(item) });
    }
    return found.sort((a, b) => a.shard - b.shard);
  }
}

/** A shard's health item found in the store: its shard, and its state and outbox as read. */
export interface FoundHealthItem {
  readonly shard: number;
  readonly loaded: VersionedState<HealthState>;
}

/** The incident item of each rule (docs/design/incidents.md): the incidents judge's state, and the acknowledgements. */
export class DynamoIncidentStore extends TableRole implements IncidentStore {
  /** Each shard's members of the incidents (`incident-members.ts`). */
  readonly members: DynamoIncidentMemberStore = new DynamoIncidentMemberStore(this.conn);

  override withSignal(signal: AbortSignal): this {
    return Object.assign(super.withSignal(signal), { members: this.members.withSignal(signal) });
  }

  /**
   * Every incident item with its incidents' members assembled from the shards' working sets and archives
   * (`incidents`, `status`): what `incidents show` lists.
   */
  async findIncidents(): Promise<FoundIncidentScope[]> {
    const found = await this.findIncidentScopes();
    return Promise.all(
      found.map(async (f) => {
        const assemble = async (incident: Incident | undefined) =>
          incident === undefined || incident.parts === undefined
            ? incident
            : withMembers(incident, await this.members.membersOf(f.rule, incident.id));
        const [open, last] = await Promise.all([
          assemble(f.loaded.state.open),
          assemble(f.loaded.state.last),
        ]);
        const state: IncidentScopeState = {
          ...f.loaded.state,
          ...(open === undefined ? {} : { open }),
          ...(last === undefined ? {} : { last }),
        };
        return { ...f, loaded: { ...f.loaded, state } };
      }),
    );
  }

  /** The incident item of `rule` (`incident#<rule>`, docs/design/incidents.md). */
  incidentScope(rule: string): DynamoScopeStore<IncidentScopeState> {
    return new DynamoScopeStore(this.conn, incidentLayout(rule));
  }

  /** Every incident item: one strongly consistent Query on pk `state`, sk from `incident#`, paged. */
  async findIncidentScopes(): Promise<FoundIncidentScope[]> {
    const found: FoundIncidentScope[] = [];
    for await (const item of queryItems(this.conn, stateItemsFrom(INCIDENT_SCOPE_PREFIX))) {
      const key = str(item['sk']);
      if (key === undefined) continue;
      const rule = key.slice(INCIDENT_SCOPE_PREFIX.length);
      const store = this.incidentScope(rule);
      found.push({ rule, loaded: await store.fromItem(item), store });
    }
    return found;
  }
}

/**
 * The monitor's DynamoDB table, with one adapter per role over one connection: the composition root hands each
 * role to the cycle under its own port ({@link snapshots}, {@link monitorState}, {@link ruleState},
 * {@link networkHealth}, {@link incidents}); the CLI's commands and the tests, which read across roles, may call
 * each role's methods on the table itself.
 */
export class DynamoStore
  implements SnapshotStore, StateStore, RuleStateStore, HealthStateStore, IncidentStore
{
  /** Counts requests sent by every role, for benchmarks and tests. */
  readonly stats = { writes: 0, reads: 0 };
  readonly snapshots: DynamoSnapshotStore;
  readonly monitorState: DynamoMonitorStateStore;
  readonly ruleState: DynamoRuleStateStore;
  readonly networkHealth: DynamoHealthStateStore;
  readonly incidents: DynamoIncidentStore;

  constructor(client: DynamoDBClient, table: string) {
    const conn: ScopeConnection = {
      doc: DynamoDBDocumentClient.from(client, {
        marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
      }),
      table,
      stats: this.stats,
    };
    this.snapshots = new DynamoSnapshotStore(conn);
    this.monitorState = new DynamoMonitorStateStore(conn);
    this.ruleState = new DynamoRuleStateStore(conn);
    this.networkHealth = new DynamoHealthStateStore(conn);
    this.incidents = new DynamoIncidentStore(conn);
  }

  /**
   * The same table (client, counters), every role's requests aborted once `signal` aborts, so a store that does
   * not answer cannot hold a cycle (or the SDK's retries a process) past its deadline.
   */
  withSignal(signal: AbortSignal): DynamoStore {
    return Object.assign(Object.create(this) as DynamoStore, {
      snapshots: this.snapshots.withSignal(signal),
      monitorState: this.monitorState.withSignal(signal),
      ruleState: this.ruleState.withSignal(signal),
      networkHealth: this.networkHealth.withSignal(signal),
      incidents: this.incidents.withSignal(signal),
    });
  }

  putSnapshots(snapshots: readonly Snapshot[], expiresAt: number): Promise<void> {
    return this.snapshots.putSnapshots(snapshots, expiresAt);
  }

  querySnapshots(target: Target, query: HistoryQuery): Promise<Snapshot[]> {
    return this.snapshots.querySnapshots(target, query);
  }

  queryEvents(query: HistoryQuery): Promise<StoredEvent[]> {
    return this.snapshots.queryEvents(query);
  }

  healthScope(shard: number): DynamoScopeStore<HealthState> {
    return this.networkHealth.healthScope(shard);
  }

  allHealthItems(): Promise<FoundHealthItem[]> {
    return this.networkHealth.allHealthItems();
  }

  incidentScope(rule: string): DynamoScopeStore<IncidentScopeState> {
    return this.incidents.incidentScope(rule);
  }

  findIncidentScopes(): Promise<FoundIncidentScope[]> {
    return this.incidents.findIncidentScopes();
  }

  findIncidents(): Promise<FoundIncidentScope[]> {
    return this.incidents.findIncidents();
  }

  get members(): DynamoIncidentMemberStore {
    return this.incidents.members;
  }

  ruleScope(key: string): DynamoScopeStore<RuleScopeState> {
    return this.ruleState.ruleScope(key);
  }

  ruleItem(key: string): StateStore<RuleScopeState> {
    return this.ruleState.ruleItem(key);
  }

  ruleScopes(shard: number, rules: readonly Rule[], networks: readonly string[]): RuleScope[] {
    return this.ruleState.ruleScopes(shard, rules, networks);
  }

  findRuleItems(shard: number): Promise<FoundRuleItem[]> {
    return this.ruleState.findRuleItems(shard);
  }

  allRuleItems(): Promise<FoundRuleItem[]> {
    return this.ruleState.allRuleItems();
  }

  discardRuleItem(key: string, version: number, heldRev = 0): Promise<boolean> {
    return this.ruleState.discardRuleItem(key, version, heldRev);
  }

  load(): Promise<VersionedState> {
    return this.monitorState.load();
  }

  spill(entries: readonly OutboxEntry[], nowMs: number): Promise<boolean> {
    return this.monitorState.spill(entries, nowMs);
  }

  commit(
    next: MonitorState,
    expectedVersion: number,
    alerts: readonly AlertRecord[],
    claim?: { readonly claimant: string; readonly untilMs: number },
  ): Promise<boolean> {
    return this.monitorState.commit(next, expectedVersion, alerts, claim);
  }

  claim(entry: OutboxRef, claimant: string, nowMs: number, untilMs: number): Promise<boolean> {
    return this.monitorState.claim(entry, claimant, nowMs, untilMs);
  }

  recordEvent(alert: AlertRecord): Promise<string | undefined> {
    return this.monitorState.recordEvent(alert);
  }

  markPublished(alert: AlertRecord, messageId: string): Promise<void> {
    return this.monitorState.markPublished(alert, messageId);
  }

  markSuppressed(alert: AlertRecord, silenceId: string): Promise<void> {
    return this.monitorState.markSuppressed(alert, silenceId);
  }

  complete(entry: OutboxRef, claimant: string): Promise<void> {
    return this.monitorState.complete(entry, claimant);
  }

  settle(entry: OutboxRef, claimant: string, held: HeldChanges, heldRev: number): Promise<boolean> {
    return this.monitorState.settle(entry, claimant, held, heldRev);
  }

  announce(
    loaded: VersionedState,
    alerts: ReadonlyArray<NewAlertRecord>,
    held: HeldChanges,
    claim: { readonly claimant: string; readonly untilMs: number },
  ): Promise<AlertRecord[] | undefined> {
    return this.monitorState.announce(loaded, alerts, held, claim);
  }

  release(entry: OutboxRef, claimant: string, error?: string): Promise<void> {
    return this.monitorState.release(entry, claimant, error);
  }
}
