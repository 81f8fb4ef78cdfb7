/** Building the monitor for the CLI (store, SNS or the terminal for alerts) and how it shows a cycle. */
import { createSecretsClient } from '../lambda/adapters/secrets-client.ts';
import { createSnsClient } from '../lambda/adapters/sns-client.ts';
import { LogAlertPublisher } from '../lambda/adapters/sns-publisher.ts';
import { ClockSkewError, StoreClock } from '../lambda/adapters/store-clock.ts';
import { buildMonitor } from '../lambda/composition-root.ts';
import type { MonitorConfig } from '../lambda/config.ts';
import { displayStatus } from '../lambda/core/detect/status.ts';
import type { RenderedAlert } from '../lambda/core/types.ts';
import { type CycleLog, type CycleResult, StoreError } from '../lambda/cycle.ts';
import { describeError } from '../lambda/errors.ts';
import { clip, palette, printable, useColour } from './format.ts';
import { type CliIo, println } from './io.ts';
import { openStore } from './store/open.ts';

/** A log for the terminal: warnings and errors on stderr, details only with --verbose. */
export function terminalLog(io: CliIo, verbose: boolean): CycleLog {
  const line = (level: string, message: string, extra: Record<string, unknown>[]) => {
    const fields = extra.length === 0 ? '' : ` ${JSON.stringify(Object.assign({}, ...extra))}`;
    println(io.stderr, `${level} ${message}${fields}`);
  };
  return {
    info: (message, ...extra) => {
      if (verbose) line('info', message, extra);
    },
    warn: (message, ...extra) => line('warn', message, extra),
    error: (message, ...extra) => line('error', message, extra),
  };
}

/** Prints an alert that has no topic to go to. */
export function printAlert(io: CliIo, alert: RenderedAlert): void {
  const colour = palette(useColour(io.stdout, io.env));
  println(
    io.stdout,
    colour.bold(colour.yellow(`ALERT ${alert.attributes['event'] ?? ''}: ${alert.subject}`)),
  );
  println(io.stdout, `  ${printable(alert.sms)}`);
}

/**
 * Builds the monitor for the CLI: the store (embedded or configured), SNS or the terminal for alerts.
 * `signal` aborts opening the store. `checkClock` is to be called before each cycle (docs/design/cycle.md, Clocks).
 */
export async function openMonitor(io: CliIo, config: MonitorConfig, verbose: boolean, signal?: AbortSignal) {
  const store = await openStore(io.env, config.table, signal === undefined ? {} : { signal });
  const sns = config.topicArn === undefined ? undefined : createSnsClient(io.env);
  // The API key's secret, and the acknowledge link's signing key when SHIELDWATCH_ACK_* are set.
  const secrets =
    config.apiKey.kind === 'secret' || config.ackLink !== undefined ? createSecretsClient(io.env) : undefined;
  const monitor = buildMonitor({
    config,
    env: io.env,
    dynamo: store.client,
    ...(sns === undefined ? {} : { sns }),
    ...(secrets === undefined ? {} : { secrets }),
    log: terminalLog(io, verbose),
    fallbackPublisher: new LogAlertPublisher((alert) => printAlert(io, alert)),
    now: io.now,
  });
  const clock = new StoreClock(store.client, config.table, io.now);
  return {
    monitor,
    store,
    /**
     * Compares this machine's clock with the store's, with one small read: throws {@link ClockSkewError}
     * when it is off by more than tolerated (a cycle timed by a clock ahead would make the cycles after it
     * look stale), {@link StoreError} when the store cannot be read. Nothing is written either way.
     */
    checkClock: async (signal?: AbortSignal): Promise<void> => {
      try {
        await clock.check(signal);
      } catch (error) {
        if (error instanceof ClockSkewError) throw error;
        throw new StoreError(`cannot read the store (${store.description}): ${describeError(error)}`, {
          cause: error,
        });
      }
    },
    // Destroying the clients closes their sockets, so a call SNS never answered cannot keep the process alive.
    close: async () => {
      await monitor.close();
      store.client.destroy();
      sns?.destroy();
      secrets?.destroy();
    },
  };
}

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
    result.suppressed.length > 0 ? `${result.suppressed.length} silenced` : '',
    result.failed.length > 0 ? colour.red(`${result.failed.length} failed`) : '',
    result.pending > 0 ? colour.yellow(`${result.pending} waiting`) : '',
    result.cutShort ? colour.yellow('cut short') : '',
  ].filter((part) => part !== '');
  return [time, filter, networks, `${result.durationMs} ms`, ...alerts]
    .filter((part) => part !== '')
    .join('  ');
}
