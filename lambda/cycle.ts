/**
 * One poll cycle (docs/design/cycle.md), the same in the Lambda and the CLI: resolve the key; observe every
 * target once, storing snapshots as their batches fill; hand the evidence to the judges (status, rules), each
 * deciding over its own state and committing it; send their outboxes in order, each alert once.
 */
import { setMaxListeners } from 'node:events';
import { cycleBudget } from './core/time-budget.ts';
import type { Snapshot } from './core/types.ts';
import { cycleFailure, noteQueued, sendInOrder } from './cycle-outcome.ts';
import { silencesOnce } from './cycle-silences.ts';
import type { CycleDeps, CycleOptions, CycleResult, CycleSettings } from './cycle-types.ts';
import { ApiKeyUnavailableError } from './errors.ts';
import { healthJudge } from './judges/health.ts';
import { rulesAndIncidentsJudge } from './judges/incidents.ts';
import type { Evidence, Judge } from './judges/judge.ts';
import { statusJudge } from './judges/status.ts';
import { maintenanceJudge } from './maintenance-judge.ts';
import { emailFigures, observe } from './observe.ts';
import { SnapshotBatches } from './snapshot-batches.ts';
import { boundStore } from './until-deadline.ts';

export type { CycleDeps, CycleOptions, CycleResult, CycleSettings } from './cycle-types.ts';
export { ApiKeyUnavailableError, StoreError } from './errors.ts';
export { CLAIM_GRACE_MS, type DeliveryOutcome, PublishedAlerts, SPILL_ABOVE } from './outbox.ts';
export type { CycleLog, CycleMetrics } from './ports.ts';

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
      throw new ApiKeyUnavailableError(`cannot resolve the API key: ${(error as Error).message}`, {
        cause: error,
      });
    }

    // Step 2: the judges, each reading its state alongside the requests.
    const judges: Judge[] = [
      // First, so that a window's notice goes out before what it announces at its end.
      ...optional(maintenanceJudge(stores, settings, deadline)),
      statusJudge(stores, settings),
      rulesAndIncidentsJudge(stores, settings, deadline),
    ];
    const health = healthJudge(stores, settings, deadline);
    if (health !== undefined) judges.push(health);

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
    noteQueued(deps, cycleId, queued);

    // Step 5: send the outboxes, judge after judge (a status change goes out first).
    const delivery = await sendInOrder(verdicts, {
      cycleId,
      monitorName: settings.monitorName,
      ...(settings.apiUrl === undefined ? {} : { apiUrl: settings.apiUrl }),
      budget,
      networks: emailFigures(observed.networks),
    });
    const status = verdicts.find((v) => v.status !== undefined)?.status;
    const failure = cycleFailure(verdicts, storing, {
      ...(status === undefined ? {} : { status }),
      queued,
      delivery,
    });
    if (failure !== undefined) throw failure;

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

const optional = (judge: Judge | undefined): Judge[] => (judge === undefined ? [] : [judge]);
