/**
 * The incidents judge (docs/design/incidents.md; CONTRACT §13): with the `groupBy` setting at `rule` (the default)
 * the networks on which one rule triggers join one incident of that rule, across shards and concurrent cycles.
 * It wraps the rules judge: the rule items judge and commit every network as before, and their per-network
 * alerts are recorded as events but not published (a publisher stage that records only, like a stage of
 * Alertmanager's notify pipeline); then, per rule, the pure `judgeIncident` applies the shard's view (which
 * cells are open, the readings) to the rule's incident item (pk `state`, sk `incident#<rule>`) with the one
 * optimistic commit, only when something changed, and its outbox (`incident.opened`, `incident.updated`,
 * `incident.reminder`, `incident.resolved`) is sent after the rule items' with the same protocol. Every
 * incident item is read with one Query alongside the requests. With `groupBy=none` the rules judge is
 * returned as it is.
 */
import { commitJudged } from '../commit.ts';
import type { EscalationSchedule } from '../core/escalation.ts';
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
 * The rules judge, grouped into incidents by rule unless `groupBy` is `none` (or no incident store or rule is
 * configured): then the rules judge itself. One line in the cycle's list of judges.
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
  if ((settings.groupBy ?? 'rule') === 'none' || incidents === undefined || deps.ruleState === undefined) {
    return rulesJudge(deps, settings, deadline);
  }
  const rules = rulesJudge({ ...deps, recordOnly: isGroupedRuleAlert }, settings, deadline);
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
        return withIncidents(verdict, [], [{ key: 'incident#*', error }]);
      }
      const scopes = new Map(found.value.map((f) => [f.rule, f]));
      const configured = settings.rules ?? [];
      const names = new Set(configured.map((rule) => rule.name));
      const runs: IncidentRun[] = [];
      const failures: ItemFailure[] = [];
      // A rule whose incident is open but which is no longer configured: its networks of this shard leave.
      const removed = found.value.filter((f) => !names.has(f.rule) && f.loaded.state.open !== undefined);
      const work = [
        ...configured.map((rule) => ({ rule: rule.name, subject: rule as Rule | undefined })),
        ...removed.map((f) => ({ rule: f.rule, subject: undefined })),
      ];
      const settled = await Promise.allSettled(
        work.map(async ({ rule, subject }) => {
          const scope = scopes.get(rule);
          const store = scope?.store ?? boundStore(incidents.incidentScope(rule), deadline);
          const loaded = scope?.loaded ?? EMPTY;
          const views = subject === undefined ? [] : viewsOf(subject, verdict);
          // Only when every rule item was judged do absent networks mean "no longer watched here".
          const watched =
            subject === undefined
              ? []
              : verdict.failures.length === 0
                ? ruleNetworks(subject, settings.networks)
                : undefined;
          if (views.length === 0 && watched === undefined) return { rule, store, loaded, queued: [] };
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
          if (scope !== undefined) runs.push({ rule, store: scope.store, loaded: scope.loaded, queued: [] });
        }
      });
      // Items of rules judged neither way (none left) with alerts waiting: sent all the same.
      const judged = new Set(runs.map((run) => run.rule));
      for (const scope of found.value) {
        if (!judged.has(scope.rule))
          runs.push({ rule: scope.rule, store: scope.store, loaded: scope.loaded, queued: [] });
      }
      return withIncidents(verdict, runs, failures, deps);
    },
  };
}

/** One incident item in this cycle: as read, and what this cycle appended. */
interface IncidentRun {
  readonly rule: string;
  readonly store: StateStore<IncidentScopeState>;
  readonly loaded: VersionedState<IncidentScopeState>;
  readonly queued: readonly AlertRecord[];
  readonly written?: boolean;
}

/** The shard's view of `rule`: each network with a reading this cycle, whether its cell is open, its value. */
function viewsOf(rule: Rule, verdict: RulesVerdict): MemberView[] {
  const readings = new Map(verdict.observations.map((o) => [o.networkId, o.readings[rule.name]]));
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
      views.push({ network, open: cells[network]!.open, value: reading.value });
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
  return { rule, store, loaded: done.loaded, queued: done.queued, written: done.state !== done.loaded.state };
}

/** The rules judge's verdict with the incidents: their alerts queued, their items sent after the rule items. */
function withIncidents(
  verdict: RulesVerdict,
  runs: readonly IncidentRun[],
  failures: readonly ItemFailure[],
  deps?: Omit<OutboxDeps, 'state'>,
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
      const rules = await verdict.send(options);
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
