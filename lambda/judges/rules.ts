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
import {
  followRuleIncidents,
  isRuleIncidentAlert,
  type RuleIncidentSettings,
  ruleIncidentOf,
} from '../core/incidents/rule-incidents.ts';
import { evaluateRules } from '../core/rules/rule-eval.ts';
import { withConditions } from '../core/rules/rule-kinds/index.ts';
import { limitRuleAlerts } from '../core/rules/rule-limit.ts';
import {
  type CellOwners,
  cellOwners,
  type Holding,
  handOver,
  holdingOf,
  nothingToCarry,
  type RuleItemState,
  settledState,
  startingState,
} from '../core/rules/rule-moves.ts';
import type { Rule, RuleCell, RuleNetworkObservation, RuleReading } from '../core/rules/rule-types.ts';
import { readRules } from '../core/rules/rules.ts';
import { holdsAny } from '../core/silences/silence.ts';
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
  /** The store of any rule item by its key (one a handover creates), its calls ended by the deadline. */
  readonly itemStore?: (key: string) => StateStore<RuleScopeState>;
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
  const itemStore =
    stores.ruleItem === undefined
      ? undefined
      : (key: string) => bound((stores.withSignal?.(deadline) ?? stores).ruleItem!(key));
  return {
    shard,
    planned,
    owners: cellOwners(list, planned),
    finding,
    store: bounded,
    ...(itemStore === undefined ? {} : { itemStore }),
  };
}

/**
 * Applies the cycle's readings to every planned rule item, with optimistic locking: when another cycle wrote
 * first, read again and evaluate again on the newer state, so that a duplicate or concurrent cycle never sends
 * a rule alert twice. An item none of whose networks answered with a reading is not written (no evidence).
 * First, a network a planned item judges but another item holds (after an edit, or while a cycle of another
 * configuration runs) is asked for: a conditional write on its holder hands it over (rule-moves.ts), unless
 * the holder still owes an alert of it; the planned item then takes it in its own write. Items found that no
 * plan names are returned as leftovers, to be drained. One item's failure is reported in `failures`; the
 * others go on.
 */
export async function applyRules(
  shard: ShardRules | undefined,
  input: {
    readonly rules: readonly Rule[];
    readonly at: string;
    readonly observations: readonly RuleNetworkObservation[];
    readonly claim: { readonly claimant: string; readonly untilMs: number };
    /**
     * The timers of the incidents the cells have open (`groupBy=none`: each network's incident is its own):
     * reminders and escalations are queued with the transitions. Undefined: not followed here (`groupBy=rule`:
     * {@link followOpenCells}, once the incidents judge has said which cells are members).
     */
    readonly follow?: RuleIncidentSettings;
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
  // Each item as this cycle last read or wrote it, and its store.
  const latest = new Map(found.value.map((item) => [item.key, item.loaded]));
  const stores = new Map<string, StateStore<RuleScopeState>>(shard.planned.map((s) => [s.key, s.store]));
  for (const item of found.value) stores.set(item.key, item.store);
  const view = (): RuleItemState[] =>
    [...latest].map(([key, loaded]) => ({
      key,
      state: loaded.version === 0 ? undefined : loaded.state.rules,
    }));
  const failures: Array<{ key: string; error: StoreError }> = [];
  const failed = (key: string, reason: unknown, doing: string) =>
    failures.push({
      key,
      error:
        reason instanceof StoreError
          ? reason
          : new StoreError(`cannot ${doing} the rule state (${key}): ${describeError(reason)}`, {
              cause: reason,
            }),
    });
  await handOvers(shard, input, latest, stores, view(), failed);
  const items = view();
  const plannedKeys = new Set(shard.planned.map((scope) => scope.key));
  const settled = await Promise.allSettled(
    shard.planned.map(async (scope): Promise<RuleScopeRun> => {
      const loaded = latest.get(scope.key) ?? EMPTY;
      const mine = new Set(scope.networks);
      const observations = input.observations.filter(
        (o) => mine.has(o.networkId) && Object.values(o.readings).some((r) => r.kind === 'value'),
      );
      if (observations.length === 0) return { scope, loaded, queued: [], stale: false, state: loaded.state };
      return commitScope(scope, loaded, { ...input, observations }, shard.owners, items);
    }),
  );
  const runs: RuleScopeRun[] = [];
  settled.forEach((outcome, index) => {
    const key = shard.planned[index]!.key;
    if (outcome.status === 'fulfilled') runs.push(outcome.value);
    else failed(key, outcome.reason, 'write');
  });
  const spillAbove = Math.min(SPILL_ABOVE, ...shard.planned.map((scope) => scope.maxAlerts));
  for (const [key, loaded] of latest) {
    const store = stores.get(key);
    if (plannedKeys.has(key) || store === undefined || loaded.version === 0) continue;
    runs.push({
      scope: { key, networks: [], maxAlerts: spillAbove, store },
      loaded,
      queued: [],
      stale: false,
      state: loaded.state,
      leftover: true,
    });
  }
  return { runs, failures };
}

/**
 * Asks each holder for the networks the planned items judge and it holds: one conditional write per holder
 * (read again and decided again when another cycle wrote first), which records for each network it can give
 * (it owes no alert of it) the item it goes to. `latest` is updated with what was written.
 */
async function handOvers(
  shard: ShardRules,
  input: Parameters<typeof applyRules>[1],
  latest: Map<string, VersionedState<RuleScopeState>>,
  stores: Map<string, StateStore<RuleScopeState>>,
  items: readonly RuleItemState[],
  failed: (key: string, reason: unknown, doing: string) => void,
): Promise<void> {
  // Holder key -> target key -> networks; the holdings as the cycle found them.
  const asks = new Map<string, Map<string, string[]>>();
  const holdings = new Map<string, Holding>();
  for (const scope of shard.planned) {
    const mine = items.find((item) => item.key === scope.key)?.state;
    const start = startingState(scope.key, scope.networks, mine, items, input.at);
    for (const network of start.waiting) {
      const holding = holdingOf(network, items);
      if (holding.kind === 'none' || holding.key === scope.key) continue;
      holdings.set(network, holding);
      const byTarget = asks.get(holding.key) ?? new Map<string, string[]>();
      asks.set(holding.key, byTarget);
      byTarget.set(scope.key, [...(byTarget.get(scope.key) ?? []), network]);
    }
  }
  await Promise.all(
    [...asks].map(async ([key, byTarget]) => {
      const store = stores.get(key) ?? shard.itemStore?.(key);
      if (store === undefined) return;
      try {
        const done = await commitJudged(
          store,
          `the rule state (${key})`,
          latest.get(key) ?? EMPTY,
          input.claim,
          (loaded): Judgement<RuleScopeState> => {
            const owes = owedBy(loaded);
            let state = loaded.version === 0 ? undefined : loaded.state.rules;
            let handed = false;
            for (const [to, networks] of byTarget) {
              const next = handOver(key, state, to, networks, holdings, owes);
              if (next === undefined) continue;
              state = next.state;
              handed = true;
            }
            // Nothing to hand over (it owes an alert of each, or no longer holds them): nothing is written.
            if (!handed || state === undefined) return { stale: true };
            return { stale: false, state: { ...loaded.state, rules: state }, alerts: [] };
          },
        );
        stores.set(key, store);
        latest.set(
          key,
          done.stale ? done.loaded : { ...done.loaded, state: done.state, version: done.loaded.version + 1 },
        );
      } catch (error) {
        failed(key, error, 'hand over');
      }
    }),
  );
}

/**
 * Whether the item still owes an alert of a network: one in its outbox (unsent, spilled or claimed), or a
 * change of one of the cells' incidents that a silence holds back (announced by this item when it ends).
 */
function owedBy(
  loaded: VersionedState<RuleScopeState>,
): (network: string, cells: Readonly<Record<string, RuleCell>>) => boolean {
  const owing = new Set(loaded.outbox.map((entry) => entry.network));
  const held = loaded.held ?? {};
  return (network, cells) =>
    owing.has(network) ||
    Object.values(cells).some((cell) => cell.incident !== undefined && Object.hasOwn(held, cell.incident));
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
      // This item as last read, among the others as the cycle found them (or handed them over).
      const others = found.filter((item) => item.key !== scope.key);
      const start = startingState(scope.key, scope.networks, mine, others, input.at);
      const result = limitRuleAlerts(
        input.rules,
        evaluateRules({
          rules: input.rules,
          networks: start.networks,
          state: start.state,
          at: input.at,
          // The claim ends after the cycle's deadline, by which it decides (docs/design/cycle.md, Clocks).
          decideByMs: input.claim.untilMs,
          observations: input.observations,
        }),
        scope.maxAlerts,
      );
      if (result.stale) return { stale: true };
      // The open incidents' reminders and escalations, within what is left of the commit's alert cap (one that
      // does not fit is due again next cycle: its timers are left as they were).
      const followed =
        input.follow === undefined
          ? { state: result.state, alerts: [] }
          : followRuleIncidents({
              rules: input.rules,
              state: result.state,
              at: input.at,
              observations: input.observations,
              settings: input.follow,
              room: scope.maxAlerts - result.alerts.length,
            });
      const nextSeq = loaded.state.nextSeq;
      // Each alert carries its rule's parsed condition: its texts never parse the rule text (rule-kinds/).
      const queued: AlertRecord[] = [...withConditions(input.rules, result.alerts), ...followed.alerts].map(
        (alert, i) => ({ ...alert, seq: nextSeq + i }) as AlertRecord,
      );
      return {
        stale: false,
        state: {
          rules: settledState(scope.key, mine, followed.state, start.gens, owners, others, start.duplicates),
          nextSeq: nextSeq + queued.length,
        },
        alerts: queued,
      };
    },
  );
  return { scope, ...done };
}

/**
 * With `groupBy=rule`, the reminders and escalations of the per-network incidents the cells hold open (one a
 * cycle of `none` opened), once the incidents judge has decided which cells are members of their rule's
 * incident (that incident follows those): `follows` says which cells are followed here. Only an item this cycle
 * judged last is followed (a newer cycle follows it itself), with one more conditional write when a follow-up
 * is due, its alerts in that same write (read again and followed again when another cycle wrote first: the
 * timers it wrote make a duplicate cycle find nothing due), within what is left of the item's alert cap. An
 * item whose write fails keeps its run as it was and is reported in `failures`; its follow-ups are due again.
 */
export async function followOpenCells(
  runs: readonly RuleScopeRun[],
  input: {
    readonly rules: readonly Rule[];
    readonly at: string;
    readonly observations: readonly RuleNetworkObservation[];
    readonly claim: { readonly claimant: string; readonly untilMs: number };
    readonly follow: RuleIncidentSettings;
  },
  follows: (rule: string, network: string, cell: RuleCell) => boolean,
): Promise<RuleItemsResult> {
  const failures: Array<{ key: string; error: StoreError }> = [];
  const followed = await Promise.all(
    runs.map(async (run): Promise<RuleScopeRun> => {
      const written = run.state !== undefined && run.state !== run.loaded.state;
      if (run.stale || run.leftover === true || !written || input.rules.length === 0) return run;
      const first: VersionedState<RuleScopeState> = {
        ...run.loaded,
        state: run.state!,
        version: run.loaded.version + 1,
      };
      try {
        const done = await commitJudged(
          run.scope.store,
          `the rule state (${run.scope.key})`,
          first,
          input.claim,
          (loaded): Judgement<RuleScopeState> => {
            const mine = loaded.version === 0 ? undefined : loaded.state.rules;
            if (mine === undefined || mine.lastAt !== input.at) return { stale: true };
            const result = followRuleIncidents({
              rules: input.rules,
              state: mine,
              at: input.at,
              observations: input.observations,
              settings: input.follow,
              room: Math.max(0, run.scope.maxAlerts - run.queued.length),
              follows,
            });
            if (result.alerts.length === 0) return { stale: true };
            const nextSeq = loaded.state.nextSeq;
            const queued = result.alerts.map((alert, i) => ({ ...alert, seq: nextSeq + i }) as AlertRecord);
            return {
              stale: false,
              state: { ...loaded.state, rules: result.state, nextSeq: nextSeq + queued.length },
              alerts: queued,
            };
          },
        );
        if (done.stale) return run;
        // Read again: the outbox as read holds this cycle's earlier alerts, claimed by it (merged by number).
        return {
          ...run,
          loaded: done.loaded === first ? run.loaded : done.loaded,
          queued: [...run.queued, ...done.queued],
          state: done.state,
        };
      } catch (error) {
        failures.push({
          key: run.scope.key,
          error:
            error instanceof StoreError
              ? error
              : new StoreError(`cannot write the rule state (${run.scope.key}): ${describeError(error)}`, {
                  cause: error,
                }),
        });
        return run;
      }
    }),
  );
  return { runs: followed, failures };
}

/**
 * Sends each rule item's outbox after the monitor's, item by item, each in sequence order (an item's
 * alerts are ordered among themselves; items are independent), the items an edit left behind included.
 * Sending stops when too little time is left. A left-behind item whose outbox is then empty and whose cells
 * their new items hold is deleted (a conditional delete: only while nothing changed it).
 */
export async function drainRuleScopes(
  given: Omit<OutboxDeps, 'state'>,
  runs: readonly RuleScopeRun[],
  options: DrainOptions,
  shard?: ShardRules,
): Promise<DrainResult> {
  const deps = followUpsAsTheirTrigger(given);
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
      nothingToCarry(run.scope.key, run.state?.rules, shard.owners, after) &&
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

/**
 * The outbox's deps with `recordOnly` extended to the reminders, escalations and acknowledgements of a
 * per-network rule incident: recorded only when its trigger is (its network a member of the rule's incident
 * across networks, docs/design/incidents.md, Switching groupBy), since that incident reminds and escalates for
 * it. A cycle of `none` follows every open cell, also one left open by `rule` whose incident is the rule's.
 */
function followUpsAsTheirTrigger(deps: Omit<OutboxDeps, 'state'>): Omit<OutboxDeps, 'state'> {
  const recordOnly = deps.recordOnly;
  if (recordOnly === undefined) return deps;
  return {
    ...deps,
    recordOnly: (alert) => {
      if (recordOnly(alert)) return true;
      const record = alert as AlertRecord;
      if (!isRuleIncidentAlert(record)) return false;
      const triggeredAt = ruleIncidentOf(record.incident)?.triggeredAt;
      return recordOnly({
        ...record,
        event: 'network.rule_triggered',
        ...(triggeredAt === undefined ? {} : { triggeredAt }),
      } as AlertRecord);
    },
  };
}

/** What the rules judge judges by. */
export interface RulesSettings {
  readonly networks: readonly string[];
  readonly rules?: readonly Rule[];
  /** The shard whose rule items this cycle owns. @default 0 */
  readonly ruleShard?: number;
  /**
   * The `groupBy` setting: at `none` each network's rule incident is its own, and its reminders and escalations
   * are the rule items' (`rule-incidents.ts`), queued with the transitions; at `rule` the incident across
   * networks has its members', and a per-network incident left open by `none` is followed once the incidents
   * judge has said which cells are members ({@link RulesVerdict.followCells}). @default 'rule'
   */
  readonly groupBy?: 'rule' | 'none';
  /** The `remindEvery` setting: reminders of open incidents; unset: none. */
  readonly remindEveryMs?: number;
  /** The `escalateAfter` setting (docs/acknowledge.md): the stages' ages; unset or empty: no escalation. */
  readonly escalateAfterMs?: RuleIncidentSettings['escalateAfterMs'];
}

/** The rules judge's verdict, with what the incidents judge groups by (docs/design/incidents.md). */
export interface RulesVerdict extends Verdict {
  /** Each rule item as this cycle left it: which cells are open. */
  readonly runs: readonly RuleScopeRun[];
  /** The cycle's readings per network. */
  readonly observations: readonly RuleNetworkObservation[];
  /**
   * With `groupBy=rule`: the verdict with the open cells `follows` accepts followed ({@link followOpenCells}),
   * their reminders and escalations queued and sent with the items' outboxes. Absent with `groupBy=none`
   * (every open cell was followed with the transitions) and once followed.
   */
  readonly followCells?: (
    follows: (rule: string, network: string, cell: RuleCell) => boolean,
  ) => Promise<RulesVerdict>;
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
  // Each network's incident on its own keeps its timers in its cell (rule-incidents.ts): with `groupBy=none`
  // followed with the transitions, with `rule` once the incidents judge has said which cells are members.
  const timers: RuleIncidentSettings = {
    ...(settings.remindEveryMs === undefined ? {} : { remindEveryMs: settings.remindEveryMs }),
    ...(settings.escalateAfterMs === undefined ? {} : { escalateAfterMs: settings.escalateAfterMs }),
  };
  const follow = (settings.groupBy ?? 'rule') === 'none' ? timers : undefined;
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
        result = await applyRules(shard, {
          rules,
          at: evidence.at,
          observations,
          claim: evidence.claim,
          ...(follow === undefined ? {} : { follow }),
        });
      } catch (error) {
        result = { runs: [], failures: [{ key: 'rules', error: error as StoreError }] };
      }
      const verdictOf = (
        { runs, failures }: RuleItemsResult,
        followCells?: RulesVerdict['followCells'],
      ): RulesVerdict => ({
        queued: runs.flatMap((run) => run.queued),
        stale: runs.some((run) => run.stale),
        written: runs
          .filter((run) => run.queued.length > 0 || run.state !== run.loaded.state)
          .map((run) => run.scope.key),
        failures,
        send: (options) => drainRuleScopes(deps, runs, options, shard),
        runs,
        observations,
        ...(followCells === undefined ? {} : { followCells }),
      });
      if (follow !== undefined) return verdictOf(result);
      return verdictOf(result, async (follows) => {
        const followed = await followOpenCells(
          result.runs,
          { rules, at: evidence.at, observations, claim: evidence.claim, follow: timers },
          follows,
        );
        return verdictOf({ runs: followed.runs, failures: [...result.failures, ...followed.failures] });
      });
    },
  };
}
