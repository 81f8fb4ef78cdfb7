/**
 * An incident acknowledged inside a silence (CONTRACT §12, §14; docs/silences.md, Acknowledged inside a silence):
 * real poll cycles against a loopback API and dynalite, alerts to a fake SNS on loopback, every cycle run twice
 * at once (a duplicated invocation) and SNS down for the cycles right after the silence ends. Whatever the kind
 * (the status away, the API unreachable, a blind spot, a rule across networks) and whatever pattern held what,
 * PagerDuty must never end with a triggered, unacknowledged incident: at the topic the incident's trigger
 * (published before, or announced at the silence's end) comes first, its acknowledgement after it, then its
 * resolve, each exactly once.
 */
import { SNSClient } from '@aws-sdk/client-sns';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DynamoSilenceStore } from '../../lambda/adapters/silence-store.ts';
import { LogAlertPublisher } from '../../lambda/adapters/sns-publisher.ts';
import { buildMonitor, type Monitor } from '../../lambda/composition-root.ts';
import { loadConfig } from '../../lambda/config.ts';
import { newSilence } from '../../lambda/core/silences/silence.ts';
import { type CycleLog, runCycle } from '../../lambda/cycle.ts';
import { acknowledge, unacknowledge } from '../../lambda/incident-acks.ts';
import { type LocalDynamo, startDynamo } from '../fixtures/dynalite.ts';
import { type FakeApi, startFakeApi } from '../fixtures/fake-api.ts';
import { type FakeSns, startFakeSns } from '../fixtures/fake-aws.ts';
import { bySize } from '../scale.ts';

const TOPIC = 'arn:aws:sns:us-east-1:123456789012:shieldwatch-alerts';
const quiet: CycleLog = { info: () => {}, warn: () => {}, error: () => {} };

/** The world the fake API shows. */
interface World {
  status: string;
  apiUp: boolean;
  a1Up: boolean;
  a1Pps: number;
}

/** One kind of incident: what starts and ends it, the event that opens it and the one that ends it. */
interface Kind {
  readonly name: string;
  readonly start: (w: World) => void;
  readonly end: (w: World) => void;
  readonly opens: string;
  readonly closes: string;
  /** The incident id's shape. */
  readonly id: RegExp;
  /** A pattern that holds its opening back, besides `*`. */
  readonly own: string;
}

const KINDS: readonly Kind[] = [
  {
    name: 'the status away',
    start: (w) => {
      w.status = 'bypass';
    },
    end: (w) => {
      w.status = 'active';
    },
    opens: 'filter.status_changed',
    closes: 'filter.status_changed',
    id: /^filter\.status_changed\//,
    own: 'filter.*',
  },
  {
    name: 'the API unreachable',
    start: (w) => {
      w.apiUp = false;
    },
    end: (w) => {
      w.apiUp = true;
    },
    opens: 'api.unreachable',
    closes: 'api.recovered',
    id: /^api\.unreachable\//,
    own: 'api.*',
  },
  {
    name: 'a blind spot',
    start: (w) => {
      w.a1Up = false;
    },
    end: (w) => {
      w.a1Up = true;
    },
    opens: 'network.unreachable',
    closes: 'network.recovered',
    id: /^network\.unreachable\/0\//,
    own: 'network.*',
  },
  {
    name: 'a rule across networks',
    start: (w) => {
      w.a1Pps = 900_000;
    },
    end: (w) => {
      w.a1Pps = 100;
    },
    opens: 'incident.opened',
    closes: 'incident.resolved',
    id: /^flood@/,
    own: 'network.*',
  },
];

/** Whether a pattern holds the kind's opening back (else it was published before the acknowledgement). */
const holdsOpening = (kind: Kind, pattern: string) =>
  pattern === '*' || pattern === kind.own || (pattern === 'incident.*' && kind.opens.startsWith('incident.'));

const CASES = KINDS.flatMap((kind) =>
  [kind.own, '*', 'incident.*'].map((pattern) => ({ kind, pattern, label: `${kind.name}, ${pattern}` })),
);
/**
 * `npm test` runs every kind once and every pattern at least once, held back and not (`holdsOpening`);
 * `npm run test:slow` runs every kind with every pattern.
 */
const QUICK = [
  'the status away, filter.*',
  'the API unreachable, *',
  'a blind spot, incident.*',
  'a rule across networks, incident.*',
];
const QUICK_CASES = CASES.filter((c) => QUICK.includes(c.label));
if (QUICK_CASES.length !== QUICK.length) throw new Error(`quick cases missing: ${QUICK.join('; ')}`);

describe('an incident acknowledged inside a silence (dynalite, loopback API, fake SNS)', () => {
  let api: FakeApi;
  let dynamo: LocalDynamo;
  let fakeSns: FakeSns;
  let sns: SNSClient;
  let silences: DynamoSilenceStore;
  let world: World;
  let now: number;

  beforeEach(async () => {
    api = await startFakeApi({ key: 'ack-in-silence-key-0123' });
    dynamo = await startDynamo();
    fakeSns = await startFakeSns();
    sns = new SNSClient({
      region: 'us-east-1',
      endpoint: fakeSns.url,
      credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
    });
    silences = new DynamoSilenceStore(dynamo.client, dynamo.table);
    world = { status: 'active', apiUp: true, a1Up: true, a1Pps: 100 };
    api.filter = () =>
      world.apiUp ? { body: { status: world.status } } : { status: 503, body: { error: 'down' } };
    api.network = (id) => {
      if (!world.apiUp) return { status: 503, body: { error: 'down' } };
      if (id === 'a1' && !world.a1Up) return { status: 404, body: { error: 'gone' } };
      return { body: { traffic: { in: { pps: id === 'a1' ? world.a1Pps : 100 } } } };
    };
    // Whole minutes, so that every cycle's time is a round one.
    now = Math.floor(Date.now() / 60_000) * 60_000;
  });
  afterEach(async () => {
    sns.destroy();
    await fakeSns.close();
    await api.close();
    await dynamo.close();
  });

  const monitor = (): Monitor => {
    const env = {
      SHIELDWATCH_API_URL: api.url,
      SHIELDWATCH_API_KEY: api.key,
      SHIELDWATCH_NETWORKS: 'a1,a2',
      SHIELDWATCH_TABLE: dynamo.table,
      SHIELDWATCH_TOPIC_ARN: TOPIC,
      SHIELDWATCH_TIMEOUT_MS: '2000',
      SHIELDWATCH_RETRIES: '0',
      SHIELDWATCH_ALERT_AFTER: '2',
      SHIELDWATCH_EXPECTED_STATUS: 'active',
      SHIELDWATCH_RULES: 'flood: traffic.in.pps > 500k',
      SHIELDWATCH_ESCALATE_AFTER: '10m',
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
  /** One cycle a minute, each run twice at once (a duplicated invocation). */
  const minutes = async (m: Monitor, n: number) => {
    for (let i = 0; i < n; i++) {
      now += 60_000;
      await Promise.all([0, 1].map(() => runCycle(m.deps, m.settings, now + 15_000)));
    }
  };
  /** What reached the topic: event, action (`-` for none) and incident of each message. */
  const topic = () =>
    fakeSns.publishes.map((p) => {
      const document = JSON.parse(JSON.parse(p.message).sqs) as { incident?: string; action?: string };
      return [p.attributes['event'], document.action ?? '-', document.incident ?? '-'];
    });

  it.each(bySize(QUICK_CASES, CASES))(
    '$label: trigger, then acknowledgement, then resolve, each once',
    async ({ kind, pattern }) => {
      // Prepare: a quiet minute, then a silence of an hour.
      const m = monitor();
      await minutes(m, 1);
      const made = newSilence({ duration: '1h', pattern, reason: 'maintenance' }, now, 's-aaaaaaaa');
      if (!made.ok) throw new Error(made.problems.join('; '));
      expect(await silences.put(made.silence)).toBe(true);

      // Act: the incident opens inside the silence and is acknowledged there (as `shieldwatch ack` writes it);
      // the silence ends while SNS is down for two minutes; later the incident ends.
      kind.start(world);
      await minutes(m, 4);
      const events = await m.store.queryEvents({});
      const id = events.find((e) => e.event === kind.opens && typeof e.incident === 'string')?.incident;
      expect(id).toMatch(kind.id);
      const ack = await acknowledge(m.store, id!, { by: 'alice', at: new Date(now).toISOString() });
      expect(ack.outcome).toBe('acknowledged');
      await minutes(m, 3);
      const during = topic();
      expect((await silences.end(made.silence.id, now)).outcome).toBe('ended');
      fakeSns.mode = 'internal-error';
      await minutes(m, 2);
      const refused = fakeSns.requests.length - fakeSns.publishes.length;
      fakeSns.mode = 'ok';
      await minutes(m, 5);
      kind.end(world);
      await minutes(m, 3);

      // Assess: at PagerDuty's end, the trigger, then its acknowledgement, then the resolve, of one incident
      // (no escalation: it is acknowledged); the outage did refuse what was due at the silence's end.
      expect(refused).toBeGreaterThan(0);
      const trigger = holdsOpening(kind, pattern) ? 'silence.still_holding' : kind.opens;
      expect(during).toEqual(holdsOpening(kind, pattern) ? [] : [[kind.opens, 'trigger', id]]);
      expect(topic()).toEqual([
        [trigger, 'trigger', id],
        ['incident.acknowledged', 'acknowledge', id],
        [kind.closes, 'resolve', id],
      ]);
    },
  );
  /** Acknowledged, then withdrawn (`unack`), inside a `*` silence: the announcement goes out alone. */
  const withdrawnInside = async (kind: Kind) => {
    const m = monitor();
    await minutes(m, 1);
    const made = newSilence({ duration: '1h', pattern: '*', reason: 'maintenance' }, now, 's-aaaaaaaa');
    if (!made.ok) throw new Error(made.problems.join('; '));
    await silences.put(made.silence);
    kind.start(world);
    await minutes(m, 4);
    const events = await m.store.queryEvents({});
    const id = events.find((e) => e.event === kind.opens && typeof e.incident === 'string')!.incident!;
    await acknowledge(m.store, id, { by: 'alice', at: new Date(now).toISOString() });
    await minutes(m, 1);
    expect((await unacknowledge(m.store, id, 'alice', new Date(now).toISOString())).outcome).toBe(
      'unacknowledged',
    );
    await minutes(m, 1);
    await silences.end(made.silence.id, now);
    await minutes(m, 2);
    return { id, published: topic() };
  };

  it.each(KINDS.slice(0, 3))(
    '$name acknowledged and withdrawn inside the silence: no acknowledgement at its end',
    async (kind) => {
      const { id, published } = await withdrawnInside(kind);

      expect(published[0]).toEqual(['silence.still_holding', 'trigger', id]);
      expect(published.filter(([event]) => event === 'incident.acknowledged')).toEqual([]);
    },
  );

  // Known gap: the rule incident's scope does not tell the outbox whether its incident is acknowledged now
  // (`acknowledged` of OutboxDeps, passed by lambda/judges/incidents.ts), so a withdrawn acknowledgement is still
  // sent after the announcement. Drop `.fails` when that judge passes it.
  it('a rule across networks acknowledged and withdrawn inside the silence: no acknowledgement at its end', async () => {
    const { id, published } = await withdrawnInside(KINDS[3]!);

    expect(published[0]).toEqual(['silence.still_holding', 'trigger', id]);
    expect(published.filter(([event]) => event === 'incident.acknowledged')).toEqual([]);
  });
});
