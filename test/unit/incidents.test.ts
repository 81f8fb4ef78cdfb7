import { describe, expect, it } from 'vitest';
import {
  EMPTY_SHARD_MEMBERS,
  type Incident,
  type IncidentJudgeInput,
  type IncidentScopeState,
  incidentRow,
  judgeIncident,
  type MemberView,
  type ShardMembers,
  STORY_MAX_MEMBERS,
  TIMELINE_MAX,
  TIMELINE_NETWORKS,
  withMembers,
} from '../../lambda/core/incidents/incidents.ts';

const MIN = 60_000;
const T0 = Date.parse('2026-03-01T10:00:00.000Z');
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

/** One step of a sequence: the minute, the shard, and each network's open state and value. */
interface Step {
  readonly minute: number;
  readonly shard?: number;
  readonly views: Record<string, [open: boolean, value?: number]>;
  readonly watched?: readonly string[];
}

function views(step: Step): MemberView[] {
  return Object.entries(step.views).map(([network, [open, value]]) => ({
    network,
    open,
    ...(value === undefined ? {} : { value }),
  }));
}

/** Replays steps, returning the events published after each and the final state. */
function replay(steps: readonly Step[], extra: Partial<IncidentJudgeInput> = {}) {
  let raw: IncidentScopeState | undefined;
  // Each shard's working set, and the finished ones kept (what the store keeps beside the incident item).
  const sets = new Map<number, ShardMembers>();
  const archived: ShardMembers[] = [];
  const published: string[][] = [];
  const alerts: unknown[][] = [];
  let writes = 0;
  for (const step of steps) {
    const shard = step.shard ?? 0;
    const judged = judgeIncident(raw, {
      subject,
      shard,
      at: at(step.minute),
      views: views(step),
      groupIntervalMs: 5 * MIN,
      ...extra,
      members: sets.get(shard) ?? EMPTY_SHARD_MEMBERS,
      ...(step.watched === undefined ? {} : { watched: step.watched }),
    });
    if (!judged.stale) {
      if (judged.archive !== undefined) archived.push(judged.archive);
      sets.set(shard, judged.members);
    }
    if (judged.stale || !judged.changed) {
      published.push([]);
      alerts.push([]);
      continue;
    }
    writes++;
    raw = { ...judged.state, nextSeq: judged.state.nextSeq + judged.alerts.length };
    // The cycle names its working set after the incident it opened.
    const set = sets.get(shard)!;
    if (set.incident === undefined && raw.open !== undefined)
      sets.set(shard, { ...set, incident: raw.open.id });
    published.push(judged.alerts.map((a) => a.event));
    alerts.push([...judged.alerts]);
  }
  const assemble = (incident: Incident | undefined): Incident | undefined => {
    if (incident === undefined) return undefined;
    const stored = [...archived, ...sets.values()]
      .filter((set) => set.incident === incident.id)
      .flatMap((set) => set.members);
    return withMembers(incident, stored);
  };
  const state =
    raw === undefined
      ? undefined
      : {
          ...raw,
          ...(raw.open === undefined ? {} : { open: assemble(raw.open)! }),
          ...(raw.last === undefined ? {} : { last: assemble(raw.last)! }),
        };
  return { state, raw, sets, published, alerts, writes };
}

describe('judgeIncident over sequences', () => {
  it('networks joining and leaving: one opened, one updated after the interval, one resolved', () => {
    // Prepare
    const steps: Step[] = [
      { minute: 0, views: { a: [true, 600_000], b: [true, 700_000] } },
      { minute: 1, views: { a: [true, 900_000], c: [true, 550_000] } },
      { minute: 2, views: { d: [true, 800_000] } },
      { minute: 5, views: { a: [true, 800_000] } },
      { minute: 6, views: { a: [false, 10], b: [false, 10] } },
      { minute: 7, views: { c: [false, 10] } },
      { minute: 8, views: { d: [false, 10] } },
    ];
    // Act
    const { published, alerts, state } = replay(steps);
    // Assess
    expect(published).toEqual([
      ['incident.opened'],
      [], // c joined: announced at most once per interval
      [],
      ['incident.updated'], // 5 minutes after the opening: c and d
      [],
      [],
      ['incident.resolved'],
    ]);
    const opened = alerts[0]![0] as { story: { members: { network: string }[] }; incident: string };
    expect(opened.story.members.map((m) => m.network)).toEqual(['b', 'a']); // worst first
    const updated = alerts[3]![0] as { story: { members: { network: string }[]; total: number } };
    expect(updated.story.members.map((m) => m.network).sort()).toEqual(['c', 'd']);
    expect(updated.story.total).toBe(4);
    const resolved = alerts[6]![0] as {
      incident: string;
      openedAt: string;
      story: { members: { network: string; peak: number; peakAt: string }[]; resolvedAt: string };
    };
    expect(resolved.incident).toBe(opened.incident);
    expect(resolved.openedAt).toBe(at(0));
    expect(resolved.story.resolvedAt).toBe(at(8));
    expect(resolved.story.members.find((m) => m.network === 'a')).toMatchObject({
      peak: 900_000,
      peakAt: at(1),
    });
    expect(state?.open).toBeUndefined();
    expect(state?.last?.state).toBe('resolved');
  });

  it.each([
    [4, []],
    [5, ['incident.updated']],
  ])('the interval boundary: a joiner at minute 1 is announced at minute %i: %j', (minute, expected) => {
    const { published } = replay([
      { minute: 0, views: { a: [true, 600_000] } },
      { minute: 1, views: { b: [true, 600_000] } },
      { minute, views: { a: [true, 600_000] } },
    ]);
    expect(published[2]).toEqual(expected);
  });

  it('two updates are at least one interval apart', () => {
    const { published } = replay([
      { minute: 0, views: { a: [true, 600_000] } },
      { minute: 1, views: { b: [true, 600_000] } },
      { minute: 5, views: { c: [true, 600_000] } }, // b and c announced
      { minute: 6, views: { d: [true, 600_000] } },
      { minute: 9, views: { e: [true, 600_000] } },
      { minute: 10, views: { f: [true, 600_000] } }, // d, e, f
    ]);
    expect(published.map((p) => p.join())).toEqual([
      'incident.opened',
      '',
      'incident.updated',
      '',
      '',
      'incident.updated',
    ]);
  });

  it('a network flapping inside an open incident neither resolves it nor is announced again', () => {
    const { published, state } = replay([
      { minute: 0, views: { a: [true, 600_000], b: [true, 600_000] } },
      { minute: 1, views: { b: [false, 1] } },
      { minute: 2, views: { b: [true, 700_000] } },
      { minute: 3, views: { b: [false, 1] } },
      { minute: 6, views: { b: [true, 650_000] } },
      { minute: 7, views: { a: [true, 600_000] } },
    ]);
    expect(published.flat()).toEqual(['incident.opened']);
    const b = state?.open?.members.find((m) => m.network === 'b');
    expect(b).toMatchObject({ flaps: 2, peak: 700_000, seq: 2 }); // its join number kept: announced once
    expect(b?.leftAt).toBeUndefined();
    expect(state?.open?.timeline.map((t) => t.what)).toEqual([
      'opened',
      'left',
      'rejoined',
      'left',
      'rejoined',
    ]);
  });

  it('shards join one incident; a stale or duplicate cycle of a shard changes nothing', () => {
    const { published, state } = replay([
      { minute: 0, shard: 0, views: { a: [true, 600_000] } },
      { minute: 0, shard: 1, views: { z: [true, 600_000] } },
      { minute: 0, shard: 1, views: { z: [true, 600_000] } }, // duplicate
      { minute: 1, shard: 0, views: { a: [false, 1] } },
      { minute: 0.5, shard: 0, views: { a: [true, 1] } }, // late: older than minute 1
      { minute: 2, shard: 1, views: { z: [false, 1] } },
    ]);
    expect(published).toEqual([['incident.opened'], [], [], [], [], ['incident.resolved']]);
    expect(state?.last?.members.map((m) => m.network)).toEqual(['a', 'z']);
  });

  it('a closed network that is no member changes nothing and writes nothing', () => {
    const judged = judgeIncident(undefined, {
      subject,
      shard: 0,
      at: at(0),
      views: [{ network: 'a', open: false, value: 1 }],
      groupIntervalMs: 5 * MIN,
    });
    expect(judged).toEqual({
      stale: false,
      changed: false,
      members: EMPTY_SHARD_MEMBERS,
      membersChanged: false,
    });
  });

  it('a peak is written only when it rises (the working set; the incident item when it is among the worst)', () => {
    const values = [600_000, 500_000, 900_000, 800_000];
    const runs = values.map((_, n) =>
      replay(values.slice(0, n + 1).map((v, minute) => ({ minute, views: { a: [true, v] } }))),
    );
    // Each step changed the incident item (and its working set) only when the peak rose.
    expect(runs.map((r) => r.published.length === 1 || r.writes > runs[runs.indexOf(r) - 1]!.writes)).toEqual(
      [true, false, true, false],
    );
    expect(runs[3]!.state?.open?.members[0]).toMatchObject({ peak: 900_000, peakAt: at(2) });
  });

  it('a shard with no member of the open incident writes nothing (no empty part)', () => {
    const { writes, raw } = replay([
      { minute: 0, shard: 0, views: { a: [true, 600_000] } },
      { minute: 1, shard: 1, views: { z: [false, 1] }, watched: ['z'] },
      { minute: 2, shard: 1, views: { z: [false, 1] }, watched: ['z'] },
    ]);
    expect(writes).toBe(1);
    expect(Object.keys(raw?.open?.parts ?? {})).toEqual(['0']);
  });

  it('a `<` rule peaks at the lowest value', () => {
    const low = { ...subject, condition: { ...subject.condition, op: '<' as const } };
    const { state } = replay(
      [
        { minute: 0, views: { a: [true, 50] } },
        { minute: 1, views: { a: [true, 10] } },
        { minute: 2, views: { a: [true, 30] } },
      ],
      { subject: low },
    );
    expect(state?.open?.members[0]?.peak).toBe(10);
  });

  it('reminders every remindEvery while open, with the active members; none once acknowledged', () => {
    const { published, state } = replay(
      [
        { minute: 0, views: { a: [true, 600_000], b: [true, 600_000] } },
        { minute: 10, views: { b: [false, 1] } },
        { minute: 30, views: { a: [true, 600_000] } },
        { minute: 45, views: { a: [true, 600_000] } },
        { minute: 60, views: { a: [true, 600_000] } },
      ],
      { remindEveryMs: 30 * MIN },
    );
    expect(published).toEqual([['incident.opened'], [], ['incident.reminder'], [], ['incident.reminder']]);
    const acked: IncidentScopeState = {
      ...state!,
      open: { ...state!.open!, acknowledged: { by: 'ops', at: at(61) } },
    };
    const judged = judgeIncident(acked, {
      subject,
      shard: 0,
      at: at(200),
      views: [{ network: 'a', open: true, value: 1 }],
      groupIntervalMs: 5 * MIN,
      remindEveryMs: 30 * MIN,
    });
    expect(!judged.stale && judged.changed && judged.alerts.length).toBeFalsy();
  });

  it('a network no longer watched by its shard leaves', () => {
    const { published } = replay([
      { minute: 0, views: { a: [true, 600_000] }, watched: ['a'] },
      { minute: 1, views: {}, watched: [] },
    ]);
    expect(published).toEqual([['incident.opened'], ['incident.resolved']]);
  });

  it('1,000 networks attacked in one cycle: one opened naming the worst few and counting all, then one resolved', () => {
    const ids = Array.from({ length: 1000 }, (_, i) => `net-${i}`);
    const open: Step = {
      minute: 0,
      views: Object.fromEntries(ids.map((id, i) => [id, [true, 600_000 + i]])),
    };
    const close: Step = { minute: 3, views: Object.fromEntries(ids.map((id) => [id, [false, 1]])) };
    const { published, alerts, state } = replay([open, close]);
    expect(published).toEqual([['incident.opened'], ['incident.resolved']]);
    const opened = alerts[0]![0] as { story: { members: { network: string }[]; count: number } };
    expect(opened.story.count).toBe(1000);
    expect(opened.story.members).toHaveLength(Math.min(1000, STORY_MAX_MEMBERS));
    expect(opened.story.members[0]?.network).toBe('net-999');
    expect(state?.last?.timeline.length).toBeLessThanOrEqual(TIMELINE_MAX);
    expect(state?.last?.timeline[0]?.networks).toHaveLength(TIMELINE_NETWORKS);
    // The incident item keeps counts and a few; every member is in the working set.
    expect(state?.last?.members).toHaveLength(1000);
    expect(JSON.stringify(replay([open, close]).raw).length).toBeLessThan(20_000);
  });

  it('the timeline stays bounded however long a network flaps', () => {
    const steps: Step[] = [{ minute: 0, views: { a: [true, 600_000], b: [true, 600_000] } }];
    for (let i = 1; i <= 200; i++) steps.push({ minute: i, views: { b: [i % 2 === 0, 600_000] } });
    const { state } = replay(steps);
    expect(state?.open?.timeline).toHaveLength(TIMELINE_MAX);
    expect(state?.open?.timeline[0]?.what).toBe('opened');
    expect(state?.open?.timelineDropped).toBe(200 + 1 - TIMELINE_MAX);
  });

  it('incidentRow is the JSON row of CONTRACT §13', () => {
    const { state } = replay([
      { minute: 0, views: { a: [true, 600_000] } },
      { minute: 1, views: { a: [false, 1] } },
    ]);
    expect(incidentRow(state!.last!)).toEqual({
      id: `flood@${at(0)}`,
      kind: 'rule',
      rule: 'flood',
      state: 'resolved',
      openedAt: at(0),
      resolvedAt: at(1),
      networks: [{ network: 'a', peak: 600_000, peakAt: at(0) }],
    });
  });
});
