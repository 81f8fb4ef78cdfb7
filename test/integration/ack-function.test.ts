/**
 * The acknowledge function (docs/acknowledge.md, The link) as its URL serves it: its Lambda entry
 * (`lambda/ack-handler.ts`, Middy and all) behind a real HTTP server on 127.0.0.1 that turns each request into
 * the function URL's event, with dynalite for the table and a fake Secrets Manager holding the signing key, both
 * on loopback and reached through the same environment the stack gives the function. GET changes nothing; POST
 * acknowledges once, also when sent many times at once; every bad, expired, forged or replayed token gets the
 * same answer; the headers; and the confirmation page clicked in headless Chromium.
 */
import { existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoStore } from '../../lambda/adapters/dynamo-store.ts';
import { ackKey, signAckToken } from '../../lambda/core/ack/ack-token.ts';
import { decide, type MonitorState } from '../../lambda/core/detect/decide.ts';
import { judgeHealth } from '../../lambda/core/detect/network-health.ts';
import { type IncidentScopeState, judgeIncident } from '../../lambda/core/incidents/incidents.ts';
import { type LocalDynamo, startDynamo } from '../fixtures/dynalite.ts';
import { type FakeSecretsManager, startFakeSecretsManager } from '../fixtures/fake-aws.ts';

const CHROMIUM = '/usr/bin/chromium';
const KEY_TEXT = 'Qw3rTy7uI9oP1aS2dF4gH6jK8lZ0xC5vB3nM7qW9eR2tY4uI6oP8aS1dF3gH5jK7';
const OTHER_KEY_TEXT = 'Mn8bV6cX4zL2kJ0hG9fD7sA5pO3iU1yT8rE6wQ4mN2bV0cX9zL7kJ5hG3fD1sA8';
const SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:shieldwatch-ack-AbCdEf';

let dynamo: LocalDynamo;
let secrets: FakeSecretsManager;
let server: http.Server;
let base: string;
let store: DynamoStore;
let handler: (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

/** One request of a function URL, as Lambda hands it over (body base64, as for a form post). */
function functionUrlEvent(req: http.IncomingMessage, body: string): APIGatewayProxyEventV2 {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers[name] = value;
  }
  const query = Object.fromEntries(url.searchParams);
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    ...(url.search === '' ? {} : { queryStringParameters: query }),
    requestContext: {
      http: {
        method: req.method ?? 'GET',
        path: url.pathname,
        protocol: 'HTTP/1.1',
        sourceIp: '127.0.0.1',
        userAgent: '',
      },
    } as APIGatewayProxyEventV2['requestContext'],
    ...(body === '' ? {} : { body: Buffer.from(body).toString('base64'), isBase64Encoded: true }),
    isBase64Encoded: body !== '',
  } as APIGatewayProxyEventV2;
}

const context = {
  functionName: 'shieldwatch-ack',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:shieldwatch-ack',
  memoryLimitInMB: '256',
  awsRequestId: 'req',
  logGroupName: '/aws/lambda/shieldwatch-ack',
  logStreamName: 's',
  getRemainingTimeInMillis: () => 10_000,
} as unknown as Context;

beforeAll(async () => {
  [dynamo, secrets] = await Promise.all([
    startDynamo(),
    startFakeSecretsManager({ 'shieldwatch-ack': KEY_TEXT }),
  ]);
  // The function's deployed environment, pointed at the loopback services.
  Object.assign(process.env, {
    SHIELDWATCH_TABLE: dynamo.table,
    SHIELDWATCH_ACK_SECRET: SECRET_ARN,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'test',
    AWS_SECRET_ACCESS_KEY: 'test',
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.url,
    POWERTOOLS_LOG_LEVEL: 'SILENT',
  });
  handler = (await import('../../lambda/ack-handler.ts')).handler as unknown as typeof handler;
  store = new DynamoStore(dynamo.client, dynamo.table);
  server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const result = await handler(functionUrlEvent(req, Buffer.concat(chunks).toString('utf8')), context);
    res.writeHead(result.statusCode ?? 200, result.headers as http.OutgoingHttpHeaders);
    res.end(result.body ?? '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await Promise.all([dynamo.close(), secrets.close()]);
});

const T0 = Date.parse('2026-05-01T10:00:00.000Z');
/** Opens an incident of `rule` on two networks (as a poll cycle would write it); its id. */
async function openIncident(rule: string): Promise<string> {
  const at = new Date(Date.now() - 3 * 60_000).toISOString();
  const judged = judgeIncident(undefined, {
    subject: { rule },
    shard: 0,
    at,
    views: [
      { network: 'edge-1', open: true, value: 1_200_000 },
      { network: 'edge-2', open: true, value: 700_000 },
    ],
    groupIntervalMs: 300_000,
  });
  if (judged.stale || !judged.changed) throw new Error('no incident opened');
  const scope = store.incidentScope(rule);
  expect(await scope.commit(judged.state, 0, [])).toBe(true);
  return judged.state.open!.id;
}
async function resolveIncident(rule: string): Promise<void> {
  const scope = store.incidentScope(rule);
  const loaded = await scope.load();
  const judged = judgeIncident(loaded.state, {
    subject: { rule },
    shard: 0,
    at: new Date().toISOString(),
    views: [
      { network: 'edge-1', open: false, value: 10 },
      { network: 'edge-2', open: false, value: 10 },
    ],
    groupIntervalMs: 300_000,
  });
  if (judged.stale || !judged.changed) throw new Error('not resolved');
  expect(await scope.commit(judged.state, loaded.version, [])).toBe(true);
}
const item = async (rule: string) => {
  const loaded = await store.incidentScope(rule).load();
  return { version: loaded.version, state: loaded.state as IncidentScopeState, outbox: loaded.outbox };
};
const key = ackKey(KEY_TEXT);
const link = (incident: string, nowMs = Date.now()) => `${base}?t=${signAckToken(incident, key, nowMs)}`;
const post = (token: string) =>
  fetch(base, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ t: token }).toString(),
  });
const tokenOf = (url: string) => new URL(url).searchParams.get('t')!;

describe('the acknowledge function behind an HTTP server on loopback (its Lambda entry, dynalite)', () => {
  it('GET shows the incident and changes nothing; POST acknowledges once, by link; strict headers, no CORS', async () => {
    // Prepare
    const id = await openIncident('flood');
    const before = await item('flood');

    // Act
    const shown = await fetch(link(id));
    const page = await shown.text();
    const afterGet = await item('flood');
    const first = await post(tokenOf(link(id)));
    const second = await post(tokenOf(link(id)));
    const after = await item('flood');

    // Assess
    expect(shown.status).toBe(200);
    expect(page).toContain(id);
    expect(page).toContain('edge-1');
    expect(page).toContain('<form method="post"');
    expect(afterGet).toEqual(before);
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(after.version).toBe(before.version + 1);
    expect(after.state.open?.acknowledged?.by).toBe('link');
    expect(after.outbox.map((e) => e.event)).toEqual(['incident.acknowledged']);
    for (const response of [shown, first, second]) {
      expect(response.headers.get('content-security-policy')).toBe(
        "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
      );
      expect(response.headers.get('referrer-policy')).toBe('no-referrer');
      expect(response.headers.get('x-frame-options')).toBe('DENY');
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect([...response.headers.keys()].filter((h) => h.startsWith('access-control-'))).toEqual([]);
    }
  });

  it('a blind-spot incident (network.unreachable, in health#<shard>): GET shows it, POSTs acknowledge it once', async () => {
    // Prepare: shard 3's health item with edge-9 failing past alertAfter, as a poll cycle writes it.
    const judged = judgeHealth(undefined, {
      at: new Date(Date.now() - 3 * 60_000).toISOString(),
      alertAfter: 1,
      shard: 3,
      rules: [],
      networks: [{ network: 'edge-9', ok: false, errorKind: 'client', httpStatus: 404 }],
      apiAnswered: true,
    });
    if (judged.stale || !judged.changed) throw new Error('no incident opened');
    const scope = store.healthScope(3);
    expect(await scope.commit(judged.state, 0, [])).toBe(true);
    const id = judged.state.downIncident!;
    const before = await scope.load();

    // Act
    const shown = await fetch(link(id));
    const page = await shown.text();
    const afterGet = await scope.load();
    const answers = await Promise.all(Array.from({ length: 3 }, () => post(tokenOf(link(id)))));
    const after = await scope.load();

    // Assess
    expect(id).toMatch(/^network\.unreachable\/3\//);
    expect(shown.status).toBe(200);
    expect(page).toContain(id);
    expect(page).toContain('edge-9');
    expect(afterGet).toEqual(before);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(after.version).toBe(before.version + 1);
    expect(after.state.incidents?.[id]?.acknowledged?.by).toBe('link');
    expect(after.outbox.map((e) => [e.event, e.incident])).toEqual([['incident.acknowledged', id]]);
  });

  it("the monitor's own incident (the API unreachable, in state/monitor): GET shows what it is, POSTs acknowledge it once; its end refuses the link", async () => {
    // Prepare: the monitor state item with the API unreachable for 3 cycles, as a poll cycle writes it.
    const scope = store.monitorState;
    let state: MonitorState | undefined;
    const startMs = Date.now() - 5 * 60_000;
    for (let i = 0; i < 3; i++) {
      state = decide(
        state,
        {
          at: new Date(startMs + i * 60_000).toISOString(),
          filter: { ok: false, errorKind: 'transport', error: 'timed out' },
          outcomes: [{ ok: false, errorKind: 'transport', error: 'timed out' }],
        },
        { alertAfter: 3, confirmations: 1 },
      ).state;
    }
    expect(await scope.commit(state!, 0, [])).toBe(true);
    const id = `api.unreachable/${new Date(startMs).toISOString()}`;
    const before = await scope.load();

    // Act
    const shown = await fetch(link(id));
    const page = await shown.text();
    const afterGet = await scope.load();
    const answers = await Promise.all(Array.from({ length: 4 }, () => post(tokenOf(link(id)))));
    const after = await scope.load();
    const recovered = decide(
      after.state,
      {
        at: new Date().toISOString(),
        filter: { ok: true, status: 'active' },
        outcomes: [{ ok: true, httpStatus: 200 }],
      },
      { alertAfter: 3, confirmations: 1 },
    );
    expect(await scope.commit(recovered.state, after.version, [])).toBe(true);
    const late = await fetch(link(id));

    // Assess
    expect(shown.status).toBe(200);
    expect(page).toContain(id);
    expect(page).toContain('the API is unreachable');
    expect(page).not.toContain('Networks (0)');
    expect(afterGet).toEqual(before);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    expect(after.version).toBe(before.version + 1);
    expect(after.state.incidentTimers?.[id]?.acknowledged?.by).toBe('link');
    expect(after.outbox.map((e) => [e.event, e.incident])).toEqual([['incident.acknowledged', id]]);
    expect(recovered.alerts.map((a) => a.event)).toEqual(['api.recovered']);
    expect(late.status).toBe(404);
  });

  it('ten POSTs at once acknowledge once', async () => {
    // Prepare
    const id = await openIncident('burst');
    const token = tokenOf(link(id));

    // Act
    const answers = await Promise.all(Array.from({ length: 10 }, () => post(token)));

    // Assess
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    const after = await item('burst');
    expect(after.outbox.map((e) => e.event)).toEqual(['incident.acknowledged']);
    expect(after.state.open?.timeline.filter((t) => t.what === 'acknowledged')).toHaveLength(1);
  });

  it('bad, forged, expired, other-incident and replayed tokens all get the same answer, and change nothing', async () => {
    // Prepare
    const id = await openIncident('probe');
    const replayed = await openIncident('gone');
    const replayedToken = tokenOf(link(replayed));
    await resolveIncident('gone');
    const good = tokenOf(link(id));
    const tampered = `${good.slice(0, -2)}${good.endsWith('AA') ? 'BB' : 'AA'}`;
    const tokens = {
      none: '',
      garbage: 'not-a-token',
      tampered,
      otherKey: signAckToken(id, ackKey(OTHER_KEY_TEXT), Date.now()),
      expired: signAckToken(id, key, T0, 60_000),
      unknownIncident: signAckToken('probe@2020-01-01T00:00:00.000Z', key, Date.now()),
      replayed: replayedToken,
    };
    const before = [await item('probe'), await item('gone')];

    // Act
    const answers: { name: string; status: number; body: string; csp: string | null }[] = [];
    for (const [name, token] of Object.entries(tokens)) {
      for (const response of [await fetch(`${base}?t=${encodeURIComponent(token)}`), await post(token)]) {
        answers.push({
          name,
          status: response.status,
          body: await response.text(),
          csp: response.headers.get('content-security-policy'),
        });
      }
    }
    const wrongType = await fetch(base, {
      method: 'POST',
      body: `t=${good}`,
      headers: { 'content-type': 'text/plain' },
    });

    // Assess
    const [firstAnswer] = answers;
    expect(firstAnswer!.status).toBe(404);
    for (const answer of [
      ...answers,
      {
        name: 'text/plain',
        status: wrongType.status,
        body: await wrongType.text(),
        csp: wrongType.headers.get('content-security-policy'),
      },
    ]) {
      expect({ ...answer, name: '' }, answer.name).toEqual({ ...firstAnswer, name: '' });
    }
    // It names neither the incident nor why (the reason is only logged).
    expect(firstAnswer!.body).not.toContain(id);
    expect(firstAnswer!.body).not.toMatch(/signature|unknown-key|not-open|malformed/i);
    expect([await item('probe'), await item('gone')]).toEqual(before);
  });

  it('the confirmation page in headless Chromium: the button acknowledges, the page says so', async () => {
    // Prepare
    if (!existsSync(CHROMIUM))
      throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium)`);
    const id = await openIncident('clicked');
    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    });
    try {
      const page = await browser.newPage();
      const blocked: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') blocked.push(message.text());
      });

      // Act
      await page.goto(link(id));
      const heading = await page.locator('h1').textContent();
      const beforeClick = await item('clicked');
      await Promise.all([
        page.waitForNavigation(),
        page.getByRole('button', { name: 'Acknowledge' }).click(),
      ]);
      const afterText = await page.locator('body').textContent();

      // Assess
      expect(heading).toMatch(/Acknowledge this incident/);
      expect(beforeClick.state.open?.acknowledged).toBeUndefined();
      expect(afterText).toMatch(/acknowledged/i);
      expect(afterText).not.toContain('Acknowledge this incident?');
      const after = await item('clicked');
      expect(after.state.open?.acknowledged?.by).toBe('link');
      expect(after.outbox.map((e) => e.event)).toEqual(['incident.acknowledged']);
      // The strict CSP let the form post to the function itself and blocked nothing the page needs.
      expect(blocked).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
