/**
 * The incidents judge (docs/design/incidents.md; CONTRACT §13): with the `groupBy` setting at `rule` (the default)
 * the networks on which one rule triggers join one incident of that rule, across shards and concurrent cycles.
 * It wraps the rules judge: the rule items judge and commit every network as before, and their per-network
 * alerts are recorded as events but not published (a publisher stage that records only, like a stage of
 * Alertmanager's notify pipeline); then, per rule, the pure `judgeIncident` applies the shard's view (which
 * cells are open, the readings) to the rule's incident item (pk `state`, sk `incident#<rule>`) with the one
 * optimistic commit, only when something changed, and its outbox (`incident.opened`, `incident.updated`,
 * `incident.reminder`, `incident.resolved`) is sent after the rule items' with the same protocol. Every
 * incident item is read with one Query alongside the requests.
 *
 * Whether a per-network alert is recorded only or published is the incident item's to say, not the setting's
 * (docs/design/incidents.md, Switching groupBy): recorded only when its network joined the rule's incident
 * under that per-network incident ({@link isIncidentTransition}). With `groupBy=none` no network joins, but an
 * incident opened under `rule` is judged on until its last member resolves (its reminders, escalation and
 * acknowledgement with it), so its resolve is sent; with `rule`, an open cell joins only when its trigger is
 * this cycle's (or held back by the alert cap): a per-network incident opened under `none` ends per network.
 */
import { COMMIT_ATTEMPTS } from '../commit.ts';
import type { EscalationSchedule } from '../core/incidents/escalation.ts';
import { isIncidentTransition, mayJoin, type RuleTransition } from '../core/incidents/incident-membership.ts';
import {
  DEFAULT_GROUP_INTERVAL_MS,
  EMPTY_INCIDENT_SCOPE,
  type GroupBy,
  type IncidentScopeState,
  judgeIncident,
  type MemberView,
  type ShardMembers,
} from '../core/incidents/incidents.ts';
import { ruleNetworks } from '../core/rules/rule-eval.ts';
import { conditionOf } from '../core/rules/rule-kinds/index.ts';
import type { Rule } from '../core/rules/rule-types.ts';
import { holdsAny } from '../core/silences/silence.ts';
import type { AlertRecord } from '../core/types.ts';
import { describeError, StoreError } from '../errors.ts';
import { type DrainResult, drainOutbox, type OutboxDeps } from '../outbox.ts';
import type {
  FoundIncidentScope,
  IncidentMemberStore,
  IncidentStore,
  LoadedMembers,
  RuleStateStore,
  StateStore,
  VersionedState,
} from '../ports.ts';
import { boundStore } from '../until-deadline.ts';
import type { Evidence, ItemFailure, Judge, Verdict } from './judge.ts';
import { type RulesSettings, type RulesVerdict, rulesJudge } from './rules.ts';

/** What the incidents judge groups by. */
export interface IncidentSettings extends RulesSettings {
  /** The `groupBy` setting. @default 'rule' */
  readonly groupBy?: GroupBy;
  /** The `groupInterval` setting. @default {@link DEFAULT_GROUP_INTERVAL_MS} */
  readonly groupIntervalMs?: number;
  /** The `remindEvery` setting: reminders of open incidents; unset: none. */
  readonly remindEveryMs?: number;
  /** The `escalateAfter` setting (docs/acknowledge.md): the stages' ages; unset or empty: no escalation. */
  readonly escalateAfterMs?: EscalationSchedule;
  /** How many shards run (the schedule's event says it): parts of shards past it leave their incidents. */
  readonly shardCount?: number;
}

/** Waiting alerts kept in an incident item before the oldest move out: an incident alert can name 1,000 networks. */
const SPILL_ABOVE = 4;
const EMPTY: VersionedState<IncidentScopeState> = { state: EMPTY_INCIDENT_SCOPE, version: 0, outbox: [] };
const RULE_EVENTS: ReadonlySet<string> = new Set(['network.rule_triggered', 'network.rule_resolved']);

/**
 * The per-network rule alerts, recorded as events and removed without being published (`recordOnly` of the
 * outbox): what is published instead is their incident's alerts. Neither counted as published nor held back
 * by silences (a silence holds their incident's alerts back, and announces those).
 */
export function isGroupedRuleAlert(alert: Pick<AlertRecord, 'event'>): boolean {
  return RULE_EVENTS.has(alert.event);
}

/**
 * The rules judge, grouped into incidents by rule (with `groupBy=none`, only the incidents opened before are
 * judged on, and no network joins them); without an incident or rule state store, the rules judge itself. One
 * line in the cycle's list of judges.
 */
export function rulesAndIncidentsJudge(
  deps: Omit<OutboxDeps, 'state'> & {
    readonly ruleState?: RuleStateStore;
    readonly incidents?: IncidentStore;
  },
  settings: IncidentSettings,
  deadline: AbortSignal,
): Judge {
  const incidents = deps.incidents;
  const grouping = (settings.groupBy ?? 'rule') === 'rule';
  // Read whatever `groupBy` says and whether rules are configured: an incident left open by an earlier
  // configuration (grouped, or its rule since removed) is judged until it resolves (docs/design/incidents.md).
  if (incidents === undefined || deps.ruleState === undefined) {
    return rulesJudge(deps, settings, deadline);
  }
  // Each rule's incident item and the shard's working set as this cycle leaves them: what the rule items'
  // alerts are sent as (set by judge).
  const decided = new Map<string, { state: IncidentScopeState; members?: ShardMembers }>();
  const recordOnly = (alert: Pick<AlertRecord, 'event'>): boolean => {
    if (!isGroupedRuleAlert(alert)) return false;
    const transition = alert as RuleTransition & { readonly rule?: string };
    if (transition.rule === undefined) return false;
    const left = decided.get(transition.rule);
    return isIncidentTransition(left?.state, transition, left?.members);
  };
  const shard = settings.ruleShard ?? 0;
  const memberStore = boundStore(incidents.members, deadline);
  const rules = rulesJudge({ ...deps, recordOnly }, settings, deadline);
  const bound = boundStore(incidents, deadline);
  // Every incident item, read alongside the requests (one Query): the rules judged, and any left waiting.
  const finding = bound.findIncidentScopes().then(
    (found) => ({ value: found.map((f) => ({ ...f, store: boundStore(f.store, deadline) })) }),
    (error: unknown) => ({ error }),
  );
  return {
    ...(rules.read === undefined ? {} : { read: rules.read }),
    async judge(evidence: Evidence): Promise<Verdict> {
      const verdict = await rules.judge(evidence);
      const found = await finding;
      if ('error' in found) {
        const error = new StoreError(
          `cannot read the incidents (incident#*): ${describeError(found.error)}`,
          {
            cause: found.error,
          },
        );
        // Unknown which per-network alert belongs to an incident: the rule items' alerts wait for a later cycle.
        return withIncidents(verdict, [], [{ key: 'incident#*', error }], deps, true);
      }
      const scopes = new Map(found.value.map((f) => [f.rule, f]));
      const configured = settings.rules ?? [];
      const names = new Set(configured.map((rule) => rule.name));
      const runs: IncidentRun[] = [];
      const failures: ItemFailure[] = [];
      // A rule whose incident is open but which is no longer configured: its networks of this shard leave.
      const removed = found.value.filter((f) => !names.has(f.rule) && f.loaded.state.open !== undefined);
      // With `groupBy=none`, only an incident still open from `rule` is judged, until it resolves.
      const judged = grouping
        ? configured
        : configured.filter((rule) => scopes.get(rule.name)?.loaded.state.open !== undefined);
      const work = [
        ...judged.map((rule) => ({ rule: rule.name, subject: rule as Rule | undefined })),
        ...removed.map((f) => ({ rule: f.rule, subject: undefined })),
      ];
      const settled = await Promise.allSettled(
        work.map(async ({ rule, subject }) => {
          const scope = scopes.get(rule);
          const store = scope?.store ?? boundStore(incidents.incidentScope(rule), deadline);
          const loaded = scope?.loaded ?? EMPTY;
          const views = subject === undefined ? [] : viewsOf(subject, verdict, grouping);
          // Only when every rule item was judged do absent networks mean "no longer watched here".
          const watched =
            subject === undefined
              ? []
              : verdict.failures.length === 0
                ? ruleNetworks(subject, settings.networks)
                : undefined;
          if (views.length === 0 && watched === undefined)
            return { rule, store, loaded, queued: [], state: loaded.state };
          return commitIncident(rule, store, loaded, evidence, memberStore, {
            subject:
              subject === undefined
                ? { rule }
                : { rule, ruleText: subject.text, condition: conditionOf(subject) },
            shard,
            views,
            ...(settings.shardCount === undefined ? {} : { shardCount: settings.shardCount }),
            ...(watched === undefined ? {} : { watched }),
            groupIntervalMs: settings.groupIntervalMs ?? DEFAULT_GROUP_INTERVAL_MS,
            ...(settings.remindEveryMs === undefined ? {} : { remindEveryMs: settings.remindEveryMs }),
            ...(settings.escalateAfterMs === undefined ? {} : { escalateAfterMs: settings.escalateAfterMs }),
          });
        }),
      );
      settled.forEach((outcome, i) => {
        const rule = work[i]!.rule;
        if (outcome.status === 'fulfilled') runs.push(outcome.value);
        else {
          const reason = outcome.reason as unknown;
          failures.push({
            key: `incident#${rule}`,
            error:
              reason instanceof StoreError
                ? reason
                : new StoreError(`cannot write the incident (incident#${rule}): ${describeError(reason)}`, {
                    cause: reason,
                  }),
          });
          // Its outbox is still sent, from what was read; the working set as this cycle left it.
          const scope = scopes.get(rule);
          const members = reason instanceof IncidentWriteError ? reason.members : undefined;
          if (scope !== undefined || members !== undefined)
            runs.push({
              rule,
              store: scope?.store ?? boundStore(incidents.incidentScope(rule), deadline),
              loaded: scope?.loaded ?? EMPTY,
              queued: [],
              state: scope?.loaded.state ?? EMPTY_INCIDENT_SCOPE,
              ...(members === undefined ? {} : { members }),
            });
        }
      });
      // Items of rules judged neither way (none left) with alerts waiting: sent all the same.
      const ran = new Set(runs.map((run) => run.rule));
      for (const scope of found.value) {
        if (!ran.has(scope.rule))
          runs.push({
            rule: scope.rule,
            store: scope.store,
            loaded: scope.loaded,
            queued: [],
            state: scope.loaded.state,
          });
      }
      // A rule's per-network alerts waiting in the rule items are sent as the shard's working set says: read
      // it where this cycle did not (the rule was not judged, its incident closed), and the shard has a share.
      const missing = runs.filter(
        (run) => run.members === undefined && hasShare(run.state, shard) && waitsFor(verdict, run.rule),
      );
      const readSets = await Promise.allSettled(
        missing.map((run) => memberStore.loadMembers(run.rule, shard)),
      );
      let unreadSets = false;
      readSets.forEach((outcome, i) => {
        const run = missing[i]!;
        if (outcome.status === 'fulfilled') runs[runs.indexOf(run)] = { ...run, members: outcome.value.set };
        else unreadSets = true;
      });
      for (const run of runs)
        decided.set(run.rule, {
          state: run.state,
          ...(run.members === undefined ? {} : { members: run.members }),
        });
      // A write that failed may have landed all the same (its answer lost, the deadline cut it): which network
      // joined is then unknown here, so the rule items' alerts wait for a later cycle, which decides from the
      // item as stored (docs/design/incidents.md, Switching groupBy).
      const uncertain =
        unreadSets ||
        settled.some(
          (outcome) =>
            outcome.status === 'rejected' &&
            (outcome.reason instanceof IncidentWriteError
              ? outcome.reason.uncertain
              : mayHaveLanded(outcome.reason)),
        );
      // The per-network incidents the cells hold open that are no member of their rule's incident (one a cycle
      // of `none` opened) remind and escalate on their own, as the drain will publish them: decided from the
      // items as this cycle left them. Not when that is uncertain, nor for a rule whose working set this cycle
      // did not read while its incident has a share here: they are due again next cycle.
      const followed =
        uncertain || verdict.followCells === undefined
          ? verdict
          : await verdict.followCells((rule, network, cell) => {
              const left = decided.get(rule);
              if (left !== undefined && left.members === undefined && hasShare(left.state, shard))
                return false;
              return !isIncidentTransition(
                left?.state,
                {
                  network,
                  ...(cell.incident === undefined ? {} : { incident: cell.incident }),
                  ...(cell.triggeredAt === undefined ? {} : { triggeredAt: cell.triggeredAt }),
                },
                left?.members,
              );
            });
      return withIncidents(followed, runs, failures, deps, uncertain);
    },
  };
}

/**
 * Whether a write that failed may have been applied all the same: yes, unless DynamoDB answered it with a
 * client error (4xx: a condition, a validation, a throttle, none of which applies anything). A time-out, a
 * lost connection, an abort at the deadline or a 5xx may come after the write landed.
 */
export function mayHaveLanded(error: unknown): boolean {
  let cause: unknown = error;
  for (let depth = 0; cause instanceof Error && depth < 8; depth++) {
    const status = (cause as { $metadata?: { httpStatusCode?: unknown } }).$metadata?.httpStatusCode;
    if (typeof status === 'number' && status >= 400 && status < 500) return false;
    cause = cause.cause;
  }
  return true;
}

/** One incident item in this cycle: as read, and what this cycle appended. */
interface IncidentRun {
  readonly rule: string;
  readonly store: StateStore<IncidentScopeState>;
  readonly loaded: VersionedState<IncidentScopeState>;
  readonly queued: readonly AlertRecord[];
  readonly written?: boolean;
  /** The item's state after this cycle: what it wrote, or what it read. */
  readonly state: IncidentScopeState;
  /** The shard's working set after this cycle (absent: not read, none needed). */
  readonly members?: ShardMembers;
}

/**
 * The shard's view of `rule`: each network with a reading this cycle, whether its cell is open, its value, and
 * for an open cell its per-network incident and whether it may join (`grouping` off: never).
 */
function viewsOf(rule: Rule, verdict: RulesVerdict, grouping: boolean): MemberView[] {
  const readings = new Map(verdict.observations.map((o) => [o.networkId, o.readings[rule.name]]));
  // The triggers this cycle queued: this cycle's claim keeps them until its incident item says how they go.
  const triggered = new Set(
    verdict.runs.flatMap((run) =>
      run.stale
        ? []
        : run.queued
            .filter((alert) => alert.event === 'network.rule_triggered' && alert.rule === rule.name)
            .map((alert) => alert.network),
    ),
  );
  const views: MemberView[] = [];
  for (const run of verdict.runs) {
    if (run.stale || run.leftover === true || run.state === undefined) continue;
    const cells = Object.hasOwn(run.state.rules.cells, rule.name)
      ? run.state.rules.cells[rule.name]
      : undefined;
    if (cells === undefined) continue;
    for (const network of run.scope.networks) {
      const reading = readings.get(network);
      if (reading?.kind !== 'value' || !Object.hasOwn(cells, network)) continue;
      const cell = cells[network]!;
      if (!cell.open) {
        views.push({ network, open: false, value: reading.value });
        continue;
      }
      views.push({
        network,
        open: true,
        value: reading.value,
        ...(cell.triggeredAt === undefined ? {} : { triggeredAt: cell.triggeredAt }),
        joins: grouping && mayJoin(cell, triggered.has(network)),
      });
    }
  }
  return views;
}

/**
 * One rule's incident in this shard's cycle: the working set is written before the incident item (a member is
 * never counted without its details stored), each conditioned on the version read; when another cycle wrote
 * either first, both are judged again on what it wrote. An opening this cycle made is then named in the
 * working set (one more write; if it fails, the next cycle adopts the open incident).
 */
async function commitIncident(
  rule: string,
  store: StateStore<IncidentScopeState>,
  first: VersionedState<IncidentScopeState>,
  evidence: Evidence,
  memberStore: IncidentMemberStore | undefined,
  input: Omit<Parameters<typeof judgeIncident>[1], 'at' | 'decideByMs' | 'members'>,
): Promise<IncidentRun> {
  const what = `the incident (incident#${rule})`;
  // A quiet shard reads no working set: only one with an open cell, or a share in the open incident.
  const open = first.state.open;
  const key = String(input.shard);
  const needsMembers =
    memberStore !== undefined &&
    (input.views.some((v) => v.open) ||
      (open !== undefined &&
        ((open.parts !== undefined && Object.hasOwn(open.parts, key)) ||
          open.members.some((m) => (m.shard ?? 0) === input.shard))));
  let members: LoadedMembers | undefined;
  const loadMembers = async (): Promise<LoadedMembers> => {
    try {
      return await memberStore!.loadMembers(rule, input.shard);
    } catch (error) {
      throw new StoreError(`cannot read the members of ${what}: ${describeError(error)}`, { cause: error });
    }
  };
  if (needsMembers) members = await loadMembers();
  const read = members;
  /**
   * The incident item's write failed. Refused (a 4xx applies nothing): the working set goes back to what was
   * read, so the per-network alerts go as if none joined (published per network); when that fails too, or the
   * write may have landed, membership is uncertain and they wait for the next cycle, which decides from what is
   * stored.
   */
  const failedWrite = async (error: unknown, message: string): Promise<IncidentWriteError> => {
    if (mayHaveLanded(error)) return new IncidentWriteError(message, error, members?.set, true);
    if (members === undefined || read === undefined || members === read) {
      return new IncidentWriteError(message, error, members?.set, false);
    }
    try {
      if (await memberStore!.writeMembers(rule, input.shard, read.set, members)) {
        return new IncidentWriteError(message, error, read.set, false);
      }
    } catch {
      // Uncertain: below.
    }
    return new IncidentWriteError(message, error, members.set, true);
  };
  let loaded = first;
  // Every shard's cycle may write this item at the same instant: one wins each round, so a shard may lose as
  // many rounds as there are shards (the bench's 10 shards lost 8 in a row); a jittered pause spreads them.
  const shards = Math.max(input.shardCount ?? 0, Object.keys(first.state.open?.parts ?? {}).length);
  const attempts = 2 * COMMIT_ATTEMPTS + shards;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    if (attempt > 2) await pause(Math.random() * 15 * Math.min(attempt, 10));
    const judged = judgeIncident(loaded.version === 0 ? undefined : loaded.state, {
      ...input,
      ...(members === undefined ? {} : { members: members.set }),
      at: evidence.at,
      decideByMs: evidence.claim.untilMs,
    });
    if (judged.stale) return { rule, store, loaded, queued: [], state: loaded.state, ...setOf(members) };
    if (members !== undefined && judged.membersChanged) {
      if (judged.archive !== undefined) {
        try {
          await memberStore!.archiveMembers(rule, input.shard, judged.archive);
        } catch (error) {
          throw new StoreError(
            `cannot keep the members of a finished incident of ${what}: ${describeError(error)}`,
            {
              cause: error,
            },
          );
        }
      }
      let written: boolean;
      try {
        written = await memberStore!.writeMembers(rule, input.shard, judged.members, members);
      } catch (error) {
        throw new StoreError(`cannot write the members of ${what}: ${describeError(error)}`, {
          cause: error,
        });
      }
      if (!written) {
        members = await loadMembers();
        continue;
      }
      members = { set: judged.members, version: members.version + 1, stale: [] };
    }
    if (!judged.changed) return { rule, store, loaded, queued: [], state: loaded.state, ...setOf(members) };
    const nextSeq = loaded.state.nextSeq;
    const alerts = judged.alerts.map((alert, i) => ({ ...alert, seq: nextSeq + i }) as AlertRecord);
    const state = { ...judged.state, nextSeq: nextSeq + alerts.length };
    let committed: boolean;
    try {
      committed = await store.commit(state, loaded.version, alerts, evidence.claim);
    } catch (error) {
      throw await failedWrite(error, `cannot write ${what}: ${describeError(error)}`);
    }
    if (committed) {
      members = await named(memberStore, rule, input.shard, members, state);
      return { rule, store, loaded, queued: alerts, written: true, state, ...setOf(members) };
    }
    try {
      loaded = await store.load();
    } catch (error) {
      throw new StoreError(`cannot read ${what}: ${describeError(error)}`, { cause: error });
    }
  }
  throw new StoreError(`${what} kept changing under this cycle (${attempts} attempts)`);
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Whether the rule's open incident `id` is acknowledged now (not the open one: the item does not say). */
function incidentAcknowledged(state: IncidentScopeState, id: string): boolean | undefined {
  return state.open?.id === id ? state.open.acknowledged !== undefined : undefined;
}

/** A failed write of an incident: the working set as this cycle left it, and whether membership is uncertain. */
class IncidentWriteError extends StoreError {
  constructor(
    message: string,
    cause: unknown,
    readonly members: ShardMembers | undefined,
    readonly uncertain: boolean,
  ) {
    super(message, { cause });
  }
}

/** Whether the incident (open, or the latest resolved) has members of `shard` in its working sets. */
function hasShare(state: IncidentScopeState, shard: number): boolean {
  const key = String(shard);
  return [state.open, state.last].some(
    (incident) => incident?.parts !== undefined && Object.hasOwn(incident.parts, key),
  );
}

/** Whether a rule item of this cycle has a per-network alert of `rule` waiting or queued (or spilled: unknown). */
function waitsFor(verdict: RulesVerdict, rule: string): boolean {
  return verdict.runs.some(
    (run) =>
      run.queued.some((a) => isGroupedRuleAlert(a) && a.rule === rule) ||
      run.loaded.outbox.some(
        (entry) =>
          (entry as { spilled?: boolean }).spilled === true ||
          (isGroupedRuleAlert(entry as Pick<AlertRecord, 'event'>) &&
            (entry as { rule?: string }).rule === rule),
      ),
  );
}

const setOf = (members: LoadedMembers | undefined): { members?: ShardMembers } =>
  members === undefined ? {} : { members: members.set };

/** The working set named after the incident this cycle opened (best effort: else the next cycle adopts it). */
async function named(
  memberStore: IncidentMemberStore | undefined,
  rule: string,
  shard: number,
  members: LoadedMembers | undefined,
  state: IncidentScopeState,
): Promise<LoadedMembers | undefined> {
  if (memberStore === undefined || members === undefined) return members;
  const id = state.open?.id;
  if (id === undefined || members.set.incident !== undefined) return members;
  const set = { ...members.set, incident: id };
  try {
    if (await memberStore.writeMembers(rule, shard, set, members)) {
      return { set, version: members.version + 1, stale: [] };
    }
  } catch {
    // The next cycle adopts it.
  }
  return { ...members, set };
}

/** The rules judge's verdict with the incidents: their alerts queued, their items sent after the rule items. */
function withIncidents(
  verdict: RulesVerdict,
  runs: readonly IncidentRun[],
  failures: readonly ItemFailure[],
  deps?: Omit<OutboxDeps, 'state'>,
  holdRuleItems = false,
): Verdict {
  return {
    queued: [...verdict.queued, ...runs.flatMap((run) => run.queued)],
    ...(verdict.stale === undefined ? {} : { stale: verdict.stale }),
    written: [
      ...verdict.written,
      ...runs.filter((run) => run.written === true).map((run) => `incident#${run.rule}`),
    ],
    failures: [...verdict.failures, ...failures],
    send: async (options) => {
      const rules = holdRuleItems ? heldBack(verdict) : await verdict.send(options);
      // The per-network alerts are recorded as events, not sent (`recorded`, not `delivered`).
      const total: DrainResult = {
        delivered: [...rules.delivered],
        failed: [...rules.failed],
        suppressed: [...rules.suppressed],
        recorded: [...(rules.recorded ?? [])],
        pending: rules.pending,
      };
      if (deps === undefined) return total;
      for (const run of runs) {
        const waiting = run.loaded.outbox.length + run.queued.length > 0 || holdsAny(run.loaded.held);
        if (!waiting) continue;
        const key = `incident#${run.rule}`;
        const result = await drainOutbox(
          {
            ...deps,
            state: run.store,
            acknowledged: incidentAcknowledged,
            ...(deps.published === undefined ? {} : { published: deps.published.forScope(`${key}:`) }),
          },
          run.loaded,
          run.queued,
          { ...options, spillAbove: SPILL_ABOVE },
        );
        total.delivered.push(...result.delivered);
        total.failed.push(...result.failed);
        total.suppressed.push(...result.suppressed);
        total.recorded?.push(...(result.recorded ?? []));
        (total as { pending: number }).pending += result.pending;
      }
      return total;
    },
  };
}

export type { FoundIncidentScope };

/** The rule items' alerts, none sent this cycle: each waits, in its outbox, for a later cycle. */
function heldBack(verdict: RulesVerdict): DrainResult {
  const pending = verdict.runs.reduce((sum, run) => sum + run.loaded.outbox.length + run.queued.length, 0);
  return { delivered: [], failed: [], suppressed: [], recorded: [], pending };
}
