/**
 * Any size (CONTRACT §13; issue 30): one rule incident across 10 shards of 1,000 networks each, network ids of
 * 128 characters, on dynalite (which refuses items over 400 KB as DynamoDB does): every shard's judgement and
 * its working set are stored, the incident item stays small, the incident opens once, announces the joiners
 * once, resolves once, and `findIncidents` lists all 10,000 members. Also: an incident item written by the
 * previous release (every member inside it) is carried on, its id, members, stage and acknowledgement kept.
 */
import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoStore } from '../../lambda/adapters/dynamo-store.ts';
import {
  type Incident,
  type IncidentAlert,
  type IncidentJudgeInput,
  type IncidentScopeState,
  judgeIncident,
  STORY_MAX_MEMBERS,
} from '../../lambda/core/incidents/incidents.ts';
import type { AlertRecord } from '../../lambda/core/types.ts';
import { type LocalDynamo, startDynamo } from '../fixtures/dynalite.ts';

const MIN = 60_000;
const T0 = Date.parse('2026-11-27T10:00:00.000Z');
const at = (minute: number) => new Date(T0 + minute * MIN).toISOString();
const subject = {
  rule: 'flood',
  ruleText: 'flood: traffic.in.pps > 500k',
  condition: {
    path: 'traffic.in.pps',
    op: '>' as const,
    threshold: { kind: 'number' as const, value: 500_000 },
  },
};
const longId = (shard: number, i: number) => `${`s${shard}-n${i}-`.padEnd(128, 'x')}`;

let dynamo: LocalDynamo;
let store: DynamoStore;

beforeAll(async () => {
  dynamo = await startDynamo();
  store = new DynamoStore(dynamo.client, dynamo.table);
});
afterAll(async () => {
  await dynamo?.close();
});

/** One shard's cycle as the incidents judge runs it: working set first, then the incident item. */
async function shardCycle(
  rule: string,
  shard: number,
  input: Omit<IncidentJudgeInput, 'members' | 'shard' | 'subject'>,
): Promise<IncidentAlert[]> {
  const scope = store.incidentScope(rule);
  for (let attempt = 0; attempt < 8; attempt++) {
    const loaded = await scope.load();
    const members = await store.members.loadMembers(rule, shard);
    const judged = judgeIncident(loaded.version === 0 ? undefined : loaded.state, {
      ...input,
      subject: { ...subject, rule },
      shard,
      members: members.set,
    });
    if (judged.stale) return [];
    if (judged.membersChanged) {
      if (judged.archive !== undefined) await store.members.archiveMembers(rule, shard, judged.archive);
      if (!(await store.members.writeMembers(rule, shard, judged.members, members))) continue;
    }
    if (!judged.changed) return [];
    const alerts = judged.alerts.map((a, i) => ({ ...a, seq: loaded.state.nextSeq + i }) as AlertRecord);
    const state = { ...judged.state, nextSeq: loaded.state.nextSeq + alerts.length };
    if (await scope.commit(state, loaded.version, alerts, { claimant: 'test', untilMs: 0 })) {
      if (judged.members.incident === undefined && state.open !== undefined) {
        const written = await store.members.loadMembers(rule, shard);
        await store.members.writeMembers(rule, shard, { ...written.set, incident: state.open.id }, written);
      }
      return [...judged.alerts];
    }
  }
  throw new Error('the incident item kept changing');
}

async function itemBytes(rule: string): Promise<number> {
  const out = await DynamoDBDocumentClient.from(dynamo.client).send(
    new GetCommand({ TableName: dynamo.table, Key: { pk: 'state', sk: `incident#${rule}` } }),
  );
  return Buffer.byteLength(JSON.stringify(out.Item ?? {}));
}

describe('an incident of any size (dynalite, 400 KB items)', () => {
  it('10,000 networks with ids of 128 characters across 10 shards: one opened, one updated, one resolved, all listed', async () => {
    // Prepare
    const shards = Array.from({ length: 10 }, (_, s) => Array.from({ length: 1000 }, (_, i) => longId(s, i)));
    const published: IncidentAlert[] = [];
    const cycle = async (minute: number, open: boolean) => {
      for (const [s, networks] of shards.entries()) {
        published.push(
          ...(await shardCycle('flood', s, {
            at: at(minute),
            views: networks.map((network, i) => ({ network, open, value: 600_000 + s * 1000 + i })),
            watched: networks,
            groupIntervalMs: 5 * MIN,
            shardCount: shards.length,
          })),
        );
      }
    };

    // Act
    await cycle(0, true);
    const openBytes = await itemBytes('flood');
    await cycle(5, true);
    const [listed] = await store.findIncidents();
    await cycle(6, false);

    // Assess
    expect(published.map((a) => a.event)).toEqual([
      'incident.opened',
      'incident.updated',
      'incident.resolved',
    ]);
    const [opened, updated, resolved] = published;
    expect(opened!.story!.count).toBe(1000);
    expect(updated!.story!.count).toBe(9000);
    expect(resolved!.story!.total).toBe(10_000);
    for (const alert of published) {
      expect(alert.story!.members.length).toBeLessThanOrEqual(STORY_MAX_MEMBERS);
      expect(Buffer.byteLength(JSON.stringify(alert))).toBeLessThan(20_000);
    }
    expect(resolved!.story!.members[0]!.network).toBe(longId(9, 999)); // the worst peak first
    // Bounded: samples of at most PARTS_SAMPLE_BUDGET members each kind, the timeline, a few waiting alerts.
    expect(openBytes).toBeLessThan(200_000);
    expect(await itemBytes('flood')).toBeLessThan(200_000);
    const members = listed!.loaded.state.open!.members;
    expect(members).toHaveLength(10_000);
    expect(new Set(members.map((m) => m.network)).size).toBe(10_000);
    const [after] = await store.findIncidents();
    expect(after!.loaded.state.last!.members.filter((m) => m.leftAt === undefined)).toEqual([]);
  }, 120_000);

  it('a shard that no longer runs: its members leave and the incident resolves, saying how many left', async () => {
    // Prepare: shard 1's networks attacked, then the deployment runs one shard only.
    const events: string[] = [];
    const run = async (shard: number, minute: number, open: boolean, shardCount: number) => {
      const alerts = await shardCycle('gone', shard, {
        at: at(minute),
        views: [{ network: `net-${shard}`, open, value: 700_000 }],
        watched: [`net-${shard}`],
        groupIntervalMs: 5 * MIN,
        shardCount,
      });
      events.push(...alerts.map((a) => a.event));
    };
    await run(1, 0, true, 2);

    // Act: only shard 0 runs from now on.
    await run(0, 1, false, 1);

    // Assess
    expect(events).toEqual(['incident.opened', 'incident.resolved']);
    const [scope] = (await store.findIncidentScopes()).filter((f) => f.rule === 'gone');
    expect(scope!.loaded.state.last!.timeline.map((t) => [t.what, t.count])).toContainEqual(['left', 1]);
  });

  it('an incident item written by the previous release: its id, members, stage and acknowledgement carry on, and its end is sent', async () => {
    // Prepare: the item exactly as today's release writes it (every member inside, `announced` flags).
    const openedAt = at(0);
    const legacy: Incident = {
      id: `old@${openedAt}`,
      kind: 'rule',
      rule: 'old',
      state: 'open',
      openedAt,
      members: [
        {
          network: 'a',
          joinedAt: openedAt,
          value: 600_000,
          peak: 900_000,
          peakAt: openedAt,
          announced: true,
          shard: 0,
          triggers: [openedAt],
        },
        {
          network: 'b',
          joinedAt: at(1),
          value: 600_000,
          peak: 600_000,
          peakAt: at(1),
          announced: false,
          shard: 0,
        },
        {
          network: 'z',
          joinedAt: openedAt,
          value: 700_000,
          peak: 700_000,
          peakAt: openedAt,
          announced: true,
          shard: 1,
        },
      ],
      timeline: [{ at: openedAt, what: 'opened', networks: ['a', 'z'], count: 2 }],
      lastNoticeAt: openedAt,
      alerts: { sent: 2, suppressed: 0 },
      stage: 2,
      acknowledged: { by: 'ops', at: at(2), note: 'on it' },
      ackRev: 1,
    };
    const state: IncidentScopeState = { nextSeq: 4, shards: { '0': at(1), '1': at(1) }, open: legacy };
    const scope = store.incidentScope('old');
    expect(await scope.commit(state, 0, [], { claimant: 'test', untilMs: 0 })).toBe(true);

    // Act: shard 0 announces b after the interval; a and b leave; shard 1's z leaves last.
    const events: IncidentAlert[] = [];
    const step = async (shard: number, minute: number, views: [string, boolean][]) =>
      events.push(
        ...(await shardCycle('old', shard, {
          at: at(minute),
          views: views.map(([network, open]) => ({ network, open, value: open ? 650_000 : 1 })),
          groupIntervalMs: 5 * MIN,
          remindEveryMs: 30 * MIN,
          escalateAfterMs: [10 * MIN, 60 * MIN],
        })),
      );
    await step(0, 6, [
      ['a', true],
      ['b', true],
    ]);
    const [midway] = (await store.findIncidents()).filter((f) => f.rule === 'old');
    await step(0, 7, [
      ['a', false],
      ['b', false],
    ]);
    await step(1, 8, [['z', false]]);

    // Assess: b announced once, nothing reminded or escalated (acknowledged), the end sent under the old id.
    expect(events.map((e) => e.event)).toEqual(['incident.updated', 'incident.resolved']);
    expect(events[0]!.story!.members.map((m) => m.network)).toEqual(['b']);
    expect(events.every((e) => e.incident === legacy.id)).toBe(true);
    expect(events[1]!.stage).toBe(2);
    expect(midway!.loaded.state.open!.acknowledged).toEqual(legacy.acknowledged);
    expect(midway!.loaded.state.open!.members.map((m) => m.network).sort()).toEqual(['a', 'b', 'z']);
    expect(midway!.loaded.state.open!.members.find((m) => m.network === 'a')).toMatchObject({
      peak: 900_000,
      triggers: [openedAt],
    });
    expect(events[1]!.story!.total).toBe(3);
  });
});
