import { loadConfig } from '../../lambda/config.ts';
import { displayStatus } from '../../lambda/core/detect/status.ts';
import { pollDeadlines } from '../../lambda/core/time-budget.ts';
import type { Snapshot } from '../../lambda/core/types.ts';
import { type CycleResult, runCycle } from '../../lambda/cycle.ts';
import { defineCommand } from '../args.ts';
import { clip, palette, printable, renderTable, useColour } from '../format.ts';
import { type CliIo, println } from '../io.ts';
import { LiveMonitorConflict, liveGuard, TAKE_OVER_OPTION } from '../live-monitor.ts';
import { openMonitor } from '../monitor.ts';

function describeSnapshot(snapshot: Snapshot): string {
  if (!snapshot.ok) return `${snapshot.errorKind ?? 'error'}: ${snapshot.error ?? ''}`;
  if (snapshot.status !== undefined)
    return `status ${JSON.stringify(displayStatus(snapshot.status))} (${snapshot.statusPath ?? ''})`;
  return 'ok';
}

/** The short summary `poll` (and `run`) print after a cycle. */
export function summarize(
  result: CycleResult,
  io: CliIo,
  publisherTarget: string,
  expected?: string,
): string {
  const colour = palette(useColour(io.stdout, io.env));
  const rows = [...(result.filter === undefined ? [] : [result.filter]), ...result.networks].map((s) => [
    s.target.kind === 'filter' ? 'filter' : clip(printable(s.target.networkId), 40),
    s.ok ? colour.green('ok') : colour.red('FAIL'),
    s.httpStatus === undefined ? '-' : String(s.httpStatus),
    s.latencyMs === undefined ? '-' : `${s.latencyMs} ms`,
    clip(printable(describeSnapshot(s)), 100),
  ]);
  const alerts = [
    `${result.queued.length} new`,
    `${result.delivered.length} sent to ${publisherTarget}`,
    ...(result.suppressed.length > 0
      ? [
          `${result.suppressed.length} silenced (${[...new Set(result.suppressed.map((s) => s.suppressedBy))].join(', ')})`,
        ]
      : []),
    ...(result.failed.length > 0
      ? [colour.red(`${result.failed.length} failed (${clip(result.failed[0]?.error ?? '', 80)})`)]
      : []),
    `${result.pending} waiting`,
  ].join(', ');
  return [
    `cycle ${result.cycleId} at ${result.startedAt} took ${result.durationMs} ms${result.stale ? ' (older than a cycle already applied: no decision)' : ''}`,
    renderTable(['target', 'result', 'http', 'latency', 'detail'], rows),
    statusLine(result, colour, expected),
    `alerts: ${alerts}`,
  ].join('\n');
}

/**
 * The filter status line: the confirmed status, and, when this cycle read no status (the request failed, the
 * key was rejected, the status was unreadable), that the status shown is only the last known one; a
 * confirmed status away from the expected one says so (`shieldwatch check` names a difference of case or spaces).
 */
function statusLine(result: CycleResult, colour: ReturnType<typeof palette>, expected?: string): string {
  const line = observedStatusLine(result, colour);
  if (expected === undefined || result.status === undefined || result.status === expected) return line;
  return `${line} ${colour.yellow(`(AWAY from expected ${clip(printable(JSON.stringify(expected)), 100)}: an open incident; see shieldwatch status)`)}`;
}

function observedStatusLine(result: CycleResult, colour: ReturnType<typeof palette>): string {
  const show = (status: string) => clip(printable(JSON.stringify(displayStatus(status))), 200);
  const known = result.status === undefined ? undefined : show(result.status);
  const filter = result.filter;
  if (filter?.ok === true && filter.status !== undefined) {
    if (known !== undefined && filter.status !== result.status && !result.stale) {
      return `filter status: ${known} (observed ${show(filter.status)}, not confirmed yet)`;
    }
    return `filter status: ${known ?? '(not known yet)'}`;
  }
  const why =
    filter === undefined
      ? 'this cycle did not poll it'
      : `${filter.errorKind ?? 'error'}${filter.httpStatus === undefined ? '' : ` (HTTP ${filter.httpStatus})`}`;
  return colour.yellow(
    `filter status: ${known === undefined ? '(not known yet)' : `${known}, the last known`}; NOT observed this cycle: ${why}`,
  );
}

export const pollCommand = defineCommand({
  name: 'poll',
  description: [
    'Runs one cycle: requests the filter status and each network in SHIELDWATCH_NETWORKS, stores one',
    'snapshot per observation, detects a filter status change and sends its alert (SNS when',
    'SHIELDWATCH_TOPIC_ARN is set, otherwise printed here), then prints a short summary.',
  ].join('\n'),
  options: {
    verbose: { type: 'boolean', description: "also print the cycle's log lines (stderr)" },
    ...TAKE_OVER_OPTION,
  },
  examples: ['poll', 'poll --verbose', 'poll --stack Shieldwatch'],
  notes: [
    'Exit codes: 0 the cycle ran (API failures are recorded, not fatal); 1 the store could not be',
    "written, the key could not be read or this machine's clock is more than a minute off the store's",
    '(nothing is written then); 2 bad configuration (every problem is listed), or another monitor (a run,',
    'the deployed schedule) is live on the store with other settings (they are named; --take-over goes on).',
  ].join('\n'),
  async run(values, io) {
    const config = loadConfig(io.env);
    // The budget counts from the process start (lambda/core/time-budget.ts). A store that does not answer is
    // given up at the deadline: its requests are aborted, so neither they nor the SDK's retries hold the process.
    const deadlines = pollDeadlines(Math.round(performance.timeOrigin), config.cycleTimeoutMs);
    const opening = AbortSignal.timeout(deadlines.openingMs(io.now()));
    const unanswered = (error: unknown): never => {
      if (!opening.aborted) throw error;
      throw new Error(
        `the store did not answer within SHIELDWATCH_CYCLE_TIMEOUT_MS (${config.cycleTimeoutMs} ms): ${(error as Error).message}`,
        { cause: error },
      );
    };
    const { monitor, store, close, checkClock } = await openMonitor(
      io,
      config,
      values.verbose,
      opening,
    ).catch(unanswered);
    try {
      // Before anything is written: a cycle timed by a clock far off the store's is refused (docs/design/cycle.md, Clocks).
      await checkClock(opening).catch(unanswered);
      // One store, one monitor: not with other settings than the live one's (docs/design/cycle.md).
      const guard = liveGuard({
        command: 'poll',
        config,
        store,
        keys: monitor.keys,
        now: io.now,
        takeOver: values['take-over'] === true,
      });
      try {
        await guard.check(opening);
      } catch (error) {
        if (!(error instanceof LiveMonitorConflict)) return unanswered(error);
        println(io.stderr, `shieldwatch poll: ${error.message}`);
        return error.exitCode;
      }
      const result = await runCycle(monitor.deps, monitor.settings, deadlines.cycleDeadline(io.now()));
      println(io.stdout, summarize(result, io, monitor.deps.publisher.target, config.expectedStatus));
      println(io.stdout, `store: ${store.description}`);
      return 0;
    } finally {
      await close();
    }
  },
});
