/**
 * The monitor's own incidents acknowledged and escalated in whole poll cycles (CONTRACT §14; docs/acknowledge.md):
 * real cycles against a loopback API and dynalite, alerts to a fake SNS on loopback. The status away from the
 * expected one and the API unreachable publish `incident.escalated` once per stage of
 * `SHIELDWATCH_ESCALATE_AFTER` (attribute `stage`) whatever duplicated cycles; an acknowledgement (the write
 * `shieldwatch ack` and the link make, in the monitor state item) is published once, also when two race each
 * other and a cycle, and also across an SNS outage; it stops reminders and escalations; the change back or the
 * recovery is still sent, at the stage reached.
 */
import { SNSClient } from '@aws-sdk/client-sns';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
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

describe("the monitor's own incidents: escalation and acknowledgement (dynalite, loopback API, fake SNS)", () => {
  let api: FakeApi;
  let dynamo: LocalDynamo;
  let fakeSns: FakeSns;
  let sns: SNSClient;
  let status: string;
  let reachable: boolean;
  let now: number;

  beforeEach(async () => {
    api = await startFakeApi({ key: 'monitor-incidents-key-0123' });
    dynamo = await startDynamo();
    fakeSns = await startFakeSns();
    sns = new SNSClient({
      region: 'us-east-1',
      endpoint: fakeSns.url,
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    });
    status = 'active';
    reachable = true;
    api.filter = () => (reachable ? { body: { status } } : { status: 503, body: { error: 'down' } });
    api.network = () => (reachable ? { body: { pps: 1 } } : { status: 503, body: { error: 'down' } });
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
      SHIELDWATCH_NETWORKS: 'a1',
      SHIELDWATCH_TABLE: dynamo.table,
      SHIELDWATCH_TOPIC_ARN: TOPIC,
      SHIELDWATCH_TIMEOUT_MS: '2000',
      SHIELDWATCH_RETRIES: '0',
      SHIELDWATCH_ALERT_AFTER: '3',
      SHIELDWATCH_EXPECTED_STATUS: 'active',
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
  const documentOf = (p: FakeSns['publishes'][number]) =>
    JSON.parse(JSON.parse(p.message).sqs) as { incident?: string; at: string; action?: string };
  const monitorItem = async () =>
    (
      await dynamo.client.send(
        new GetCommand({ TableName: dynamo.table, Key: { pk: 'state', sk: 'monitor' } }),
      )
    ).Item;

  it('the status away escalates once per stage with duplicated cycles; reminders at the stage reached; the change back at the last stage', async () => {
    // Prepare
    const m = monitor({ SHIELDWATCH_REMIND_EVERY: '15m', SHIELDWATCH_ESCALATE_AFTER: '10m,30m' });
    await cycle(m);
    status = 'bypass';

    // Act: 40 minutes away (duplicated cycles), then back.
    await minutes(m, 40);
    const during = fakeSns.publishes.slice();
    status = 'active';
    await minutes(m, 1);

    // Assess
    expect(during.map((p) => `${p.attributes['event']}@${p.attributes['stage']}`)).toEqual([
      'filter.status_changed@1',
      'incident.escalated@2',
      'filter.status_reminder@2',
      'filter.status_reminder@2',
      'incident.escalated@3',
    ]);
    const id = documentOf(during[0]!).incident!;
    expect(id).toMatch(/^filter\.status_changed\//);
    for (const p of fakeSns.publishes) expect(documentOf(p).incident).toBe(id);
    const ageOf = (p: (typeof during)[number]) =>
      Date.parse(documentOf(p).at) - Date.parse(documentOf(during[0]!).at);
    expect([ageOf(during[1]!), ageOf(during[4]!)]).toEqual([10 * 60_000, 30 * 60_000]);
    expect(during[1]!.attributes).toMatchObject({ action: 'trigger', to: 'bypass', severity: 'high' });
    expect(during[1]!.subject).toBe(
      '[shieldwatch] ESCALATED stage 2: filter status still bypass, expected active',
    );
    expect(published().slice(during.length)).toEqual(['filter.status_changed@3']);
    expect(fakeSns.publishes.at(-1)!.attributes['action']).toBe('resolve');
    expect(JSON.parse(JSON.stringify((await monitorItem())?.['state'])).incidentTimers).toBeUndefined();
  });

  it.each([
    ['unset', ''],
    ['set to the status seen', 'bypass'],
  ])(
    'the expected status %s while away: the incident is resolved once (duplicated cycles); set again, a new incident',
    async (_name, edited) => {
      // Prepare: two monitors over the same table, the second with the expected status edited.
      const m = monitor({ SHIELDWATCH_ESCALATE_AFTER: '10m' });
      const e = monitor({ SHIELDWATCH_ESCALATE_AFTER: '10m', SHIELDWATCH_EXPECTED_STATUS: edited });
      await cycle(m);
      status = 'bypass';
      await minutes(m, 2);
      const id = documentOf(fakeSns.publishes[0]!).incident!;
      expect(fakeSns.publishes.map((p) => p.attributes['action'])).toEqual(['trigger']);

      // Act: the edited settings, duplicated cycles; then the expected status set again, still away.
      await minutes(e, 12);
      const closed = fakeSns.publishes.slice(1);
      await minutes(m, 11);

      // Assess
      expect(
        closed.map((p) => [p.attributes['event'], p.attributes['action'], documentOf(p).incident]),
      ).toEqual([['incident.resolved', 'resolve', id]]);
      expect(closed[0]!.subject).toBe(
        '[shieldwatch] RESOLVED: filter status bypass is no longer away (expected status changed)',
      );
      const again = fakeSns.publishes.slice(2);
      expect(again.map((p) => [p.attributes['event'], p.attributes['action']])).toEqual([
        ['incident.escalated', 'trigger'],
      ]);
      expect(documentOf(again[0]!).incident).toMatch(/^filter\.status_changed\//);
      expect(documentOf(again[0]!).incident).not.toBe(id);
      expect((await monitorItem())?.['state']?.awayIncident).toBe(documentOf(again[0]!).incident);
    },
  );

  it('two acknowledgements racing a duplicated cycle publish once; no reminder or escalation after it; the change back is sent', async () => {
    // Prepare
    const m = monitor({ SHIELDWATCH_REMIND_EVERY: '5m', SHIELDWATCH_ESCALATE_AFTER: '10m,30m' });
    await cycle(m);
    status = 'bypass';
    await minutes(m, 6);
    const beforeAck = published();
    const id = documentOf(fakeSns.publishes[0]!).incident!;

    // Act
    const at = new Date(now).toISOString();
    const [acks] = await Promise.all([
      Promise.all([
        acknowledge(m.store, id, { by: 'arn:aws:iam::123456789012:user/alice', at, note: 'vendor ticket 7' }),
        acknowledge(m.store, id, { by: 'link', at }),
      ]),
      minutes(m, 1),
    ]);
    await minutes(m, 40);
    const whileAcknowledged = published().slice(beforeAck.length);
    status = 'active';
    await minutes(m, 1);

    // Assess
    expect(beforeAck).toEqual(['filter.status_changed@1', 'filter.status_reminder@1']);
    expect(acks.map((a) => a.outcome).sort()).toEqual(['acknowledged', 'already']);
    expect(whileAcknowledged).toEqual(['incident.acknowledged@1']);
    expect(published().slice(beforeAck.length + 1)).toEqual(['filter.status_changed@1']);
    const ack = fakeSns.publishes.find((p) => p.attributes['event'] === 'incident.acknowledged')!;
    expect(ack.attributes).toMatchObject({ action: 'acknowledge', incident: id });
    expect(ack.subject).toMatch(/^\[shieldwatch\] ACK by (arn:aws:iam::|link)/);
    expect(ack.subject).toContain('filter status still bypass');
    expect(fakeSns.publishes.at(-1)!.attributes['action']).toBe('resolve');
  });

  it('the API unreachable escalates; an acknowledgement during an SNS outage is sent once, after it, in order', async () => {
    // Prepare
    const m = monitor({ SHIELDWATCH_REMIND_EVERY: '20m', SHIELDWATCH_ESCALATE_AFTER: '10m' });
    await cycle(m);
    reachable = false;
    await minutes(m, 3);
    const opened = published();
    const id = documentOf(fakeSns.publishes[0]!).incident!;

    // Act: SNS down; the escalation falls due and waits; then the acknowledgement waits behind it.
    fakeSns.mode = 'internal-error';
    await minutes(m, 10);
    const ack = await acknowledge(m.store, id, { by: 'alice', at: new Date(now).toISOString() });
    await minutes(m, 15);
    const duringOutage = published().slice(opened.length);
    fakeSns.mode = 'ok';
    await minutes(m, 3);
    const afterOutage = published().slice(opened.length);
    reachable = true;
    await minutes(m, 1);

    // Assess
    expect(id).toMatch(/^api\.unreachable\//);
    expect(opened).toEqual(['api.unreachable@1']);
    expect(ack.outcome).toBe('acknowledged');
    expect(duringOutage).toEqual([]);
    // The escalation (due before the acknowledgement) and the acknowledgement, once each and in order; no
    // reminder after it.
    expect(afterOutage).toEqual(['incident.escalated@2', 'incident.acknowledged@2']);
    expect(published().slice(opened.length + afterOutage.length)).toEqual(['api.recovered@2']);
    for (const p of fakeSns.publishes) expect(documentOf(p).incident).toBe(id);
    const escalated = fakeSns.publishes[1]!;
    expect(escalated.subject).toBe('[shieldwatch] ESCALATED stage 2: API still unreachable');
    expect(fakeSns.publishes.at(-1)!.attributes['action']).toBe('resolve');
  });

  it('an item of the previous release (no timers) reads as before: its open incident escalates by its age and can be acknowledged', async () => {
    // Prepare: the status away for 3 minutes, then the item as the previous release left it (no timers).
    const m = monitor({ SHIELDWATCH_ESCALATE_AFTER: '10m' });
    await cycle(m);
    status = 'bypass';
    await minutes(m, 3);
    const id = documentOf(fakeSns.publishes[0]!).incident!;
    await dynamo.client.send(
      new UpdateCommand({
        TableName: dynamo.table,
        Key: { pk: 'state', sk: 'monitor' },
        UpdateExpression: 'REMOVE #state.incidentTimers SET version = version + :one',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':one': 1 },
      }),
    );
    const old = (await monitorItem())?.['state'] as Record<string, unknown>;

    // Act
    const before = await findOpenIncident(m.store, id);
    await minutes(m, 8);
    const escalated = published();
    const ack = await acknowledge(m.store, id, { by: 'alice', at: new Date(now).toISOString() });
    await minutes(m, 1);

    // Assess
    expect(old['incidentTimers']).toBeUndefined();
    expect(old['awayIncident']).toBe(id);
    expect(before).toMatchObject({ id, stage: 1 });
    // Escalated when the incident (its id: when the status went away) was 10 minutes old, once.
    expect(escalated).toEqual(['filter.status_changed@1', 'incident.escalated@2']);
    const escalation = fakeSns.publishes[1]!;
    expect(Date.parse(documentOf(escalation).at) - Date.parse(documentOf(fakeSns.publishes[0]!).at)).toBe(
      10 * 60_000,
    );
    expect(ack.outcome).toBe('acknowledged');
    expect(published().slice(escalated.length)).toEqual(['incident.acknowledged@2']);
  });

  it('unack: the escalation due goes out at the next cycle; an incident no longer open is refused', async () => {
    // Prepare
    const m = monitor({ SHIELDWATCH_ESCALATE_AFTER: '10m' });
    await cycle(m);
    reachable = false;
    await minutes(m, 3);
    const id = documentOf(fakeSns.publishes[0]!).incident!;
    await acknowledge(m.store, id, { by: 'alice', at: new Date(now).toISOString(), note: 'DNS' });
    await minutes(m, 15);
    const acknowledged = published();
    const view = await findOpenIncident(m.store, id);

    // Act
    const withdrawn = await unacknowledge(m.store, id, 'alice', new Date(now).toISOString());
    await minutes(m, 1);
    const escalated = published().slice(acknowledged.length);
    reachable = true;
    await minutes(m, 1);
    const late = await acknowledge(m.store, id, { by: 'bob', at: new Date(now).toISOString() });

    // Assess
    expect(acknowledged).toEqual(['api.unreachable@1', 'incident.acknowledged@1']);
    expect(view).toMatchObject({ id, stage: 1, acknowledged: { by: 'alice', note: 'DNS' } });
    expect(withdrawn.outcome).toBe('unacknowledged');
    expect(escalated).toEqual(['incident.escalated@2']);
    expect(published().at(-1)).toBe('api.recovered@2');
    expect(late.outcome).toBe('not-open');
    expect(await findOpenIncident(m.store, id)).toBeUndefined();
  });
});
