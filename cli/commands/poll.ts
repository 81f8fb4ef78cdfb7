import { loadConfig } from '../../lambda/config.ts';
import { displayStatus } from '../../lambda/core/status.ts';
import type { Snapshot } from '../../lambda/core/types.ts';
import { type CycleResult, runCycle } from '../../lambda/cycle.ts';
import { clip, palette, printable, renderTable, useColour } from '../format.ts';
import { type CliIo, type Command, println } from '../io.ts';
import { openMonitor } from '../monitor.ts';

/** Time kept after a `poll` cycle's deadline to print the summary and close the clients. */
const EXIT_MARGIN_MS = 500;

function describeSnapshot(snapshot: Snapshot): string {
  if (!snapshot.ok) return `${snapshot.errorKind ?? 'error'}: ${snapshot.error ?? ''}`;
  if (snapshot.status !== undefined)
    return `status ${JSON.stringify(displayStatus(snapshot.status))} (${snapshot.statusPath ?? ''})`;
  return 'ok';
}

/** The short summary `poll` (and `run`) print after a cycle. */
export function summarize(result: CycleResult, io: CliIo, publisherTarget: string): string {
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
    ...(result.failed.length > 0
      ? [colour.red(`${result.failed.length} failed (${clip(result.failed[0]?.error ?? '', 80)})`)]
      : []),
    `${result.pending} waiting`,
  ].join(', ');
  return [
    `cycle ${result.cycleId} at ${result.startedAt} took ${result.durationMs} ms${result.stale ? ' (older than a cycle already applied: no decision)' : ''}`,
    renderTable(['target', 'result', 'http', 'latency', 'detail'], rows),
    `filter status: ${result.status === undefined ? '(not known yet)' : clip(printable(JSON.stringify(displayStatus(result.status))), 200)}`,
    `alerts: ${alerts}`,
  ].join('\n');
}

export const pollCommand: Command = {
  name: 'poll',
  summary: 'run one poll cycle: poll, store, detect, alert; print a short summary',
  help: [
    'Usage: shieldwatch poll [--verbose]',
    '',
    'Runs one cycle: requests the filter status and each network in SHIELDWATCH_NETWORKS, stores one',
    'snapshot per observation, detects a filter status change and sends its alert (SNS when',
    'SHIELDWATCH_TOPIC_ARN is set, otherwise printed here), then prints a short summary.',
    '',
    'Options:',
    "  --verbose   also print the cycle's log lines (stderr)",
    '  -h, --help  show this help',
    '',
    'Exit codes: 0 the cycle ran (API failures are recorded, not fatal); 1 the store could not be',
    'written or the key could not be read; 2 bad configuration (every problem is listed).',
  ].join('\n'),
  options: { verbose: { type: 'boolean' } },
  async run(values, io) {
    const config = loadConfig(io.env);
    const { monitor, close } = await openMonitor(io, config, values['verbose'] === true);
    try {
      // The budget counts from the process start (start-up and the store come out of it), less a moment to
      // print and close, so `poll` as a whole ends within SHIELDWATCH_CYCLE_TIMEOUT_MS; but the cycle itself
      // always keeps at least half of it, however slow the start was.
      const now = io.now();
      const spentMs = Math.max(0, now - Math.round(performance.timeOrigin));
      const budgetMs = Math.max(config.cycleTimeoutMs / 2, config.cycleTimeoutMs - spentMs - EXIT_MARGIN_MS);
      const deadline = now + budgetMs;
      const result = await runCycle(monitor.deps, monitor.settings, deadline);
      println(io.stdout, summarize(result, io, monitor.deps.publisher.target));
      return 0;
    } finally {
      await close();
    }
  },
};
