import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '../../lambda/config.ts';
import { runCycleDeadline } from '../../lambda/core/time-budget.ts';
import { runCycle, StoreError } from '../../lambda/cycle.ts';
import { defineCommand } from '../args.ts';
import { palette, parseCount, parseDurationMs, useColour } from '../format.ts';
import { type CliIo, println } from '../io.ts';
import { type LiveGuard, LiveMonitorConflict, liveGuard, TAKE_OVER_OPTION } from '../live-monitor.ts';
import { cycleLine, openMonitor } from '../monitor.ts';

/** What {@link monitor} needs besides the opened monitor. */
export interface MonitorLoopOptions {
  /** Interval between cycle starts, ms. */
  readonly everyMs: number;
  /** Stop after this many cycles. */
  readonly maxCycles: number;
  /** A cycle's budget, ms (at most the interval, at least 2 s). */
  readonly cycleTimeoutMs: number;
  /** Aborted: no new cycle starts. */
  readonly stopping: AbortSignal;
  /** Aborted: the cycle in flight is cut short. */
  readonly cutting: AbortSignal;
  /**
   * One store, one monitor: checked and beaten before each cycle; a conflict ends the loop.
   * @default - none: no heartbeat
   */
  readonly live?: LiveGuard;
}

/** How a run went. */
export interface MonitorLoopResult {
  readonly cycles: number;
  /** Cycles that could not run (the store or the key failed); each was logged and the run went on. */
  readonly failed: number;
  /** Another monitor went live on the store with other settings: the run stopped, saying so. */
  readonly conflict?: LiveMonitorConflict;
}

/**
 * The `run` loop: a cycle every interval until stopped. A cycle that cannot run (the store unreachable, the
 * key unreadable) is logged and the next one runs as planned; the embedded store's server is kept alive while
 * the loop runs and restarted before a cycle when it has gone.
 */
export async function monitor(
  opened: Awaited<ReturnType<typeof openMonitor>>,
  io: CliIo,
  options: MonitorLoopOptions,
): Promise<MonitorLoopResult> {
  const colour = palette(useColour(io.stderr, io.env));
  const release = opened.store.keepAlive();
  let cycles = 0;
  let failed = 0;
  try {
    let next = io.now();
    while (!options.stopping.aborted && cycles < options.maxCycles) {
      const startedAt = io.now();
      try {
        await opened.store.revive();
        // Before every cycle: the clock may have been set since the last one (docs/design/cycle.md, Clocks).
        await opened.checkClock(options.cutting);
        await options.live?.check(options.cutting);
        await options.live?.beat(options.cutting);
        const result = await runCycle(
          opened.monitor.deps,
          opened.monitor.settings,
          runCycleDeadline(io.now(), options.cycleTimeoutMs, options.everyMs),
          { signal: options.cutting },
        );
        println(io.stdout, cycleLine(result, io));
      } catch (error) {
        if (error instanceof LiveMonitorConflict) return { cycles, failed, conflict: error };
        failed++;
        println(
          io.stderr,
          colour.red(
            `${new Date(startedAt).toISOString().slice(11, 19)}  ${ranInPart(error) ? 'cycle ran in part (the next one runs as planned)' : 'cycle could not run (nothing stored, the next one runs as planned)'}: ${(error as Error).message ?? String(error)}`,
          ),
        );
      }
      cycles++;
      if (cycles >= options.maxCycles || options.stopping.aborted) break;
      next += options.everyMs;
      const now = io.now();
      if (next < now) next = now + options.everyMs - ((now - next) % options.everyMs);
      // Ends early when the run is stopped; the timer's abort listener goes with each wait.
      await sleep(next - now, undefined, { signal: options.stopping }).catch(() => undefined);
    }
  } finally {
    release();
  }
  return { cycles, failed };
}

export const runCommand = defineCommand({
  name: 'run',
  description: [
    'Runs the same poll cycle as the Lambda, every interval, and prints one line per cycle; alerts go to',
    'SNS when SHIELDWATCH_TOPIC_ARN is set, otherwise they are printed here as they fire.',
    '',
    'Ctrl-C stops after the cycle in flight has finished; a second Ctrl-C cuts it short (what was',
    'observed is stored and the stopped requests are recorded as cut short).',
  ].join('\n'),
  options: {
    every: {
      type: 'string',
      value: 'DURATION',
      default: '60s',
      description:
        'interval between cycle starts: 1s to 24h; a cycle that overruns skips the ticks it missed',
    },
    cycles: { type: 'string', value: 'N', description: 'stop after N cycles (default: run until stopped)' },
    verbose: { type: 'boolean', description: "also print the cycle's log lines (stderr)" },
    ...TAKE_OVER_OPTION,
  },
  examples: ['run', 'run --every 30s', 'run --every 5s --cycles 3 --verbose'],
  notes: [
    "A cycle that cannot run (the store unreachable, the key unreadable, this machine's clock more than a",
    "minute off the store's) is logged on stderr and the next one runs as planned; the embedded store is",
    'kept running meanwhile and restarted when it has gone.',
    'While it runs it records a heartbeat in the store with a fingerprint of its settings (keyed hashes, no',
    'value): a poll or run with other settings on the same store is refused (exit 2) until it stops.',
    'Exit 0 when stopped, 1 when any cycle could not run, 2 when another monitor is live on the store with',
    'other settings (at the start, or when one took over with --take-over).',
  ].join('\n'),
  async run(values, io: CliIo) {
    const everyMs = parseDurationMs('--every', values.every, 1000, 86_400_000);
    const maxCycles =
      values.cycles === undefined ? Number.POSITIVE_INFINITY : parseCount('--cycles', values.cycles);
    const config = loadConfig(io.env);
    const opened = await openMonitor(io, config, values.verbose);
    const live = liveGuard({
      command: 'run',
      config,
      store: opened.store,
      keys: opened.monitor.keys,
      now: io.now,
      takeOver: values['take-over'] === true,
      everyMs,
    });
    // Before the first line: a run refused is told at once, not after its first interval. The embedded store's
    // server is kept alive meanwhile and revived first (it may have stopped idle since it was opened), and only
    // a refusal ends the run here: a store or key that fails is the first cycle's, logged like any other. The
    // run's own fingerprint (the key's scrypt) is made now, so that no cycle waits for it.
    let refused: LiveMonitorConflict | undefined;
    const release = opened.store.keepAlive();
    try {
      await opened.store.revive();
      await live.check();
      await live.prepare();
    } catch (error) {
      if (error instanceof LiveMonitorConflict) refused = error;
    } finally {
      release();
    }
    if (refused !== undefined) {
      await opened.close();
      println(io.stderr, `shieldwatch run: ${refused.message}`);
      return refused.exitCode;
    }
    const stopping = new AbortController();
    const cutting = new AbortController();
    let signals = 0;
    const onSignal = () => {
      signals++;
      if (signals === 1) {
        println(io.stderr, 'stopping after the cycle in flight (Ctrl-C again to cut it short)');
        stopping.abort();
      } else cutting.abort();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    // Output closed (`run | head`): stop as on a first Ctrl-C, with nothing to say and nowhere to say it.
    const onClosed = () => stopping.abort();
    io.closed?.addEventListener('abort', onClosed, { once: true });
    println(
      io.stdout,
      `shieldwatch run: every ${everyMs / 1000}s, ${config.networks.length} network(s), alerts to ${opened.monitor.deps.publisher.target}; store: ${opened.store.description}`,
    );
    try {
      const { cycles, failed, conflict } = await monitor(opened, io, {
        everyMs,
        maxCycles,
        cycleTimeoutMs: config.cycleTimeoutMs,
        stopping: stopping.signal,
        cutting: cutting.signal,
        live,
      });
      if (conflict !== undefined) println(io.stderr, `shieldwatch run: ${conflict.message}`);
      println(
        io.stdout,
        `stopped after ${cycles} cycle(s)${failed === 0 ? '' : `, ${failed} of them could not run`}`,
      );
      return conflict !== undefined ? conflict.exitCode : failed === 0 ? 0 : 1;
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      io.closed?.removeEventListener('abort', onClosed);
      await live.stop();
      await opened.close();
    }
  },
});

/** True when the cycle failed after committing the monitor state (its error says what it committed). */
function ranInPart(error: unknown): boolean {
  return error instanceof StoreError && error.committed !== undefined;
}
