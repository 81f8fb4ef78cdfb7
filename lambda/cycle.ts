import { setMaxListeners } from 'node:events';
import { renderAlert } from './core/alert-text.ts';
import { type DecideSettings, decide, INITIAL_STATE } from './core/decide.ts';
import { extractFigures, pickFigures } from './core/figures.ts';
import { storedBodyBytes, toCycleObservation, toSnapshot } from './core/observation.ts';
import type { AlertRecord, FailureKind, NetworkFigures, Snapshot, Target } from './core/types.ts';
import type {
  AlertPublisher,
  ApiKeyProvider,
  OutboxEntry,
  ProtectionApi,
  SnapshotStore,
  StateStore,
  VersionedState,
} from './ports.ts';

/** Structured log lines; Powertools Logger fits as it is. */
export interface CycleLog {
  info(message: string, ...extra: Record<string, unknown>[]): void;
  warn(message: string, ...extra: Record<string, unknown>[]): void;
  error(message: string, ...extra: Record<string, unknown>[]): void;
}

/** Metrics of a cycle; the Lambda sends them as CloudWatch EMF, the CLI ignores them. */
export interface CycleMetrics {
  cycleCompleted(durationMs: number): void;
  apiFailure(kind: FailureKind): void;
  latency(target: Target, ms: number): void;
  figures(networkId: string, figures: ReadonlyArray<readonly [string, number]>): void;
  statusChanged(): void;
  alertPublished(ok: boolean): void;
}

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
}

/** A published or failed alert of this cycle. */
export interface DeliveryOutcome {
  readonly seq: number;
  readonly event: AlertRecord['event'];
  readonly messageId?: string;
  readonly error?: string;
}

/** What one cycle did. */
export interface CycleResult {
  readonly cycleId: string;
  readonly startedAt: string;
  readonly durationMs: number;
  readonly filter?: Snapshot;
  readonly networks: readonly Snapshot[];
  /** Alerts this cycle added to the outbox. */
  readonly queued: readonly AlertRecord[];
  readonly delivered: readonly DeliveryOutcome[];
  readonly failed: readonly DeliveryOutcome[];
  /** Alerts still waiting in the outbox after this cycle. */
  readonly pending: number;
  /** True when a newer cycle had already been applied: this one changed no state. */
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

const CUT_SHORT = 'cut short: the monitor was stopped';

/** Thrown when the store cannot be written: the cycle has not run. */
export class StoreError extends Error {
  override readonly name = 'StoreError';
}

/** Thrown when the API key cannot be resolved (the secret is missing, empty or unreadable). */
export class KeyError extends Error {
  override readonly name = 'KeyError';
}

/**
 * A cycle holds the alerts it sends until its deadline plus this margin; every publish ends by the
 * deadline, so the next scheduled cycle always finds the claims of a cycle that died expired.
 */
export const CLAIM_GRACE_MS = 5000;
const COMMIT_ATTEMPTS = 8;
/** Waiting alerts kept in the state item before the oldest move to items of their own. */
export const SPILL_ABOVE = 64;
/** Newest waiting alerts that stay in the state item when the others move. */
const SPILL_KEEP = 16;
const EMPTY_STATE: VersionedState = { state: INITIAL_STATE, version: 0, outbox: [] };
const MAX_STORED_FIGURES = 20;
/**
 * Default of {@link CycleSettings.bodyBudgetBytes}: with each parsed body dropped as soon as its snapshot
 * and figures are taken, the network bodies kept for the store are most of what a cycle holds.
 */
export const CYCLE_BODY_BUDGET_BYTES = 8 * 1024 * 1024;
/** A longer figure path is no metric dimension (at most 1024 characters); it is kept only this long. */
const MAX_FIGURE_PATH = 1025;

/** Time kept for the store and SNS after the API requests, from the cycle's budget. */
function storeReserveMs(budgetMs: number): number {
  return Math.min(5000, Math.max(300, Math.floor(budgetMs * 0.25)));
}

/** One observation once its answer is dropped: the snapshot to store and the figures the cycle needs later. */
interface Observed {
  readonly snapshot: Snapshot;
  /** A network's numeric figures, as many as the email and the metrics use (none for the filter). */
  readonly figures: ReadonlyArray<readonly [string, number]>;
  /** A network's chosen figures (`figureFields`), for the metrics. */
  readonly chosen: ReadonlyArray<readonly [string, number]>;
}

/**
 * One poll cycle: request the filter status and every network concurrently (the client bounds the
 * concurrency), store one snapshot per observation, apply the observation to the state with a conditional
 * write, and send what waits in the outbox, in order, each alert once.
 *
 * Throws {@link StoreError} when the store cannot be written or read: the cycle has then not run.
 */
export async function runCycle(
  deps: CycleDeps,
  settings: CycleSettings,
  deadlineMs: number,
  options: CycleOptions = {},
): Promise<CycleResult> {
  deps = {
    ...deps,
    state: untilDeadline(deps.state, deadlineMs, deps.now),
    snapshots: untilDeadline(deps.snapshots, deadlineMs, deps.now),
  };
  const cycleId = deps.newId();
  const startMs = deps.now();
  const startedAt = new Date(startMs).toISOString();
  const requestDeadline = deadlineMs - storeReserveMs(deadlineMs - startMs);
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
  recordMetrics(deps, all, networkObserved);
  if (all.some((s) => s.errorKind === 'auth')) deps.keys?.invalidate();

  const expiresAt = Math.floor(startMs / 1000) + settings.retentionDays * 86_400;
  const evidence = (s: Snapshot | undefined): s is Snapshot =>
    s !== undefined && s.error?.startsWith(CUT_SHORT) !== true;
  const observation = toCycleObservation(
    filter?.at ?? startedAt,
    evidence(filter) ? filter : undefined,
    networks.filter(evidence),
  );
  const claim = { claimant: cycleId, untilMs: deadlineMs + CLAIM_GRACE_MS };
  const [, decided] = await Promise.all([
    deps.snapshots.putSnapshots(all, expiresAt).catch((error: unknown) => {
      throw new StoreError(`cannot store snapshots: ${describe(error)}`, { cause: error });
    }),
    (async () => {
      const loaded = await loading;
      if ('error' in loaded) throw new StoreError(`cannot read the monitor state: ${describe(loaded.error)}`);
      // A shard that polls networks only has no say on the filter status or the incidents.
      if (!settings.pollFilter)
        return { queued: [], stale: false, loaded: loaded.value, status: loaded.value.state.status };
      return applyObservation(deps, settings, observation, loaded.value, claim);
    })(),
  ]);

  for (const alert of decided.queued) {
    if (alert.event === 'filter.status_changed') deps.metrics?.statusChanged();
    deps.log.info('alert queued', {
      cycleId,
      seq: alert.seq,
      event: alert.event,
      from: alert.from,
      to: alert.to,
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
  const delivery = !settings.pollFilter
    ? { delivered: [], failed: [], pending: 0 }
    : await drainOutbox(deps, settings, cycleId, decided.loaded, decided.queued, figures, deadlineMs);

  const durationMs = deps.now() - startMs;
  deps.metrics?.cycleCompleted(durationMs);
  return {
    cycleId,
    startedAt,
    durationMs,
    ...(filter === undefined ? {} : { filter }),
    networks,
    queued: decided.queued,
    delivered: delivery.delivered,
    failed: delivery.failed,
    pending: delivery.pending,
    stale: decided.stale,
    cutShort,
    ...(decided.status === undefined ? {} : { status: decided.status }),
  };
}

/**
 * The same store, but every call fails with a {@link StoreError} once the cycle's deadline has passed
 * without an answer: a store that does not answer must not hold the cycle past its deadline.
 */
function untilDeadline<T extends object>(store: T, deadlineMs: number, now: () => number): T {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        const work = Promise.resolve(value.apply(target, args));
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<never>((_, reject) => {
          timer = setTimeout(
            () =>
              reject(
                new StoreError(`the store did not answer (${String(property)}) before the cycle's deadline`),
              ),
            Math.max(0, deadlineMs - now()),
          );
        });
        // The loser of the race must not surface as an unhandled rejection.
        work.catch(() => undefined);
        return Promise.race([work, late]).finally(() => clearTimeout(timer));
      };
    },
  });
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

function recordMetrics(deps: CycleDeps, all: readonly Snapshot[], networks: readonly Observed[]) {
  const metrics = deps.metrics;
  if (metrics === undefined) return;
  for (const snapshot of all) {
    if (snapshot.latencyMs !== undefined) metrics.latency(snapshot.target, snapshot.latencyMs);
    if (snapshot.errorKind !== undefined) metrics.apiFailure(snapshot.errorKind);
  }
  for (const { snapshot, chosen } of networks) {
    if (snapshot.ok && snapshot.target.kind === 'network' && chosen.length > 0) {
      metrics.figures(snapshot.target.networkId, chosen);
    }
  }
}

/**
 * The first `count` figures of a body (body order, so the first N of them are what a cap of N finds). A path
 * longer than a metric dimension may be is cut to {@link MAX_FIGURE_PATH} characters as a fresh copy: the
 * full path (or a slice of it, which V8 keeps as a view) could hold a hostile key of nearly the whole body.
 */
function takeFigures(body: unknown, count: number): Array<[string, number]> {
  return extractFigures(body, count).map(([path, value]) => [
    path.length > MAX_FIGURE_PATH
      ? Buffer.from(path.slice(0, MAX_FIGURE_PATH), 'utf16le').toString('utf16le')
      : path,
    value,
  ]);
}

interface Applied {
  readonly queued: readonly AlertRecord[];
  readonly stale: boolean;
  readonly status?: string;
  /** The state as this cycle last read or wrote it (its outbox, before this cycle's alerts). */
  readonly loaded: VersionedState;
}

/**
 * Applies the observation with optimistic locking: when another cycle wrote first, read again and decide
 * again on the newer state, so a duplicate or concurrent cycle never applies the same transition twice.
 */
async function applyObservation(
  deps: CycleDeps,
  settings: CycleSettings,
  observation: ReturnType<typeof toCycleObservation>,
  first: VersionedState,
  claim: { readonly claimant: string; readonly untilMs: number },
): Promise<Applied> {
  let loaded = first;
  for (let attempt = 1; attempt <= COMMIT_ATTEMPTS; attempt++) {
    const decision = decide(loaded.version === 0 ? undefined : loaded.state, observation, settings);
    if (decision.stale) return { queued: [], stale: true, status: loaded.state.status, loaded } as Applied;
    let committed: boolean;
    try {
      committed = await deps.state.commit(decision.state, loaded.version, decision.alerts, claim);
    } catch (error) {
      throw new StoreError(`cannot write the monitor state: ${describe(error)}`, { cause: error });
    }
    if (committed) {
      return { queued: decision.alerts, stale: false, status: decision.state.status, loaded } as Applied;
    }
    try {
      loaded = await deps.state.load();
    } catch (error) {
      throw new StoreError(`cannot read the monitor state: ${describe(error)}`, { cause: error });
    }
  }
  throw new StoreError(`the monitor state kept changing under this cycle (${COMMIT_ATTEMPTS} attempts)`);
}

/**
 * Sends the outbox in sequence order. Each alert is claimed with a conditional write first, so concurrent
 * cycles never both send it; it is recorded as an event before publishing, so history never misses one;
 * and it leaves the outbox only after SNS accepted it, so a failed publish is retried by a later cycle.
 * Sending stops at the first alert that cannot be sent now, to keep the order.
 */
async function drainOutbox(
  deps: CycleDeps,
  settings: CycleSettings,
  cycleId: string,
  loaded: VersionedState,
  queued: readonly AlertRecord[],
  networks: () => readonly NetworkFigures[],
  deadlineMs: number,
): Promise<{ delivered: DeliveryOutcome[]; failed: DeliveryOutcome[]; pending: number }> {
  const delivered: DeliveryOutcome[] = [];
  const failed: DeliveryOutcome[] = [];
  let entries: OutboxEntry[] = mergeOutbox(loaded.outbox, queued);
  // Alerts this cycle committed are claimed by that same write.
  const own = new Set(queued.map((alert) => alert.seq));
  entries = await spillIfLarge(deps, entries, own);
  let reloaded = false;
  for (let i = 0; i < entries.length; ) {
    const entry = entries[i]!;
    const now = deps.now();
    if (now >= deadlineMs) break;
    let claimed = own.has(entry.seq);
    try {
      if (!claimed) claimed = await deps.state.claim(entry, cycleId, now, deadlineMs + CLAIM_GRACE_MS);
    } catch (error) {
      deps.log.error('cannot claim alert', { cycleId, seq: entry.seq, error: describe(error) });
      break;
    }
    if (!claimed) {
      // Sent or held by another cycle since this cycle read the outbox: read it once more and go on.
      if (reloaded) break;
      reloaded = true;
      try {
        entries = mergeOutbox((await deps.state.load()).outbox, []);
      } catch {
        break;
      }
      i = 0;
      if (entries[0]?.claimUntil !== undefined && entries[0].claimUntil > deps.now()) break;
      continue;
    }
    try {
      await deps.state.recordEvent(entry);
      const rendered = renderAlert(entry, {
        networks: networks(),
        monitorName: settings.monitorName,
        ...(settings.apiUrl === undefined ? {} : { apiUrl: settings.apiUrl }),
      });
      // Bounded by the cycle's deadline: an SNS that does not answer must not hold the cycle (or the claim).
      const messageId = await deps.publisher.publish(
        rendered,
        AbortSignal.timeout(Math.max(1, deadlineMs - deps.now())),
      );
      delivered.push({ seq: entry.seq, event: entry.event, messageId });
      deps.metrics?.alertPublished(true);
      deps.log.info('alert published', {
        cycleId,
        seq: entry.seq,
        event: entry.event,
        messageId,
        target: deps.publisher.target,
      });
    } catch (error) {
      const message = describe(error);
      failed.push({ seq: entry.seq, event: entry.event, error: message });
      deps.metrics?.alertPublished(false);
      deps.log.error('alert not published; it stays in the outbox', {
        cycleId,
        seq: entry.seq,
        event: entry.event,
        error: message,
      });
      await deps.state.release(entry, cycleId, message).catch(() => undefined);
      break;
    }
    try {
      await deps.state.complete(entry, cycleId);
    } catch (error) {
      deps.log.error('alert published but not removed from the outbox', {
        cycleId,
        seq: entry.seq,
        error: describe(error),
      });
      break;
    }
    i++;
  }
  const done = new Set(delivered.map((d) => d.seq));
  // Alerts this cycle committed but did not get to (an earlier one could not be sent) are handed back at
  // once, so the next cycle need not wait for their claim to expire.
  const attempted = new Set([...done, ...failed.map((f) => f.seq)]);
  for (const seq of own) {
    if (!attempted.has(seq)) await deps.state.release({ seq }, cycleId).catch(() => undefined);
  }
  return { delivered, failed, pending: entries.filter((e) => !done.has(e.seq)).length };
}

/**
 * During a long SNS outage the outbox grows by every transition; past {@link SPILL_ABOVE} alerts in the state
 * item, the oldest unclaimed ones move to items of their own, so the state item (and every cycle's state
 * write) stays far from DynamoDB's 400 KB item limit. Their order and delivery are unchanged.
 */
async function spillIfLarge(
  deps: CycleDeps,
  entries: OutboxEntry[],
  own: ReadonlySet<number>,
): Promise<OutboxEntry[]> {
  const inState = entries.filter((entry) => entry.spilled !== true);
  if (inState.length <= SPILL_ABOVE) return entries;
  const now = deps.now();
  const movable = inState
    .slice(0, inState.length - SPILL_KEEP)
    .filter((e) => !own.has(e.seq) && (e.claimUntil === undefined || e.claimUntil < now));
  let moved = false;
  try {
    moved = movable.length > 0 && (await deps.state.spill(movable, now));
  } catch (error) {
    deps.log.warn('cannot move waiting alerts out of the state item', { error: describe(error) });
  }
  if (!moved) return entries;
  deps.log.warn('moved waiting alerts out of the state item', { alerts: movable.length });
  const gone = new Set(movable.map((entry) => entry.seq));
  return entries.map((entry) =>
    gone.has(entry.seq) ? { ...entry, spilled: true, claimedBy: undefined, claimUntil: undefined } : entry,
  );
}

function mergeOutbox(outbox: readonly OutboxEntry[], queued: readonly AlertRecord[]): OutboxEntry[] {
  const bySeq = new Map<number, OutboxEntry>();
  for (const entry of [...outbox, ...queued]) if (!bySeq.has(entry.seq)) bySeq.set(entry.seq, entry);
  return [...bySeq.values()].sort((a, b) => a.seq - b.seq);
}
