/**
 * Maintenance windows in the real cycle (CONTRACT §17, docs/silences.md): the clock moved (ahead of the real one:
 * the API client's deadlines are real time) across occurrences of
 * a weekly Sunday 02:00 Europe/Berlin window, in winter and in summer; inside each occurrence a change is
 * suppressed and recorded, what still holds is announced once at its end; maintenance.started and
 * maintenance.ended once per occurrence across duplicate cycles of two processes and an SNS outage; a window
 * declared in configuration (SHIELDWATCH_MAINTENANCE) silences the same way. Real parts on loopback: dynalite, a
 * fake protection API; SNS through aws-sdk-client-mock.
 */
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DynamoSilenceStore } from '../../lambda/adapters/silence-store.ts';
import { LogAlertPublisher } from '../../lambda/adapters/sns-publisher.ts';
import { buildMonitor, type Monitor } from '../../lambda/composition-root.ts';
import { loadConfig } from '../../lambda/config.ts';
import { newWindow } from '../../lambda/core/silences/maintenance-window.ts';
import { type CycleLog, runCycle } from '../../lambda/cycle.ts';
import { type LocalDynamo, startDynamo } from '../fixtures/dynalite.ts';
import { type FakeApi, startFakeApi } from '../fixtures/fake-api.ts';

const TOPIC = 'arn:aws:sns:us-east-1:123456789012:shieldwatch-alerts';
const quiet: CycleLog = { info: () => {}, warn: () => {}, error: () => {} };

function mockedSns() {
  const client = new SNSClient({
    region: 'us-east-1',
    credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
  });
  const sns = { client, down: false, subjects: [] as string[], attributes: [] as Record<string, string>[] };
  let ids = 0;
  mockClient(client)
    .on(PublishCommand)
    .callsFake(
      async (input: { Subject?: string; MessageAttributes?: Record<string, { StringValue?: string }> }) => {
        if (sns.down) throw Object.assign(new Error('SNS is down'), { name: 'InternalErrorException' });
        sns.subjects.push(input.Subject ?? '');
        sns.attributes.push(
          Object.fromEntries(
            Object.entries(input.MessageAttributes ?? {}).map(([k, v]) => [k, v.StringValue ?? '']),
          ),
        );
        return { MessageId: `m-${++ids}` };
      },
    );
  return sns;
}

describe('maintenance windows in the cycle', () => {
  let api: FakeApi;
  let dynamo: LocalDynamo;
  /** The monitors' clock: moved by the test across occurrences. */
  let clock = 0;
  const now = () => clock;
  const at = (iso: string) => {
    clock = Date.parse(iso);
  };

  beforeEach(async () => {
    api = await startFakeApi({ key: 'maintenance-key-0123456789' });
    dynamo = await startDynamo();
  });
  afterEach(async () => {
    await api.close();
    await dynamo.close();
  });

  const monitor = (sns: SNSClient, extraEnv: Record<string, string> = {}): Monitor => {
    const env = {
      SHIELDWATCH_API_URL: api.url,
      SHIELDWATCH_API_KEY: api.key,
      SHIELDWATCH_TABLE: dynamo.table,
      SHIELDWATCH_TOPIC_ARN: TOPIC,
      SHIELDWATCH_TIMEOUT_MS: '3000',
      SHIELDWATCH_RETRIES: '0',
      ...extraEnv,
    };
    return buildMonitor({
      config: loadConfig(env),
      env,
      dynamo: dynamo.client,
      sns,
      log: quiet,
      fallbackPublisher: new LogAlertPublisher(() => {}),
      now,
    });
  };
  const cycle = (m: Monitor) => runCycle(m.deps, m.settings, m.deps.now() + 4000);
  const status = (value: string) => {
    api.filter = () => ({ body: { status: value } });
  };

  it('weekly Sunday 02:00 Berlin: 01:00 UTC in winter, 00:00 UTC in summer; suppressed inside, announced once after, notices once each across duplicate cycles', async () => {
    // Prepare: the window, made on a winter Friday, with notices.
    at('2027-03-19T12:00:00Z');
    const made = newWindow(
      {
        start: '02:00',
        for: '1h',
        repeat: 'FREQ=WEEKLY;BYDAY=SU',
        tz: 'Europe/Berlin',
        event: 'filter.*',
        reason: 'filter update',
        notify: true,
      },
      now(),
      's-wwwwwwww',
    );
    if (!made.ok) throw new Error(made.problems.join('; '));
    expect(await new DynamoSilenceStore(dynamo.client, dynamo.table).putWindow(made.window)).toBe(true);
    const sns = mockedSns();
    // Two processes (warm Lambda containers) running the same ticks: duplicate cycles.
    const [a, b] = [monitor(sns.client), monitor(sns.client)];
    const both = async () => {
      await cycle(a);
      await cycle(b);
    };
    status('A');
    at('2027-03-21T00:30:00Z'); // 01:30 Berlin (winter): before the occurrence
    await both();

    // Act + Assess, winter: 02:10 Berlin is 01:10 UTC.
    status('B');
    at('2027-03-21T01:10:00Z');
    await both();
    expect(sns.subjects).toEqual(['[shieldwatch] maintenance started s-wwwwwwww: filter update']);
    expect(sns.attributes[0]).toMatchObject({
      event: 'maintenance.started',
      silence: 's-wwwwwwww',
      reason: 'filter update',
    });
    at('2027-03-21T01:40:00Z');
    await both();
    at('2027-03-21T02:00:30Z'); // 03:00:30 Berlin: the occurrence is over
    await both();
    at('2027-03-21T02:02:00Z');
    await both();
    expect(sns.subjects).toEqual([
      '[shieldwatch] maintenance started s-wwwwwwww: filter update',
      '[shieldwatch] maintenance ended s-wwwwwwww: filter update',
      '[shieldwatch] still B after silence s-wwwwwwww',
    ]);

    // Summer (28 March 2027 the clocks went forward): 02:10 Berlin is 00:10 UTC; 01:10 UTC is 03:10 Berlin, outside.
    sns.subjects.length = 0;
    at('2027-04-04T00:10:00Z');
    status('C');
    await both();
    expect(sns.subjects).toEqual(['[shieldwatch] maintenance started s-wwwwwwww: filter update']);
    // The SNS outage: the end waits in the outbox, sent once when SNS is back.
    sns.down = true;
    at('2027-04-04T01:00:30Z');
    await both();
    sns.down = false;
    at('2027-04-04T01:02:00Z');
    await both();
    at('2027-04-04T01:03:00Z');
    await both();
    status('D');
    at('2027-04-04T01:10:00Z');
    await both();
    expect(sns.subjects).toEqual([
      '[shieldwatch] maintenance started s-wwwwwwww: filter update',
      '[shieldwatch] maintenance ended s-wwwwwwww: filter update',
      '[shieldwatch] still C after silence s-wwwwwwww',
      expect.stringContaining('Filter status changed'),
    ]);
    const events = await a.store.queryEvents({});
    expect(events.filter((e) => e.suppressedBy === 's-wwwwwwww').map((e) => `${e.from}>${e.to}`)).toEqual([
      'A>B',
      'B>C',
    ]);
    expect(events.filter((e) => e.event.startsWith('maintenance.')).map((e) => e.event)).toEqual([
      'maintenance.started',
      'maintenance.ended',
      'maintenance.started',
      'maintenance.ended',
    ]);
  });

  it('a window declared in configuration silences the same way; cancelled mid-occurrence, it ends', async () => {
    // Prepare
    at('2026-12-01T09:00:00Z');
    const sns = mockedSns();
    const declared = JSON.stringify([
      {
        start: '2026-12-01T10:00',
        for: '2h',
        repeat: 'daily',
        tz: 'UTC',
        event: 'filter.*',
        reason: 'backup',
        notify: true,
      },
    ]);
    const m = monitor(sns.client, { SHIELDWATCH_MAINTENANCE: declared });
    status('A');
    await cycle(m);

    // Act: a change inside the declared occurrence, then one the day after, outside.
    at('2026-12-01T10:30:00Z');
    status('B');
    await cycle(m);
    at('2026-12-01T12:00:30Z');
    await cycle(m);
    at('2026-12-02T09:00:00Z');
    status('C');
    await cycle(m);

    // Assess
    expect(sns.subjects).toEqual([
      '[shieldwatch] maintenance started s-' + sns.attributes[0]!['silence']!.slice(2) + ': backup',
      expect.stringContaining('maintenance ended'),
      expect.stringContaining('still B after silence'),
      expect.stringContaining('Filter status changed'),
    ]);

    // A monitor deployed without it (the window removed from context): no longer silenced.
    const without = monitor(sns.client);
    at('2026-12-02T10:30:00Z');
    status('D');
    await cycle(without);
    expect(sns.subjects.at(-1)).toContain('Filter status changed');
  });

  it('a stored window cancelled mid-occurrence: its end is announced, what follows is sent', async () => {
    at('2026-12-01T09:00:00Z');
    const store = new DynamoSilenceStore(dynamo.client, dynamo.table);
    const made = newWindow({ start: '2026-12-01T10:00Z', for: '2h', notify: true }, now(), 's-cccccccc');
    if (!made.ok) throw new Error(made.problems.join('; '));
    await store.putWindow(made.window);
    const sns = mockedSns();
    const m = monitor(sns.client);
    status('A');
    await cycle(m);
    at('2026-12-01T10:05:00Z');
    await cycle(m);
    expect(await store.cancel('s-cccccccc')).toBe(true);
    at('2026-12-01T10:06:00Z');
    status('B');
    await cycle(m);
    expect(sns.subjects).toEqual([
      '[shieldwatch] maintenance started s-cccccccc',
      '[shieldwatch] maintenance ended s-cccccccc',
      expect.stringContaining('Filter status changed'),
    ]);
    expect(await store.cancel('s-cccccccc')).toBe(false);
  });
});
