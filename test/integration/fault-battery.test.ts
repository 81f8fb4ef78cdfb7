import { createServer } from 'node:net';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LogAlertPublisher } from '../../lambda/adapters/sns-publisher.ts';
import { buildMonitor } from '../../lambda/composition-root.ts';
import { loadConfig } from '../../lambda/config.ts';
import type { FailureKind } from '../../lambda/core/types.ts';
import { runCycle } from '../../lambda/cycle.ts';
import { type LocalDynamo, startDynamo } from '../fixtures/dynalite.ts';
import { type FakeApi, type Reply, startFakeApi } from '../fixtures/fake-api.ts';

const KEY = 'battery-key-7d1f3b9e';

interface Fault {
  readonly name: string;
  readonly reply: Reply;
  readonly kind: FailureKind;
  readonly error: RegExp;
  readonly httpStatus?: number;
}

/** One case per way the filter endpoint can fail; none may yield a status, an alert or a leak. */
const FAULTS: Fault[] = [
  {
    name: '401',
    reply: { status: 401, body: { error: `bad key ${KEY}` } },
    kind: 'auth',
    error: /401/,
    httpStatus: 401,
  },
  {
    name: '403',
    reply: { status: 403, body: { error: 'forbidden' } },
    kind: 'auth',
    error: /403/,
    httpStatus: 403,
  },
  {
    name: '429 with Retry-After',
    reply: { status: 429, headers: { 'retry-after': '0' }, body: {} },
    kind: 'rate_limited',
    error: /429/,
    httpStatus: 429,
  },
  {
    name: '500',
    reply: { status: 500, body: { error: 'boom' } },
    kind: 'server',
    error: /500/,
    httpStatus: 500,
  },
  {
    name: '503 HTML',
    reply: { status: 503, body: '<html>down</html>', headers: { 'content-type': 'text/html' } },
    kind: 'server',
    error: /503/,
    httpStatus: 503,
  },
  {
    name: '404',
    reply: { status: 404, body: { error: 'nope' } },
    kind: 'client',
    error: /404/,
    httpStatus: 404,
  },
  {
    name: 'redirect to another origin',
    reply: { status: 302, headers: { location: 'http://127.0.0.2:9/steal?key=x' } },
    kind: 'client',
    error: /redirect \(302\) not followed/,
    httpStatus: 302,
  },
  { name: 'hang', reply: { hang: true }, kind: 'transport', error: /timed out|deadline/ },
  { name: 'connection reset', reply: { destroy: true }, kind: 'transport', error: /reset|closed/ },
  {
    name: 'stalled body',
    reply: { stallBodyAfterHeaders: true, body: { status: 'x'.repeat(1000) } },
    kind: 'transport',
    error: /timed out|deadline/,
    httpStatus: 200,
  },
  {
    name: 'not JSON',
    reply: { body: 'status=active', headers: { 'content-type': 'text/plain' } },
    kind: 'contract',
    error: /not JSON/,
    httpStatus: 200,
  },
  {
    name: 'truncated JSON',
    reply: { body: '{"status":"act' },
    kind: 'contract',
    error: /not JSON/,
    httpStatus: 200,
  },
  { name: 'empty body', reply: { body: '' }, kind: 'contract', error: /empty|not JSON/, httpStatus: 200 },
  {
    name: 'huge body, streamed',
    reply: { chunks: 64 },
    kind: 'contract',
    error: /larger than/,
    httpStatus: 200,
  },
  {
    name: 'status path to an object',
    reply: { body: { data: { filter: { state: { code: 1 } } } } },
    kind: 'contract',
    error: /object/,
    httpStatus: 200,
  },
  {
    name: 'status path missing',
    reply: { body: { data: { other: 'active' } } },
    kind: 'contract',
    error: /not found/,
    httpStatus: 200,
  },
  { name: 'JSON null', reply: { body: 'null' }, kind: 'contract', error: /not found|null/, httpStatus: 200 },
  {
    name: 'deeply nested JSON',
    reply: { body: `${'['.repeat(100_000)}${']'.repeat(100_000)}` },
    kind: 'contract',
    error: /.+/,
    httpStatus: 200,
  },
];

describe('the fault battery: each failure kind through a whole cycle', () => {
  let api: FakeApi;
  let dynamo: LocalDynamo;
  const sns = new SNSClient({ region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
  const snsMock = mockClient(sns);
  const logs: string[] = [];

  beforeAll(async () => {
    api = await startFakeApi({ key: KEY });
    dynamo = await startDynamo();
    snsMock.on(PublishCommand).resolves({ MessageId: 'm' });
  });
  afterAll(async () => {
    await api.close();
    await dynamo.close();
  });
  beforeEach(() => {
    snsMock.resetHistory();
  });

  const monitor = (extra: Record<string, string> = {}) => {
    const env = {
      SHIELDWATCH_API_URL: api.url,
      SHIELDWATCH_API_KEY: KEY,
      SHIELDWATCH_NETWORKS: 'edge-1',
      SHIELDWATCH_TABLE: dynamo.table,
      SHIELDWATCH_TOPIC_ARN: 'arn:aws:sns:us-east-1:123456789012:alerts',
      SHIELDWATCH_STATUS_PATH: 'data.filter.state',
      SHIELDWATCH_TIMEOUT_MS: '300',
      SHIELDWATCH_MAX_BODY_BYTES: '65536',
      SHIELDWATCH_RETRIES: '1',
      ...extra,
    };
    const line = (message: string, ...extra: Record<string, unknown>[]) =>
      logs.push(`${message} ${JSON.stringify(extra)}`);
    return buildMonitor({
      config: loadConfig(env),
      env,
      dynamo: dynamo.client,
      sns,
      log: { info: line, warn: line, error: line },
      fallbackPublisher: new LogAlertPublisher(() => {}),
    });
  };

  it.each(FAULTS)(
    '$name: recorded as $kind, never a status, never an alert, never the key',
    async (fault) => {
      // Prepare
      const m = monitor();
      api.filter = () => ({ body: { data: { filter: { state: 'active' } } } });
      await runCycle(m.deps, m.settings, Date.now() + 5000);
      api.filter = () => fault.reply;
      snsMock.resetHistory();

      // Act
      const started = Date.now();
      const result = await runCycle(m.deps, m.settings, Date.now() + 5000);
      const elapsed = Date.now() - started;
      const [stored] = await m.store.querySnapshots({ kind: 'filter' }, { limit: 1 });

      // Assess
      expect(result.filter).toMatchObject({ ok: false, errorKind: fault.kind });
      expect(result.filter?.error).toMatch(fault.error);
      expect(result.filter?.status).toBeUndefined();
      expect(result.filter?.httpStatus).toBe(fault.httpStatus);
      expect(result.networks[0]?.ok).toBe(true);
      expect(stored).toMatchObject({ ok: false, errorKind: fault.kind, cycleId: result.cycleId });
      expect(result.queued.filter((a) => a.event === 'filter.status_changed')).toEqual([]);
      expect(result.status).toBe('active');
      const everything = JSON.stringify([result, stored, snsMock.calls().map((c) => c.args[0].input), logs]);
      expect(everything).not.toContain(KEY);
      expect(elapsed).toBeLessThan(3000);
    },
  );

  it('refuses a huge body announced by Content-Length without reading it', async () => {
    // Prepare
    const m = monitor();
    api.filter = () => ({ chunks: 2000, headers: { 'content-length': String(2000 * 65_536) } });

    // Act
    const result = await runCycle(m.deps, m.settings, Date.now() + 5000);

    // Assess
    expect(result.filter).toMatchObject({ ok: false, errorKind: 'contract' });
    expect(result.filter?.error).toMatch(/larger than 65536 bytes/);
    const request = api.requests.at(-1);
    expect(request?.bytesSent ?? 0).toBeLessThan(2000 * 65_536);
  });

  it('stores a marker and the size instead of a body too large for a DynamoDB item', async () => {
    // Prepare
    const m = monitor({ SHIELDWATCH_MAX_BODY_BYTES: '1048576' });
    const big = { data: { filter: { state: 'active' } }, padding: 'p'.repeat(350_000) };
    api.filter = () => ({ body: big });

    // Act
    const result = await runCycle(m.deps, m.settings, Date.now() + 5000);
    const [stored] = await m.store.querySnapshots({ kind: 'filter' }, { limit: 1 });

    // Assess
    expect(result.filter).toMatchObject({ ok: true, status: 'active' });
    expect(stored?.bodyText).toBeUndefined();
    expect(stored?.bodyBytes).toBe(JSON.stringify(big).length);
    expect(stored?.error).toMatch(/too large to store/);
  });

  it('records a refused connection as transport without stopping the cycle', async () => {
    // Prepare
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as { port: number };
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const m = monitor({ SHIELDWATCH_API_URL: `http://127.0.0.1:${port}`, SHIELDWATCH_RETRIES: '0' });

    // Act
    const result = await runCycle(m.deps, m.settings, Date.now() + 5000);

    // Assess
    expect(result.filter).toMatchObject({ ok: false, errorKind: 'transport' });
    expect(result.filter?.error).toMatch(/refused/);
    expect(result.networks[0]).toMatchObject({ ok: false, errorKind: 'transport' });
  });
});
