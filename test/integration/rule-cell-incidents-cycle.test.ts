/**
 * A rule's incident on one network (`SHIELDWATCH_GROUP_BY=none`; CONTRACT §13-14, docs/acknowledge.md) in whole
 * poll cycles: real cycles against a loopback API and dynalite, alerts to a fake SNS on loopback, every cycle
 * run twice at once (duplicated invocations). Its `network.rule_triggered` opens it; it reminds every
 * `SHIELDWATCH_REMIND_EVERY`, escalates once per stage of `SHIELDWATCH_ESCALATE_AFTER`, is acknowledged through
 * the same store write `shieldwatch ack` makes (the reminders and escalations stop, `incident.acknowledged` is
 * published once), `unack` brings them back, and its `network.rule_resolved` is always sent, at the stage
 * reached. A cell written by today's code (no timers) is carried on: it reminds counting from its trigger.
 */
import { SNSClient } from '@aws-sdk/client-sns';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DynamoStore } from '../../lambda/adapters/dynamo-store.ts';
import { LogAlertPublisher } from '../../lambda/adapters/sns-publisher.ts';
import { buildMonitor, type Monitor } from '../../lambda/composition-root.ts';
import { loadConfig } from '../../lambda/config.ts';
import { type CycleLog, runCycle } from '../../lambda/cycle.ts';
import { acknowledge, findOpenIncident, unacknowledge } from '../../lambda/incident-acks.ts';
import { type LocalDynamo, startDynamo } from '../fixtures/dynalite.ts';
import { type FakeApi, startFakeApi } from '../fixtures/fake-api.ts';
import { type FakeSns, startFakeSns } from '../fixtures/fake-aws.ts';

const TOPIC = 'arn:aws:sns:us-east-1:123456789012:shieldwatch-alerts';
const quiet: CycleLog = { info: () => {}, warn: () => {}, error: () => {} };

describe("a rule's incident on one network (groupBy=none) in the poll cycle (dynalite, loopback API, fake SNS)", () => {
  let api: FakeApi;
  let dynamo: LocalDynamo;
  let fakeSns: FakeSns;
  let sns: SNSClient;
  let pps: Record<string, number>;
  let now: number;

  beforeEach(async () => {
    api = await startFakeApi({ key: 'rule-cell-incidents-0123' });
    dynamo = await startDynamo();
    fakeSns = await startFakeSns();
    sns = new SNSClient({
      region: 'us-east-1',
      endpoint: fakeSns.url,
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    });
    pps = {};
    api.network = (id) => ({ body: { traffic: { in: { pps: pps[id] ?? 100 } } } });
    // The cycle's deadline is real time (its requests are): the monitor's clock starts now and steps by minutes.
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
      SHIELDWATCH_GROUP_BY: 'none',
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
  /** The monitor's cycle, twice at once (duplicated invocations). */
  const cycle = (m: Monitor) => Promise.all([0, 1].map(() => runCycle(m.deps, m.settings, now + 15_000)));
  const minutes = async (m: Monitor, n: number) => {
    for (let i = 0; i < n; i++) {
      now += 60_000;
      await cycle(m);
    }
  };
  /** `minute event@stage` of each publish, minutes from the trigger. */
  const published = (from: number) =>
    fakeSns.publishes.map((p) => {
      const at = Date.parse(JSON.parse(JSON.parse(p.message).sqs).at as string);
      return `${(at - from) / 60_000} ${p.attributes['event']}@${p.attributes['stage']}`;
    });
  const documents = () => fakeSns.publishes.map((p) => JSON.parse(JSON.parse(p.message).sqs));
  /** The store `shieldwatch ack` opens (cli/commands/ack.ts): the table, through DynamoStore. */
  const cliStore = () => new DynamoStore(dynamo.client, dynamo.table);

  it('reminds, escalates once per stage; ack (the CLI path) stops both, unack resumes, the resolve is sent at the stage reached', async () => {
    // Prepare
    const m = monitor({ SHIELDWATCH_REMIND_EVERY: '5m', SHIELDWATCH_ESCALATE_AFTER: '10m,30m' });
    await cycle(m);
    pps['a1'] = 900_000;
    await minutes(m, 1);
    const trigger = documents()[0]!;
    const id = trigger.incident as string;
    const from = Date.parse(trigger.at);

    // Act: 12 minutes open, acknowledged (twice at once), 30 minutes, withdrawn, 6 minutes, the attack ends.
    await minutes(m, 12);
    const acks = await Promise.all([
      acknowledge(cliStore(), id, {
        by: 'arn:aws:iam::123456789012:user/alice',
        at: new Date(now).toISOString(),
        note: 'on it',
      }),
      acknowledge(cliStore(), id, { by: 'link', at: new Date(now).toISOString() }),
    ]);
    const page = await findOpenIncident(cliStore(), id);
    await minutes(m, 30);
    const withdrawn = await unacknowledge(cliStore(), id, 'alice', new Date(now).toISOString());
    await minutes(m, 6);
    pps['a1'] = 100;
    await minutes(m, 2);

    // Assess
    expect(id).toBe(`flood/a1/${trigger.at}`);
    expect(acks.map((a) => a.outcome).sort()).toEqual(['acknowledged', 'already']);
    expect(page).toMatchObject({ id, rule: 'flood', networks: [{ network: 'a1', active: true }], stage: 2 });
    expect(withdrawn.outcome).toBe('unacknowledged');
    expect(published(from)).toEqual([
      '0 network.rule_triggered@1',
      '5 incident.reminder@1',
      '10 incident.reminder@1',
      '10 incident.escalated@2',
      // Acknowledged at minute 12 (its time): published once, by the next cycle; nothing else for 30 minutes.
      '12 incident.acknowledged@2',
      // Withdrawn at minute 42: the reminder due and the escalation whose age passed (30m), at once.
      '43 incident.reminder@2',
      '43 incident.escalated@3',
      '48 incident.reminder@3',
      '49 network.rule_resolved@3',
    ]);
    const docs = documents();
    expect(docs.every((d) => d.incident === id)).toBe(true);
    expect(docs[4]).toMatchObject({
      action: 'acknowledge',
      acknowledgedBy: expect.any(String),
      network: 'a1',
    });
    expect(docs[6]).toMatchObject({ action: 'trigger', stage: 3, rule: 'flood', network: 'a1' });
    expect(docs[8]).toMatchObject({ action: 'resolve', stage: 3 });
    expect(fakeSns.publishes[1]!.subject).toMatch(
      /REMINDER net a1: flood still triggered \(traffic\.in\.pps 900000 > 500000\)/,
    );
    // The resolved incident cannot be acknowledged any more.
    expect((await acknowledge(cliStore(), id, { by: 'bob', at: new Date(now).toISOString() })).outcome).toBe(
      'not-open',
    );
  });

  it('carries on a cell written by today’s code (no timers): it reminds counting from its trigger', async () => {
    // Prepare: the rule triggers under a configuration without reminders, as today's code writes the cell.
    const before = monitor({});
    await cycle(before);
    pps['a2'] = 900_000;
    await minutes(before, 3);
    const stored = (await before.store.findRuleItems(0))[0]!;
    const cell = stored.loaded.state.rules.cells['flood']!['a2']!;
    const from = Date.parse(documents()[0]!.at);

    // Act: the new release, with reminders every 5 minutes and an escalation at 7.
    const after = monitor({ SHIELDWATCH_REMIND_EVERY: '5m', SHIELDWATCH_ESCALATE_AFTER: '7m' });
    await minutes(after, 5);

    // Assess
    expect(cell).toMatchObject({ open: true, triggeredAt: new Date(from).toISOString() });
    expect(cell.timers).toBeUndefined();
    expect(published(from)).toEqual([
      '0 network.rule_triggered@1',
      '5 incident.reminder@1',
      '7 incident.escalated@2',
    ]);
  });
});
