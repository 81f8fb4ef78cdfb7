/**
 * The cycle's observing step: request the filter status and every network concurrently (the client bounds the
 * concurrency), each until the request deadline of the cycle's time budget, and reduce each answer to its
 * snapshot, the figures the cycle needs later, and what each judge reads from the body, before the body is
 * dropped (memory per cycle is bounded by that). Requests the operator stops are cut short: their snapshots
 * fail with the kind `cut_short`, no evidence about the API either way.
 */
import { setMaxListeners } from 'node:events';
import { extractFigures, pickFigures } from './core/detect/figures.ts';
import { storedBodyBytes, toSnapshot } from './core/detect/observation.ts';
import type { CycleBudget } from './core/time-budget.ts';
import type { NetworkFigures, Snapshot, Target } from './core/types.ts';
import type { CycleMetrics, ProtectionApi } from './ports.ts';

/** What a snapshot cut short says, before what the request said (docs/design: the cycle). */
const CUT_SHORT_TEXT = 'cut short: the monitor was stopped';
/** Numeric figures a network's observation keeps, for the email and the metrics. */
export const MAX_STORED_FIGURES = 20;
/** A longer figure path is no metric dimension (at most 1024 characters); it is kept only this long. */
const MAX_FIGURE_PATH = 1025;

/** One observation once its answer is dropped: the snapshot to store and the figures the cycle needs later. */
export interface Observed {
  readonly snapshot: Snapshot;
  /** A network's numeric figures, as many as the email and the metrics use (none for the filter). */
  readonly figures: ReadonlyArray<readonly [string, number]>;
  /** A network's chosen figures (`figureFields`), for the metrics. */
  readonly chosen: ReadonlyArray<readonly [string, number]>;
}

/** What the observing step needs of the cycle. */
export interface ObserveOptions {
  readonly api: ProtectionApi;
  readonly metrics?: CycleMetrics;
  readonly now: () => number;
  readonly cycleId: string;
  readonly budget: CycleBudget;
  readonly networks: readonly string[];
  readonly pollFilter: boolean;
  readonly statusPath?: string;
  readonly figureFields: readonly string[];
  /** Network body bytes kept for storage, all networks together; past it, bodies are stored as a marker. */
  readonly bodyBudgetBytes: number;
  /** The operator's stop (the CLI's second Ctrl-C). */
  readonly signal?: AbortSignal;
  /** Given each network's answered body (by its position in `networks`) while it is alive: the judges read it. */
  readonly read: (index: number, body: unknown) => void;
  /**
   * Given each snapshot as soon as it is final, to be stored while the other requests go on. A snapshot that a
   * stop could still cut short comes at the end, with `cutShort` settled.
   */
  readonly settled: (snapshot: Snapshot) => void;
}

/** The cycle's observations, in the order of its targets. */
export interface Observations {
  readonly filter?: Observed;
  readonly networks: readonly Observed[];
  /** True when the operator stopped the requests. */
  readonly cutShort: boolean;
}

/** Requests every target of the cycle; never throws for an API failure (it is recorded in the snapshot). */
export async function observe(options: ObserveOptions): Promise<Observations> {
  const { budget, signal } = options;
  const abort = new AbortController();
  // Every request of the cycle listens to this one signal; the default cap of 10 listeners is for leaks.
  setMaxListeners(0, abort.signal);
  const timer = setTimeout(
    () => abort.abort(new Error('cycle deadline reached')),
    Math.max(0, budget.requestDeadlineMs - budget.startMs),
  );
  const ctx = { signal: abort.signal, deadlineMs: budget.requestDeadlineMs };
  // A bare abort: the request says `aborted after N ms`, and its snapshot is cut short below.
  const stop = () => abort.abort();
  if (signal?.aborted) stop();
  signal?.addEventListener('abort', stop, { once: true });

  // A failed transport may yet be cut short by a stop: it is settled at the end. Anything else is final now.
  const final = (snapshot: Snapshot) =>
    signal === undefined || snapshot.ok || snapshot.errorKind !== 'transport';
  let bodyBudget = options.bodyBudgetBytes;
  const request = async (target: Target, index: number): Promise<Observed> => {
    const at = new Date(options.now()).toISOString();
    const response =
      target.kind === 'filter'
        ? await options.api.getFilterStatus(ctx)
        : await options.api.getNetworkRealtime(target.networkId, ctx);
    const network = target.kind === 'network';
    const snapshot = toSnapshot(response, {
      target,
      at,
      cycleId: options.cycleId,
      ...(options.statusPath === undefined ? {} : { statusPath: options.statusPath }),
      ...(network ? { bodyBudgetBytes: bodyBudget } : {}),
    });
    if (network) bodyBudget -= storedBodyBytes(snapshot);
    const read = network && response.ok;
    if (read) options.read(index, response.json);
    if (final(snapshot)) options.settled(snapshot);
    return {
      snapshot,
      figures: read ? takeFigures(response.json, MAX_STORED_FIGURES) : [],
      chosen: read ? pickFigures(response.json, options.figureFields) : [],
    };
  };

  let filter: Observed | undefined;
  let networks: Observed[];
  try {
    [filter, networks] = await Promise.all([
      options.pollFilter ? request({ kind: 'filter' }, -1) : Promise.resolve(undefined),
      Promise.all(options.networks.map((networkId, i) => request({ kind: 'network', networkId }, i))),
    ]);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', stop);
  }
  recordMetrics(options.metrics, filter, networks);

  // Requests the operator stopped are recorded as cut short, and are no evidence about the API.
  const cutShort = signal?.aborted === true;
  const settle = (o: Observed): Observed => {
    if (final(o.snapshot)) return o;
    const snapshot: Snapshot = cutShort
      ? {
          ...o.snapshot,
          errorKind: 'cut_short',
          error: `${CUT_SHORT_TEXT} (${o.snapshot.error ?? 'aborted'})`,
        }
      : o.snapshot;
    options.settled(snapshot);
    return { ...o, snapshot };
  };
  return {
    ...(filter === undefined ? {} : { filter: settle(filter) }),
    networks: networks.map(settle),
    cutShort,
  };
}

/** Each network's figures for an alert's email: put together once, and only when an alert is sent. */
export function emailFigures(observed: readonly Observed[]): () => NetworkFigures[] {
  let figures: NetworkFigures[] | undefined;
  return () =>
    (figures ??= observed.map(({ snapshot, figures }) => ({
      networkId: snapshot.target.kind === 'network' ? snapshot.target.networkId : '',
      at: snapshot.at,
      figures: figures.slice(0, MAX_STORED_FIGURES),
      ...(snapshot.ok ? {} : { error: snapshot.error ?? 'failed' }),
    })));
}

/** The metrics of the answers, as the API client reported them. */
function recordMetrics(
  metrics: CycleMetrics | undefined,
  filter: Observed | undefined,
  networks: readonly Observed[],
): void {
  if (metrics === undefined) return;
  for (const { snapshot } of filter === undefined ? networks : [filter, ...networks]) {
    if (snapshot.latencyMs !== undefined) metrics.latency(snapshot.target, snapshot.latencyMs);
    if (snapshot.errorKind !== undefined && snapshot.errorKind !== 'cut_short')
      metrics.apiFailure(snapshot.errorKind);
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
export function takeFigures(body: unknown, count: number): Array<[string, number]> {
  return extractFigures(body, count).map(([path, value]) => [
    path.length > MAX_FIGURE_PATH
      ? Buffer.from(path.slice(0, MAX_FIGURE_PATH), 'utf16le').toString('utf16le')
      : path,
    value,
  ]);
}
