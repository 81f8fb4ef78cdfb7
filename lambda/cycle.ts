import { setMaxListeners } from 'node:events';
import { type CommitClaim, commitJudged } from './commit.ts';
import {
  type DecideSettings,
  decide,
  INITIAL_STATE,
  type MonitorState,
  type PolledRecord,
} from './core/decide.ts';
import { pickFigures } from './core/figures.ts';
import { storedBodyBytes, toCycleObservation, toSnapshot } from './core/observation.ts';
import type { Rule, RuleNetworkObservation, RuleReading } from './core/rule-types.ts';
import { readRules } from './core/rules.ts';
import { cycleBudget } from './core/time-budget.ts';
import type { AlertRecord, NetworkFigures, Snapshot, Target } from './core/types.ts';
import { CUT_SHORT_PREFIX } from './core/uptime.ts';
import { recordMetrics, silencesOnce, takeFigures, untilDeadline } from './cycle-support.ts';
import { type CommittedWork, describeError, KeyError, StoreError } from './errors.ts';
import { type DeliveryOutcome, drainOutbox, type PublishedAlerts } from './outbox.ts';
import type {
  AlertPublisher,
  ApiKeyProvider,
  CycleLog,
  CycleMetrics,
  ProtectionApi,
  RuleStateStore,
  SilenceStore,
  SnapshotStore,
  StateStore,
  VersionedState,
} from './ports.ts';
import { applyRules, drainRuleScopes, type ShardRules, startRuleItems } from './rule-cycle.ts';

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

const CUT_SHORT = `${CUT_SHORT_PREFIX}: the monitor was stopped`;

const EMPTY_STATE: VersionedState = { state: INITIAL_STATE, version: 0, outbox: [] };
const MAX_STORED_FIGURES = 20;
/**
 * Default of {@link CycleSettings.bodyBudgetBytes}: with each parsed body dropped as soon as its snapshot
 * and figures are taken, the network bodies kept for the store are most of what a cycle holds.
 */
export const CYCLE_BODY_BUDGET_BYTES = 8 * 1024 * 1024;

/** One observation once its answer is dropped: the snapshot to store and the figures the cycle needs later. */
interface Observed {
  readonly snapshot: Snapshot;
  /** A network's numeric figures, as many as the email and the metrics use (none for the filter). */
  readonly figures: ReadonlyArray<readonly [string, number]>;
  /** A network's chosen figures (`figureFields`), for the metrics. */
  readonly chosen: ReadonlyArray<readonly [string, number]>;
  /** A network's reading of each rule, when it answered (docs/rules.md). */
  readonly readings?: Readonly<Record<string, RuleReading>>;
}

/**
 * One poll cycle: request the filter status and every network concurrently (the client bounds the
 * concurrency), store one snapshot per observation, apply the observation to the state with a conditional
 * write, and send what waits in the outbox, in order, each alert once.
 *
 * Throws {@link StoreError} when the store cannot be written or read: the cycle has then not run, or, when
 * the error's `committed` is set, has run in part (its state write and its alerts stand). Every store call
 * ends by `deadlineMs`: its request is aborted there.
 */
export async function runCycle(
  deps: CycleDeps,
  settings: CycleSettings,
  deadlineMs: number,
  options: CycleOptions = {},
): Promise<CycleResult> {
  const storeAbort = new AbortController();
  setMaxListeners(0, storeAbort.signal);
  const storeTimer = setTimeout(() => storeAbort.abort(), Math.max(0, deadlineMs - deps.now()));
  try {
    const ruleItems = startRuleItems(
      deps.ruleState,
      settings.rules,
      settings.ruleShard ?? 0,
      settings.networks,
      storeAbort.signal,
    );
    return await cycleWithin(
      {
        ...deps,
        ruleItems,
        silences: silencesOnce(deps.silences, storeAbort.signal),
        state: untilDeadline(deps.state.withSignal?.(storeAbort.signal) ?? deps.state, storeAbort.signal),
        snapshots: untilDeadline(
          deps.snapshots.withSignal?.(storeAbort.signal) ?? deps.snapshots,
          storeAbort.signal,
        ),
      },
      settings,
      deadlineMs,
      options,
    );
  } finally {
    clearTimeout(storeTimer);
  }
}

/** {@link runCycle} with stores whose calls end by the deadline. */
async function cycleWithin(
  deps: CycleDeps & { readonly ruleItems: ShardRules | undefined },
  settings: CycleSettings,
  deadlineMs: number,
  options: CycleOptions,
): Promise<CycleResult> {
  const cycleId = deps.newId();
  const startMs = deps.now();
  const startedAt = new Date(startMs).toISOString();
  const budget = cycleBudget(startMs, deadlineMs);
  const requestDeadline = budget.requestDeadlineMs;
  const abort = new AbortController();
  // Every request of the cycle listens to this one signal; the default cap of 10 listeners is for leaks.
  setMaxListeners(0, abort.signal);
  const timer = setTimeout(
    () => abort.abort(new Error('cycle deadline reached')),
    Math.max(0, requestDeadline - startMs),
  );
  const ctx = { signal: abort.signal, deadlineMs: requestDeadline };
  const stop = () => abort.abort(new Error(CUT_SHORT));
  if (options.signal?.aborted) stop();
  options.signal?.addEventListener('abort', stop, { once: true });

  // Step 1: the key. Without it no request can be made, so the cycle has not run.
  if (deps.keys !== undefined) {
    try {
      await deps.keys.get();
    } catch (error) {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', stop);
      throw new KeyError(`cannot resolve the API key: ${(error as Error).message}`, { cause: error });
    }
  }

  // The state read runs alongside the requests; a failure surfaces when it is awaited. A shard that polls
  // networks only neither reads nor writes the state.
  const loading = (settings.pollFilter ? deps.state.load() : Promise.resolve(EMPTY_STATE)).then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  // The shard's rule items are found alongside the requests (startRuleItems); readings are taken only when
  // some item judges a network of this cycle.
  const rules = (deps.ruleItems?.planned.length ?? 0) === 0 ? [] : (settings.rules ?? []);

  // Memory per cycle is bounded by dropping each answer here, once its snapshot and figures are taken: only
  // the bodies within the budget outlive this closure (the filter's body is outside the budget).
  let bodyBudget = settings.bodyBudgetBytes ?? CYCLE_BODY_BUDGET_BYTES;
  const observe = async (target: Target): Promise<Observed> => {
    const at = new Date(deps.now()).toISOString();
    const response =
      target.kind === 'filter'
        ? await deps.api.getFilterStatus(ctx)
        : await deps.api.getNetworkRealtime(target.networkId, ctx);
    const network = target.kind === 'network';
    const snapshot = toSnapshot(response, {
      target,
      at,
      cycleId,
      ...(settings.statusPath === undefined ? {} : { statusPath: settings.statusPath }),
      ...(network ? { bodyBudgetBytes: bodyBudget } : {}),
    });
    if (network) bodyBudget -= storedBodyBytes(snapshot);
    const read = network && response.ok;
    return {
      snapshot,
      figures: read ? takeFigures(response.json, MAX_STORED_FIGURES) : [],
      chosen: read ? pickFigures(response.json, settings.figureFields ?? []) : [],
      // Only the readings (a few numbers) outlive the body.
      ...(read && rules.length > 0 ? { readings: readRules(rules, response.json) } : {}),
    };
  };

  let filterObserved: Observed | undefined;
  let networkObserved: Observed[];
  try {
    [filterObserved, networkObserved] = await Promise.all([
      settings.pollFilter ? observe({ kind: 'filter' }) : Promise.resolve(undefined),
      Promise.all(settings.networks.map((networkId) => observe({ kind: 'network', networkId }))),
    ]);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', stop);
  }

  // Requests the operator stopped are recorded as cut short, and are no evidence about the API.
  const cutShort = options.signal?.aborted === true;
  const markCut = (o: Observed): Observed =>
    cutShort &&
    !o.snapshot.ok &&
    o.snapshot.errorKind === 'transport' &&
    o.snapshot.error?.startsWith(CUT_SHORT) !== true
      ? { ...o, snapshot: { ...o.snapshot, error: `${CUT_SHORT} (${o.snapshot.error ?? 'aborted'})` } }
      : o;
  filterObserved = filterObserved === undefined ? undefined : markCut(filterObserved);
  networkObserved = networkObserved.map(markCut);
  const filter = filterObserved?.snapshot;
  const networks = networkObserved.map((o) => o.snapshot);
  const all = filter === undefined ? networks : [filter, ...networks];
  recordMetrics(deps.metrics, all, networkObserved);
  if (all.some((s) => s.errorKind === 'auth')) deps.keys?.invalidate();

  const expiresAt = Math.floor(startMs / 1000) + settings.retentionDays * 86_400;
  const evidence = (s: Snapshot | undefined): s is Snapshot =>
    s !== undefined && s.error?.startsWith(CUT_SHORT) !== true;
  const observation = toCycleObservation(
    filter?.at ?? startedAt,
    evidence(filter) ? filter : undefined,
    networks.filter(evidence),
  );
  const claim = { claimant: cycleId, untilMs: budget.claimUntilMs };
  const ruleObservations: RuleNetworkObservation[] = [];
  for (const { snapshot, readings } of networkObserved) {
    if (readings !== undefined && snapshot.target.kind === 'network' && evidence(snapshot)) {
      ruleObservations.push({ networkId: snapshot.target.networkId, at: snapshot.at, readings });
    }
  }
  const [storing, deciding, ruling] = await Promise.allSettled([
    deps.snapshots.putSnapshots(all, expiresAt).catch((error: unknown) => {
      throw new StoreError(`cannot store snapshots: ${describeError(error)}`, { cause: error });
    }),
    (async (): Promise<Applied> => {
      const loaded = await loading;
      if ('error' in loaded)
        throw new StoreError(`cannot read the monitor state: ${describeError(loaded.error)}`);
      // A shard that polls networks only has no say on the filter status or the incidents.
      if (!settings.pollFilter)
        return { queued: [], stale: false, loaded: loaded.value, status: loaded.value.state.status };
      return applyObservation(deps, settings, observation, loaded.value, claim);
    })(),
    applyRules(deps.ruleItems, {
      rules,
      at: observation.at,
      observations: ruleObservations,
      claim,
    }),
  ]);
  if (deciding.status === 'rejected') throw deciding.reason;
  const decided = deciding.value;
  const ruleRuns = ruling.status === 'fulfilled' ? ruling.value.runs : [];
  // Rule items are independent: one that could not be read or written holds back no other's alerts.
  const ruleFailures =
    ruling.status === 'fulfilled'
      ? ruling.value.failures
      : [{ key: 'rules', error: ruling.reason as StoreError }];
  const queued = [...decided.queued, ...ruleRuns.flatMap((run) => run.queued)];
  // When the snapshots could not be stored but the state write went through, its decision stands: the
  // outbox is sent all the same (claims not used are handed back), and the error says what was committed.
  const unstored = storing.status === 'rejected' ? (storing.reason as Error) : undefined;

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

  // Only an alert's email needs the figures per network: put together once, and only when an alert is sent.
  let figureCache: NetworkFigures[] | undefined;
  const figures = (): NetworkFigures[] =>
    (figureCache ??= networkObserved.map(({ snapshot, figures }) => ({
      networkId: snapshot.target.kind === 'network' ? snapshot.target.networkId : '',
      at: snapshot.at,
      figures: figures.slice(0, MAX_STORED_FIGURES),
      ...(snapshot.ok ? {} : { error: snapshot.error ?? 'failed' }),
    })));
  const drainOptions = {
    cycleId,
    monitorName: settings.monitorName,
    ...(settings.apiUrl === undefined ? {} : { apiUrl: settings.apiUrl }),
    budget,
    networks: figures,
  };
  const monitorDelivery = !settings.pollFilter
    ? { delivered: [], failed: [], suppressed: [], pending: 0 }
    : await drainOutbox(deps, decided.loaded, decided.queued, drainOptions);
  // The rule items' outboxes after the monitor's: a status change goes out first.
  const ruleDelivery = await drainRuleScopes(deps, ruleRuns, drainOptions, deps.ruleItems);
  const delivery = {
    delivered: [...monitorDelivery.delivered, ...ruleDelivery.delivered],
    failed: [...monitorDelivery.failed, ...ruleDelivery.failed],
    suppressed: [...monitorDelivery.suppressed, ...ruleDelivery.suppressed],
    pending: monitorDelivery.pending + ruleDelivery.pending,
  };
  // A rule item that could not be read or written, or snapshots that could not be stored: the cycle has not
  // run as a whole, but what it committed stands and was sent all the same.
  const failure =
    ruleFailures.length === 0
      ? unstored
      : new StoreError(ruleFailures.map((f) => f.error.message).join('; '), {
          cause: ruleFailures[0]!.error.cause ?? ruleFailures[0]!.error,
        });
  if (failure !== undefined) {
    const ruleItems = {
      committed: ruleRuns
        .filter((run) => run.queued.length > 0 || run.state !== run.loaded.state)
        .map((r) => r.scope.key),
      failed: ruleFailures.map((f) => f.key),
    };
    if (queued.length === 0 && delivery.delivered.length === 0 && ruleItems.failed.length === 0)
      throw failure;
    const committed: CommittedWork = {
      ...(decided.status === undefined ? {} : { status: decided.status }),
      queued,
      delivered: delivery.delivered.length,
      pending: delivery.pending,
      ...(ruleItems.failed.length === 0 ? {} : { ruleItems }),
    };
    throw new StoreError(failure.message, { cause: failure.cause ?? failure, committed });
  }

  const durationMs = deps.now() - startMs;
  deps.metrics?.cycleCompleted(durationMs);
  return {
    cycleId,
    startedAt,
    durationMs,
    ...(filter === undefined ? {} : { filter }),
    networks,
    queued,
    ...delivery,
    stale: settings.pollFilter ? decided.stale : ruleRuns.some((run) => run.stale),
    cutShort,
    ...(decided.status === undefined ? {} : { status: decided.status }),
  };
}

interface Applied {
  readonly queued: readonly AlertRecord[];
  readonly stale: boolean;
  readonly status?: string;
  /** The state as this cycle last read or wrote it (its outbox, before this cycle's alerts). */
  readonly loaded: VersionedState;
}

/**
 * Applies the observation with optimistic locking ({@link commitJudged}): when another cycle wrote first,
 * decide again on the newer state, so a duplicate or concurrent cycle never applies the same transition twice.
 */
async function applyObservation(
  deps: CycleDeps,
  settings: CycleSettings,
  observation: ReturnType<typeof toCycleObservation>,
  first: VersionedState,
  claim: CommitClaim,
): Promise<Applied> {
  const done = await commitJudged(deps.state, 'the monitor state', first, claim, (loaded) => {
    // The claim ends after the cycle's deadline, by which it decides: a later stored time is a clock's ahead.
    const decision = decide(
      loaded.version === 0 ? undefined : loaded.state,
      observation,
      settings,
      claim.untilMs,
    );
    if (decision.skewedLastAt !== undefined) {
      deps.log.warn(
        'the last applied cycle was timed by a clock ahead: its time is disregarded (README, Clocks)',
        {
          at: observation.at,
          lastObservationAt: decision.skewedLastAt,
        },
      );
    }
    if (decision.stale) return { stale: true };
    return {
      stale: false,
      state: withPolled(decision.state, settings, observation.at),
      alerts: decision.alerts,
    };
  });
  return { queued: done.queued, stale: done.stale, status: done.state.status, loaded: done.loaded };
}

/**
 * The state to write with what this cycle polled and judged by (`shieldwatch status` shows the monitor's own
 * networks and rules, not those of the terminal it runs in): fields of the item the cycle writes anyway.
 */
function withPolled(state: MonitorState, settings: CycleSettings, at: string): MonitorState {
  const polled: PolledRecord = {
    at,
    networks: settings.networks,
    rules: (settings.rules ?? []).map((rule) => rule.text),
  };
  return { ...state, polled };
}
