/**
 * The one listing as the report and the hosted page read it (`readIncidentListing`: Queries only, outboxes left
 * alone) against `shieldwatch incidents --format json` on the same dynalite table (CONTRACT §15, "One view"),
 * after real poll cycles with `groupBy=none`: a rule incident on one network (`<rule>/<network>/<time>`),
 * acknowledged (its `incident.acknowledged` event must not make it one across networks), and the API unreachable.
 */
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readIncidentListing } from '../../lambda/adapters/incident-listing.ts';
import { LogAlertPublisher } from '../../lambda/adapters/sns-publisher.ts';
import { buildMonitor } from '../../lambda/composition-root.ts';
import { loadConfig } from '../../lambda/config.ts';
import { listingRow } from '../../lambda/core/incidents/incident-list.ts';
import { type CycleLog, runCycle } from '../../lambda/cycle.ts';
import { acknowledge } from '../../lambda/incident-acks.ts';
import { describeRun, runCli } from '../cli/helpers.ts';
import { type LocalDynamo, startDynamo } from '../fixtures/dynalite.ts';
import { type FakeApi, startFakeApi } from '../fixtures/fake-api.ts';

const quiet: CycleLog = { info: () => {}, warn: () => {}, error: () => {} };

describe('readIncidentListing against shieldwatch incidents (dynalite, loopback API, groupBy=none)', () => {
  let api: FakeApi;
  let dynamo: LocalDynamo;
  let sns: SNSClient;

  beforeEach(async () => {
    api = await startFakeApi({ key: 'incident-listing-key-0123' });
    dynamo = await startDynamo();
    sns = new SNSClient({ region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
    mockClient(sns)
      .on(PublishCommand)
      .callsFake(async () => ({ MessageId: 'm' }));
  });
  afterEach(async () => {
    sns.destroy();
    await api.close();
    await dynamo.close();
  });

  it('lists the same open incidents, ids, states and acknowledgements, reading only', async () => {
    // Prepare: a rule on one network, then the API down for good.
    let pps = 100;
    let down = false;
    api.network = () =>
      down ? { status: 503, body: { error: 'down' } } : { body: { traffic: { in: { pps } } } };
    api.filter = () => (down ? { status: 503, body: { error: 'down' } } : { body: { status: 'active' } });
    let now = Date.now() - 10 * 60_000;
    const env = {
      SHIELDWATCH_API_URL: api.url,
      SHIELDWATCH_API_KEY: api.key,
      SHIELDWATCH_NETWORKS: 'n1,n2',
      SHIELDWATCH_TABLE: dynamo.table,
      SHIELDWATCH_TOPIC_ARN: 'arn:aws:sns:us-east-1:123456789012:shieldwatch-alerts',
      SHIELDWATCH_TIMEOUT_MS: '2000',
      SHIELDWATCH_RETRIES: '0',
      SHIELDWATCH_ALERT_AFTER: '2',
      SHIELDWATCH_GROUP_BY: 'none',
      SHIELDWATCH_RULES: 'flood: traffic.in.pps > 500k',
    };
    const m = buildMonitor({
      config: loadConfig(env),
      env,
      dynamo: dynamo.client,
      sns,
      log: quiet,
      fallbackPublisher: new LogAlertPublisher(() => {}),
      now: () => now,
    });
    const cycle = async () => {
      await runCycle(m.deps, m.settings, Date.now() + 15_000);
      now += 60_000;
    };
    await cycle();
    pps = 900_000;
    await cycle();
    await cycle();
    const rule = (await readIncidentListing(dynamo.client, dynamo.table)).find((v) => v.kind === 'rule');
    expect(rule?.id).toMatch(/^flood\/n[12]\/\d{4}-/);
    const acked = await acknowledge(m.store, rule!.id, {
      by: 'alice',
      at: new Date(now).toISOString(),
      note: 'looking',
    });
    expect(acked.outcome).toBe('acknowledged');
    down = true;
    for (let i = 0; i < 3; i++) await cycle();
    dynamo.operations.length = 0;

    // Act
    const listing = await readIncidentListing(dynamo.client, dynamo.table);
    const operations = new Set(dynamo.operations);
    const cli = await runCli(['incidents', '--format', 'json'], {
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'AKIDTEST',
      AWS_SECRET_ACCESS_KEY: 'test-secret',
      AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
      SHIELDWATCH_TABLE: dynamo.table,
    });

    // Assess
    expect(cli.code, describeRun(cli)).toBe(0);
    expect(JSON.parse(JSON.stringify(listing.map(listingRow)))).toEqual(JSON.parse(cli.stdout));
    const open = listing.filter((v) => v.state !== 'resolved');
    expect(open.map((v) => [v.kind, v.state])).toEqual(
      expect.arrayContaining([
        ['rule', 'acknowledged'],
        ['api', 'open'],
      ]),
    );
    expect(open.find((v) => v.kind === 'rule')?.acknowledged).toMatchObject({ by: 'alice', note: 'looking' });
    expect(operations).toEqual(new Set(['Query']));
  });
});
