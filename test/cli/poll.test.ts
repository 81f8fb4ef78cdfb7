/**
 * `shieldwatch poll`, `history` and `events` end to end, as a user runs them: real CLI processes against
 * dynalite, a fake SNS and a fake protection API on loopback, configured only through the environment.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RecordedPublish, startDynamoProxy } from '../fixtures/fake-aws.ts';
import {
  type CliRun,
  describeRun,
  messageTexts,
  parseJsonOutput,
  runCli,
  startWorld,
  TOPIC_ARN,
  type World,
} from './helpers.ts';

/** `history --format json` entries (docs/cli.md, JSON and CSV). */
interface HistoryEntry {
  at: string;
  ok: boolean;
  status?: string;
  data?: unknown;
  error?: string;
  httpStatus?: number;
  latencyMs?: number;
}

/** `events --format json` entries (docs/cli.md, JSON and CSV). */
interface EventEntry {
  at: string;
  event: string;
  from?: string;
  to?: string;
  detail?: string;
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
const PRINTABLE_ASCII = /^[\x20-\x7E]+$/;

async function pollOk(world: World): Promise<CliRun> {
  const run = await runCli(['poll'], world.env);
  expect(run.code, describeRun(run)).toBe(0);
  return run;
}

/** What every alert for a status change must look like, whatever the statuses (docs/alerts.md). */
function expectStatusChangeAlert(
  publish: RecordedPublish | undefined,
  from: string,
  to: string,
): Record<string, string> {
  expect(publish).toBeDefined();
  const p = publish!;
  expect(p.topicArn).toBe(TOPIC_ARN);
  expect(p.messageStructure).toBe('json');
  const texts = messageTexts(p.message);
  expect(Object.keys(texts).sort()).toEqual(['default', 'email', 'https', 'sms', 'sqs']);
  for (const text of Object.values(texts)) expect(typeof text).toBe('string');
  expect(p.subject).toMatch(PRINTABLE_ASCII);
  expect(p.subject!.length).toBeLessThanOrEqual(99);
  expect(texts['sms']!.length).toBeLessThanOrEqual(160);
  expect(p.attributes).toEqual({ event: 'filter.status_changed', from, to });
  expect(p.attributeTypes).toEqual({ event: 'String', from: 'String', to: 'String' });
  return texts;
}

describe.concurrent('poll, history and events against loopback AWS endpoints', () => {
  describe('a nested status path in a body whose other fields change every call', () => {
    const STATUS_A = 'protecting';
    const STATUS_B = 'paused-by-admin';
    const SEQUENCE = [STATUS_A, STATUS_A, STATUS_B, STATUS_B, STATUS_A];
    const NETWORKS = ['net-1', 'a/../b', 'site#2?x=1&y'];
    let world: World;
    let status = STATUS_A;
    const served: unknown[] = [];
    const networkCalls = new Map<string, number>();
    const polls: CliRun[] = [];
    let filterHistory: HistoryEntry[];

    beforeAll(async () => {
      // Prepare
      world = await startWorld({
        settings: { SHIELDWATCH_STATUS_PATH: 'data.filter.state', SHIELDWATCH_NETWORKS: NETWORKS.join(',') },
      });
      world.api.filter = () => {
        const body = {
          data: {
            filter: { state: status, revision: served.length + 1, checkedAt: new Date().toISOString() },
          },
          requestId: randomUUID(),
          status: { code: 'OK', degraded: false },
        };
        served.push(body);
        return { body };
      };
      world.api.network = (id) => {
        const call = (networkCalls.get(id) ?? 0) + 1;
        networkCalls.set(id, call);
        if (id === 'net-1') return { body: { traffic: { blocked: 4242, total: 90_000 + call }, call } };
        if (id === 'a/../b') return { body: [{ blocked: 7, call }] };
        return { body: 'down for maintenance', headers: { 'content-type': 'text/plain' } };
      };

      // Act
      for (const next of SEQUENCE) {
        status = next;
        polls.push(await pollOk(world));
      }
      filterHistory = parseJsonOutput(
        await runCli(['history', '--filter', '--format', 'json'], world.storeEnv),
      );
    });
    afterAll(async () => world?.close());

    it('reports each cycle in a summary on stdout, with the status read at the path', () => {
      // Assess
      expect(polls).toHaveLength(5);
      polls.forEach((run, i) => {
        expect(run.stdout).toContain(SEQUENCE[i]);
        expect(run.stdout).toContain('data.filter.state');
      });
    });

    it('publishes exactly one alert per transition: A->B, then B->A', () => {
      // Assess: besides the two transitions, only the blind spot of the network that answers text
      // (docs/alerts.md, Blind spots: a body that is not JSON, 3 polls in a row), once, in the 3rd poll after
      // that poll's status change.
      expect(world.sns.publishes.map((p) => p.attributes['event'])).toEqual([
        'filter.status_changed',
        'network.unreachable',
        'filter.status_changed',
      ]);
      const [changed, unreachable, changedBack] = world.sns.publishes;
      expect(unreachable!.attributes['action']).toBe('trigger');
      const listed = messageTexts(unreachable!.message)['email'];
      expect(listed).toMatch(/^Networks: +1$/m);
      expect(listed).toContain('\n  site#2?x=1&y: contract, HTTP 200, 3 cycles in a row, since ');
      const first = expectStatusChangeAlert(changed, STATUS_A, STATUS_B);
      const second = expectStatusChangeAlert(changedBack, STATUS_B, STATUS_A);

      const subject = changed!.subject!;
      expect(subject.indexOf(STATUS_A)).toBeGreaterThanOrEqual(0);
      expect(subject.indexOf(STATUS_B)).toBeGreaterThan(subject.indexOf(STATUS_A));
      expect(first['sms']).toContain(STATUS_B);
      const back = changedBack!.subject!;
      expect(back.indexOf(STATUS_B)).toBeGreaterThanOrEqual(0);
      expect(back.indexOf(STATUS_A, back.indexOf(STATUS_B))).toBeGreaterThan(back.indexOf(STATUS_B));
      expect(second['sms']).toContain(STATUS_A);

      // The email says when the change was seen, how long the previous status lasted, and each network's figures.
      for (const key of ['email', 'default'] as const) {
        expect(first[key]).toContain(STATUS_A);
        expect(first[key]).toContain(STATUS_B);
      }
      expect(first['email']).toContain(filterHistory[2]!.at);
      expect(first['email']).toMatch(/lasted/i);
      expect(first['email']).toContain('net-1');
      expect(first['email']).toContain('4242');
      expect(first['email']).toContain('a/../b');
      expect(first['email']).toContain('site#2?x=1&y');
    });

    it('sends Bearer key and Accept JSON on every request, GET without a body, each network id as one segment', () => {
      // Assess
      const requests = world.api.requests;
      expect(requests).toHaveLength(SEQUENCE.length * (1 + NETWORKS.length));
      for (const request of requests) {
        expect(request.method).toBe('GET');
        expect(request.headers.authorization).toBe(`Bearer ${world.api.key}`);
        expect(request.headers.accept).toMatch(/^application\/json\b/);
        expect(request.headers['content-length'] ?? '0').toBe('0');
        expect(request.headers['transfer-encoding']).toBeUndefined();
      }
      const networkPaths = requests.map((r) => r.url).filter((url) => url.startsWith('/api/networks/'));
      expect(networkPaths).toHaveLength(SEQUENCE.length * NETWORKS.length);
      for (const url of networkPaths) expect(url).toMatch(/^\/api\/networks\/[^/]+\/realtime$/);
      const ids = new Set(networkPaths.map((url) => decodeURIComponent(url.split('/')[3]!)));
      expect(ids).toEqual(new Set(NETWORKS));
      expect(requests.filter((r) => r.url === '/api/filter/status')).toHaveLength(SEQUENCE.length);
      expect([...networkCalls.values()]).toEqual([5, 5, 5]);
    });

    it('history --filter --format json (store settings only): every poll, oldest first, with status and data as served', () => {
      // Assess
      expect(filterHistory.map((e) => e.status)).toEqual(SEQUENCE);
      expect(filterHistory.map((e) => e.data)).toEqual(served);
      const ats = filterHistory.map((e) => Date.parse(e.at));
      expect([...ats].sort((a, b) => a - b)).toEqual(ats);
      for (const entry of filterHistory) {
        expect(entry.at).toMatch(ISO);
        expect(entry).toMatchObject({ ok: true, httpStatus: 200 });
        expect(entry.latencyMs).toEqual(expect.any(Number));
        expect(entry.error).toBeUndefined();
      }
    });

    it('events --format json (store settings only): the two transitions in order, seen at their polls, and the blind spot', async () => {
      // Act
      const run = await runCli(['events', '--format', 'json'], world.storeEnv);

      // Assess
      expect(run.code, describeRun(run)).toBe(0);
      expect(parseJsonOutput<EventEntry[]>(run)).toEqual([
        { at: filterHistory[2]!.at, event: 'filter.status_changed', from: STATUS_A, to: STATUS_B },
        // The network that answers text, failing its 3rd poll in a row (see above).
        {
          at: filterHistory[2]!.at,
          event: 'network.unreachable',
          detail: 'site#2?x=1&y (contract, HTTP 200)',
        },
        { at: filterHistory[4]!.at, event: 'filter.status_changed', from: STATUS_B, to: STATUS_A },
      ]);
    });

    it('history --network ID --limit 2 prints the last two, oldest first', async () => {
      // Act
      const run = await runCli(
        ['history', '--network', 'a/../b', '--limit', '2', '--format', 'json'],
        world.storeEnv,
      );

      // Assess
      expect(run.code, describeRun(run)).toBe(0);
      const entries = parseJsonOutput<HistoryEntry[]>(run);
      expect(entries.map((e) => e.data)).toEqual([[{ blocked: 7, call: 4 }], [{ blocked: 7, call: 5 }]]);
      expect(Date.parse(entries[0]!.at)).toBeLessThan(Date.parse(entries[1]!.at));
    });

    it('history --network: a body that is not JSON has no data and an error', async () => {
      // Act
      const run = await runCli(['history', '--network', 'site#2?x=1&y', '--format', 'json'], world.storeEnv);

      // Assess
      expect(run.code, describeRun(run)).toBe(0);
      const failed = parseJsonOutput<HistoryEntry[]>(run);
      expect(failed).toHaveLength(5);
      for (const entry of failed) {
        expect(entry.data).toBeUndefined();
        expect(entry.error).toMatch(/json/i);
        expect(entry.httpStatus).toBe(200);
      }
    });

    it('history --since / --until: an ISO window is inclusive; relative windows count back from now', async () => {
      // Act
      const window = ['--since', filterHistory[1]!.at, '--until', filterHistory[3]!.at];
      const [inWindow, old, laterEvents] = await Promise.all([
        runCli(['history', '--filter', ...window, '--format', 'json'], world.storeEnv),
        runCli(
          ['history', '--filter', '--since', '1d', '--until', '10m', '--format', 'json'],
          world.storeEnv,
        ),
        runCli(['events', '--since', filterHistory[3]!.at, '--format', 'json'], world.storeEnv),
      ]);

      // Assess
      for (const run of [inWindow, old, laterEvents]) expect(run.code, describeRun(run)).toBe(0);
      expect(parseJsonOutput<HistoryEntry[]>(inWindow).map((e) => e.at)).toEqual(
        filterHistory.slice(1, 4).map((e) => e.at),
      );
      expect(parseJsonOutput<HistoryEntry[]>(old)).toEqual([]);
      expect(parseJsonOutput<EventEntry[]>(laterEvents).map((e) => [e.from, e.to])).toEqual([
        [STATUS_B, STATUS_A],
      ]);
    });

    it('events print a table by default; history prints CSV on request', async () => {
      // Act
      const [csv, events] = await Promise.all([
        runCli(['history', '--filter', '--format', 'csv'], world.storeEnv),
        runCli(['events'], world.storeEnv),
      ]);

      // Assess
      for (const run of [csv, events]) expect(run.code, describeRun(run)).toBe(0);
      const csvLines = csv.stdout.trim().split('\n');
      expect(csvLines).toHaveLength(1 + SEQUENCE.length);
      expect(csvLines[0]).toMatch(/^at,ok,status/);
      expect(csvLines[3]).toContain(STATUS_B);
      expect(events.stdout).toContain(STATUS_A);
      expect(events.stdout).toContain(STATUS_B);
      expect(events.stdout).toContain('filter.status_changed');
    });
  });

  it('an endpoint that hangs: poll ends within its deadline, records the time-out, and stores the others', async () => {
    // Prepare
    const world = await startWorld({
      settings: {
        SHIELDWATCH_NETWORKS: 'office',
        SHIELDWATCH_TIMEOUT_MS: '500',
        // Room for the store's commits after the hung request on a loaded machine (a 3 s cycle missed its
        // commit once beside the whole suite); the bound below is the cycle's deadline plus the process's start.
        SHIELDWATCH_CYCLE_TIMEOUT_MS: '6000',
      },
    });
    world.api.filter = () => ({ hang: true });
    try {
      // Act
      const run = await runCli(['poll'], world.env, { timeoutMs: 20_000 });
      const [filter, network] = await Promise.all([
        runCli(['history', '--filter', '--format', 'json'], world.storeEnv),
        runCli(['history', '--network', 'office', '--format', 'json'], world.storeEnv),
      ]);

      // Assess
      expect(run.code, describeRun(run)).toBe(0);
      expect(run.ms).toBeLessThan(12_000);
      const [failed] = parseJsonOutput<HistoryEntry[]>(filter);
      expect(failed).toMatchObject({ ok: false });
      expect(failed?.status).toBeUndefined();
      expect(failed?.error).toMatch(/time|deadline/i);
      expect(parseJsonOutput<HistoryEntry[]>(network)).toEqual([expect.objectContaining({ ok: true })]);
      expect(world.sns.publishes).toEqual([]);
    } finally {
      await world.close();
    }
  });

  describe('a flat body without SHIELDWATCH_STATUS_PATH, an API under a base path: the documented fallback paths', () => {
    const LONG = `Désactivé — maintenance planifiée ✓ ${'x'.repeat(300)}`;
    /** Filter bodies served, one per poll, and the status each must give. */
    const BODIES: Array<{ body: unknown; status: string | undefined }> = [
      { body: { state: 'on' }, status: 'on' },
      { body: { status: { nested: 1 }, data: { state: 'off' } }, status: 'off' },
      { body: 'maintenance, come back later', status: undefined },
      { body: { status: null, state: 'off', uptime: 12 }, status: 'off' },
      { body: { filter: { status: LONG } }, status: LONG },
    ];
    let world: World;
    let history: HistoryEntry[];
    let events: EventEntry[];

    beforeAll(async () => {
      // Prepare
      world = await startWorld({ api: { basePath: '/tenant-7/v1' } });
      world.env['SHIELDWATCH_API_URL'] = `${world.api.url}/`;
      let call = 0;
      world.api.filter = () => ({ body: BODIES[call++]!.body });

      // Act
      for (let i = 0; i < BODIES.length; i++) await pollOk(world);
      const [historyRun, eventsRun] = await Promise.all([
        runCli(['history', '--filter', '--format', 'json'], world.storeEnv),
        runCli(['events', '--format', 'json'], world.storeEnv),
      ]);
      history = parseJsonOutput(historyRun);
      events = parseJsonOutput(eventsRun);
    });
    afterAll(async () => world?.close());

    it('reads status, state, data.state, filter.status in that order, passing over null and objects', () => {
      // Assess
      expect(world.api.requests.map((r) => r.url)).toEqual(
        Array(BODIES.length).fill('/tenant-7/v1/api/filter/status'),
      );
      expect(history.map((e) => e.status)).toEqual(BODIES.map((b) => b.status));
      expect(history.map((e) => e.ok)).toEqual([true, true, false, true, true]);
    });

    it('records a body that is not JSON as unreadable, without data, and never as a status change', () => {
      // Assess
      const unreadable = history[2]!;
      expect(unreadable).toMatchObject({ ok: false, httpStatus: 200 });
      expect(unreadable.data).toBeUndefined();
      expect(unreadable.error).toMatch(/json/i);
      expect(events.map((e) => [e.from, e.to])).toEqual([
        ['on', 'off'],
        ['off', LONG],
      ]);
    });

    it('publishes on->off and off->(long non-ASCII status): subject and SMS folded and short, attributes exact', () => {
      // Assess
      expect(world.sns.publishes).toHaveLength(2);
      expectStatusChangeAlert(world.sns.publishes[0], 'on', 'off');
      const texts = expectStatusChangeAlert(world.sns.publishes[1], 'off', LONG);
      const subject = world.sns.publishes[1]!.subject!;
      expect(subject).toContain('off');
      expect(subject).toContain('Desactive');
      expect(texts['sms']).toContain('Desactive');
      expect(texts['sms']).toMatch(PRINTABLE_ASCII);
      expect(texts['email']).toContain(LONG);
    });
  });

  it('a key rejected on every request (401): the summary says the status shown was not observed this cycle', async () => {
    // Prepare
    const world = await startWorld({ settings: { SHIELDWATCH_NETWORKS: 'net-1' } });
    world.api.filter = () => ({ body: { status: 'protecting' } });
    try {
      await pollOk(world);
      world.api.filter = () => ({ status: 401, body: { error: 'key revoked' } });
      world.api.network = () => ({ status: 401, body: { error: 'key revoked' } });

      // Act
      const rejected = await pollOk(world);

      // Assess
      const line = rejected.stdout.split('\n').find((l) => l.startsWith('filter status:'));
      expect(line).toBe(
        'filter status: "protecting", the last known; NOT observed this cycle: auth (HTTP 401)',
      );
    } finally {
      await world.close();
    }
  });

  it('the first cycle ever, its status unreadable: not known yet, and not observed', async () => {
    // Prepare
    const world = await startWorld();
    world.api.filter = () => ({ status: 503, body: { error: 'down' } });
    try {
      // Act
      const run = await pollOk(world);

      // Assess
      expect(run.stdout).toContain(
        'filter status: (not known yet); NOT observed this cycle: server (HTTP 503)',
      );
    } finally {
      await world.close();
    }
  });

  it('snapshots refused after the state write: exit 1, saying what was committed; the alert was sent', async () => {
    // Prepare
    const world = await startWorld();
    const proxy = await startDynamoProxy(world.dynamo.endpoint);
    const env = { ...world.env, AWS_ENDPOINT_URL_DYNAMODB: proxy.url };
    world.api.filter = () => ({ body: { status: 'on' } });
    try {
      await pollOk(world);
      world.api.filter = () => ({ body: { status: 'off' } });
      proxy.fault = (operation) => (operation === 'BatchWriteItem' ? 'refuse' : undefined);

      // Act
      const run = await runCli(['poll'], env);

      // Assess
      expect(run.code, describeRun(run)).toBe(1);
      expect(run.stderr).toMatch(
        /cannot store snapshots: .*; the cycle ran in part: the monitor state was committed \(filter status "off"; 1 new alert\(s\): filter\.status_changed "on" -> "off"; 1 sent, 0 waiting in the outbox for the next cycle\)/,
      );
      expect(world.sns.publishes.map((p) => p.attributes['to'])).toEqual(['off']);
    } finally {
      await proxy.close();
      await world.close();
    }
  });
});

/** Run one at a time, not alongside the concurrent tests above: the bound is on wall time from spawn. */
describe('poll against a store that does not answer', () => {
  it.each([
    { name: 'from the start', answered: [] as string[] },
    { name: 'after the table check', answered: ['DescribeTable'] },
  ])(
    'a DynamoDB that accepts and never answers ($name): poll exits 1 within SHIELDWATCH_CYCLE_TIMEOUT_MS',
    async ({ answered }) => {
      // Prepare
      // An odd budget: its half is no whole number of milliseconds.
      const world = await startWorld({ settings: { SHIELDWATCH_CYCLE_TIMEOUT_MS: '4001' } });
      const proxy = await startDynamoProxy(world.dynamo.endpoint);
      proxy.fault = (operation) => (answered.includes(operation) ? undefined : 'hang');
      world.api.filter = () => ({ body: { status: 'on' } });
      try {
        // Act
        const run = await runCli(['poll'], { ...world.env, AWS_ENDPOINT_URL_DYNAMODB: proxy.url });

        // Assess
        expect(run.code, describeRun(run)).toBe(1);
        expect(run.stderr).toMatch(/did not answer/);
        // The margin covers starting Node and the CLI on a busy machine (2 s was passed by 0.2 s beside four
        // other test runs); without the abort it took 20 s.
        expect(run.ms).toBeLessThan(4001 + 6000);
        expect(proxy.requests.filter((r) => r.fault === 'hang').length).toBeGreaterThan(0);
      } finally {
        await proxy.close();
        await world.close();
      }
    },
  );
});
