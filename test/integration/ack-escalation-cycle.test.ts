/**
 * Escalation and acknowledgement in whole poll cycles (docs/acknowledge.md; CONTRACT §14): real cycles against a
 * loopback API and dynalite, alerts to a fake SNS on loopback. An incident open and unacknowledged publishes
 * `incident.escalated` once per stage of `SHIELDWATCH_ESCALATE_AFTER` (attribute `stage`), whatever duplicated
 * cycles; an acknowledgement (the store write `shieldwatch ack` and the link make) is published once, stops the
 * reminders and escalations, and the resolve is still sent, at the stage reached.
 */
import { SNSClient } from '@aws-sdk/client-sns';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LogAlertPublisher } from '../../lambda/adapters/sns-publisher.ts';
import { buildMonitor, type Monitor } from '../../lambda/composition-root.ts';
import { loadConfig } from '../../lambda/config.ts';
import { type CycleLog, runCycle } from '../../lambda/cycle.ts';
import { acknowledge, unacknowledge } from '../../lambda/incident-acks.ts';
import { type LocalDynamo, startDynamo } from '../fixtures/dynalite.ts';
import { type FakeApi, startFakeApi } from '../fixtures/fake-api.ts';
import { type FakeSns, startFakeSns } from '../fixtures/fake-aws.ts';

const TOPIC = 'arn:aws:sns:us-east-1:123456789012:shieldwatch-alerts';
const quiet: CycleLog = { info: () => {}, warn: () => {}, error: () => {} };

describe('escalation and acknowledgement in the poll cycle (dynalite, loopback API, fake SNS)', () => {
  let api: FakeApi;
  let dynamo: LocalDynamo;
  let fakeSns: FakeSns;
  let sns: SNSClient;
  let pps: Record<string, number>;
  let now: number;

  beforeEach(async () => {
    api = await startFakeApi({ key: 'ack-escalation-key-0123' });
    dynamo = await startDynamo();
    fakeSns = await startFakeSns();
    sns = new SNSClient({
      region: 'us-east-1',
      endpoint: fakeSns.url,
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    });
    pps = {};
    api.network = (id) => ({ body: { traffic: { in: { pps: pps[id] ?? 100 } } } });
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
      SHIELDWATCH_RULES: 'flood: traffic.in.pps > 500k',
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
  const published = () => fakeSns.publishes.map((p) => `${p.attributes['event']}@${p.attributes['stage']}`);
  const attack = () => {
    pps['a1'] = 900_000;
    pps['a2'] = 700_000;
  };

  it('escalateAfter=10m,30m: incident.escalated once at stage 2 and once at stage 3, stage on every incident alert', async () => {
    // Prepare
    const m = monitor({ SHIELDWATCH_ESCALATE_AFTER: '10m,30m' });
    await cycle(m);
    attack();

    // Act: 40 minutes of duplicated cycles, then the attack ends.
    await minutes(m, 40);
    const during = published();
    pps = {};
    await minutes(m, 2);

    // Assess
    expect(during).toEqual(['incident.opened@1', 'incident.escalated@2', 'incident.escalated@3']);
    expect(published()).toEqual([...during, 'incident.resolved@3']);
    const [opened, second, third] = fakeSns.publishes;
    const ageOf = (p: typeof opened) =>
      Date.parse(JSON.parse(JSON.parse(p!.message).sqs).at) -
      Date.parse(JSON.parse(JSON.parse(opened!.message).sqs).at);
    expect(ageOf(second)).toBe(10 * 60_000);
    expect(ageOf(third)).toBe(30 * 60_000);
    expect(second!.attributes).toMatchObject({ event: 'incident.escalated', stage: '2', action: 'trigger' });
    expect(fakeSns.publishes.every((p) => p.attributeTypes['stage'] === 'String')).toBe(true);
  });

  it('an acknowledgement stops the reminders and the escalations; it is published once and the resolve is sent', async () => {
    // Prepare: reminders every 5 minutes, escalation at 10m and 30m.
    const m = monitor({ SHIELDWATCH_ESCALATE_AFTER: '10m,30m', SHIELDWATCH_REMIND_EVERY: '5m' });
    await cycle(m);
    attack();
    await minutes(m, 6);
    const incident = (await m.store.findIncidentScopes())[0]!.loaded.state.open!.id;
    const beforeAck = published();

    // Act: two acknowledgements at once, then 40 minutes, then the end of the attack.
    const acks = await Promise.all([
      acknowledge(m.store, incident, {
        by: 'arn:aws:iam::123456789012:user/alice',
        at: new Date(now).toISOString(),
        note: 'on it',
      }),
      acknowledge(m.store, incident, { by: 'link', at: new Date(now).toISOString() }),
    ]);
    await minutes(m, 40);
    const whileAcknowledged = published().slice(beforeAck.length);
    pps = {};
    await minutes(m, 2);

    // Assess
    expect(beforeAck).toEqual(['incident.opened@1', 'incident.reminder@1']);
    expect(acks.map((a) => a.outcome).sort()).toEqual(['acknowledged', 'already']);
    expect(whileAcknowledged).toEqual(['incident.acknowledged@1']);
    expect(published().slice(beforeAck.length + 1)).toEqual(['incident.resolved@1']);
    const ack = fakeSns.publishes.find((p) => p.attributes['event'] === 'incident.acknowledged')!;
    expect(ack.attributes['action']).toBe('acknowledge');
    expect(JSON.parse(JSON.parse(ack.message).sqs).incident).toBe(incident);
  });

  it('withdrawn (unack): reminders and the escalation due come back, at once', async () => {
    // Prepare
    const m = monitor({ SHIELDWATCH_ESCALATE_AFTER: '10m', SHIELDWATCH_REMIND_EVERY: '30m' });
    await cycle(m);
    attack();
    await minutes(m, 1);
    const incident = (await m.store.findIncidentScopes())[0]!.loaded.state.open!.id;
    await acknowledge(m.store, incident, { by: 'alice', at: new Date(now).toISOString() });
    await minutes(m, 15);
    const acknowledged = published();

    // Act
    const withdrawn = await unacknowledge(m.store, incident, 'alice', new Date(now).toISOString());
    await minutes(m, 2);

    // Assess
    expect(acknowledged).toEqual(['incident.opened@1', 'incident.acknowledged@1']);
    expect(withdrawn.outcome).toBe('unacknowledged');
    expect(published().slice(acknowledged.length)).toEqual(['incident.escalated@2']);
  });
});
