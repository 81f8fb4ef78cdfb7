/**
 * The types of a poll cycle's entry (`runCycle`): what it talks to, what it polls and decides by, what it did.
 */

import type { DecideSettings } from './core/detect/decide.ts';
import type { GroupBy } from './core/incidents/incidents.ts';
import type { Rule } from './core/rules/rule-types.ts';
import type { NoticeState } from './core/silences/maintenance-notices.ts';
import type { AlertRecord, Snapshot } from './core/types.ts';
import type { DeliveryOutcome, PublishedAlerts } from './outbox.ts';
import type {
  AlertPublisher,
  ApiKeyProvider,
  CycleLog,
  CycleMetrics,
  HealthStateStore,
  IncidentStore,
  ProtectionApi,
  RuleStateStore,
  SilenceStore,
  SnapshotStore,
  StateStore,
} from './ports.ts';

/** Everything a cycle talks to, handed in so that tests can use real local servers or mocks. */
export interface CycleDeps {
  readonly api: ProtectionApi;
  readonly snapshots: SnapshotStore;
  readonly state: StateStore;
  readonly publisher: AlertPublisher;
  /** Told to read the key again when the API rejected it. */
  readonly keys?: ApiKeyProvider;
  readonly log: CycleLog;
  readonly metrics?: CycleMetrics;
  /** Epoch ms. */
  readonly now: () => number;
  /** A unique id for the cycle. */
  readonly newId: () => string;
  /**
   * Alerts this process published whose removal from the outbox is not confirmed; built once per process so
   * that warm invocations share it. Without it only the store remembers them.
   */
  readonly published?: PublishedAlerts;
  /** Where rule state lives; without it (or without rules) no rule is judged. */
  readonly ruleState?: RuleStateStore;
  /** Silences (docs/silences.md), read only by a cycle with an alert to send; none: nothing is silenced. */
  readonly silences?: SilenceStore;
  /** Where each shard's network health lives (docs/alerts.md, Blind spots); without it, none is judged. */
  readonly networkHealth?: HealthStateStore;
  /** Where incidents across networks live (docs/design/incidents.md); without it, rule alerts are not grouped. */
  readonly incidents?: IncidentStore;
  /**
   * The maintenance windows' notices item (docs/silences.md, Maintenance windows); without it no
   * `maintenance.started` / `maintenance.ended` is sent (the windows still silence).
   */
  readonly maintenance?: StateStore<NoticeState>;
}

/** What a cycle polls and how it decides. */
export interface CycleSettings extends DecideSettings {
  readonly networks: readonly string[];
  /** False for shards that poll networks only. */
  readonly pollFilter: boolean;
  readonly statusPath?: string;
  readonly retentionDays: number;
  readonly monitorName: string;
  /** The watched API, named in the email footer. */
  readonly apiUrl?: string;
  /** Dot paths of the numeric fields of each network's body handed to metrics. @default [] (none) */
  readonly figureFields?: readonly string[];
  /**
   * Network body bytes a cycle keeps for storage, all networks together; past it, bodies are stored as a
   * marker (their size), their figures still taken.
   * @default `CYCLE_BODY_BUDGET_BYTES` (cycle.ts, 8 MiB)
   */
  readonly bodyBudgetBytes?: number;
  /** Traffic rules on each network's body (docs/rules.md). @default [] (none) */
  readonly rules?: readonly Rule[];
  /** The shard whose rule items this cycle owns (its schedule's `shard`). @default 0 (the CLI, no sharding) */
  readonly ruleShard?: number;
  /**
   * How many shards the deployment runs (its schedules' events say it): the members of shards at or past it
   * leave their incidents, since no cycle of theirs will judge them. @default unknown (none leaves so: the CLI)
   */
  readonly shardCount?: number;
  /** The `groupBy` setting: one incident per rule across networks, or each network alone. @default 'rule' */
  readonly groupBy?: GroupBy;
  /** The `groupInterval` setting: least time between two alerts of an incident's joiners. @default 5 min */
  readonly groupIntervalMs?: number;
}

/** What one cycle did. */
export interface CycleResult {
  readonly cycleId: string;
  readonly startedAt: string;
  readonly durationMs: number;
  readonly filter?: Snapshot;
  readonly networks: readonly Snapshot[];
  /** Alerts this cycle added to the outbox (the monitor's, then the rule items'; each numbered in its own). */
  readonly queued: readonly AlertRecord[];
  readonly delivered: readonly DeliveryOutcome[];
  readonly failed: readonly DeliveryOutcome[];
  /** Alerts a silence suppressed: recorded, never sent (docs/silences.md). */
  readonly suppressed: readonly DeliveryOutcome[];
  /** Alerts still waiting in the outbox after this cycle. */
  readonly pending: number;
  /** True when a newer cycle had already been applied: this one changed no state (the monitor's, or for a
   * shard that polls networks only, a rule item's). */
  readonly stale: boolean;
  /** True when the operator stopped the cycle's requests (see {@link CycleOptions.signal}). */
  readonly cutShort: boolean;
  /** The confirmed filter status after this cycle. */
  readonly status?: string;
}

/** Per-run options of a cycle. */
export interface CycleOptions {
  /**
   * Stops the cycle's requests early (the CLI's second Ctrl-C). What was observed is still stored; the
   * stopped requests are recorded as cut short and count as no evidence about the API.
   */
  readonly signal?: AbortSignal;
}
