/**
 * The digest's figures on a realistic week (issue 35, CONTRACT §19): a week of history made by the real poll
 * cycle (`runCycle` against dynalite and a fake protection API on loopback, the monitor's clock moved ahead one
 * cycle every 10 minutes), with an incident of every kind, acknowledgements through `shieldwatch ack`, a weekly
 * maintenance window and a settings change (`groupBy` from `rule` to `none`); then `shieldwatch digest --since 7d
 * --format json` run in this process, its figures compared with the same figures computed here from what the
 * test drove (the cycle times, the statuses and values served, the times of the acknowledgements), never from
 * the product's own functions.
 *
 * The stack's weekly `monitor.digest` (lambda/digest/run.ts, Mondays 00:00 UTC) of the same week must carry
 * the same figures. Runs in about 25-40 s (1020 cycles): in `npm run test:slow` only (test/slow-files.ts; CI runs
 * it). Its quick counterparts in `npm test`: test/integration/digest-run.test.ts (the stack's run on a day of
 * snapshots, exactly once), test/cli/digest.test.ts (the CLI against `incidents`), test/unit/digest.test.ts.
 *
 * How the expected figures follow from what was served (the definitions of docs/digest.md and the contract):
 * - the status away from the expected one opens at the first cycle that reads it and resolves at the first
 *   cycle that reads the expected one (one held back by a maintenance window is an incident all the same: the
 *   status was away, only its alerts were suppressed); the API is unreachable after
 *   `SHIELDWATCH_ALERT_AFTER` (2) failed cycles in a row, and its incident opened at the first of them (the
 *   time its id names: the registry's `openedAt: 'id'` for the monitor's own incidents); a network's own
 *   request failing 2 cycles in a row opens its incident at the second (its alert: `openedAt: 'alert'`); each
 *   resolves at the first cycle that answers; a rule's opens at the first cycle over its threshold and resolves
 *   when its last network reads under it (`groupBy=rule`: one incident across the networks; `none`: one each);
 * - the period is [now - 7d, now]; opened / resolved: `openedAt` / `resolvedAt` in it; the response figures
 *   are over the incidents opened or resolved in it and those open at its end, median by nearest rank;
 * - filter status shares: each cycle's snapshot holds until the next one (the last before the period holds
 *   into it, the last one until now); a cycle the API did not answer is `(unreadable)`;
 * - availability: the cycles in the period, those the API answered.
 */
import { PassThrough } from 'node:stream';
import { SNSClient } from '@aws-sdk/client-sns';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../cli/main.ts';
import { DynamoSilenceStore } from '../../lambda/adapters/silence-store.ts';
import { LogAlertPublisher, SnsAlertPublisher } from '../../lambda/adapters/sns-publisher.ts';
import { buildMonitor, type Monitor } from '../../lambda/composition-root.ts';
import { loadConfig } from '../../lambda/config.ts';
import type { Digest } from '../../lambda/core/digest/digest.ts';
import { parseDigestSchedule } from '../../lambda/core/digest/digest-schedule.ts';
import { newWindow } from '../../lambda/core/silences/maintenance-window.ts';
import { type CycleLog, runCycle } from '../../lambda/cycle.ts';
import { runDigest } from '../../lambda/digest/run.ts';
import { type LocalDynamo, startDynamo } from '../fixtures/dynalite.ts';
import { type FakeApi, startFakeApi } from '../fixtures/fake-api.ts';
import { type FakeSns, startFakeSns } from '../fixtures/fake-aws.ts';
import { FULL_SIZE } from '../scale.ts';

const TOPIC = 'arn:aws:sns:us-east-1:123456789012:shieldwatch-alerts';
const quiet: CycleLog = { info: () => {}, warn: () => {}, error: () => {} };
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
/** One cycle every 10 minutes of the monitor's clock. */
const STEP = 10 * MIN;
const NETWORKS = ['a1', 'a2', 'a3'] as const;
type Network = (typeof NETWORKS)[number];

/**
 * The period's start: a Monday midnight UTC at least two days ahead, so the monitor's clock runs ahead of the
 * real one (the API client's deadlines are real time), every time below is a whole cycle, and the stack's
 * weekly digest (Mondays at 00:00 UTC) covers the same week.
 */
const P = (() => {
  let at = Math.floor(Date.now() / DAY) * DAY + 2 * DAY;
  while (new Date(at).getUTCDay() !== 1) at += DAY;
  return at;
})();
/** The history starts two hours before the period; the digest is asked for at its end, a week after P. */
const START = P - 2 * HOUR;
const END = P + 7 * DAY;
/** A time of the week: day `day` (0 to 6) of the period at `hh:mm` UTC; hours may be negative. */
const t = (day: number, hh: number, mm = 0) => P + day * DAY + hh * HOUR + mm * MIN;
const iso = (ms: number) => new Date(ms).toISOString();
/** `[from, to)`, cycle times. */
const during = (at: number, from: number, to: number) => at >= from && at < to;

/** What the fake API serves at one cycle. */
interface Served {
  readonly status: string;
  readonly apiUp: boolean;
  readonly fails: ReadonlySet<Network>;
  readonly pps: Readonly<Partial<Record<Network, number>>>;
}

/** The maintenance window: weekly, 02:00 UTC for 2 hours, on day 3 of the period. */
const WINDOW = { from: t(3, 2), to: t(3, 4) };

/** The week as the API shows it, cycle by cycle. */
function served(at: number): Served {
  let status = 'active';
  // Bypass from an hour before the period to 02:00 on day 0: opened before the period, resolved in it.
  if (during(at, t(0, -1), t(0, 2))) status = 'bypass';
  // Inside the maintenance window, learning for half an hour (02:30 to 03:00): its alerts suppressed.
  if (during(at, t(3, 2, 30), t(3, 3))) status = 'learning';
  // Learning on day 3 from 10:00 to 13:00, outside the window.
  if (during(at, t(3, 10), t(3, 13))) status = 'learning';
  // The API down on day 2 from 14:00 for four cycles.
  const apiUp = !during(at, t(2, 14), t(2, 14, 40));
  // a3's own request fails on day 1 from 03:00 for six cycles.
  const fails = new Set<Network>(during(at, t(1, 3), t(1, 4)) ? ['a3'] : []);
  const pps: Partial<Record<Network, number>> = {};
  const set = (network: Network, from: number, values: readonly number[]) => {
    const i = Math.round((at - from) / STEP);
    if (at >= from && i < values.length) pps[network] = values[i]!;
  };
  // Before the period (resolved before it): a2 at 2M for two cycles. In no figure.
  set('a2', t(0, -2, 10), [2_000_000, 2_000_000]);
  // Day 0, 20:00 (groupBy=rule): a1 from 20:00 to 21:00, a2 joins at 20:20 until 21:10.
  set('a1', t(0, 20), [900_000, 950_000, 1_100_000, 1_200_000, 800_000, 600_000]);
  set('a2', t(0, 20, 20), [700_000, 720_000, 750_000, 610_000, 560_000]);
  // Day 4, 09:00 (groupBy=rule): a3 alone, 30 minutes.
  set('a3', t(4, 9), [600_000, 650_000, 620_000]);
  // Day 5 (groupBy=none from day 5 00:00): a2 from 08:00 to 08:50.
  set('a2', t(5, 8), [800_000, 850_000, 820_000, 810_000, 805_000]);
  // Day 6, 22:00 (groupBy=none): a1 until the end, still open.
  set(
    'a1',
    t(6, 22),
    [
      950_000, 960_000, 970_000, 980_000, 975_000, 970_000, 965_000, 960_000, 955_000, 950_000, 945_000,
      940_000,
    ],
  );
  return { status, apiUp, fails, pps };
}

/** `groupBy` is `rule` until this time, `none` from it on (the operator changed the setting). */
const SWITCH = t(5, 0);

/**
 * The acknowledgements by `shieldwatch ack`, each at its time, of the open incident whose id starts with
 * `prefix` (one at a time).
 */
const ACKS: ReadonlyArray<{ readonly at: number; readonly prefix: string }> = [
  { at: t(0, 20, 45), prefix: 'flood@' },
  { at: t(2, 14, 25), prefix: 'api.unreachable/' },
  { at: t(3, 10, 30), prefix: 'filter.status_changed/' },
  { at: t(5, 8, 20), prefix: 'flood/a2/' },
];

beforeAll(() => {
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDTEST');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'test-secret');
  vi.stubEnv('AWS_REGION', 'us-east-1');
});
afterAll(() => {
  vi.unstubAllEnvs();
});

describe.runIf(FULL_SIZE)('the digest of a week made by real cycles', () => {
  let api: FakeApi;
  let dynamo: LocalDynamo;
  let fakeSns: FakeSns;
  let sns: SNSClient;
  let clock = START;
  let scene: Served = served(START);

  /** The table, the API and the topic on loopback. */
  async function startParts(): Promise<void> {
    [api, dynamo, fakeSns] = await Promise.all([
      startFakeApi({ key: 'digest-week-0123456789' }),
      startDynamo(),
      startFakeSns(),
    ]);
    sns = new SNSClient({
      region: 'us-east-1',
      endpoint: fakeSns.url,
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    });
    api.filter = () =>
      scene.apiUp ? { body: { status: scene.status } } : { status: 503, body: { error: 'down' } };
    api.network = (id) => {
      if (!scene.apiUp) return { status: 503, body: { error: 'down' } };
      if (scene.fails.has(id as Network)) return { status: 404, body: { error: 'gone' } };
      return { body: { traffic: { in: { pps: scene.pps[id as Network] ?? 100 } } } };
    };
  }
  afterAll(async () => {
    sns.destroy();
    await Promise.all([fakeSns.close(), api.close(), dynamo.close()]);
  });

  const monitor = (groupBy: 'rule' | 'none'): Monitor => {
    const env = {
      SHIELDWATCH_API_URL: api.url,
      SHIELDWATCH_API_KEY: api.key,
      SHIELDWATCH_NETWORKS: NETWORKS.join(','),
      SHIELDWATCH_TABLE: dynamo.table,
      SHIELDWATCH_TOPIC_ARN: TOPIC,
      SHIELDWATCH_TIMEOUT_MS: '2000',
      SHIELDWATCH_RETRIES: '0',
      SHIELDWATCH_ALERT_AFTER: '2',
      SHIELDWATCH_EXPECTED_STATUS: 'active',
      SHIELDWATCH_RULES: 'flood: traffic.in.pps > 500k',
      SHIELDWATCH_GROUP_BY: groupBy,
    };
    return buildMonitor({
      config: loadConfig(env),
      env,
      dynamo: dynamo.client,
      sns,
      log: quiet,
      fallbackPublisher: new LogAlertPublisher(() => {}),
      now: () => clock,
    });
  };

  /** A CLI command run in this process against the table at the clock's time, as `shieldwatch ...` would. */
  const cli = async (...argv: string[]) => {
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let out = '';
    let err = '';
    stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
    });
    stderr.setEncoding('utf8').on('data', (chunk: string) => {
      err += chunk;
    });
    vi.stubEnv('AWS_ENDPOINT_URL_DYNAMODB', dynamo.endpoint);
    const code = await main(argv, {
      stdout,
      stderr,
      now: () => clock,
      env: {
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: 'AKIDTEST',
        AWS_SECRET_ACCESS_KEY: 'test-secret',
        AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
        SHIELDWATCH_TABLE: dynamo.table,
        SHIELDWATCH_EXPECTED_STATUS: 'active',
        SHIELDWATCH_ENV_FILE: '/dev/null',
      },
    });
    expect(code, `${argv.join(' ')}: ${err}`).toBe(0);
    return out;
  };

  /** What was served at each cycle, the test's own record: the expected figures are computed from it. */
  const cycles: Array<{ readonly at: number; readonly served: Served }> = [];
  /** The acknowledgements made: when, and the incident's id. */
  const acked: Array<{ readonly at: number; readonly id: string }> = [];
  let digest: Digest;
  let text: string;

  beforeAll(async () => {
    await startParts();
    // Prepare: the weekly window, stored before the history starts.
    const window = newWindow(
      {
        start: iso(WINDOW.from),
        for: '2h',
        repeat: 'weekly',
        tz: 'UTC',
        event: '*',
        reason: 'filter update',
      },
      START,
      's-weekwndw',
    );
    if (!window.ok) throw new Error(window.problems.join('; '));
    expect(await new DynamoSilenceStore(dynamo.client, dynamo.table).putWindow(window.window)).toBe(true);

    // Act: a cycle every 10 minutes from START to END; the acknowledgements at their own times between cycles.
    const byRule = monitor('rule');
    const byNetwork = monitor('none');
    // The stack's weekly digest, deployed before the week: its first run records where it starts from.
    expect((await stackDigest(START)).outcome).toBe('start');
    const acks = [...ACKS];
    for (let at = START; at < END; at += STEP) {
      while (acks.length > 0 && acks[0]!.at < at) {
        const ack = acks.shift()!;
        clock = ack.at;
        const open = JSON.parse(await cli('incidents', '--open', '--format', 'json')) as Array<{
          id: string;
        }>;
        const ids = open.map((r) => r.id).filter((id) => id.startsWith(ack.prefix));
        expect(ids, `open at ${iso(ack.at)}: ${open.map((r) => r.id).join(', ')}`).toHaveLength(1);
        await cli('ack', ids[0]!);
        acked.push({ at: ack.at, id: ids[0]! });
      }
      clock = at;
      scene = served(at);
      cycles.push({ at, served: scene });
      const m = at < SWITCH ? byRule : byNetwork;
      await runCycle(m.deps, m.settings, at + 15_000);
    }
    clock = END;
    digest = JSON.parse(await cli('digest', '--since', '7d', '--format', 'json')) as Digest;
    text = await cli('digest', '--since', '7d');
    // The stack's run a few seconds after the week's end publishes the week's monitor.digest.
    expect(await stackDigest(END + 3000)).toMatchObject({ outcome: 'committed', pending: 0 });
  }, 150_000);

  /** One run of the stack's digest function (`monitor.digest`, weekly on Mondays at 00:00 UTC) at `nowMs`. */
  async function stackDigest(nowMs: number) {
    const parsed = parseDigestSchedule({ digest: 'weekly', digestAt: '00:00', digestTz: 'UTC' });
    if (!parsed.ok) throw new Error(parsed.problems.join('; '));
    return runDigest(
      {
        client: dynamo.client,
        table: dynamo.table,
        publisher: new SnsAlertPublisher(sns, TOPIC),
        log: quiet,
        now: () => nowMs,
      },
      { schedule: parsed.schedule, monitorName: 'shieldwatch' },
      { runId: `digest-${nowMs}`, deadlineMs: nowMs + 30_000 },
    );
  }

  it('the stack publishes the same figures: monitor.digest of the week is the CLI digest', () => {
    const published = fakeSns.publishes.filter((p) => p.attributes['event'] === 'monitor.digest');
    expect(published).toHaveLength(1);
    const document = JSON.parse(JSON.parse(published[0]!.message).sqs) as {
      period: { since: string; until: string };
      digest: Digest;
    };
    expect([Date.parse(document.period.since), Date.parse(document.period.until)]).toEqual([P, END]);
    expect(document.digest).toEqual(digest);
  });

  it('the week was driven as planned: every acknowledgement found its incident, the window suppressed its change', async () => {
    expect(cycles).toHaveLength((END - START) / STEP);
    expect(acked.map((a) => a.id)).toEqual([
      `flood@${iso(t(0, 20))}`,
      `api.unreachable/${iso(t(2, 14))}`,
      `filter.status_changed/${iso(t(3, 10))}`,
      `flood/a2/${iso(t(5, 8))}`,
    ]);
    const events = await monitor('rule').store.queryEvents({
      since: iso(WINDOW.from),
      until: iso(WINDOW.to),
    });
    expect(events.map((e) => [e.event, e.to, e.suppressedBy])).toEqual([
      ['filter.status_changed', 'learning', 's-weekwndw'],
      ['filter.status_changed', 'active', 's-weekwndw'],
    ]);
  });

  /**
   * The incidents the served week makes, by the definitions in this file's header, computed from `cycles`
   * only. `openedAt`, `resolvedAt` epoch ms; `peaks` per network: the highest value served while it was open,
   * and the first cycle that served it.
   */
  interface ExpectedIncident {
    readonly id: string;
    readonly kind: 'status' | 'api' | 'network' | 'rule';
    readonly rule?: string;
    readonly openedAt: number;
    readonly resolvedAt?: number;
    readonly peaks: ReadonlyMap<string, { readonly peak: number; readonly at: number }>;
  }

  /** The maximal runs `[from, to)` of cycle indices where `holds`; `to` is `cycles.length` for a run to the end. */
  function runs(holds: (s: Served, at: number) => boolean): Array<[number, number]> {
    const out: Array<[number, number]> = [];
    let from: number | undefined;
    cycles.forEach((c, i) => {
      const now = holds(c.served, c.at);
      if (now && from === undefined) from = i;
      if (!now && from !== undefined) {
        out.push([from, i]);
        from = undefined;
      }
    });
    if (from !== undefined) out.push([from, cycles.length]);
    return out;
  }

  function expectedIncidents(): ExpectedIncident[] {
    const out: ExpectedIncident[] = [];
    const end = (to: number) => (to < cycles.length ? { resolvedAt: cycles[to]!.at } : {});
    const none = new Map<string, { peak: number; at: number }>();
    // The status away from `active`, read (the API answering): opens at the first cycle that reads it.
    for (const [from, to] of runs((s) => s.apiUp && s.status !== 'active')) {
      const openedAt = cycles[from]!.at;
      out.push({
        id: `filter.status_changed/${iso(openedAt)}`,
        kind: 'status',
        openedAt,
        ...end(to),
        peaks: none,
      });
    }
    // The API: ALERT_AFTER (2) failed cycles in a row; it opened at the first of them (the time its id names).
    for (const [from, to] of runs((s) => !s.apiUp)) {
      if (to - from < 2) continue;
      const openedAt = cycles[from]!.at;
      out.push({ id: `api.unreachable/${iso(openedAt)}`, kind: 'api', openedAt, ...end(to), peaks: none });
    }
    // A network's own request failing 2 cycles in a row: opens at the second (its alert), its id names the first.
    for (const network of NETWORKS) {
      for (const [from, to] of runs((s) => s.apiUp && s.fails.has(network))) {
        if (to - from < 2) continue;
        out.push({
          id: `network.unreachable/0/${iso(cycles[from]!.at)}`,
          kind: 'network',
          openedAt: cycles[from + 1]!.at,
          ...end(to),
          peaks: none,
        });
      }
    }
    const over = (s: Served, network: Network) => (s.pps[network] ?? 0) > 500_000;
    const peaksOf = (from: number, to: number, networks: readonly Network[]) => {
      const peaks = new Map<string, { peak: number; at: number }>();
      for (const c of cycles.slice(from, to)) {
        for (const network of networks) {
          const value = c.served.pps[network];
          if (value === undefined || !over(c.served, network)) continue;
          if (value > (peaks.get(network)?.peak ?? 0)) peaks.set(network, { peak: value, at: c.at });
        }
      }
      return peaks;
    };
    // groupBy=rule: one incident while any network is over the threshold.
    for (const [from, to] of runs((s, at) => at < SWITCH && NETWORKS.some((n) => over(s, n)))) {
      const openedAt = cycles[from]!.at;
      out.push({
        id: `flood@${iso(openedAt)}`,
        kind: 'rule',
        rule: 'flood',
        openedAt,
        ...end(to),
        peaks: peaksOf(from, to, NETWORKS),
      });
    }
    // groupBy=none: one incident per network while it is over the threshold.
    for (const network of NETWORKS) {
      for (const [from, to] of runs((s, at) => at >= SWITCH && over(s, network))) {
        const openedAt = cycles[from]!.at;
        out.push({
          id: `flood/${network}/${iso(openedAt)}`,
          kind: 'rule',
          rule: 'flood',
          openedAt,
          ...end(to),
          peaks: peaksOf(from, to, [network]),
        });
      }
    }
    return out.sort((a, b) => a.openedAt - b.openedAt);
  }

  const inPeriod = (at: number | undefined) => at !== undefined && at >= P && at <= END;
  /** The period's incidents: opened or resolved in it, or open at its end. */
  const ofPeriod = (all: readonly ExpectedIncident[]) =>
    all.filter((i) => inPeriod(i.openedAt) || inPeriod(i.resolvedAt) || i.resolvedAt === undefined);
  /** The nearest-rank median: the value of rank ⌈n/2⌉ in ascending order. */
  const median = (values: readonly number[]) =>
    [...values].sort((a, b) => a - b)[Math.max(1, Math.ceil(values.length / 2)) - 1] ?? null;

  it('the incidents: opened and resolved in the period, per kind and per rule, open at its end', () => {
    const all = expectedIncidents();
    // What the model made of the week, in a few words (a change to `served` that breaks a case shows here).
    expect(all.map((i) => `${i.id} ${i.resolvedAt === undefined ? 'open' : iso(i.resolvedAt)}`)).toEqual([
      `flood@${iso(t(0, -2, 10))} ${iso(t(0, -2, 30))}`,
      `filter.status_changed/${iso(t(0, -1))} ${iso(t(0, 2))}`,
      `flood@${iso(t(0, 20))} ${iso(t(0, 21, 10))}`,
      `network.unreachable/0/${iso(t(1, 3))} ${iso(t(1, 4))}`,
      `api.unreachable/${iso(t(2, 14))} ${iso(t(2, 14, 40))}`,
      `filter.status_changed/${iso(t(3, 2, 30))} ${iso(t(3, 3))}`,
      `filter.status_changed/${iso(t(3, 10))} ${iso(t(3, 13))}`,
      `flood@${iso(t(4, 9))} ${iso(t(4, 9, 30))}`,
      `flood/a2/${iso(t(5, 8))} ${iso(t(5, 8, 50))}`,
      `flood/a1/${iso(t(6, 22))} open`,
    ]);
    const opened = all.filter((i) => inPeriod(i.openedAt));
    const resolved = all.filter((i) => inPeriod(i.resolvedAt));
    const rows = <K extends string>(key: (i: ExpectedIncident) => K | undefined) => {
      const by = new Map<K, { opened: number; resolved: number }>();
      const add = (i: ExpectedIncident, field: 'opened' | 'resolved') => {
        const k = key(i);
        if (k === undefined) return;
        const row = by.get(k) ?? { opened: 0, resolved: 0 };
        row[field] += 1;
        by.set(k, row);
      };
      for (const i of opened) add(i, 'opened');
      for (const i of resolved) add(i, 'resolved');
      // The most opened first, then the most resolved, then by name.
      return [...by].sort(
        ([ka, a], [kb, b]) => b.opened - a.opened || b.resolved - a.resolved || (ka < kb ? -1 : 1),
      );
    };

    expect(digest.since).toBe(iso(P));
    expect(digest.until).toBe(iso(END));
    expect(digest.incidents).toEqual({
      opened: opened.length,
      resolved: resolved.length,
      openAtEnd: all.filter((i) => i.resolvedAt === undefined).length,
      byKind: rows((i) => i.kind).map(([kind, row]) => ({ kind, ...row })),
      byRule: rows((i) => i.rule).map(([rule, row]) => ({ rule, kind: 'rule', ...row })),
    });
    // The same, as figures: the status incident across the period's start is resolved in it, not opened; the
    // one inside the window counts (the status was away; only its alerts were held back).
    expect(digest.incidents).toMatchObject({ opened: 8, resolved: 8, openAtEnd: 1 });
    expect(text).toMatch(/^incidents: 8 opened, 8 resolved, 1 open at the end$/m);
  });

  it('time to acknowledge and to resolve: median (nearest rank) and worst over the period incidents', () => {
    const period = ofPeriod(expectedIncidents());
    const ackOf = (i: ExpectedIncident) => acked.find((a) => a.id === i.id);
    const toAck = period.flatMap((i) => {
      const ack = ackOf(i);
      return ack === undefined ? [] : [ack.at - i.openedAt];
    });
    const toResolve = period.flatMap((i) => (i.resolvedAt === undefined ? [] : [i.resolvedAt - i.openedAt]));

    expect(digest.response).toEqual({
      timeToAcknowledge: { count: toAck.length, medianMs: median(toAck), worstMs: Math.max(...toAck) },
      timeToResolve: {
        count: toResolve.length,
        medianMs: median(toResolve),
        worstMs: Math.max(...toResolve),
      },
      notAcknowledged: period.filter((i) => ackOf(i) === undefined).length,
    });
    // In minutes: acknowledged after 45 (flood), 25 (API), 30 (learning), 20 (flood on a2): median 25, worst 45;
    // resolved after 180, 70, 50, 40, 30, 180, 30, 50: median 50, worst 180.
    expect(digest.response.timeToAcknowledge).toEqual({ count: 4, medianMs: 25 * MIN, worstMs: 45 * MIN });
    expect(digest.response.timeToResolve).toEqual({ count: 8, medianMs: 50 * MIN, worstMs: 180 * MIN });
  });

  /** Per rule, each network's highest peak in the period's incidents, highest first (at most 5). */
  function expectedWorst() {
    const best = new Map<string, { network: string; peak: number; peakAt: string; incident: string }>();
    for (const i of ofPeriod(expectedIncidents())) {
      for (const [network, { peak, at }] of i.peaks) {
        if (!inPeriod(at)) continue;
        if (peak > (best.get(network)?.peak ?? 0))
          best.set(network, { network, peak, peakAt: iso(at), incident: i.id });
      }
    }
    return [{ rule: 'flood', networks: [...best.values()].sort((a, b) => b.peak - a.peak).slice(0, 5) }];
  }

  it('the worst networks: the peaks of the period only (a2 at 2M before it is in no figure)', () => {
    const [flood] = digest.worstNetworks;
    expect(digest.worstNetworks.map((w) => w.rule)).toEqual(['flood']);
    const networks = flood!.networks;
    expect(networks.map((n) => n.network).sort()).toEqual(['a1', 'a2', 'a3']);
    // The peaks of the incidents across networks (groupBy=rule), as served.
    const expected = expectedWorst()[0]!.networks;
    for (const network of ['a1', 'a3']) {
      expect(networks.find((n) => n.network === network)).toEqual(
        expected.find((n) => n.network === network),
      );
    }
    expect(networks.find((n) => n.network === 'a2')?.incident).toBe(`flood/a2/${iso(t(5, 8))}`);
  });

  it(
    "the worst networks exactly: a rule's incident on one network (groupBy=none) has its highest value as its peak " +
      '(its rule cell keeps the peak while open and its resolve carries it: a2 on day 5 peaks at 850k at 08:10, ' +
      'not at its trigger, 800k at 08:00)',
    () => {
      expect(digest.worstNetworks).toEqual(expectedWorst());
    },
  );

  it('the filter statuses: time-weighted, each cycle holding until the next; API availability over cycles', () => {
    // Each cycle's status holds until the next cycle (the last one until the end); the one before the period
    // holds into it. A cycle the API did not answer is (unreadable).
    const held = new Map<string, number>();
    let answeredMs = 0;
    cycles.forEach((c, i) => {
      const from = Math.max(c.at, P);
      const to = Math.min(cycles[i + 1]?.at ?? END, END);
      if (to <= from) return;
      const status = c.served.apiUp ? c.served.status : '(unreadable)';
      held.set(status, (held.get(status) ?? 0) + (to - from));
      if (c.served.apiUp) answeredMs += to - from;
    });
    const monitoredMs = END - P;
    const statuses = [...held]
      .map(([status, ms]) => ({ status, ms, share: ms / monitoredMs }))
      .sort((a, b) => b.ms - a.ms || (a.status < b.status ? -1 : 1));
    const inside = cycles.filter((c) => c.at >= P && c.at <= END);
    const answered = inside.filter((c) => c.served.apiUp).length;

    expect(digest.filter).toEqual({ monitoredMs, notMonitoredMs: 0, statuses });
    expect(digest.availability).toEqual({
      cycles: inside.length,
      answeredCycles: answered,
      share: answered / inside.length,
      timeShare: answeredMs / monitoredMs,
      failedByKind: { server: inside.length - answered },
    });
    // As figures: bypass 2 h of the period (the hour before it is not the period's), learning 3 h 30, the API
    // out 40 minutes; 1008 cycles, 4 of them unanswered.
    expect(Object.fromEntries(digest.filter.statuses.map((s) => [s.status, s.ms / MIN]))).toEqual({
      active: 7 * 24 * 60 - 120 - 210 - 40,
      bypass: 120,
      learning: 210,
      '(unreadable)': 40,
    });
    expect(digest.availability).toMatchObject({ cycles: 1008, answeredCycles: 1004 });
    expect(text).toMatch(/^API availability: 99\.60% of cycles answered \(1004 of 1008\)/m);
  });

  it('the maintenance window: its one occurrence in the period listed', () => {
    expect(digest.silences).toEqual([
      {
        id: 's-weekwndw',
        kind: 'maintenance',
        startsAt: iso(WINDOW.from),
        endsAt: iso(WINDOW.to),
        pattern: '*',
        reason: 'filter update',
        repeat: 'weekly',
      },
    ]);
  });
});
