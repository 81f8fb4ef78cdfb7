import { loadConfig } from '../../lambda/config.ts';
import { displayStatus } from '../../lambda/core/status.ts';
import { type CycleResult, runCycle } from '../../lambda/cycle.ts';
import { clip, palette, parseCount, parseDurationMs, printable, useColour } from '../format.ts';
import { type CliIo, type Command, println } from '../io.ts';
import { openMonitor } from './poll.ts';

/** One line per cycle, for a terminal or a log. */
export function cycleLine(result: CycleResult, io: CliIo): string {
  const colour = palette(useColour(io.stdout, io.env));
  const time = result.startedAt.slice(11, 19);
  const filter =
    result.filter === undefined
      ? ''
      : result.filter.ok
        ? `filter ${clip(printable(JSON.stringify(displayStatus(result.filter.status ?? ''))), 30)}`
        : colour.red(`filter ${result.filter.errorKind ?? 'error'}`);
  const okCount = result.networks.filter((n) => n.ok).length;
  const networks =
    result.networks.length === 0
      ? ''
      : okCount === result.networks.length
        ? `networks ${okCount}/${result.networks.length} ok`
        : colour.yellow(`networks ${okCount}/${result.networks.length} ok`);
  const alerts = [
    result.queued.length > 0 ? colour.bold(`${result.queued.length} new alert(s)`) : '',
    result.delivered.length > 0 ? `${result.delivered.length} sent` : '',
    result.failed.length > 0 ? colour.red(`${result.failed.length} failed`) : '',
    result.pending > 0 ? colour.yellow(`${result.pending} waiting`) : '',
    result.cutShort ? colour.yellow('cut short') : '',
  ].filter((part) => part !== '');
  return [time, filter, networks, `${result.durationMs} ms`, ...alerts]
    .filter((part) => part !== '')
    .join('  ');
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

export const runCommand: Command = {
  name: 'run',
  summary: 'monitor continuously on this machine: one cycle every interval, until Ctrl-C',
  help: [
    'Usage: shieldwatch run [--every 60s] [--cycles N] [--verbose]',
    '',
    'Runs the same poll cycle as the Lambda, every interval, and prints one line per cycle; alerts go to',
    'SNS when SHIELDWATCH_TOPIC_ARN is set, otherwise they are printed here as they fire.',
    '',
    'Options:',
    '  --every DURATION  interval between cycle starts: 1s to 24h (default 60s); a cycle that overruns',
    '                    skips the ticks it missed',
    '  --cycles N        stop after N cycles (default: run until stopped)',
    "  --verbose         also print the cycle's log lines (stderr)",
    '  -h, --help        show this help',
    '',
    'Ctrl-C stops after the cycle in flight has finished; a second Ctrl-C cuts it short (what was',
    'observed is stored and the stopped requests are recorded as cut short). Exit 0 when stopped.',
  ].join('\n'),
  options: { every: { type: 'string' }, cycles: { type: 'string' }, verbose: { type: 'boolean' } },
  async run(values, io: CliIo) {
    const everyMs = parseDurationMs(
      '--every',
      typeof values['every'] === 'string' ? values['every'] : '60s',
      1000,
      86_400_000,
    );
    const maxCycles =
      typeof values['cycles'] === 'string'
        ? parseCount('--cycles', values['cycles'])
        : Number.POSITIVE_INFINITY;
    const config = loadConfig(io.env);
    const opened = await openMonitor(io, config, values['verbose'] === true);
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
    println(
      io.stdout,
      `shieldwatch run: every ${everyMs / 1000}s, ${config.networks.length} network(s), alerts to ${opened.monitor.deps.publisher.target}; store: ${opened.store.description}`,
    );
    try {
      let cycles = 0;
      let next = io.now();
      while (!stopping.signal.aborted && cycles < maxCycles) {
        const result = await runCycle(
          opened.monitor.deps,
          opened.monitor.settings,
          io.now() + Math.min(config.cycleTimeoutMs, Math.max(everyMs, 2000)),
          {
            signal: cutting.signal,
          },
        );
        cycles++;
        println(io.stdout, cycleLine(result, io));
        if (cycles >= maxCycles || stopping.signal.aborted) break;
        next += everyMs;
        const now = io.now();
        if (next < now) next = now + everyMs - ((now - next) % everyMs);
        await sleep(next - now, stopping.signal);
      }
      println(io.stdout, `stopped after ${cycles} cycle(s)`);
      return 0;
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      await opened.close();
    }
  },
};
