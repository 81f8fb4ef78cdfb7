/**
 * One contract for every kind of incident (issue 30 item 6; CONTRACT §12-14, "One lifecycle for every kind";
 * docs/acknowledge.md): the same cases run for the status away from `SHIELDWATCH_EXPECTED_STATUS`, the API
 * unreachable, the two blind spots (`network.unreachable`, `network.rule_unreadable`), a rule across networks
 * (`groupBy=rule`) and a rule on one network (`groupBy=none`). Each row of `KINDS` is a small driver: how the
 * fake API opens and closes its incident, the events it publishes, its id, the silence pattern that holds it.
 *
 * Real poll cycles (`runCycle`) against dynalite and a loopback API, alerts to a fake SNS on loopback; the
 * monitor's clock steps 10 minutes a cycle. `ack`, `unack`, `incidents --format json` and `status --format json`
 * are the CLI's own commands run in this process (`cli/main.ts`) against the same table, as an operator runs
 * them. Every assertion on the topic is an exact sequence of `minute event action stage incident`, minutes from
 * the cycle that opened the incident.
 *
 * A step that a kind lacks today is `it.fails`, with the defect named in its row of `KINDS` (`defects`), or in
 * `EVERY_KIND_DEFECTS` when every kind lacks it. `npm test` runs four of the kinds (`QUICK_KINDS`), `npm run
 * test:slow` all six.
 */
import { userInfo } from 'node:os';
import { PassThrough } from 'node:stream';
import { SNSClient } from '@aws-sdk/client-sns';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../cli/main.ts';
import { DynamoSilenceStore } from '../../lambda/adapters/silence-store.ts';
import { LogAlertPublisher } from '../../lambda/adapters/sns-publisher.ts';
import { buildMonitor, type Monitor } from '../../lambda/composition-root.ts';
import { loadConfig } from '../../lambda/config.ts';
import { newSilence } from '../../lambda/core/silences/silence.ts';
import { type CycleLog, runCycle } from '../../lambda/cycle.ts';
import { type LocalDynamo, startDynamo } from '../fixtures/dynalite.ts';
import { type FakeApi, startFakeApi } from '../fixtures/fake-api.ts';
import { type FakeSns, startFakeSns } from '../fixtures/fake-aws.ts';
import { bySize } from '../scale.ts';

const TOPIC = 'arn:aws:sns:us-east-1:123456789012:shieldwatch-alerts';
const quiet: CycleLog = { info: () => {}, warn: () => {}, error: () => {} };
const MIN = 60_000;
/** One cycle every 10 minutes of the monitor's clock. */
const STEP = 10 * MIN;
const HOUR = 60 * MIN;
/** Reminders every 20 minutes, stage 2 at 10 minutes, stage 3 at 30: the three never fall in one cycle but at 30 and 60. */
const TIMERS = { SHIELDWATCH_REMIND_EVERY: '20m', SHIELDWATCH_ESCALATE_AFTER: '10m,30m' };
/** Who `shieldwatch ack` says acknowledged, with a local DynamoDB (docs/acknowledge.md): this machine's user. */
const ME = userInfo().username;

/** What the fake API shows. */
interface Scene {
  status: string;
  apiUp: boolean;
  a1: 'answers' | 'fails' | 'unreadable';
  a1Pps: number;
}

/** The cases of the contract, one `it` each. */
type Step =
  | 'opens'
  | 'reminds'
  | 'escalates'
  | 'resolves'
  | 'ack'
  | 'unack'
  | 'silence after opening'
  | 'silence over opening'
  | 'announced first'
  | 'clock ahead'
  | 'duplicated'
  | 'same row'
  | 'no other row';

/** One kind of incident, as a driver of the fake API. */
interface Kind {
  readonly name: string;
  /** Its settings besides the common ones. */
  readonly env?: Readonly<Record<string, string>>;
  readonly start: (s: Scene) => void;
  readonly end: (s: Scene) => void;
  /** The event that opens it (`action=trigger`) and the one that ends it (`action=resolve`). */
  readonly opens: string;
  readonly closes: string;
  /** Its reminder's event. */
  readonly reminder: string;
  /** Its `kind` in `shieldwatch incidents --format json`. */
  readonly listed: string;
  readonly id: RegExp;
  /** A silence pattern, not `*`, that holds its opening back (docs/silences.md, docs/acknowledge.md). */
  readonly pattern: string;
  /** The steps it lacks today, each with its defect: run as `it.fails`. */
  readonly defects?: Partial<Record<Step, string>>;
}

const KINDS: readonly Kind[] = [
  {
    name: 'the status away from the expected one',
    start: (s) => {
      s.status = 'bypass';
    },
    end: (s) => {
      s.status = 'active';
    },
    opens: 'filter.status_changed',
    closes: 'filter.status_changed',
    // Its reminder keeps its own event (docs/acknowledge.md: `filter.status_reminder`, as before).
    reminder: 'filter.status_reminder',
    listed: 'status',
    id: /^filter\.status_changed\/\d{4}-/,
    pattern: 'filter.*',
  },
  {
    name: 'the API unreachable',
    start: (s) => {
      s.apiUp = false;
    },
    end: (s) => {
      s.apiUp = true;
    },
    opens: 'api.unreachable',
    closes: 'api.recovered',
    reminder: 'incident.reminder',
    listed: 'api',
    id: /^api\.unreachable\/\d{4}-/,
    pattern: 'api.*',
  },
  {
    name: 'a blind spot: a network unreachable',
    start: (s) => {
      s.a1 = 'fails';
    },
    end: (s) => {
      s.a1 = 'answers';
    },
    opens: 'network.unreachable',
    closes: 'network.recovered',
    reminder: 'incident.reminder',
    listed: 'network',
    id: /^network\.unreachable\/0\/\d{4}-/,
    pattern: 'network.*',
  },
  {
    name: 'a blind spot: a rule unreadable',
    start: (s) => {
      s.a1 = 'unreadable';
    },
    end: (s) => {
      s.a1 = 'answers';
    },
    opens: 'network.rule_unreadable',
    closes: 'network.rule_readable',
    reminder: 'incident.reminder',
    listed: 'rule_unreadable',
    id: /^network\.rule_unreadable\/flood\/0\/\d{4}-/,
    pattern: 'network.*',
  },
  {
    name: 'a rule across networks (groupBy=rule)',
    start: (s) => {
      s.a1Pps = 900_000;
    },
    end: (s) => {
      s.a1Pps = 100;
    },
    opens: 'incident.opened',
    closes: 'incident.resolved',
    reminder: 'incident.reminder',
    listed: 'rule',
    id: /^flood@\d{4}-/,
    pattern: 'network.*',
  },
  {
    name: 'a rule on one network (groupBy=none)',
    env: { SHIELDWATCH_GROUP_BY: 'none' },
    start: (s) => {
      s.a1Pps = 900_000;
    },
    end: (s) => {
      s.a1Pps = 100;
    },
    opens: 'network.rule_triggered',
    closes: 'network.rule_resolved',
    reminder: 'incident.reminder',
    listed: 'rule',
    id: /^flood\/a1\/\d{4}-/,
    pattern: 'network.*',
  },
];

/**
 * The kinds `npm test` runs: one of each judge that drives an incident (the monitor's, the blind spots', the rule
 * incidents across networks, the per-network rule cells); `npm run test:slow` runs every kind.
 */
const QUICK_KINDS = [
  'the status away from the expected one',
  'a blind spot: a network unreachable',
  'a rule across networks (groupBy=rule)',
  'a rule on one network (groupBy=none)',
];
if (QUICK_KINDS.some((name) => !KINDS.some((k) => k.name === name)))
  throw new Error('a quick kind is missing');

/** Steps every kind lacks today, with the defect. */
const EVERY_KIND_DEFECTS: Partial<Record<Step, string>> = {};

/** A row of a listing, as far as every listing should agree. */
interface Row {
  readonly id: string;
  readonly kind?: string;
  readonly state: string;
  readonly by?: string;
}

/** The SQS document of a publish (CONTRACT §12). */
interface Document {
  readonly at: string;
  readonly incident?: string;
  readonly action?: string;
  readonly stage?: number;
}

beforeAll(() => {
  // The CLI's AWS SDK clients read their credentials and region from the process (a CLI process has them).
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'AKIDTEST');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'test-secret');
  vi.stubEnv('AWS_REGION', 'us-east-1');
});
afterAll(() => {
  vi.unstubAllEnvs();
});

/** One table, API and topic, and a monitor over them whose clock the test moves. */
class Harness {
  readonly scene: Scene = { status: 'active', apiUp: true, a1: 'answers', a1Pps: 100 };
  /** The monitor's clock (whole minutes). */
  now = Math.floor(Date.now() / MIN) * MIN;
  /** When the cycle that opened the incident ran (real time, whatever the clock that ran it). */
  openedAt = 0;
  private readonly monitors = new Map<number, Monitor>();

  private constructor(
    readonly kind: Kind,
    readonly api: FakeApi,
    readonly dynamo: LocalDynamo,
    readonly fakeSns: FakeSns,
    readonly sns: SNSClient,
  ) {
    api.filter = () =>
      this.scene.apiUp ? { body: { status: this.scene.status } } : { status: 503, body: { error: 'down' } };
    api.network = (id) => {
      if (!this.scene.apiUp) return { status: 503, body: { error: 'down' } };
      if (id === 'a1' && this.scene.a1 === 'fails') return { status: 404, body: { error: 'gone' } };
      if (id === 'a1' && this.scene.a1 === 'unreadable') return { body: { other: 1 } };
      return { body: { traffic: { in: { pps: id === 'a1' ? this.scene.a1Pps : 100 } } } };
    };
  }

  static async start(kind: Kind): Promise<Harness> {
    const [api, dynamo, fakeSns] = await Promise.all([
      startFakeApi({ key: 'incident-contract-0123' }),
      startDynamo(),
      startFakeSns(),
    ]);
    const sns = new SNSClient({
      region: 'us-east-1',
      endpoint: fakeSns.url,
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    });
    return new Harness(kind, api, dynamo, fakeSns, sns);
  }

  async close(): Promise<void> {
    this.sns.destroy();
    await Promise.all([this.fakeSns.close(), this.api.close(), this.dynamo.close()]);
  }

  /** The monitor, its clock `aheadMs` ahead of the test's. */
  monitor(aheadMs = 0): Monitor {
    const built = this.monitors.get(aheadMs);
    if (built !== undefined) return built;
    const env = {
      SHIELDWATCH_API_URL: this.api.url,
      SHIELDWATCH_API_KEY: this.api.key,
      SHIELDWATCH_NETWORKS: 'a1,a2',
      SHIELDWATCH_TABLE: this.dynamo.table,
      SHIELDWATCH_TOPIC_ARN: TOPIC,
      SHIELDWATCH_TIMEOUT_MS: '2000',
      SHIELDWATCH_RETRIES: '0',
      SHIELDWATCH_ALERT_AFTER: '1',
      SHIELDWATCH_EXPECTED_STATUS: 'active',
      SHIELDWATCH_RULES: 'flood: traffic.in.pps > 500k',
      ...TIMERS,
      ...this.kind.env,
    };
    const monitor = buildMonitor({
      config: loadConfig(env),
      env,
      dynamo: this.dynamo.client,
      sns: this.sns,
      log: quiet,
      fallbackPublisher: new LogAlertPublisher(() => {}),
      now: () => this.now + aheadMs,
    });
    this.monitors.set(aheadMs, monitor);
    return monitor;
  }

  /** `n` cycles, one every {@link STEP}, each run `copies` times at once (duplicated invocations). */
  async cycles(n: number, options: { copies?: number; aheadMs?: number } = {}): Promise<void> {
    const m = this.monitor(options.aheadMs);
    const ahead = options.aheadMs ?? 0;
    for (let i = 0; i < n; i++) {
      this.now += STEP;
      await Promise.all(
        Array.from({ length: options.copies ?? 1 }, () =>
          runCycle(m.deps, m.settings, this.now + ahead + 15_000),
        ),
      );
    }
  }

  /** A quiet cycle, then the incident's cause, then the cycle that opens it (its time: minute 0). */
  async open(options: { copies?: number; aheadMs?: number } = {}): Promise<void> {
    await this.cycles(1, { copies: options.copies ?? 1 });
    this.kind.start(this.scene);
    await this.cycles(1, options);
    this.openedAt = this.now;
  }

  /** The incident's id, from what was published or, when nothing was, from the events recorded. */
  async id(): Promise<string> {
    const published = this.documents().find((d) => d.incident !== undefined)?.incident;
    if (published !== undefined) return published;
    const events = await this.monitor().store.queryEvents({});
    const opened = events.find((e) => e.event === this.kind.opens && typeof e.incident === 'string');
    if (opened?.incident === undefined) throw new Error('no incident opened');
    return opened.incident;
  }

  documents(): Document[] {
    return this.fakeSns.publishes.map((p) => JSON.parse(JSON.parse(p.message).sqs) as Document);
  }

  /**
   * What reached the topic: `minute event action stage incident` (action `-` when none; the attribute `stage`),
   * minutes of the alert's time from the opening cycle.
   */
  topic(): string[] {
    return this.fakeSns.publishes.map((p) => {
      const d = JSON.parse(JSON.parse(p.message).sqs) as Document;
      const minute = (Date.parse(d.at) - this.openedAt) / MIN;
      return `${minute} ${p.attributes['event']} ${d.action ?? '-'} ${p.attributes['stage'] ?? '-'} ${d.incident ?? '-'}`;
    });
  }

  /** Runs a CLI command in this process against the table, as `shieldwatch ...` would. */
  async cli(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
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
    vi.stubEnv('AWS_ENDPOINT_URL_DYNAMODB', this.dynamo.endpoint);
    const code = await main(argv, {
      stdout,
      stderr,
      now: () => this.now,
      env: {
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: 'AKIDTEST',
        AWS_SECRET_ACCESS_KEY: 'test-secret',
        AWS_ENDPOINT_URL_DYNAMODB: this.dynamo.endpoint,
        SHIELDWATCH_TABLE: this.dynamo.table,
        SHIELDWATCH_EXPECTED_STATUS: 'active',
        SHIELDWATCH_ENV_FILE: '/dev/null',
      },
    });
    return { code, stdout: out, stderr: err };
  }

  /** `shieldwatch ack ID` / `unack ID`, which must succeed. */
  async ack(verb: 'ack' | 'unack', id: string): Promise<string> {
    const run = await this.cli(verb, id);
    expect(run.code, run.stderr).toBe(0);
    return run.stdout;
  }

  /** `shieldwatch incidents --format json`, each row as far as the listings should agree. */
  async incidents(open = false): Promise<Row[]> {
    const run = await this.cli('incidents', ...(open ? ['--open'] : []), '--format', 'json');
    expect(run.code, run.stderr).toBe(0);
    const rows = JSON.parse(run.stdout) as Array<{
      id: string;
      kind: string;
      state: string;
      acknowledged?: { by: string };
    }>;
    return rows.map((r) => ({
      id: r.id,
      kind: r.kind,
      state: r.state,
      ...(r.acknowledged === undefined ? {} : { by: r.acknowledged.by }),
    }));
  }

  /** The open incidents `shieldwatch status --format json` shows, from each of its sections. */
  async status(): Promise<Row[]> {
    const run = await this.cli('status', '--format', 'json');
    expect(run.code, run.stderr).toBe(0);
    type Ack = { by: string } | null;
    const report = JSON.parse(run.stdout) as {
      filter: { incident: { id: string; acknowledged: Ack } | null };
      incidents: Array<{ id: string | null; acknowledged: Ack }>;
      groupedIncidents: Array<{ id: string; state: string; acknowledged: Ack }>;
      networkIncidents: Array<{ id: string; acknowledged: Ack }>;
      ruleIncidents: Array<{ incident: string | null; acknowledged?: Ack; state?: string }>;
    };
    const row = (id: string, acknowledged: Ack | undefined, state?: string): Row => ({
      id,
      state: state ?? (acknowledged === null || acknowledged === undefined ? 'open' : 'acknowledged'),
      ...(acknowledged === null || acknowledged === undefined ? {} : { by: acknowledged.by }),
    });
    const rows = [
      ...(report.filter.incident === null
        ? []
        : [row(report.filter.incident.id, report.filter.incident.acknowledged)]),
      ...report.incidents.flatMap((i) => (i.id === null ? [] : [row(i.id, i.acknowledged)])),
      ...report.groupedIncidents.map((i) => row(i.id, i.acknowledged, i.state)),
      ...report.networkIncidents.map((i) => row(i.id, i.acknowledged)),
      // A rule's per-network rows name its incident across networks when their network is a member of it:
      // that incident's rows, listed once above.
      ...report.ruleIncidents.flatMap((i) =>
        i.incident === null || report.groupedIncidents.some((g) => g.id === i.incident)
          ? []
          : [row(i.incident, i.acknowledged, i.state)],
      ),
    ];
    return rows;
  }

  /** A silence over `pattern` from now, for an hour (as `shieldwatch silence --for 1h --event PATTERN` stores it). */
  async silence(pattern: string): Promise<() => Promise<void>> {
    const store = new DynamoSilenceStore(this.dynamo.client, this.dynamo.table);
    const made = newSilence({ duration: '1h', pattern, reason: 'contract' }, this.now, 's-contract');
    if (!made.ok) throw new Error(made.problems.join('; '));
    expect(await store.put(made.silence)).toBe(true);
    return async () => {
      expect((await store.end(made.silence.id, this.now)).outcome).toBe('ended');
    };
  }
}

const started: Harness[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((h) => h.close()));
});
const harness = async (kind: Kind): Promise<Harness> => {
  const h = await Harness.start(kind);
  started.push(h);
  return h;
};

describe.each(
  bySize(
    KINDS.filter((k) => QUICK_KINDS.includes(k.name)),
    KINDS,
  ),
)('$name: one incident lifecycle', (kind) => {
  /** `it`, or `it.fails` where the kind lacks the step today (the defect is in `KINDS`). */
  const step = (name: Step) =>
    (kind.defects?.[name] ?? EVERY_KIND_DEFECTS[name]) === undefined ? it : it.fails;
  const line = (minute: number, event: string, action: string, stage: number | '-', id: string) =>
    `${minute} ${event} ${action} ${stage} ${id}`;

  describe('left alone: opened, reminded, escalated, resolved', () => {
    // One incident for four cases: open 70 minutes, then resolved (the cycles are the suite's cost).
    let h: Harness;
    let id: string;
    beforeAll(async () => {
      h = await Harness.start(kind);
      await h.open();
      await h.cycles(7);
      kind.end(h.scene);
      await h.cycles(2);
      id = await h.id();
    });
    afterAll(async () => {
      await h.close();
    });
    const of = (...events: string[]) => h.topic().filter((t) => events.includes(t.split(' ')[1]!));

    step('opens')('opens once: one trigger, with an incident id', () => {
      expect(id).toMatch(kind.id);
      expect(
        h.topic().filter((t) => t.split(' ')[2] === 'trigger' && !t.includes('incident.escalated')),
      ).toEqual([line(0, kind.opens, 'trigger', 1, id)]);
    });

    step('reminds')('reminds every REMIND_EVERY while open, at the stage reached', () => {
      expect(of(kind.reminder)).toEqual([
        line(20, kind.reminder, '-', 2, id),
        line(40, kind.reminder, '-', 3, id),
        line(60, kind.reminder, '-', 3, id),
      ]);
    });

    step('escalates')('escalates once per stage of ESCALATE_AFTER (attribute stage)', () => {
      expect(of('incident.escalated')).toEqual([
        line(10, 'incident.escalated', 'trigger', 2, id),
        line(30, 'incident.escalated', 'trigger', 3, id),
      ]);
    });

    step('resolves')('the resolve is sent once, action=resolve, same id, at the stage reached', () => {
      expect(h.topic()).toEqual([
        line(0, kind.opens, 'trigger', 1, id),
        line(10, 'incident.escalated', 'trigger', 2, id),
        line(20, kind.reminder, '-', 2, id),
        line(30, 'incident.escalated', 'trigger', 3, id),
        line(40, kind.reminder, '-', 3, id),
        line(60, kind.reminder, '-', 3, id),
        line(80, kind.closes, 'resolve', 3, id),
      ]);
    });
  });

  step('ack')(
    '`ack ID` stops reminders and escalations, publishes incident.acknowledged once; the resolve is sent',
    async () => {
      // Prepare: open, escalated at 10.
      const h = await harness(kind);
      await h.open();
      await h.cycles(1);
      const id = await h.id();

      // Act: acknowledged at 10 (twice), 60 minutes, then the end.
      const first = await h.ack('ack', id);
      const second = await h.ack('ack', id);
      await h.cycles(6);
      kind.end(h.scene);
      await h.cycles(1);

      // Assess
      expect(first).toContain(`acknowledged by ${ME}`);
      expect(second).toContain('was already acknowledged');
      // The acknowledgement carries its own time; the next cycle publishes it.
      expect(h.topic()).toEqual([
        line(0, kind.opens, 'trigger', 1, id),
        line(10, 'incident.escalated', 'trigger', 2, id),
        line(10, 'incident.acknowledged', 'acknowledge', 2, id),
        line(80, kind.closes, 'resolve', 2, id),
      ]);
    },
  );

  step('unack')('`unack ID` resumes them: the reminder and the stage due at the next cycle', async () => {
    // Prepare: acknowledged at once, 40 minutes acknowledged (stage 3 passed at 30).
    const h = await harness(kind);
    await h.open();
    const id = await h.id();
    await h.ack('ack', id);
    await h.cycles(4);
    const acknowledged = h.topic();

    // Act
    await h.ack('unack', id);
    await h.cycles(3);
    kind.end(h.scene);
    await h.cycles(1);

    // Assess: straight to the highest stage due, in one alert (docs/acknowledge.md, Escalation).
    expect(acknowledged).toEqual([
      line(0, kind.opens, 'trigger', 1, id),
      line(0, 'incident.acknowledged', 'acknowledge', 1, id),
    ]);
    expect(h.topic().slice(acknowledged.length)).toEqual([
      line(50, kind.reminder, '-', 1, id),
      line(50, 'incident.escalated', 'trigger', 3, id),
      line(70, kind.reminder, '-', 3, id),
      line(80, kind.closes, 'resolve', 3, id),
    ]);
  });

  step('silence after opening')(
    `a silence over its events (${kind.pattern}) after its opening holds its reminders and escalations; its resolve is sent inside it`,
    async () => {
      // Prepare: opened and published; then a silence.
      const h = await harness(kind);
      await h.open();
      const id = await h.id();
      await h.silence(kind.pattern);

      // Act: 50 minutes silenced (reminders due at 20 and 40, stages at 10 and 30), then the end, still silenced.
      await h.cycles(5);
      const silenced = h.topic();
      kind.end(h.scene);
      await h.cycles(2);

      // Assess
      expect(silenced).toEqual([line(0, kind.opens, 'trigger', 1, id)]);
      expect(h.topic()).toEqual([
        line(0, kind.opens, 'trigger', 1, id),
        line(60, kind.closes, 'resolve', 3, id),
      ]);
    },
  );

  step('silence over opening')(
    `a silence over its events (${kind.pattern}) holds its opening and its follow-ups; at its end the incident is announced once and reminds on`,
    async () => {
      // Prepare: the silence first, then the incident opens inside it.
      const h = await harness(kind);
      await h.cycles(1);
      const end = await h.silence(kind.pattern);
      kind.start(h.scene);
      await h.cycles(1);
      h.openedAt = h.now;
      const id = await h.id();

      // Act: 30 minutes silenced (stages due at 10 and 30, a reminder at 20), the silence ends, 30 more minutes.
      await h.cycles(3);
      const silenced = h.topic();
      await end();
      await h.cycles(3);

      // Assess: announced once at the stage reached (standing in for the reminder due with it: the next case),
      // its reminders on schedule.
      expect(id).toMatch(kind.id);
      expect(silenced).toEqual([]);
      expect(h.topic().sort()).toEqual(
        [line(40, 'silence.still_holding', 'trigger', 3, id), line(60, kind.reminder, '-', 3, id)].sort(),
      );
    },
  );

  step('announced first')(
    'after a silence that held its opening, its announcement comes first and stands in for the reminder due with it',
    async () => {
      // Prepare: as above, the reminder due in the first cycle after the silence.
      const h = await harness(kind);
      await h.cycles(1);
      const end = await h.silence(kind.pattern);
      kind.start(h.scene);
      await h.cycles(1);
      h.openedAt = h.now;
      const id = await h.id();
      await h.cycles(3);

      // Act
      await end();
      await h.cycles(3);

      // Assess: nobody is reminded of an incident before hearing of it; the announcement tells that it still
      // holds (the reminder due in that cycle is recorded as held back), and the reminders go on on schedule.
      expect(h.topic()).toEqual([
        line(40, 'silence.still_holding', 'trigger', 3, id),
        line(60, kind.reminder, '-', 3, id),
      ]);
    },
  );

  step('clock ahead')(
    'opened by a cycle 3 h ahead: the cycles at real time pull its timers back, remind and escalate on schedule',
    async () => {
      // Prepare
      const h = await harness(kind);

      // Act: the opening cycle's clock is 3 h ahead; the next ones are right.
      await h.open({ aheadMs: 3 * HOUR });
      await h.cycles(5);
      const id = await h.id();

      // Assess: its times pulled back to the first cycle at real time (minute 10), which counts from there.
      expect(h.topic()).toEqual([
        line(180, kind.opens, 'trigger', 1, id),
        line(20, 'incident.escalated', 'trigger', 2, id),
        line(30, kind.reminder, '-', 2, id),
        line(40, 'incident.escalated', 'trigger', 3, id),
        line(50, kind.reminder, '-', 3, id),
      ]);
    },
  );

  step('duplicated')(
    'every cycle run twice at once: each alert of its whole life published once',
    async () => {
      // Prepare
      const h = await harness(kind);
      const copies = 2;

      // Act: opened, escalated, acknowledged, withdrawn, reminded and escalated again, resolved.
      await h.open({ copies });
      await h.cycles(1, { copies });
      const id = await h.id();
      await h.ack('ack', id);
      await h.cycles(2, { copies });
      await h.ack('unack', id);
      await h.cycles(1, { copies });
      kind.end(h.scene);
      await h.cycles(1, { copies });

      // Assess
      expect(h.topic()).toEqual([
        line(0, kind.opens, 'trigger', 1, id),
        line(10, 'incident.escalated', 'trigger', 2, id),
        line(10, 'incident.acknowledged', 'acknowledge', 2, id),
        line(40, kind.reminder, '-', 2, id),
        line(40, 'incident.escalated', 'trigger', 3, id),
        line(50, kind.closes, 'resolve', 3, id),
      ]);
    },
  );

  step('same row')(
    'the same row (id, kind, state, acknowledged.by) in `incidents --format json` and in `status`',
    async () => {
      // Prepare
      const h = await harness(kind);
      await h.open();
      const id = await h.id();
      const rows = async () => {
        const listed = (await h.incidents()).filter((r) => r.id === id);
        const shown = (await h.status()).filter((r) => r.id === id);
        return { listed, shown };
      };

      // Act: open, acknowledged, withdrawn, resolved.
      const open = await rows();
      await h.ack('ack', id);
      await h.cycles(1);
      const acknowledged = await rows();
      await h.ack('unack', id);
      const withdrawn = await rows();
      kind.end(h.scene);
      await h.cycles(1);
      const resolved = await rows();

      // Assess
      const want = (state: string, by?: string): Row => ({
        id,
        kind: kind.listed,
        state,
        ...(by === undefined ? {} : { by }),
      });
      const { kind: _, ...shown } = want('open');
      expect(open).toEqual({ listed: [want('open')], shown: [shown] });
      expect(acknowledged).toEqual({
        listed: [want('acknowledged', ME)],
        shown: [{ id, state: 'acknowledged', by: ME }],
      });
      expect(withdrawn).toEqual({ listed: [want('open')], shown: [shown] });
      expect(resolved).toEqual({ listed: [want('resolved')], shown: [] });
    },
  );

  step('no other row')(
    '`status` shows the open incidents `incidents --open` lists, and no other id',
    async () => {
      // Prepare
      const h = await harness(kind);
      await h.open();
      const id = await h.id();

      // Act
      const listed = (await h.incidents(true)).map((r) => r.id);
      const shown = (await h.status()).map((r) => r.id);

      // Assess
      expect(listed).toEqual([id]);
      expect(shown).toEqual([id]);
    },
  );
});
