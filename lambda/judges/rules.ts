/**
 * The rules judge: traffic rules (docs/rules.md), judged by the pure `evaluateRules` over the shard's rule
 * items (pk `state`, sk `rules#<shard>...`; docs/design/rule-state.md). Every rule item of the shard is found
 * with one Query alongside the requests; each network's readings are taken from its body while it is alive;
 * the readings are applied to each item today's configuration plans with the one optimistic commit (its
 * alerts appended to its own outbox, already claimed; cells carried over from items an edit left behind), and
 * every item's outbox, planned or left behind, is sent after the status judge's, with the same protocol. Items
 * are independent: one item's failure holds back no other's.
 */
import { commitJudged, type Judgement } from '../commit.ts';
import { evaluateRules } from '../core/rule-eval.ts';
import { withConditions } from '../core/rule-kinds/index.ts';
import { limitRuleAlerts } from '../core/rule-limit.ts';
import {
  type CellOwners,
  cellOwners,
  leavingCells,
  nothingToCarry,
  type RuleItemState,
  startingState,
} from '../core/rule-moves.ts';
import type { Rule, RuleNetworkObservation, RuleReading } from '../core/rule-types.ts';
import { readRules } from '../core/rules.ts';
import { holdsAny } from '../core/silence.ts';
import type { AlertRecord } from '../core/types.ts';
import { describeError, StoreError } from '../errors.ts';
import { type DrainOptions, type DrainResult, drainOutbox, type OutboxDeps, SPILL_ABOVE } from '../outbox.ts';
import type {
  FoundRuleItem,
  RuleScope,
  RuleScopeState,
  RuleStateStore,
  StateStore,
  VersionedState,
} from '../ports.ts';
import { untilDeadline } from '../until-deadline.ts';
import type { Evidence, Judge, Verdict } from './judge.ts';

const EMPTY: VersionedState<RuleScopeState> = {
  state: { rules: { cells: {} }, nextSeq: 1 },
  version: 0,
  outbox: [],
};

/** One rule item as a cycle read it, and what the cycle did to it. */
export interface RuleScopeRun {
  readonly scope: RuleScope;
  /** The item as this cycle last read or wrote it (its outbox, before this cycle's alerts). */
  readonly loaded: VersionedState<RuleScopeState>;
  /** Alerts this cycle appended, with their sequence numbers (the item's own). */
  readonly queued: readonly AlertRecord[];
  /** True when a newer cycle had already been applied to this item. */
  readonly stale: boolean;
  /** The item's state after this cycle: what it wrote, or what it read when it wrote nothing. */
  readonly state?: RuleScopeState;
  /** True for an item today's configuration no longer plans: drained, and deleted once it holds nothing. */
  readonly leftover?: boolean;
}

/** The rule items of a shard for one cycle: the planned ones, and the Query that finds every stored one. */
export interface ShardRules {
  readonly shard: number;
  readonly planned: readonly RuleScope[];
  readonly owners: CellOwners;
  /** Every rule item of the shard in the store, planned or not, read at the start of the cycle. */
  readonly finding: Promise<{ value: FoundRuleItem[] } | { error: unknown }>;
  /** The store, its calls ended by the cycle's deadline. */
  readonly store: RuleStateStore;
}

/** What {@link applyRules} did: each item's run, and the items that could not be read or written. */
export interface RuleItemsResult {
  readonly runs: readonly RuleScopeRun[];
  readonly failures: ReadonlyArray<{ readonly key: string; readonly error: StoreError }>;
}

/**
 * Plans the shard's rule items and starts the Query that finds every stored one (also without rules: an edit
 * that removed every rule can leave an alert waiting), each store call ended by `deadline`. Undefined without
 * a rule state store.
 */
export function startRuleItems(
  stores: RuleStateStore | undefined,
  rules: readonly Rule[] | undefined,
  shard: number,
  networks: readonly string[],
  deadline: AbortSignal,
): ShardRules | undefined {
  if (stores === undefined) return undefined;
  const view = stores.withSignal?.(deadline) ?? stores;
  const bounded = untilDeadline(view, deadline);
  const bound = <S>(store: StateStore<S>): StateStore<S> =>
    untilDeadline(store.withSignal?.(deadline) ?? store, deadline);
  const list = rules ?? [];
  const planned =
    list.length === 0
      ? []
      : stores.ruleScopes(shard, list, networks).map((scope) => ({ ...scope, store: bound(scope.store) }));
  const finding = bounded.findRuleItems(shard).then(
    (found) => ({ value: found.map((item) => ({ ...item, store: bound(item.store) })) }),
    (error: unknown) => ({ error }),
  );
  return { shard, planned, owners: cellOwners(list, planned), finding, store: bounded };
}

/**
 * Applies the cycle's readings to every planned rule item, with optimistic locking: when another cycle wrote
 * first, read again and evaluate again on the newer state, so that a duplicate or concurrent cycle never sends
 * a rule alert twice. An item none of whose networks answered with a reading is not written (no evidence).
 * Each item starts from the newest copy of its cells in the shard (carried from another item after an edit)
 * and keeps the cells it gives away until their new item holds them. Items found that no plan names are
 * returned as leftovers, to be drained. One item's failure is reported in `failures`; the others go on.
 */
export async function applyRules(
  shard: ShardRules | undefined,
  input: {
    readonly rules: readonly Rule[];
    readonly at: string;
    readonly observations: readonly RuleNetworkObservation[];
    readonly claim: { readonly claimant: string; readonly untilMs: number };
  },
): Promise<RuleItemsResult> {
  if (shard === undefined) return { runs: [], failures: [] };
  const found = await shard.finding;
  if ('error' in found) {
    const error = new StoreError(
      `cannot read the rule state (rules#${shard.shard}): ${describeError(found.error)}`,
      { cause: found.error },
    );
    return { runs: [], failures: shard.planned.map((scope) => ({ key: scope.key, error })) };
  }
  const items: RuleItemState[] = found.value.map((item) => ({
    key: item.key,
    state: item.loaded.version === 0 ? undefined : item.loaded.state.rules,
  }));
  const plannedKeys = new Set(shard.planned.map((scope) => scope.key));
  const settled = await Promise.allSettled(
    shard.planned.map(async (scope): Promise<RuleScopeRun> => {
      const loaded = found.value.find((item) => item.key === scope.key)?.loaded ?? EMPTY;
      const mine = new Set(scope.networks);
      const observations = input.observations.filter(
        (o) => mine.has(o.networkId) && Object.values(o.readings).some((r) => r.kind === 'value'),
      );
      if (observations.length === 0) return { scope, loaded, queued: [], stale: false, state: loaded.state };
      return commitScope(scope, loaded, { ...input, observations }, shard.owners, items);
    }),
  );
  const runs: RuleScopeRun[] = [];
  const failures: Array<{ key: string; error: StoreError }> = [];
  settled.forEach((outcome, index) => {
    const key = shard.planned[index]!.key;
    if (outcome.status === 'fulfilled') runs.push(outcome.value);
    else {
      const reason = outcome.reason as unknown;
      const error =
        reason instanceof StoreError
          ? reason
          : new StoreError(`cannot write the rule state (${key}): ${describeError(reason)}`, {
              cause: reason,
            });
      failures.push({ key, error });
    }
  });
  const spillAbove = Math.min(SPILL_ABOVE, ...shard.planned.map((scope) => scope.maxAlerts));
  for (const item of found.value) {
    if (plannedKeys.has(item.key)) continue;
    runs.push({
      scope: { key: item.key, networks: [], maxAlerts: spillAbove, store: item.store },
      loaded: item.loaded,
      queued: [],
      stale: false,
      state: item.loaded.state,
      leftover: true,
    });
  }
  return { runs, failures };
}

async function commitScope(
  scope: RuleScope,
  first: VersionedState<RuleScopeState>,
  input: Parameters<typeof applyRules>[1],
  owners: CellOwners,
  found: readonly RuleItemState[],
): Promise<RuleScopeRun> {
  const done = await commitJudged(
    scope.store,
    `the rule state (${scope.key})`,
    first,
    input.claim,
    (loaded): Judgement<RuleScopeState> => {
      const mine = loaded.version === 0 ? undefined : loaded.state.rules;
      // This item as last read, among the others as the cycle found them.
      const items = [...found.filter((item) => item.key !== scope.key), { key: scope.key, state: mine }];
      const result = limitRuleAlerts(
        input.rules,
        evaluateRules({
          rules: input.rules,
          networks: scope.networks,
          state: startingState(scope.key, scope.networks, items, owners),
          at: input.at,
          // The claim ends after the cycle's deadline, by which it decides (docs/design/cycle.md, Clocks).
          decideByMs: input.claim.untilMs,
          observations: input.observations,
        }),
        scope.maxAlerts,
      );
      if (result.stale) return { stale: true };
      const nextSeq = loaded.state.nextSeq;
      // Each alert carries its rule's parsed condition: its texts never parse the rule text (rule-kinds/).
      const queued: AlertRecord[] = withConditions(input.rules, result.alerts).map((alert, i) => ({
        ...alert,
        seq: nextSeq + i,
      }));
      const leaving = leavingCells(scope.key, mine, owners, items);
      return {
        stale: false,
        state: {
          rules: { ...result.state, ...(leaving === undefined ? {} : { leaving }) },
          nextSeq: nextSeq + queued.length,
        },
        alerts: queued,
      };
    },
  );
  return { scope, ...done };
}

/**
 * Sends each rule item's outbox after the monitor's, item by item, each in sequence order (an item's
 * alerts are ordered among themselves; items are independent), the items an edit left behind included.
 * Sending stops when too little time is left. A left-behind item whose outbox is then empty and whose cells
 * their new items hold is deleted (a conditional delete: only while nothing changed it).
 */
export async function drainRuleScopes(
  deps: Omit<OutboxDeps, 'state'>,
  runs: readonly RuleScopeRun[],
  options: DrainOptions,
  shard?: ShardRules,
): Promise<DrainResult> {
  const total: Omit<DrainResult, 'pending'> = { delivered: [], failed: [], suppressed: [] };
  let pending = 0;
  // Each item as it stands after this cycle's writes: a left-behind item is deleted only once its cells' new
  // items hold them.
  const after: RuleItemState[] = runs.map((run) => ({ key: run.scope.key, state: run.state?.rules }));
  for (const run of runs) {
    let left = run.loaded.outbox.length + run.queued.length;
    // An item with changes a silence holds back is drained too: their silence may have ended (docs/silences.md).
    if (left > 0 || holdsAny(run.loaded.held)) {
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
      left = result.pending;
    }
    if (
      run.leftover === true &&
      shard !== undefined &&
      left === 0 &&
      !holdsAny(run.loaded.held) &&
      nothingToCarry(run.state?.rules, shard.owners, after) &&
      deps.now() < options.budget.deadlineMs - options.budget.publishFloorMs
    ) {
      await shard.store
        .discardRuleItem(run.scope.key, run.loaded.version, run.loaded.heldRev ?? 0)
        .catch((error: unknown) => {
          // It stays, and a later cycle tries again: nothing is lost by keeping it.
          deps.log.warn('cannot delete a rule item no longer planned', {
            key: run.scope.key,
            error: describeError(error),
          });
        });
    }
  }
  return { ...total, pending };
}

/** What the rules judge judges by. */
export interface RulesSettings {
  readonly networks: readonly string[];
  readonly rules?: readonly Rule[];
  /** The shard whose rule items this cycle owns. @default 0 */
  readonly ruleShard?: number;
}

/** The rules judge's verdict, with what the incidents judge groups by (docs/design/incidents.md). */
export interface RulesVerdict extends Verdict {
  /** Each rule item as this cycle left it: which cells are open. */
  readonly runs: readonly RuleScopeRun[];
  /** The cycle's readings per network. */
  readonly observations: readonly RuleNetworkObservation[];
}

/** The rules judge, whose verdict says what it judged. */
export interface RulesJudge extends Judge {
  judge(evidence: Evidence): Promise<RulesVerdict>;
}

/**
 * The rules judge of one cycle: plans the shard's rule items and starts the Query that finds them now, each
 * store call ended by `deadline`. Without a rule state store no rule is judged.
 */
export function rulesJudge(
  deps: Omit<OutboxDeps, 'state'> & { readonly ruleState?: RuleStateStore },
  settings: RulesSettings,
  deadline: AbortSignal,
): RulesJudge {
  const shard = startRuleItems(
    deps.ruleState,
    settings.rules,
    settings.ruleShard ?? 0,
    settings.networks,
    deadline,
  );
  // Readings are taken only when some item judges a network of this cycle; only they outlive the body.
  const rules = (shard?.planned.length ?? 0) === 0 ? [] : (settings.rules ?? []);
  const readings: Array<Record<string, RuleReading> | undefined> = [];
  return {
    ...(rules.length === 0
      ? {}
      : {
          read: (index: number, body: unknown) => {
            readings[index] = readRules(rules, body);
          },
        }),
    async judge(evidence: Evidence): Promise<RulesVerdict> {
      const observations: RuleNetworkObservation[] = [];
      evidence.networks.forEach((snapshot, i) => {
        const read = readings[i];
        if (read !== undefined && snapshot?.target.kind === 'network') {
          observations.push({ networkId: snapshot.target.networkId, at: snapshot.at, readings: read });
        }
      });
      let result: RuleItemsResult;
      try {
        result = await applyRules(shard, { rules, at: evidence.at, observations, claim: evidence.claim });
      } catch (error) {
        result = { runs: [], failures: [{ key: 'rules', error: error as StoreError }] };
      }
      const { runs, failures } = result;
      return {
        queued: runs.flatMap((run) => run.queued),
        stale: runs.some((run) => run.stale),
        written: runs
          .filter((run) => run.queued.length > 0 || run.state !== run.loaded.state)
          .map((run) => run.scope.key),
        failures,
        send: (options) => drainRuleScopes(deps, runs, options, shard),
        runs,
        observations,
      };
    },
  };
}
