/**
 * Issue 19.5: an API key whose digits occur in a network body's numbers. Whole poll cycles against a loopback
 * API and dynalite (SNS through aws-sdk-client-mock): the body is parsed before the key is scrubbed from its
 * strings, so the network's figures, its rule readings and its stored body keep the number, while the key
 * (and every run of 8 of its characters) appears in no stored item and no published message.
 */
import { PublishCommand, type PublishCommandInput, SNSClient } from '@aws-sdk/client-sns';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LogAlertPublisher } from '../../lambda/adapters/sns-publisher.ts';
import { buildMonitor, type Monitor } from '../../lambda/composition-root.ts';
import { loadConfig } from '../../lambda/config.ts';
import { type CycleLog, runCycle } from '../../lambda/cycle.ts';
import { type LocalDynamo, startDynamo } from '../fixtures/dynalite.ts';
import { type FakeApi, startFakeApi } from '../fixtures/fake-api.ts';

const TOPIC = 'arn:aws:sns:us-east-1:123456789012:shieldwatch-alerts';
/** The key: its ten digits stand whole inside the counter below. */
const KEY = 'sk-live-8402917365ab';
const COUNTER = 184029173650;
const quiet: CycleLog = { info: () => {}, warn: () => {}, error: () => {} };

/**
 * Every run of 8 characters of the key, lower case, but those of digits only: those are the counter's digits,
 * which stay (a number is data: this key, with letters, cannot come back as a number).
 */
const FRAGMENTS = Array.from({ length: KEY.length - 7 }, (_, i) => KEY.slice(i, i + 8).toLowerCase()).filter(
  (fragment) => /[^0-9]/.test(fragment),
);

describe('a key whose digits occur in a body’s numbers (dynalite, loopback API)', () => {
  let api: FakeApi;
  let dynamo: LocalDynamo;
  let sns: SNSClient;
  let accepted: PublishCommandInput[];
  let now: number;

  beforeEach(async () => {
    api = await startFakeApi({ key: KEY });
    dynamo = await startDynamo();
    sns = new SNSClient({ region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
    const snsMock = mockClient(sns);
    accepted = [];
    let ids = 0;
    snsMock.on(PublishCommand).callsFake(async (input: PublishCommandInput) => {
      accepted.push(input);
      return { MessageId: `m-${++ids}` };
    });
    now = Date.now();
  });
  afterEach(async () => {
    sns.destroy();
    await api.close();
    await dynamo.close();
  });

  const monitor = (): Monitor => {
    const env = {
      SHIELDWATCH_API_URL: api.url,
      SHIELDWATCH_API_KEY: KEY,
      SHIELDWATCH_NETWORKS: 'net-1',
      SHIELDWATCH_TABLE: dynamo.table,
      SHIELDWATCH_TOPIC_ARN: TOPIC,
      SHIELDWATCH_TIMEOUT_MS: '1000',
      SHIELDWATCH_RETRIES: '0',
      SHIELDWATCH_RULES: 'flood: traffic.in.pps > 1000000 for 2',
      SHIELDWATCH_GROUP_BY: 'none',
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

  it('keeps the figures, the rule readings and the stored number; the key is in nothing stored or sent', async () => {
    // Prepare: the counter, and the key echoed in a string and in a property name
    api.network = () => ({
      body: `{"traffic":{"in":{"pps":${COUNTER}}},"echo":"Bearer ${KEY}","${KEY}":1}`,
    });
    const m = monitor();

    // Act: two cycles, a minute apart (the rule holds `for 2`)
    const first = await runCycle(m.deps, m.settings, now + 10_000);
    now += 60_000;
    const second = await runCycle(m.deps, m.settings, now + 10_000);

    // Assess: both cycles read the network; the rule read the counter and triggered with it
    expect([...first.networks, ...second.networks].map((snapshot) => [snapshot.ok, snapshot.error])).toEqual([
      [true, undefined],
      [true, undefined],
    ]);
    const triggers = accepted.filter(
      (input) => input.MessageAttributes?.['event']?.StringValue === 'network.rule_triggered',
    );
    expect(triggers).toHaveLength(1);
    const events = (await m.store.queryEvents({})).filter((e) => e.rule !== undefined);
    expect(events.map((e) => [e.event, e.network, e.value, e.values])).toEqual([
      ['network.rule_triggered', 'net-1', COUNTER, [COUNTER, COUNTER]],
    ]);
    // The stored snapshots keep the body, number and all, the key scrubbed from its strings
    const items = (
      await DynamoDBDocumentClient.from(dynamo.client).send(new ScanCommand({ TableName: dynamo.table }))
    ).Items!;
    const bodies = items.filter((item) => item['pk'] === 'network#net-1').map((item) => item['body']);
    expect(bodies).toHaveLength(2);
    for (const body of bodies) {
      expect(JSON.parse(body as string)).toEqual({
        traffic: { in: { pps: COUNTER } },
        echo: 'Bearer [REDACTED]',
        '[REDACTED]': 1,
      });
    }
    // ... and nothing stored or sent holds the key or a run of 8 of its characters (but its digits' runs)
    const everything = `${JSON.stringify(items)}\n${JSON.stringify(accepted)}`.toLowerCase();
    expect(FRAGMENTS.filter((fragment) => everything.includes(fragment))).toEqual([]);
  });
});
