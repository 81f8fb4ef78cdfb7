/**
 * One poll cycle (docs/design/cycle.md), the same in the Lambda and the CLI: resolve the key; observe every
 * target once, storing snapshots as their batches fill; hand the evidence to the judges (status, rules), each
 * deciding over its own state and committing it; send their outboxes in order, each alert once.
 */
import { setMaxListeners } from 'node:events';
import type { DecideSettings } from './core/decide.ts';
import type { GroupBy } from './core/incidents.ts';
import type { Rule } from './core/rule-types.ts';
import { cycleBudget } from './core/time-budget.ts';
import type { AlertRecord, NetworkFigures, Snapshot } from './core/types.ts';
import { silencesOnce } from './cycle-silences.ts';
import { type CommittedWork, KeyError, StoreError } from './errors.ts';
import { rulesAndIncidentsJudge } from './judges/incidents.ts';
import type { Evidence, Judge } from './judges/judge.ts';
import { statusJudge } from './judges/status.ts';
import { MAX_STORED_FIGURES, type Observed, observe } from './observe.ts';
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
import { SnapshotBatches } from './snapshot-batches.ts';
import { boundStore } from './until-deadline.ts';

export { KeyError, StoreError } from './errors.ts';
export { CLAIM_GRACE_MS, type DeliveryOutcome, PublishedAlerts, SPILL_ABOVE } from './outbox.ts';
export type { CycleLog, CycleMetrics } from './ports.ts';

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
   * @default {@link CYCLE_BODY_BUDGET_BYTES}
   */
  readonly bodyBudgetBytes?: number;
  /** Traffic rules on each network's body (docs/rules.md). @default [] (none) */
  readonly rules?: readonly Rule[];
  /** The shard whose rule items this cycle owns (its schedule's `shard`). @default 0 (the CLI, no sharding) */
  readonly ruleShard?: number;
  /** `SHIELDWATCH_GROUP_BY`: one incident per rule across networks, or each network alone. @default 'rule' */
  readonly groupBy?: GroupBy;
  /** `SHIELDWATCH_GROUP_INTERVAL`: least time between two alerts of an incident's joiners. @default 5 min */
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

/**
 * Default of {@link CycleSettings.bodyBudgetBytes}: with each parsed body dropped as soon as its snapshot
 * and figures are taken, the network bodies kept for the store are most of what a cycle holds.
 */
export const CYCLE_BODY_BUDGET_BYTES = 8 * 1024 * 1024;

/**
 * One poll cycle. Throws {@link StoreError} when the store cannot be written or read: the cycle has then not
 * run, or, when the error's `committed` is set, has run in part (its state writes and its alerts stand). Every
 * store call ends by `deadlineMs`: its request is aborted there.
 */
export async function runCycle(
  deps: CycleDeps,
  settings: CycleSettings,
  deadlineMs: number,
  options: CycleOptions = {},
): Promise<CycleResult> {
  const cycleId = deps.newId();
  const budget = cycleBudget(deps.now(), deadlineMs);
  const startedAt = new Date(budget.startMs).toISOString();
  const storeAbort = new AbortController();
  setMaxListeners(0, storeAbort.signal);
  const storeTimer = setTimeout(() => storeAbort.abort(), Math.max(0, deadlineMs - budget.startMs));
  const deadline = storeAbort.signal;
  const stores = {
    ...deps,
    silences: silencesOnce(deps.silences, deadline),
    state: boundStore(deps.state, deadline),
  };
  try {
    // Step 1: the key. Without it no request can be made, so the cycle has not run.
    try {
      await deps.keys?.get();
    } catch (error) {
      throw new KeyError(`cannot resolve the API key: ${(error as Error).message}`, { cause: error });
    }

    // Step 2: the judges, each reading its state alongside the requests.
    const judges: Judge[] = [
      statusJudge(stores, settings),
      rulesAndIncidentsJudge(stores, settings, deadline),
    ];

    // Step 3: observe every target; each snapshot batch is written as soon as it fills.
    const expiresAt = Math.floor(budget.startMs / 1000) + settings.retentionDays * 86_400;
    const batches = new SnapshotBatches(boundStore(deps.snapshots, deadline), expiresAt);
    const observed = await observe({
      ...deps,
      ...settings,
      cycleId,
      budget,
      figureFields: settings.figureFields ?? [],
      bodyBudgetBytes: settings.bodyBudgetBytes ?? CYCLE_BODY_BUDGET_BYTES,
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      read: (index, body) => {
        for (const judge of judges) judge.read?.(index, body);
      },
      settled: (snapshot) => batches.add(snapshot),
    });
    const filter = observed.filter?.snapshot;
    const networks = observed.networks.map((o) => o.snapshot);
    if ([filter, ...networks].some((s) => s?.errorKind === 'auth')) deps.keys?.invalidate();

    // Step 4: the judges decide on the evidence and commit, while the last snapshots are written.
    const evidence = (s: Snapshot | undefined) => (s?.errorKind === 'cut_short' ? undefined : s);
    const facts: Evidence = {
      at: filter?.at ?? startedAt,
      ...(evidence(filter) === undefined ? {} : { filter: evidence(filter) }),
      networks: networks.map(evidence),
      claim: { claimant: cycleId, untilMs: budget.claimUntilMs },
    };
    const [storing, ...judged] = await Promise.allSettled([
      batches.finish(),
      ...judges.map((judge) => judge.judge(facts)),
    ]);
    const rejected = judged.find((v) => v.status === 'rejected');
    if (rejected !== undefined) throw rejected.reason;
    const verdicts = judged.flatMap((v) => (v.status === 'fulfilled' ? [v.value] : []));
    const queued = verdicts.flatMap((v) => v.queued);
    logQueued(deps, cycleId, queued);

    // Step 5: send the outboxes, judge after judge (a status change goes out first).
    const drain = {
      cycleId,
      monitorName: settings.monitorName,
      budget,
      networks: figuresOf(observed.networks),
    };
    const delivery = {
      delivered: [] as DeliveryOutcome[],
      failed: [] as DeliveryOutcome[],
      suppressed: [] as DeliveryOutcome[],
      pending: 0,
    };
    for (const verdict of verdicts) {
      const sent = await verdict.send(
        settings.apiUrl === undefined ? drain : { ...drain, apiUrl: settings.apiUrl },
      );
      delivery.delivered.push(...sent.delivered);
      delivery.failed.push(...sent.failed);
      delivery.suppressed.push(...sent.suppressed);
      delivery.pending += sent.pending;
    }
    const status = verdicts.find((v) => v.status !== undefined)?.status;

    // A state item that could not be read or written, or snapshots that could not be stored: the cycle has
    // not run as a whole, but what it committed stands and was sent all the same.
    const failures = verdicts.flatMap((v) => v.failures);
    const unstored = storing.status === 'rejected' ? (storing.reason as Error) : undefined;
    const failure =
      failures.length === 0
        ? unstored
        : new StoreError(failures.map((f) => f.error.message).join('; '), {
            cause: failures[0]!.error.cause ?? failures[0]!.error,
          });
    if (failure !== undefined) {
      if (queued.length === 0 && delivery.delivered.length === 0 && failures.length === 0) throw failure;
      const committed: CommittedWork = {
        ...(status === undefined ? {} : { status }),
        queued,
        delivered: delivery.delivered.length,
        pending: delivery.pending,
        ...(failures.length === 0
          ? {}
          : {
              ruleItems: {
                committed: verdicts.flatMap((v) => v.written),
                failed: failures.map((f) => f.key),
              },
            }),
      };
      throw new StoreError(failure.message, { cause: failure.cause ?? failure, committed });
    }

    const durationMs = deps.now() - budget.startMs;
    deps.metrics?.cycleCompleted(durationMs);
    return {
      cycleId,
      startedAt,
      durationMs,
      ...(filter === undefined ? {} : { filter }),
      networks,
      queued,
      ...delivery,
      stale: verdicts.find((v) => v.stale !== undefined)?.stale ?? false,
      cutShort: observed.cutShort,
      ...(status === undefined ? {} : { status }),
    };
  } finally {
    clearTimeout(storeTimer);
  }
}

function logQueued(deps: CycleDeps, cycleId: string, queued: readonly AlertRecord[]): void {
  for (const alert of queued) {
    if (alert.event === 'filter.status_changed') deps.metrics?.statusChanged();
    deps.log.info('alert queued', {
      cycleId,
      seq: alert.seq,
      event: alert.event,
      from: alert.from,
      to: alert.to,
      rule: alert.rule,
      network: alert.network,
    });
  }
}

/** Each network's figures for an alert's email: put together once, and only when an alert is sent. */
function figuresOf(observed: readonly Observed[]): () => NetworkFigures[] {
  let figures: NetworkFigures[] | undefined;
  return () =>
    (figures ??= observed.map(({ snapshot, figures }) => ({
      networkId: snapshot.target.kind === 'network' ? snapshot.target.networkId : '',
      at: snapshot.at,
      figures: figures.slice(0, MAX_STORED_FIGURES),
      ...(snapshot.ok ? {} : { error: snapshot.error ?? 'failed' }),
    })));
}
