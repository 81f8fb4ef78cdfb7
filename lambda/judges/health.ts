/**
 * The network health judge (docs/alerts.md, Blind spots): a network whose own request keeps failing, and a rule
 * whose path reads nothing on a network that answers, judged by the pure `judgeHealth` over the shard's health
 * item (pk `state`, sk `health#<shard>`; docs/design/storage.md). It reads that item alongside the requests,
 * takes from each answered body only whether each rule's path read a value, and commits with the one
 * optimistic commit only when its state changed: while every network answers and every rule reads, it writes
 * nothing. Its outbox is sent after the other judges', with the same protocol. The item is independent: a
 * failure to read or write it holds back no other judge's alerts.
 */
import { commitJudged } from '../commit.ts';
import {
  type HealthState,
  healthIncidentAcknowledged,
  judgeHealth,
  type NetworkOutcome,
} from '../core/detect/network-health.ts';
import type { EscalationSchedule } from '../core/incidents/escalation.ts';
import type { Rule } from '../core/rules/rule-types.ts';
import { readRules } from '../core/rules/rules.ts';
import { holdsAny } from '../core/silences/silence.ts';
import type { FailureKind, Snapshot } from '../core/types.ts';
import { describeError, StoreError } from '../errors.ts';
import { drainOutbox, type OutboxDeps } from '../outbox.ts';
import type { HealthStateStore } from '../ports.ts';
import { boundStore } from '../until-deadline.ts';
import type { Evidence, Judge, Verdict } from './judge.ts';

/** What the health judge decides by. */
export interface HealthSettings {
  readonly networks: readonly string[];
  /** Cycles in a row before an alert (the `alertAfter` setting). */
  readonly alertAfter: number;
  readonly rules?: readonly Rule[];
  /** The shard whose health item this cycle owns. @default 0 */
  readonly ruleShard?: number;
  /** The `remindEvery` setting: reminders of open, unacknowledged blind-spot incidents; unset: none. */
  readonly remindEveryMs?: number;
  /** The `escalateAfter` setting (docs/acknowledge.md): unset or empty, no escalation. */
  readonly escalateAfterMs?: EscalationSchedule;
}

const NOTHING = { delivered: [], failed: [], suppressed: [], pending: 0 };
/** Failures that are not an answer of the API (as `decide` counts the API unreachable). */
const NO_ANSWER: ReadonlySet<FailureKind | undefined> = new Set(['transport', 'server', 'rate_limited']);
/** Waiting alerts kept in the item before the oldest move out: an alert can list many networks. */
const SPILL_ABOVE = 16;

/** The network health judge of one cycle; starts reading the shard's health item now. Undefined without a store. */
export function healthJudge(
  deps: Omit<OutboxDeps<HealthState>, 'state'> & { readonly networkHealth?: HealthStateStore },
  settings: HealthSettings,
  deadline: AbortSignal,
): Judge | undefined {
  if (deps.networkHealth === undefined) return undefined;
  const shard = settings.ruleShard ?? 0;
  const key = `health#${shard}`;
  const store = boundStore(deps.networkHealth.healthScope(shard), deadline);
  const loading = store.load().then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  const rules = settings.rules ?? [];
  // Per network (by position), per rule that watches it: whether its path read a value.
  const readings: Array<Record<string, boolean> | undefined> = [];
  return {
    read(index, body) {
      if (rules.length === 0) return;
      const network = settings.networks[index];
      if (network === undefined) return;
      const watching = rules.filter((rule) => rule.networks === undefined || rule.networks.includes(network));
      const read = readRules(watching, body);
      readings[index] = Object.fromEntries(
        watching.map((rule) => [rule.name, read[rule.name]?.kind === 'value']),
      );
    },
    async judge(evidence: Evidence): Promise<Verdict> {
      const loaded = await loading;
      if ('error' in loaded) return failed(key, `cannot read the network health (${key})`, loaded.error);
      const networks: NetworkOutcome[] = settings.networks.map((network, index) =>
        outcomeOf(network, evidence.networks[index], readings[index]),
      );
      const answered = [evidence.filter, ...evidence.networks].some(
        (s) => s !== undefined && (s.ok || (s.httpStatus !== undefined && !NO_ANSWER.has(s.errorKind))),
      );
      const input = {
        at: evidence.at,
        decideByMs: evidence.claim.untilMs,
        alertAfter: settings.alertAfter,
        shard,
        rules: rules.map((rule) => ({ name: rule.name, path: rule.path, text: rule.text })),
        networks,
        apiAnswered: answered,
        ...(settings.remindEveryMs === undefined ? {} : { remindEveryMs: settings.remindEveryMs }),
        ...(settings.escalateAfterMs === undefined ? {} : { escalateAfterMs: settings.escalateAfterMs }),
      };
      let done: Awaited<ReturnType<typeof commitJudged<HealthState>>>;
      try {
        done = await commitJudged(
          store,
          `the network health (${key})`,
          loaded.value,
          evidence.claim,
          (item) => {
            const judged = judgeHealth(item.version === 0 ? undefined : item.state, input);
            // Unchanged: nothing to write (no write per cycle while all is well).
            if (judged.stale || !judged.changed) return { stale: true };
            return { stale: false, state: judged.state, alerts: judged.alerts };
          },
        );
      } catch (error) {
        return failed(key, `cannot write the network health (${key})`, error);
      }
      const waiting = done.loaded.outbox.length + done.queued.length > 0 || holdsAny(done.loaded.held);
      return {
        queued: done.queued,
        written: done.queued.length > 0 || done.state !== done.loaded.state ? [key] : [],
        failures: [],
        send: async (options) =>
          waiting
            ? drainOutbox(
                {
                  ...deps,
                  state: store,
                  acknowledged: healthIncidentAcknowledged,
                  ...(deps.published === undefined ? {} : { published: deps.published.forScope(`${key}:`) }),
                },
                done.loaded,
                done.queued,
                { ...options, spillAbove: SPILL_ABOVE },
              )
            : NOTHING,
      };
    },
  };
}

/** A network's snapshot as the judge needs it; undefined (cut short) is no evidence. */
function outcomeOf(
  network: string,
  snapshot: Snapshot | undefined,
  readings: Record<string, boolean> | undefined,
): NetworkOutcome {
  if (snapshot === undefined) return { network, ok: false, noEvidence: true };
  if (snapshot.ok) return { network, ok: true, ...(readings === undefined ? {} : { readings }) };
  return {
    network,
    ok: false,
    ...(snapshot.errorKind === undefined ? {} : { errorKind: snapshot.errorKind }),
    ...(snapshot.httpStatus === undefined ? {} : { httpStatus: snapshot.httpStatus }),
    ...(snapshot.error === undefined ? {} : { error: snapshot.error }),
  };
}

/** The verdict of a judge whose item could not be read or written: the cycle runs in part. */
function failed(key: string, what: string, error: unknown): Verdict {
  const storeError =
    error instanceof StoreError
      ? error
      : new StoreError(`${what}: ${describeError(error)}`, { cause: error });
  return { queued: [], written: [], failures: [{ key, error: storeError }], send: async () => NOTHING };
}
