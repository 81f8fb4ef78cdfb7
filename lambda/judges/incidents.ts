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
import { commitJudged } from '../commit.ts';
import type { EscalationSchedule } from '../core/escalation.ts';
import { isIncidentTransition, mayJoin, type RuleTransition } from '../core/incident-membership.ts';
import {
  DEFAULT_GROUP_INTERVAL_MS,
  EMPTY_INCIDENT_SCOPE,
  type GroupBy,
  type IncidentScopeState,
  judgeIncident,
  type MemberView,
} from '../core/incidents.ts';
import { ruleNetworks } from '../core/rule-eval.ts';
import { conditionOf } from '../core/rule-kinds/index.ts';
import type { Rule } from '../core/rule-types.ts';
import { holdsAny } from '../core/silence.ts';
import type { AlertRecord } from '../core/types.ts';
import { describeError, StoreError } from '../errors.ts';
import { type DrainResult, drainOutbox, type OutboxDeps } from '../outbox.ts';
import type {
  FoundIncidentScope,
  IncidentStore,
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
  // Each rule's incident item as this cycle leaves it: what the rule items' alerts are sent as (set by judge).
  const decided = new Map<string, IncidentScopeState>();
  const recordOnly = (alert: Pick<AlertRecord, 'event'>): boolean => {
    if (!isGroupedRuleAlert(alert)) return false;
    const transition = alert as RuleTransition & { readonly rule?: string };
    return transition.rule !== undefined && isIncidentTransition(decided.get(transition.rule), transition);
  };
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
          return commitIncident(rule, store, loaded, evidence, {
            subject:
              subject === undefined
                ? { rule }
                : { rule, ruleText: subject.text, condition: conditionOf(subject) },
            shard: settings.ruleShard ?? 0,
            views,
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
          // Its outbox is still sent, from what was read.
          const scope = scopes.get(rule);
          if (scope !== undefined)
            runs.push({
              rule,
              store: scope.store,
              loaded: scope.loaded,
              queued: [],
              state: scope.loaded.state,
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
      for (const run of runs) decided.set(run.rule, run.state);
      // A write that failed may have landed all the same (its answer lost, the deadline cut it): which network
      // joined is then unknown here, so the rule items' alerts wait for a later cycle, which decides from the
      // item as stored (docs/design/incidents.md, Switching groupBy).
      const uncertain = settled.some(
        (outcome) => outcome.status === 'rejected' && mayHaveLanded(outcome.reason),
      );
      return withIncidents(verdict, runs, failures, deps, uncertain);
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

async function commitIncident(
  rule: string,
  store: StateStore<IncidentScopeState>,
  first: VersionedState<IncidentScopeState>,
  evidence: Evidence,
  input: Omit<Parameters<typeof judgeIncident>[1], 'at' | 'decideByMs'>,
): Promise<IncidentRun> {
  const done = await commitJudged(store, `the incident (incident#${rule})`, first, evidence.claim, (item) => {
    const judged = judgeIncident(item.version === 0 ? undefined : item.state, {
      ...input,
      at: evidence.at,
      decideByMs: evidence.claim.untilMs,
    });
    // Unchanged: nothing to write (a steady attack writes only when a peak rises).
    if (judged.stale || !judged.changed) return { stale: true };
    const nextSeq = item.state.nextSeq;
    const alerts = judged.alerts.map((alert, i) => ({ ...alert, seq: nextSeq + i }) as AlertRecord);
    return { stale: false, state: { ...judged.state, nextSeq: nextSeq + alerts.length }, alerts };
  });
  return {
    rule,
    store,
    loaded: done.loaded,
    queued: done.queued,
    written: done.state !== done.loaded.state,
    state: done.state,
  };
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
