/**
 * Incidents across networks in whole poll cycles (docs/design/incidents.md; CONTRACT §13): real cycles of
 * several shards against a loopback API and dynalite, SNS through aws-sdk-client-mock. One attack on many
 * networks publishes one incident.opened, at most one incident.updated per interval and one incident.resolved,
 * whatever the shards, duplicated and concurrent cycles, SNS outages and crashes after the incident write; the
 * per-network transitions are recorded as events and not published; groupBy=none is as before.
 */
import { PublishCommand, type PublishCommandInput, SNSClient } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LogAlertPublisher } from '../../lambda/adapters/sns-publisher.ts';
import { buildMonitor, type Monitor } from '../../lambda/composition-root.ts';
import { loadConfig } from '../../lambda/config.ts';
import { type IncidentScopeState, STORY_MAX_MEMBERS } from '../../lambda/core/incidents/incidents.ts';
import { CLAIM_GRACE_MS, type CycleLog, type CycleSettings, runCycle } from '../../lambda/cycle.ts';
import type { IncidentStore, StateStore } from '../../lambda/ports.ts';
import { type LocalDynamo, startDynamo } from '../fixtures/dynalite.ts';
import { type FakeApi, startFakeApi } from '../fixtures/fake-api.ts';
import { bySize } from '../scale.ts';

const TOPIC = 'arn:aws:sns:us-east-1:123456789012:shieldwatch-alerts';
const quiet: CycleLog = { info: () => {}, warn: () => {}, error: () => {} };
const SNS_MAX_BYTES = 256 * 1024;
/** Networks attacked at once in the scale case: 1,000 (7 shards) in `npm run test:slow`, 300 (2) in `npm test`. */
const ATTACKED = bySize(300, 1000);
const ATTACK_TIMEOUT_MS = bySize(60_000, 180_000);

describe('incidents across networks in the poll cycle (dynalite, loopback API, shards)', () => {
  let api: FakeApi;
  let dynamo: LocalDynamo;
  let sns: SNSClient;
  let snsDown: boolean;
  let accepted: PublishCommandInput[];
  let pps: Record<string, number>;
  let now: number;

  beforeEach(async () => {
    api = await startFakeApi({ key: 'incidents-cycle-key-0123' });
    dynamo = await startDynamo();
    sns = new SNSClient({ region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'x' } });
    const snsMock = mockClient(sns);
    snsDown = false;
    let ids = 0;
    accepted = [];
    snsMock.on(PublishCommand).callsFake(async (input: PublishCommandInput) => {
      if (snsDown) throw Object.assign(new Error('SNS is down'), { name: 'InternalErrorException' });
      accepted.push(input);
      return { MessageId: `m-${++ids}` };
    });
    pps = {};
    api.network = (id) => ({ body: { traffic: { in: { pps: pps[id] ?? 100 } } } });
    now = Date.now();
  });
  afterEach(async () => {
    sns.destroy();
    await api.close();
    await dynamo.close();
  });

  const ids = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i + 1}`);
  const monitor = (networks: readonly string[], extra: Record<string, string> = {}): Monitor => {
    const env = {
      SHIELDWATCH_API_URL: api.url,
      SHIELDWATCH_API_KEY: api.key,
      SHIELDWATCH_NETWORKS: networks.join(','),
      SHIELDWATCH_TABLE: dynamo.table,
      SHIELDWATCH_TOPIC_ARN: TOPIC,
      SHIELDWATCH_TIMEOUT_MS: '2000',
      SHIELDWATCH_RETRIES: '0',
      SHIELDWATCH_RULES: 'flood: traffic.in.pps > 500k',
      ...extra,
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
  /** The settings of shard `index` of `shards` (shard 0 polls the filter too). */
  const shardSettings = (
    m: Monitor,
    shards: readonly (readonly string[])[],
    index: number,
  ): CycleSettings => ({
    ...m.settings,
    networks: shards[index]!,
    pollFilter: index === 0,
    ruleShard: index,
  });
  const cycle = (m: Monitor, settings = m.settings, deps = m.deps) => runCycle(deps, settings, now + 15_000);
  /** Every shard's cycle at once, each `copies` times (duplicated invocations). */
  const allShards = (m: Monitor, shards: readonly (readonly string[])[], copies = 1) =>
    Promise.all(
      shards.flatMap((_, i) => Array.from({ length: copies }, () => cycle(m, shardSettings(m, shards, i)))),
    );
  const tick = (minutes = 1) => {
    now += minutes * 60_000;
  };
  const attributes = (input: PublishCommandInput) =>
    Object.fromEntries(
      Object.entries(input.MessageAttributes ?? {}).map(([k, v]) => [k, v.StringValue ?? '']),
    );
  const published = () => accepted.map((input) => attributes(input)['event'] ?? '');
  const sqsOf = (input: PublishCommandInput) =>
    JSON.parse(JSON.parse(input.Message!).sqs) as {
      event: string;
      incident: string;
      action?: string;
      networks: { network: string }[];
      peaks: { network: string; peak: number }[];
      networkCount: number;
      networksTotal: number;
    };

  it('three shards, each cycle twice at once: one opened, one updated after the interval, one resolved', async () => {
    // Prepare
    const shards = [ids('a', 4), ids('b', 4), ids('c', 4)];
    const m = monitor(shards.flat());
    await allShards(m, shards);
    tick();
    for (const id of [...shards[0]!, ...shards[1]!]) pps[id] = 600_000;
    pps['a1'] = 1_200_000;

    // Act: the attack on a and b, every shard twice at once.
    await allShards(m, shards, 2);
    const afterOpen = published();
    // c joins a minute later; the interval (5 min) is not over until minute 6.
    tick();
    for (const id of shards[2]!) pps[id] = 700_000;
    await allShards(m, shards, 2);
    const beforeInterval: string[] = [];
    for (let minute = 3; minute <= 5; minute++) {
      tick();
      await allShards(m, shards, 2);
      beforeInterval.push(...published().slice(afterOpen.length));
    }
    tick();
    await allShards(m, shards, 2);
    const afterInterval = published();
    // The attack ends everywhere.
    tick();
    pps = {};
    await allShards(m, shards, 2);
    tick();
    await allShards(m, shards, 2);

    // Assess
    expect(afterOpen).toEqual(['incident.opened']);
    expect(beforeInterval).toEqual([]);
    expect(afterInterval).toEqual(['incident.opened', 'incident.updated']);
    expect(published()).toEqual(['incident.opened', 'incident.updated', 'incident.resolved']);
    const [opened, updated, resolved] = accepted.map(sqsOf);
    expect(new Set([opened!.incident, updated!.incident, resolved!.incident]).size).toBe(1);
    expect(opened!.action).toBe('trigger');
    expect(resolved!.action).toBe('resolve');
    // Every network joined once: the opened and the updated name 12 networks together, no one twice.
    const named = [...opened!.networks, ...updated!.networks].map((n) => n.network);
    expect(named.sort()).toEqual(shards.flat().sort());
    expect(resolved!.networkCount).toBe(12);
    expect(resolved!.peaks.find((p) => p.network === 'a1')?.peak).toBe(1_200_000);
    expect(attributes(accepted[0]!)).toMatchObject({
      event: 'incident.opened',
      rule: 'flood',
      action: 'trigger',
    });
    // The per-network transitions are recorded, each once, and none was published.
    const events = await m.store.queryEvents({});
    const transitions = events.filter((e) => e.event.startsWith('network.rule_'));
    expect(transitions.filter((e) => e.event === 'network.rule_triggered')).toHaveLength(12);
    expect(transitions.filter((e) => e.event === 'network.rule_resolved')).toHaveLength(12);
    expect(events.filter((e) => e.event.startsWith('incident.')).map((e) => e.event)).toEqual([
      'incident.opened',
      'incident.updated',
      'incident.resolved',
    ]);
    const open = await m.store.findIncidentScopes();
    expect(open.map((s) => [s.rule, s.loaded.state.open, s.loaded.state.last?.state])).toEqual([
      ['flood', undefined, 'resolved'],
    ]);
  });

  it('an SNS outage across opened, updated and resolved: each is sent once, in order, when SNS is back', async () => {
    // Prepare
    const shards = [ids('a', 3), ids('b', 3)];
    const m = monitor(shards.flat(), { SHIELDWATCH_GROUP_INTERVAL: '1m' });
    await allShards(m, shards);
    snsDown = true;

    // Act
    tick();
    for (const id of shards[0]!) pps[id] = 600_000;
    await allShards(m, shards, 2);
    tick();
    for (const id of shards[1]!) pps[id] = 600_000;
    await allShards(m, shards, 2);
    tick();
    await allShards(m, shards, 2);
    tick();
    pps = {};
    await allShards(m, shards, 2);
    const duringOutage = accepted.length;
    snsDown = false;
    tick();
    await allShards(m, shards, 2);
    tick();
    await allShards(m, shards, 2);

    // Assess
    expect(duringOutage).toBe(0);
    expect(published()).toEqual(['incident.opened', 'incident.updated', 'incident.resolved']);
  });

  it('a crash after the incident write: the opened is sent once, by a later cycle', async () => {
    // Prepare
    const shards = [ids('a', 3)];
    const m = monitor(shards.flat());
    await cycle(m);
    tick();
    for (const id of shards[0]!) pps[id] = 600_000;
    const died = async () => {
      throw new Error('process died');
    };
    const crash = (store: StateStore<IncidentScopeState>) =>
      Object.assign(Object.create(store), {
        recordEvent: died,
        release: died,
      }) as StateStore<IncidentScopeState>;
    const crashing: IncidentStore = {
      members: m.store.members,
      incidentScope: (rule) => crash(m.store.incidentScope(rule)),
      findIncidentScopes: async () =>
        (await m.store.findIncidentScopes()).map((f) => ({ ...f, store: crash(f.store) })),
    };

    // Act
    const crashed = await cycle(m, m.settings, { ...m.deps, incidents: crashing }).catch((e: Error) => e);
    const whileClaimed = await cycle(m);
    now += 15_000 + CLAIM_GRACE_MS + 1000;
    const afterExpiry = await cycle(m);
    tick();
    await cycle(m);

    // Assess
    expect(crashed).not.toBeInstanceOf(Error);
    expect(published()).toEqual(['incident.opened']);
    expect(whileClaimed.delivered).toEqual([]);
    expect(afterExpiry.delivered.map((d) => d.event)).toEqual(['incident.opened']);
  });

  it('hundreds of networks (1,000 in test:slow) attacked in one cycle, in shards of 150: one opened naming them all, within SNS limits', {
    timeout: ATTACK_TIMEOUT_MS,
  }, async () => {
    // Prepare
    const all = ids('n', ATTACKED);
    const shards = Array.from({ length: Math.ceil(all.length / 150) }, (_, i) =>
      all.slice(i * 150, i * 150 + 150),
    );
    const m = monitor(all, { SHIELDWATCH_CONCURRENCY: '50' });
    await allShards(m, shards);
    tick();
    for (const [i, id] of all.entries()) pps[id] = 600_000 + i;

    // Act: every shard at once; the first opens, the others join (announced in the update).
    await allShards(m, shards);
    tick(5);
    await allShards(m, shards);

    // Assess
    expect(published()).toEqual(['incident.opened', 'incident.updated']);
    const [opened, updated] = accepted.map(sqsOf);
    expect(opened!.networkCount + updated!.networkCount).toBe(ATTACKED);
    expect(updated!.networksTotal).toBe(ATTACKED);
    // Each alert names a bounded few (the worst first), and counts them all.
    for (const doc of [opened!, updated!]) expect(doc.networks.length).toBeLessThanOrEqual(STORY_MAX_MEMBERS);
    for (const input of accepted) expect(Buffer.byteLength(input.Message!)).toBeLessThan(SNS_MAX_BYTES);
    for (const input of accepted) expect(input.Subject!.length).toBeLessThanOrEqual(99);
    // The incident item holds counts and a few members; every member is listed from the working sets.
    const [item] = await m.store.findIncidentScopes();
    expect(item?.loaded.state.open?.members).toEqual([]);
    const scopes = await m.store.findIncidents();
    expect(scopes[0]?.loaded.state.open?.members).toHaveLength(ATTACKED);
  });

  it('the per-network alerts kept from SNS are not counted as published: AlertsPublished and the cycle count only what SNS took', async () => {
    // Prepare: a metrics sink that counts what the cycle reports as published.
    const m = monitor(['a1', 'a2', 'a3']);
    const counted = { published: 0, failed: 0 };
    const metrics = {
      cycleCompleted: () => {},
      apiFailure: () => {},
      latency: () => {},
      figures: () => {},
      statusChanged: () => {},
      alertPublished: (ok: boolean) => {
        if (ok) counted.published += 1;
        else counted.failed += 1;
      },
    };
    const deps = { ...m.deps, metrics };
    await cycle(m, m.settings, deps);
    tick();
    for (const id of ['a1', 'a2', 'a3']) pps[id] = 600_000;

    // Act
    const attack = await cycle(m, m.settings, deps);
    tick();
    pps = {};
    const calm = await cycle(m, m.settings, deps);

    // Assess: two incident alerts reached SNS; six per-network transitions were recorded, not published.
    expect(published()).toEqual(['incident.opened', 'incident.resolved']);
    expect(counted).toEqual({ published: 2, failed: 0 });
    expect([...attack.delivered, ...calm.delivered].map((d) => d.event)).toEqual([
      'incident.opened',
      'incident.resolved',
    ]);
    const stored = await m.store.queryEvents({});
    expect(stored.filter((e) => e.event.startsWith('network.rule_'))).toHaveLength(6);
  });

  it('groupBy=none: each network published as before, no incident item', async () => {
    // Prepare
    const m = monitor(['a1', 'a2'], { SHIELDWATCH_GROUP_BY: 'none' });
    await cycle(m);
    tick();
    pps['a1'] = 600_000;
    pps['a2'] = 600_000;

    // Act
    await cycle(m);
    tick();
    pps = {};
    await cycle(m);

    // Assess
    expect(accepted.map((i) => `${attributes(i)['event']} ${attributes(i)['network']}`)).toEqual([
      'network.rule_triggered a1',
      'network.rule_triggered a2',
      'network.rule_resolved a1',
      'network.rule_resolved a2',
    ]);
    expect(await m.store.findIncidentScopes()).toEqual([]);
  });
});
