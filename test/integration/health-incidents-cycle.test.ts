/**
 * Blind-spot incidents are incidents too (CONTRACT §13-14; docs/acknowledge.md): real poll cycles against a
 * loopback API and dynalite, alerts to a fake SNS on loopback. A network that keeps failing opens
 * `network.unreachable`; while it is open and unacknowledged, `incident.reminder` every
 * `SHIELDWATCH_REMIND_EVERY` and `incident.escalated` once per stage of `SHIELDWATCH_ESCALATE_AFTER` (attribute
 * `stage`), whatever duplicated cycles; an acknowledgement (the write `shieldwatch ack` and the link make) is
 * recorded in the shard's health item, published once, stops both, and the recovery still resolves, once.
 */

import { SNSClient } from '@aws-sdk/client-sns';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LogAlertPublisher } from '../../lambda/adapters/sns-publisher.ts';
import { buildMonitor, type Monitor } from '../../lambda/composition-root.ts';
import { loadConfig } from '../../lambda/config.ts';
import { type CycleLog, runCycle } from '../../lambda/cycle.ts';
import { acknowledge, unacknowledge } from '../../lambda/incident-acks.ts';
import { type LocalDynamo, startDynamo } from '../fixtures/dynalite.ts';
import { type FakeApi, type Reply, startFakeApi } from '../fixtures/fake-api.ts';
import { type FakeSns, startFakeSns } from '../fixtures/fake-aws.ts';

const TOPIC = 'arn:aws:sns:us-east-1:123456789012:shieldwatch-alerts';
const quiet: CycleLog = { info: () => {}, warn: () => {}, error: () => {} };

describe('blind-spot incidents: reminders, escalation, acknowledgement (dynalite, loopback API, fake SNS)', () => {
  let api: FakeApi;
  let dynamo: LocalDynamo;
  let fakeSns: FakeSns;
  let sns: SNSClient;
  let replies: Record<string, Reply>;
  let now: number;
  const normal: Reply = { body: { traffic: { in: { pps: 100 } } } };

  beforeEach(async () => {
    api = await startFakeApi({ key: 'health-incidents-key-0123' });
    dynamo = await startDynamo();
    fakeSns = await startFakeSns();
    sns = new SNSClient({
      region: 'us-east-1',
      endpoint: fakeSns.url,
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    });
    replies = { a1: normal, a2: normal };
    api.network = (id) => replies[id] ?? { status: 404, body: { error: 'no such network' } };
    now = Date.now();
  });
  afterEach(async () => {
    sns.destroy();
    await fakeSns.close();
    await api.close();
    await dynamo.close();
  });

  const monitor = (extra: Record<string, string>): Monitor => {
    const env = {
      SHIELDWATCH_API_URL: api.url,
      SHIELDWATCH_API_KEY: api.key,
      SHIELDWATCH_NETWORKS: 'a1,a2',
      SHIELDWATCH_TABLE: dynamo.table,
      SHIELDWATCH_TOPIC_ARN: TOPIC,
      SHIELDWATCH_TIMEOUT_MS: '2000',
      SHIELDWATCH_RETRIES: '0',
      SHIELDWATCH_ALERT_AFTER: '3',
      ...extra,
    };
    return buildMonitor({
      config: loadConfig(env),
      env,
      dynamo: dynamo.client,
      sns,
      log: quiet,
      fallbackPublisher: new LogAlertPublisher(() => {}),
      now: () => now,
    });
  };
  /** The monitor's cycle, `copies` times at once (duplicated invocations). */
  const cycle = (m: Monitor, copies = 1) =>
    Promise.all(Array.from({ length: copies }, () => runCycle(m.deps, m.settings, now + 15_000)));
  const minutes = async (m: Monitor, n: number, copies = 2) => {
    for (let i = 0; i < n; i++) {
      now += 60_000;
      await cycle(m, copies);
    }
  };
  const published = () =>
    fakeSns.publishes.map((p) => `${p.attributes['event']}@${p.attributes['stage'] ?? '-'}`);
  const documentOf = (p: FakeSns['publishes'][number]) =>
    JSON.parse(JSON.parse(p.message).sqs) as { incident?: string; at: string; action?: string };
  const fail = () => {
    replies['a1'] = { status: 404, body: { error: 'gone' } };
  };
  const healthItem = async () =>
    (
      await dynamo.client.send(
        new GetCommand({ TableName: dynamo.table, Key: { pk: 'state', sk: 'health#0' } }),
      )
    ).Item;

  it('reminders every REMIND_EVERY and escalations at ESCALATE_AFTER, once each; the recovery resolves at the stage reached', async () => {
    // Prepare: reminders every 15 minutes, escalation at 10m and 30m.
    const m = monitor({ SHIELDWATCH_REMIND_EVERY: '15m', SHIELDWATCH_ESCALATE_AFTER: '10m,30m' });
    await cycle(m);
    fail();

    // Act: 40 minutes of duplicated cycles (the incident opens at the third), then a1 answers again.
    await minutes(m, 42);
    const during = fakeSns.publishes.slice();
    replies['a1'] = normal;
    await minutes(m, 3);

    // Assess
    expect(during.map((p) => `${p.attributes['event']}@${p.attributes['stage']}`)).toEqual([
      'network.unreachable@1',
      'incident.escalated@2',
      'incident.reminder@2',
      // At 30 minutes the reminder is due at the stage reached, then the next stage.
      'incident.reminder@2',
      'incident.escalated@3',
    ]);
    expect(published().slice(during.length)).toEqual(['network.recovered@3']);
    const [opened, second, reminder, , third] = during;
    const id = documentOf(opened!).incident!;
    expect(id).toMatch(/^network\.unreachable\/0\//);
    const ageOf = (p: typeof opened) => Date.parse(documentOf(p!).at) - Date.parse(documentOf(opened!).at);
    expect([ageOf(second), ageOf(reminder), ageOf(third)]).toEqual([10 * 60_000, 15 * 60_000, 30 * 60_000]);
    for (const p of fakeSns.publishes) expect(documentOf(p).incident).toBe(id);
    expect(second!.attributes).toMatchObject({ event: 'incident.escalated', stage: '2', action: 'trigger' });
    expect(reminder!.attributes['action']).toBeUndefined();
    expect(reminder!.subject).toContain('REMINDER network still unreachable: a1 (client, HTTP 404)');
    expect(third!.subject).toContain('ESCALATED stage 3: network unreachable: a1');
    const end = fakeSns.publishes.at(-1)!;
    expect(end.attributes['action']).toBe('resolve');
    expect(documentOf(end).incident).toBe(id);
    // The timers are dropped with the incident.
    expect(JSON.parse(String((await healthItem())?.['state'])).incidents).toBeUndefined();
  });

  it('an acknowledgement stops reminders and escalations, is published once, and the recovery still resolves', async () => {
    // Prepare
    const m = monitor({ SHIELDWATCH_REMIND_EVERY: '5m', SHIELDWATCH_ESCALATE_AFTER: '10m,30m' });
    await cycle(m);
    fail();
    await minutes(m, 8);
    const beforeAck = published();
    const id = documentOf(fakeSns.publishes[0]!).incident!;

    // Act: two acknowledgements at once, racing a duplicated cycle; 40 minutes; then the recovery.
    const at = new Date(now).toISOString();
    const [acks] = await Promise.all([
      Promise.all([
        acknowledge(m.store, id, {
          by: 'arn:aws:iam::123456789012:user/alice',
          at,
          note: 'upstream ticket 42',
        }),
        acknowledge(m.store, id, { by: 'link', at }),
      ]),
      minutes(m, 1),
    ]);
    await minutes(m, 40);
    const whileAcknowledged = published().slice(beforeAck.length);
    replies['a1'] = normal;
    await minutes(m, 2);

    // Assess
    expect(beforeAck).toEqual(['network.unreachable@1', 'incident.reminder@1']);
    expect(acks.map((a) => a.outcome).sort()).toEqual(['acknowledged', 'already']);
    expect(whileAcknowledged).toEqual(['incident.acknowledged@1']);
    expect(published().slice(beforeAck.length + 1)).toEqual(['network.recovered@1']);
    const ack = fakeSns.publishes.find((p) => p.attributes['event'] === 'incident.acknowledged')!;
    expect(ack.attributes['action']).toBe('acknowledge');
    expect(documentOf(ack).incident).toBe(id);
    expect(ack.subject).toMatch(/ACK by (arn:aws:iam::|link)/);
    expect(fakeSns.publishes.at(-1)!.attributes['action']).toBe('resolve');
  });

  it('withdrawn (unack): the escalation due is sent at the next cycle; acknowledging a resolved one is refused', async () => {
    // Prepare
    const m = monitor({ SHIELDWATCH_ESCALATE_AFTER: '10m' });
    await cycle(m);
    fail();
    await minutes(m, 3);
    const id = documentOf(fakeSns.publishes[0]!).incident!;
    await acknowledge(m.store, id, { by: 'alice', at: new Date(now).toISOString() });
    await minutes(m, 15);
    const acknowledged = published();
    const stored = JSON.parse(String((await healthItem())?.['state'])).incidents[id];

    // Act
    const withdrawn = await unacknowledge(m.store, id, 'alice', new Date(now).toISOString());
    await minutes(m, 1);
    const escalated = published().slice(acknowledged.length);
    replies['a1'] = normal;
    await minutes(m, 1);
    const late = await acknowledge(m.store, id, { by: 'bob', at: new Date(now).toISOString() });

    // Assess
    expect(acknowledged).toEqual(['network.unreachable@1', 'incident.acknowledged@1']);
    expect(stored.acknowledged).toMatchObject({ by: 'alice' });
    expect(withdrawn.outcome).toBe('unacknowledged');
    expect(escalated).toEqual(['incident.escalated@2']);
    expect(late.outcome).toBe('not-open');
  });
});
