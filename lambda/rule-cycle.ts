/**
 * The traffic rules' part of a poll cycle (README, Traffic rules: where rule state lives): each rule item of
 * the shard is read alongside the requests, the cycle's readings are applied to it with a conditional write
 * (its alerts appended to its own outbox, already claimed), and its outbox is sent after the monitor's, with
 * the same protocol. The rules themselves are judged by the pure `evaluateRules`.
 */
import { evaluateRules } from './core/rule-eval.ts';
import { limitRuleAlerts } from './core/rule-limit.ts';
import type { Rule, RuleNetworkObservation } from './core/rule-types.ts';
import { holdsAny } from './core/silence.ts';
import type { AlertRecord } from './core/types.ts';
import { untilDeadline } from './cycle-support.ts';
import { describeError, StoreError } from './errors.ts';
import { type DrainOptions, type DrainResult, drainOutbox, type OutboxDeps } from './outbox.ts';
import type { RuleScope, RuleScopeState, RuleStateStore, VersionedState } from './ports.ts';

const COMMIT_ATTEMPTS = 8;

/** One rule item as a cycle read it, and what the cycle did to it. */
export interface RuleScopeRun {
  readonly scope: RuleScope;
  /** The item as this cycle last read or wrote it (its outbox, before this cycle's alerts). */
  readonly loaded: VersionedState<RuleScopeState>;
  /** Alerts this cycle appended, with their sequence numbers (the item's own). */
  readonly queued: readonly AlertRecord[];
  /** True when a newer cycle had already been applied to this item. */
  readonly stale: boolean;
}

/** The rule items of a shard, each store's calls ended by `deadline` like the monitor state's. */
export function ruleScopesUntil(
  stores: RuleStateStore | undefined,
  rules: readonly Rule[] | undefined,
  shard: number,
  networks: readonly string[],
  deadline: AbortSignal,
): RuleScope[] {
  if (stores === undefined || rules === undefined || rules.length === 0) return [];
  return stores.ruleScopes(shard, rules, networks).map((scope) => ({
    ...scope,
    store: untilDeadline(scope.store.withSignal?.(deadline) ?? scope.store, deadline),
  }));
}

/** Starts reading every rule item; a failure surfaces when it is awaited. */
export function loadRuleScopes(
  scopes: readonly RuleScope[],
): Promise<Array<{ value: VersionedState<RuleScopeState> } | { error: unknown }>> {
  return Promise.all(
    scopes.map((scope) =>
      scope.store.load().then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      ),
    ),
  );
}

/**
 * Applies the cycle's readings to every rule item, with optimistic locking: when another cycle wrote first,
 * read again and evaluate again on the newer state, so that a duplicate or concurrent cycle never sends a
 * rule alert twice. An item none of whose networks answered with a reading is not written (no evidence).
 * Throws {@link StoreError} when an item cannot be read or written.
 */
export async function applyRules(
  scopes: readonly RuleScope[],
  loading: ReturnType<typeof loadRuleScopes>,
  input: {
    readonly rules: readonly Rule[];
    readonly at: string;
    readonly observations: readonly RuleNetworkObservation[];
    readonly claim: { readonly claimant: string; readonly untilMs: number };
  },
): Promise<RuleScopeRun[]> {
  const loads = await loading;
  return Promise.all(
    scopes.map(async (scope, index) => {
      const read = loads[index]!;
      if ('error' in read) {
        throw new StoreError(`cannot read the rule state (${scope.key}): ${describeError(read.error)}`, {
          cause: read.error,
        });
      }
      const mine = new Set(scope.networks);
      const observations = input.observations.filter(
        (o) => mine.has(o.networkId) && Object.values(o.readings).some((r) => r.kind === 'value'),
      );
      if (observations.length === 0) return { scope, loaded: read.value, queued: [], stale: false };
      return commitScope(scope, read.value, { ...input, observations });
    }),
  );
}

async function commitScope(
  scope: RuleScope,
  first: VersionedState<RuleScopeState>,
  input: Parameters<typeof applyRules>[2],
): Promise<RuleScopeRun> {
  let loaded = first;
  for (let attempt = 1; attempt <= COMMIT_ATTEMPTS; attempt++) {
    const before = loaded.version === 0 ? undefined : loaded.state.rules;
    const result = limitRuleAlerts(
      before,
      evaluateRules({
        rules: input.rules,
        networks: scope.networks,
        state: before,
        at: input.at,
        // The claim ends after the cycle's deadline, by which it decides (README, Clocks).
        decideByMs: input.claim.untilMs,
        observations: input.observations,
      }),
      scope.maxAlerts,
    );
    if (result.stale) return { scope, loaded, queued: [], stale: true };
    const nextSeq = loaded.state.nextSeq;
    const queued: AlertRecord[] = result.alerts.map((alert, i) => ({ ...alert, seq: nextSeq + i }));
    const next: RuleScopeState = { rules: result.state, nextSeq: nextSeq + queued.length };
    let committed: boolean;
    try {
      committed = await scope.store.commit(next, loaded.version, queued, input.claim);
    } catch (error) {
      throw new StoreError(`cannot write the rule state (${scope.key}): ${describeError(error)}`, {
        cause: error,
      });
    }
    if (committed) return { scope, loaded, queued, stale: false };
    try {
      loaded = await scope.store.load();
    } catch (error) {
      throw new StoreError(`cannot read the rule state (${scope.key}): ${describeError(error)}`, {
        cause: error,
      });
    }
  }
  throw new StoreError(
    `the rule state (${scope.key}) kept changing under this cycle (${COMMIT_ATTEMPTS} attempts)`,
  );
}

/**
 * Sends each rule item's outbox after the monitor's, item by item, each in sequence order (an item's
 * alerts are ordered among themselves; items are independent). Sending stops when too little time is left.
 */
export async function drainRuleScopes(
  deps: Omit<OutboxDeps, 'state'>,
  runs: readonly RuleScopeRun[],
  options: DrainOptions,
): Promise<DrainResult> {
  const total: Omit<DrainResult, 'pending'> = { delivered: [], failed: [], suppressed: [] };
  let pending = 0;
  for (const run of runs) {
    // An item with changes a silence holds back is drained too: their silence may have ended (README, Silences).
    if (run.loaded.outbox.length === 0 && run.queued.length === 0 && !holdsAny(run.loaded.held)) continue;
    const published = deps.published?.forScope(`${run.scope.key}:`);
    const result = await drainOutbox(
      { ...deps, state: run.scope.store, ...(published === undefined ? {} : { published }) },
      run.loaded,
      run.queued,
      { ...options, spillAbove: run.scope.maxAlerts },
    );
    total.delivered.push(...result.delivered);
    total.failed.push(...result.failed);
    total.suppressed.push(...result.suppressed);
    pending += result.pending;
  }
  return { ...total, pending };
}
