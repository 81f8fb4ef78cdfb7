/**
 * The acknowledge link in alerts (docs/acknowledge.md, The link): real poll cycles (dynalite, loopback API), the
 * signing key in a fake Secrets Manager and alerts to a fake SNS, both on loopback. Deployed (SHIELDWATCH_ACK_URL
 * and SHIELDWATCH_ACK_SECRET set), the email and chat texts of the alerts that open or remind of an incident
 * carry `AckUrl?t=TOKEN` whose token verifies for that incident within 7 days; other alerts carry none; not
 * deployed, none does; an unreadable key sends the alert without a link; the key is in no log and no item.
 */
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SNSClient } from '@aws-sdk/client-sns';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LogAlertPublisher } from '../../lambda/adapters/sns-publisher.ts';
import { buildMonitor, type Monitor } from '../../lambda/composition-root.ts';
import { loadConfig } from '../../lambda/config.ts';
import { ACK_TOKEN_MAX_TTL_MS, ackKey, verifyAckToken } from '../../lambda/core/ack/ack-token.ts';
import { type CycleLog, runCycle } from '../../lambda/cycle.ts';
import { type LocalDynamo, startDynamo } from '../fixtures/dynalite.ts';
import { type FakeApi, startFakeApi } from '../fixtures/fake-api.ts';
import {
  type FakeSecretsManager,
  type FakeSns,
  startFakeSecretsManager,
  startFakeSns,
} from '../fixtures/fake-aws.ts';

const TOPIC = 'arn:aws:sns:us-east-1:123456789012:shieldwatch-alerts';
const SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:shieldwatch-ack-key-AbCdEf';
const KEY_TEXT = 'Zk3qv9LmN2pR7sT1wX4yB6cD8eF0gH5jK3mN7pQ9rS2tU4vW6xY8zA1bC3dE5fG7';
const ACK_URL = 'http://127.0.0.1:9/';
const LINKED = ['incident.opened', 'incident.reminder', 'incident.escalated'];

describe('the acknowledge link in alert texts (poll cycles, fake Secrets Manager, fake SNS)', () => {
  let api: FakeApi;
  let dynamo: LocalDynamo;
  let fakeSns: FakeSns;
  let secretsFake: FakeSecretsManager;
  let sns: SNSClient;
  let secrets: SecretsManagerClient;
  let logged: string[];
  let pps: number;
  let now: number;

  beforeEach(async () => {
    [api, dynamo, fakeSns, secretsFake] = await Promise.all([
      startFakeApi({ key: 'ack-link-key-0123456789' }),
      startDynamo(),
      startFakeSns(),
      startFakeSecretsManager({ 'shieldwatch-ack-key': KEY_TEXT }),
    ]);
    const local = { region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } };
    sns = new SNSClient({ ...local, endpoint: fakeSns.url });
    secrets = new SecretsManagerClient({ ...local, endpoint: secretsFake.url });
    logged = [];
    pps = 100;
    api.network = () => ({ body: { traffic: { in: { pps } } } });
    now = Date.now();
  });
  afterEach(async () => {
    sns.destroy();
    secrets.destroy();
    await Promise.all([fakeSns.close(), secretsFake.close(), api.close(), dynamo.close()]);
  });

  const log: CycleLog = {
    info: (m, ...x) => logged.push(`${m} ${JSON.stringify(x)}`),
    warn: (m, ...x) => logged.push(`${m} ${JSON.stringify(x)}`),
    error: (m, ...x) => logged.push(`${m} ${JSON.stringify(x)}`),
  };
  const monitor = (deployed: boolean, extra: Record<string, string> = {}): Monitor => {
    const env = {
      SHIELDWATCH_API_URL: api.url,
      SHIELDWATCH_API_KEY: api.key,
      SHIELDWATCH_NETWORKS: 'edge-1',
      SHIELDWATCH_TABLE: dynamo.table,
      SHIELDWATCH_TOPIC_ARN: TOPIC,
      SHIELDWATCH_TIMEOUT_MS: '2000',
      SHIELDWATCH_RETRIES: '0',
      SHIELDWATCH_RULES: 'flood: traffic.in.pps > 500k',
      SHIELDWATCH_REMIND_EVERY: '5m',
      SHIELDWATCH_ESCALATE_AFTER: '7m',
      SHIELDWATCH_GROUP_INTERVAL: '1m',
      ...(deployed ? { SHIELDWATCH_ACK_URL: ACK_URL, SHIELDWATCH_ACK_SECRET: SECRET_ARN } : {}),
      ...extra,
    };
    return buildMonitor({
      config: loadConfig(env),
      env,
      dynamo: dynamo.client,
      sns,
      ...(deployed ? { secrets } : {}),
      log,
      fallbackPublisher: new LogAlertPublisher(() => {}),
      now: () => now,
    });
  };
  /** Opened, reminded (5m), escalated (7m), resolved: one cycle a minute. */
  const incidentLife = async (m: Monitor) => {
    await runCycle(m.deps, m.settings, now + 15_000);
    pps = 900_000;
    for (let minute = 1; minute <= 9; minute++) {
      now += 60_000;
      await runCycle(m.deps, m.settings, now + 15_000);
    }
    pps = 100;
    now += 60_000;
    await runCycle(m.deps, m.settings, now + 15_000);
  };
  const texts = (message: string) => {
    const all = JSON.parse(message) as Record<string, string>;
    const description = (JSON.parse(all['https']!) as { content: { description: string } }).content
      .description;
    return { ...all, description } as Record<string, string> & { description: string };
  };
  const LINK = /http:\/\/127\.0\.0\.1:9\/\?t=([A-Za-z0-9._-]+)/g;
  const tokensIn = (text: string) => [...text.matchAll(LINK)].map((m) => m[1]!);

  it('deployed: opened, reminder and escalated carry a link whose token verifies for their incident; the others none', async () => {
    // Prepare
    const m = monitor(true);

    // Act
    await incidentLife(m);

    // Assess
    const events = fakeSns.publishes.map((p) => p.attributes['event']);
    expect(events).toEqual([
      'incident.opened',
      'incident.reminder',
      'incident.escalated',
      'incident.resolved',
    ]);
    const key = ackKey(KEY_TEXT);
    for (const publish of fakeSns.publishes) {
      const t = texts(publish.message);
      const incident = publish.attributes['incident']!;
      const event = publish.attributes['event']!;
      if (!LINKED.includes(event)) {
        expect(`${t['email']}${t['default']}${t.description}${t['sms']}${t['sqs']}`, event).not.toContain(
          '?t=',
        );
        continue;
      }
      const [emailToken, ...moreInEmail] = tokensIn(t['email']!);
      expect(moreInEmail, event).toEqual([]);
      expect(tokensIn(t['default']!), event).toEqual([emailToken]);
      expect(tokensIn(t.description), event).toEqual([emailToken]);
      expect(t['sms'], event).not.toContain('?t=');
      const sentAt = Date.parse(JSON.parse(t['sqs']!).at as string);
      const check = verifyAckToken(emailToken!, [key], now);
      expect(check, event).toMatchObject({ ok: true, claim: { incident } });
      if (check.ok) expect(check.claim.expiresAtMs - sentAt).toBeLessThanOrEqual(ACK_TOKEN_MAX_TTL_MS);
      // The link follows the first paragraph, so it shows without scrolling.
      expect(t['email']!.split('\n\n')[1], event).toContain('Acknowledge');
    }
    // The key read at the opening (minute 1) and again at the reminder (minute 6, past the 5-minute cache;
    // the escalation at minute 7 uses it cached); the key itself is nowhere: logs, items.
    expect(secretsFake.requests).toEqual([SECRET_ARN, SECRET_ARN]);
    const items = await dynamo.client.send(new ScanCommand({ TableName: dynamo.table }));
    expect(JSON.stringify(items.Items)).not.toContain(KEY_TEXT);
    expect(logged.join('\n')).not.toContain(KEY_TEXT);
  });

  it("deployed: the monitor's own incidents carry the link when they open or remind (the status away, the API down), not when they end", async () => {
    // Prepare: the expected status is active; the status goes away for 8 minutes, then the API goes down.
    let status = 'active';
    let reachable = true;
    api.filter = () => (reachable ? { body: { status } } : { status: 503, body: { error: 'down' } });
    api.network = () => (reachable ? { body: { traffic: { in: { pps: 1 } } } } : { status: 503, body: {} });
    const m = monitor(true, { SHIELDWATCH_EXPECTED_STATUS: 'active', SHIELDWATCH_ALERT_AFTER: '2' });
    const minute = async () => {
      now += 60_000;
      await runCycle(m.deps, m.settings, now + 15_000);
    };

    // Act
    await runCycle(m.deps, m.settings, now + 15_000);
    status = 'bypass';
    for (let i = 0; i < 8; i++) await minute();
    status = 'active';
    await minute();
    reachable = false;
    for (let i = 0; i < 2; i++) await minute();
    reachable = true;
    await minute();

    // Assess
    const key = ackKey(KEY_TEXT);
    const seen = fakeSns.publishes.map((p) => {
      const t = texts(p.message);
      const tokens = tokensIn(t['email']!);
      const check = tokens.length === 1 ? verifyAckToken(tokens[0]!, [key], now) : undefined;
      expect(tokensIn(t.description)).toEqual(tokens);
      expect(t['sms']).not.toContain('?t=');
      const linked = check?.ok === true && check.claim.incident === p.attributes['incident'];
      return `${p.attributes['event']}:${linked ? 'link' : tokens.length === 0 ? 'none' : 'bad'}`;
    });
    expect(seen).toEqual([
      'filter.status_changed:link',
      'filter.status_reminder:link',
      'incident.escalated:link',
      'filter.status_changed:none',
      'api.unreachable:link',
      'api.recovered:none',
    ]);
  });

  it('not deployed: no alert carries a link, and no key is read', async () => {
    // Prepare
    const m = monitor(false);

    // Act
    await incidentLife(m);

    // Assess
    expect(fakeSns.publishes.map((p) => p.attributes['event'])).toEqual([
      'incident.opened',
      'incident.reminder',
      'incident.escalated',
      'incident.resolved',
    ]);
    for (const publish of fakeSns.publishes) expect(publish.message).not.toContain('?t=');
    expect(secretsFake.requests).toEqual([]);
  });

  it('the key cannot be read: the alert is sent all the same, without a link, and the failure is logged', async () => {
    // Prepare
    delete secretsFake.secrets['shieldwatch-ack-key'];
    const m = monitor(true);

    // Act
    await runCycle(m.deps, m.settings, now + 15_000);
    pps = 900_000;
    now += 60_000;
    await runCycle(m.deps, m.settings, now + 15_000);

    // Assess
    expect(fakeSns.publishes.map((p) => p.attributes['event'])).toEqual(['incident.opened']);
    expect(fakeSns.publishes[0]!.message).not.toContain('?t=');
    expect(logged.some((line) => line.startsWith('acknowledge link left out of the alert'))).toBe(true);
  });
});
