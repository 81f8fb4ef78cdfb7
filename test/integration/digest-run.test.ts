/**
 * The stack's digest function (CONTRACT §19, docs/digest.md), its run against real parts on loopback: dynalite
 * for the table, moto_server's SNS delivering to an SQS queue for the topic. The clock is moved across due
 * times: each period's digest is published exactly once whatever the duplicated and concurrent runs, an SNS
 * outage holds it in the outbox until a later run sends it, a missed run is made good late and once, a first
 * run after a due time sends nothing, and the digest's figures are those of the period's history.
 */
import { CreateTopicCommand, SNSClient, SubscribeCommand } from '@aws-sdk/client-sns';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DynamoStore } from '../../lambda/adapters/dynamo-store.ts';
import { SnsAlertPublisher } from '../../lambda/adapters/sns-publisher.ts';
import { parseDigestSchedule } from '../../lambda/core/digest/digest-schedule.ts';
import type { Snapshot } from '../../lambda/core/types.ts';
import { runDigest } from '../../lambda/digest/run.ts';
import type { AlertPublisher } from '../../lambda/ports.ts';
import { type LocalDynamo, startDynamo } from '../fixtures/dynalite.ts';
import { type MotoServer, startMoto } from '../fixtures/moto-server.ts';

const quiet = { info: () => {}, warn: () => {}, error: () => {} };

/**
 * One SQS call to moto_server in SQS's JSON protocol (the project has no SQS client: only the tests read
 * queues); moto dispatches on the credential scope and checks no signature.
 */
async function sqsCall(endpoint: string, action: string, body: unknown): Promise<Record<string, unknown>> {
  const answer = await fetch(`${endpoint}/`, {
    method: 'POST',
    headers: {
      authorization: `AWS4-HMAC-SHA256 Credential=stacktest/20260101/${REGION}/sqs/aws4_request, SignedHeaders=host, Signature=0`,
      'x-amz-target': `AmazonSQS.${action}`,
      'content-type': 'application/x-amz-json-1.0',
    },
    body: JSON.stringify(body),
  });
  const text = await answer.text();
  if (answer.status >= 300) throw new Error(`sqs ${action}: ${answer.status} ${text.slice(0, 300)}`);
  return text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
}
const REGION = 'us-east-1';

const schedule = (() => {
  const parsed = parseDigestSchedule({ digest: 'daily', digestAt: '08:00', digestTz: 'Europe/Berlin' });
  if (!parsed.ok || parsed.schedule === undefined) throw new Error('bad schedule');
  return parsed.schedule;
})();
const config = {
  schedule,
  monitorName: 'edge monitor',
  page: { url: 'https://d111111abcdef8.cloudfront.net/', mode: 'public' as const },
};

describe('the digest function publishes each period once', () => {
  let moto: MotoServer;
  let dynamo: LocalDynamo;
  let sns: SNSClient;
  let topicArn: string;
  let queueUrl: string;

  beforeAll(async () => {
    moto = await startMoto();
    const aws = {
      region: REGION,
      endpoint: moto.endpoint,
      credentials: { accessKeyId: 'stacktest', secretAccessKey: 'stacktest' },
    };
    // No retries: a retried Publish whose answer was lost would be a second message (as createSnsClient does).
    sns = new SNSClient({ ...aws, maxAttempts: 1 });
  }, 60_000);
  afterAll(async () => {
    sns?.destroy();
    await moto?.stop();
  });

  beforeEach(async () => {
    dynamo = await startDynamo();
    const n = Math.random().toString(36).slice(2, 8);
    topicArn = (await sns.send(new CreateTopicCommand({ Name: `alerts-${n}` }))).TopicArn ?? '';
    queueUrl = String(
      (await sqsCall(moto.endpoint, 'CreateQueue', { QueueName: `digest-${n}` }))['QueueUrl'],
    );
    const attributes = await sqsCall(moto.endpoint, 'GetQueueAttributes', {
      QueueUrl: queueUrl,
      AttributeNames: ['QueueArn'],
    });
    const queueArn = String((attributes['Attributes'] as Record<string, string>)['QueueArn']);
    await sns.send(
      new SubscribeCommand({
        TopicArn: topicArn,
        Protocol: 'sqs',
        Endpoint: queueArn,
        Attributes: { RawMessageDelivery: 'true' },
      }),
    );
    return () => dynamo.close();
  });

  /** Every message the queue received so far (the sqs documents), read until it is empty. */
  async function delivered(): Promise<Array<Record<string, unknown>>> {
    const out: Array<Record<string, unknown>> = [];
    for (;;) {
      const got = await sqsCall(moto.endpoint, 'ReceiveMessage', {
        QueueUrl: queueUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 0,
      });
      const messages = (got['Messages'] ?? []) as Array<{ Body: string; ReceiptHandle: string }>;
      if (messages.length === 0) return out;
      for (const m of messages) {
        out.push(JSON.parse(m.Body) as Record<string, unknown>);
        await sqsCall(moto.endpoint, 'DeleteMessage', { QueueUrl: queueUrl, ReceiptHandle: m.ReceiptHandle });
      }
    }
  }

  function run(nowIso: string, publisher: AlertPublisher = new SnsAlertPublisher(sns, topicArn), id = 'run') {
    const nowMs = Date.parse(nowIso);
    return runDigest(
      { client: dynamo.client, table: dynamo.table, publisher, log: quiet, now: () => nowMs },
      config,
      { runId: `${id}-${nowIso}`, deadlineMs: nowMs + 30_000 },
    );
  }

  /** Seeds the digest's item as a run that committed the period ending `lastUntil` would have left it. */
  async function sentUpTo(lastUntil: string): Promise<void> {
    await run(lastUntil);
    await delivered();
  }

  it('a first run after the due time starts from it and sends nothing; the next due time sends one digest', async () => {
    // Act: deployed at 15:00 Berlin, long after 08:00.
    const first = await run('2026-11-27T14:00:00Z');
    const again = await run('2026-11-27T15:00:00Z');

    // Assess
    expect(first.outcome).toBe('start');
    expect(again.outcome).toBe('sent-already');
    expect(await delivered()).toEqual([]);

    // Act: 08:00 Berlin is 07:00 UTC in winter; the run at 08:00 local comes a few seconds after it.
    const due = await run('2026-11-28T07:00:03Z');

    // Assess
    expect(due).toMatchObject({ outcome: 'committed', delivered: [1], pending: 0 });
    const messages = await delivered();
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({
      event: 'monitor.digest',
      level: 'info',
      period: {
        since: '2026-11-27T07:00:00Z',
        until: '2026-11-28T07:00:00Z',
        every: 'daily',
        label: '2026-11-28',
      },
      page: 'https://d111111abcdef8.cloudfront.net/',
    });
    expect(messages[0]).not.toHaveProperty('late');
    expect(messages[0]?.['summary']).toBe(
      '[edge monitor] Daily digest 2026-11-28: 0 opened, 0 resolved, 0 open',
    );
  });

  it('duplicated and concurrent runs of one due time publish one digest; the event is recorded once', async () => {
    // Prepare
    await sentUpTo('2026-11-27T07:00:03Z');

    // Act: the schedule's retry, Lambda's retry and a duplicate delivery, all at once.
    const runs = await Promise.all(
      ['a', 'b', 'c', 'd'].map((id) => run('2026-11-28T07:00:02Z', undefined, id)),
    );
    const later = await run('2026-11-28T08:00:00Z');

    // Assess
    expect(runs.filter((r) => r.outcome === 'committed')).toHaveLength(1);
    expect(runs.flatMap((r) => r.delivered)).toHaveLength(1);
    expect(later).toMatchObject({ outcome: 'sent-already', delivered: [], pending: 0 });
    const messages = await delivered();
    expect(messages.map((m) => (m['period'] as { until: string }).until)).toEqual(['2026-11-28T07:00:00Z']);
    const events = await new DynamoStore(dynamo.client, dynamo.table).queryEvents({});
    expect(events.filter((e) => e.event === 'monitor.digest')).toHaveLength(2);
  });

  it('through an SNS outage the digest waits in the outbox and a later run sends it once', async () => {
    // Prepare
    await sentUpTo('2026-11-27T07:00:03Z');
    const down: AlertPublisher = {
      target: 'down',
      publish: async () => {
        throw Object.assign(new Error('SNS is down'), { name: 'InternalErrorException' });
      },
    };

    // Act
    const failed = await run('2026-11-28T07:00:03Z', down);
    const stillDown = await run('2026-11-28T08:00:00Z', down);
    const back = await run('2026-11-28T09:00:00Z');
    const after = await run('2026-11-28T10:00:00Z');

    // Assess
    expect(failed).toMatchObject({ outcome: 'committed', delivered: [], pending: 1 });
    expect(failed.failed).toHaveLength(1);
    expect(stillDown).toMatchObject({ outcome: 'sent-already', delivered: [], pending: 1 });
    // seq 2: the item's first digest (seq 1) was the one sentUpTo committed.
    expect(back).toMatchObject({ outcome: 'sent-already', delivered: [2], pending: 0 });
    expect(after).toMatchObject({ delivered: [], pending: 0 });
    const messages = await delivered();
    expect(messages).toHaveLength(1);
    // Not late: committed on time, only its delivery waited.
    expect(messages[0]).not.toHaveProperty('late');
  });

  it('runs missed for three days: one digest, of the newest period, marked late; older periods are not sent', async () => {
    // Prepare
    await sentUpTo('2026-11-24T07:00:03Z');

    // Act
    const late = await run('2026-11-27T12:00:00Z');
    const next = await run('2026-11-27T13:00:00Z');

    // Assess
    expect(late).toMatchObject({ outcome: 'committed', late: true });
    expect(next.outcome).toBe('sent-already');
    const messages = await delivered();
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({
      late: true,
      period: { since: '2026-11-26T07:00:00Z', until: '2026-11-27T07:00:00Z' },
    });
    expect(String(messages[0]?.['text'])).toMatch(/^edge monitor: daily digest to 2026-11-27: incidents /);
  });

  it('over a daylight saving change the period keeps 08:00 local: 25 hours long', async () => {
    // Prepare: clocks go back in Berlin on Sunday 25 October 2026 (03:00 CEST -> 02:00 CET).
    await sentUpTo('2026-10-24T06:00:03Z');

    // Act
    const due = await run('2026-10-25T07:00:03Z');

    // Assess
    expect(due.period).toEqual({ since: '2026-10-24T06:00:00Z', until: '2026-10-25T07:00:00Z' });
    const [message] = await delivered();
    expect(message?.['period']).toMatchObject({ label: '2026-10-25' });
  });

  it("reports the period's history: the filter's time-weighted shares and the API's answered cycles", async () => {
    // Prepare: the day before 08:00 Berlin on 28 November, a snapshot every 6 hours, one failed.
    await sentUpTo('2026-11-27T07:00:03Z');
    const snap = (at: string, status: string | undefined): Snapshot => ({
      target: { kind: 'filter' },
      at,
      cycleId: `c-${at}`,
      ok: status !== undefined,
      ...(status === undefined ? { error: 'timed out', errorKind: 'transport' as const } : { status }),
    });
    await new DynamoStore(dynamo.client, dynamo.table).putSnapshots(
      [
        snap('2026-11-27T06:00:00.000Z', 'active'),
        snap('2026-11-27T12:00:00.000Z', 'active'),
        snap('2026-11-27T18:00:00.000Z', 'mitigating'),
        snap('2026-11-28T00:00:00.000Z', undefined),
        snap('2026-11-28T06:00:00.000Z', 'active'),
      ],
      Math.floor(Date.parse('2026-12-30T00:00:00Z') / 1000),
    );

    // Act
    await run('2026-11-28T07:00:03Z');

    // Assess
    const [message] = await delivered();
    const digest = message?.['digest'] as {
      availability: { cycles: number; answeredCycles: number };
      filter: { statuses: Array<{ status: string }> };
    };
    expect(digest.availability).toMatchObject({ cycles: 4, answeredCycles: 3 });
    expect(digest.filter.statuses.map((s) => s.status)).toContain('mitigating');
    expect(digest.filter.statuses.map((s) => s.status)).toContain('active');
  });

  it('off: nothing read, nothing written', async () => {
    // Act
    const off = await runDigest(
      {
        client: dynamo.client,
        table: dynamo.table,
        publisher: new SnsAlertPublisher(sns, topicArn),
        log: quiet,
        now: Date.now,
      },
      { ...config, schedule: undefined },
      { runId: 'off', deadlineMs: Date.now() + 10_000 },
    );

    // Assess
    expect(off.outcome).toBe('off');
    expect(dynamo.operations.filter((op) => op !== 'DescribeTable')).toEqual([]);
  });
});
