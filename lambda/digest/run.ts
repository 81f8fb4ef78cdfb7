/**
 * One run of the digest function (CONTRACT §19, docs/digest.md). Each run (hourly, at the minute of `digestAt`):
 *
 * 1. reads the digest's item (`digest-item.ts`) and finds the newest period due ({@link latestDuePeriod});
 * 2. when it is not committed yet ({@link decideDigest}), reads that period's digest from the table
 *    (`read-digest.ts`) and commits it as one `monitor.digest` alert with the period's end, in one conditional
 *    write ({@link commitJudged}): a duplicated or concurrent run reads the newer item and commits nothing;
 * 3. sends the item's outbox with the one outbox protocol ({@link drainOutbox}): claimed, recorded as an event,
 *    removed only once SNS accepted it. A publish that fails stays in the outbox for the next run.
 *
 * So each period's digest is sent once: on time by the run at its due time, late (and once) by the first run
 * after a missed one. The first run of a new stack after a due time starts from it and sends nothing.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { commitJudged } from '../commit.ts';
import { encodeDigestBody } from '../core/digest/digest-body.ts';
import { decideDigest, latestDuePeriod, nextDue } from '../core/digest/digest-schedule.ts';
import { cycleBudget } from '../core/time-budget.ts';
import type { AlertRecord } from '../core/types.ts';
import { drainOutbox, type OutboxDeps, type PublishedAlerts } from '../outbox.ts';
import type { AlertPublisher } from '../ports.ts';
import type { DigestConfig } from './digest-env.ts';
import { digestStore } from './digest-item.ts';
import { readDigest } from './read-digest.ts';

/** What a run needs from outside. */
export interface DigestRunDeps {
  readonly client: DynamoDBClient;
  readonly table: string;
  readonly publisher: AlertPublisher;
  readonly log: OutboxDeps['log'];
  readonly metrics?: OutboxDeps['metrics'];
  /** Epoch ms. */
  readonly now: () => number;
  /** This process's memory of digests published but not yet removed from the outbox. */
  readonly published?: PublishedAlerts;
}

/** What one run did. */
export interface DigestRunResult {
  /**
   * `off` the setting is off; `sent-already` the newest period was committed before; `start` a first run
   * recorded its starting point; `committed` this run committed the period's digest.
   */
  readonly outcome: 'off' | 'sent-already' | 'start' | 'committed';
  /** The newest period due, when the digest is on. */
  readonly period?: { readonly since: string; readonly until: string };
  readonly late?: boolean;
  /** The next due time, ISO-8601. */
  readonly nextDue?: string;
  /** Digests published by this run (`seq` of each), failed, and left in the outbox. */
  readonly delivered: number[];
  readonly failed: Array<{ readonly seq: number; readonly error?: string }>;
  readonly pending: number;
}

/** One run at `deps.now()`, done by `options.deadlineMs`. */
export async function runDigest(
  deps: DigestRunDeps,
  config: Pick<DigestConfig, 'schedule' | 'monitorName' | 'page' | 'maintenance'>,
  options: { readonly runId: string; readonly deadlineMs: number },
): Promise<DigestRunResult> {
  const schedule = config.schedule;
  if (schedule === undefined) return { outcome: 'off', delivered: [], failed: [], pending: 0 };
  const startMs = deps.now();
  const budget = cycleBudget(startMs, options.deadlineMs);
  const store = digestStore(deps.client, deps.table);
  const period = latestDuePeriod(schedule, startMs);
  const first = await store.load();
  const decision = decideDigest(first.state.lastUntil, period, startMs);

  let outcome: DigestRunResult['outcome'] = decision.kind === 'send' ? 'committed' : decision.kind;
  let loaded = first;
  let queued: readonly AlertRecord[] = [];
  if (decision.kind !== 'sent-already') {
    // The period's digest is read once; a retried commit (another run wrote first) judges the newer item again.
    const body =
      decision.kind === 'send'
        ? encodeDigestBody({
            digest: await readDigest(deps.client, deps.table, {
              since: period.since,
              until: period.until,
              nowMs: startMs,
              ...(config.maintenance === undefined ? {} : { windows: config.maintenance }),
            }),
            period,
            tz: schedule.tz,
            ...(config.page === undefined ? {} : { page: config.page }),
            ...(decision.late ? { late: true } : {}),
          })
        : undefined;
    const at = new Date(startMs).toISOString();
    const done = await commitJudged(
      store,
      'the digest',
      first,
      { claimant: options.runId, untilMs: budget.claimUntilMs },
      (item) => {
        const last = item.state.lastUntil;
        if (last !== undefined && Date.parse(last) >= Date.parse(period.until)) return { stale: true };
        const alerts: AlertRecord[] =
          body === undefined ? [] : [{ event: 'monitor.digest', at, seq: item.state.nextSeq, digest: body }];
        return {
          stale: false,
          state: { nextSeq: item.state.nextSeq + alerts.length, lastUntil: period.until },
          alerts,
        };
      },
    );
    loaded = done.loaded;
    queued = done.queued;
    if (done.stale) outcome = 'sent-already';
  }

  const drained =
    loaded.outbox.length + queued.length === 0
      ? { delivered: [], failed: [], pending: 0 }
      : await drainOutbox(
          {
            state: store,
            publisher: deps.publisher,
            log: deps.log,
            now: deps.now,
            ...(deps.metrics === undefined ? {} : { metrics: deps.metrics }),
            ...(deps.published === undefined ? {} : { published: deps.published.forScope('digest:') }),
          },
          loaded,
          queued,
          { cycleId: options.runId, monitorName: config.monitorName, budget, networks: () => [] },
        );
  return {
    outcome,
    period: { since: period.since, until: period.until },
    ...(decision.kind === 'send' && decision.late ? { late: true } : {}),
    nextDue: nextDue(schedule, startMs),
    delivered: drained.delivered.map((d) => d.seq),
    failed: drained.failed.map((d) => ({ seq: d.seq, ...(d.error === undefined ? {} : { error: d.error }) })),
    pending: drained.pending,
  };
}
