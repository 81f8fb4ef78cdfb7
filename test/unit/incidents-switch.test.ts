/**
 * Switching groupBy (docs/design/incidents.md, Switching groupBy), the pure part: which open cells join a rule
 * incident (`MemberView.joins`), the per-network incidents a member joined with (`triggers`), and which
 * per-network alerts belong to an incident and are recorded only (`isIncidentTransition`).
 */
import { describe, expect, it } from 'vitest';
import { isIncidentTransition, mayJoin } from '../../lambda/core/incidents/incident-membership.ts';
import {
  EMPTY_SHARD_MEMBERS,
  type IncidentJudgeInput,
  type IncidentScopeState,
  judgeIncident,
  MEMBER_TRIGGERS_MAX,
  type MemberView,
  type ShardMembers,
} from '../../lambda/core/incidents/incidents.ts';
import type { RuleCell } from '../../lambda/core/rules/rule-types.ts';

const T0 = '2026-05-01T10:00:00.000Z';
const at = (minutes: number) => new Date(Date.parse(T0) + minutes * 60_000).toISOString();
const input = (minute: number, views: MemberView[]): IncidentJudgeInput => ({
  subject: { rule: 'flood' },
  shard: 0,
  at: at(minute),
  views,
  groupIntervalMs: 60_000,
});

/** The incident item and the shard's working set, carried from one judgement to the next as the store would. */
interface Held {
  readonly state?: IncidentScopeState;
  readonly set: ShardMembers;
}
const START: Held = { set: EMPTY_SHARD_MEMBERS };
function step(held: Held, judgeInput: IncidentJudgeInput) {
  const judged = judgeIncident(held.state, { ...judgeInput, members: held.set });
  if (judged.stale) return { judged, held };
  const state = judged.changed ? judged.state : held.state;
  let set = judged.members;
  if (set.incident === undefined && state?.open !== undefined) set = { ...set, incident: state.open.id };
  return { judged, held: { ...(state === undefined ? {} : { state }), set } };
}
const unchanged = (judged: ReturnType<typeof judgeIncident>) =>
  !judged.stale && !judged.changed && !judged.membersChanged;

describe('judgeIncident with views that may not join', () => {
  it('an open cell with joins=false neither opens nor joins; one that may join records its trigger time', () => {
    // Prepare
    const views: MemberView[] = [
      { network: 'a1', open: true, value: 9, triggeredAt: at(0), joins: false },
      { network: 'a2', open: true, value: 8, triggeredAt: at(1), joins: true },
    ];

    // Act
    const solo = step(START, input(1, views.slice(0, 1)));
    const both = step(START, input(1, views));

    // Assess
    expect(unchanged(solo.judged)).toBe(true);
    expect(both.held.state?.open?.id).toBe(`flood@${at(1)}`);
    expect(both.held.set.members.map((m) => [m.network, m.triggers])).toEqual([['a2', [at(1)]]]);
  });

  it.each([
    ['joins=false (groupBy=none)', false, ['a1']],
    ['joins=true (this cycle queued its trigger)', true, ['a1', 'a2']],
  ])('a network that triggers while the incident is open: %s', (_, joins, members) => {
    // Prepare
    const opened = step(
      START,
      input(0, [{ network: 'a1', open: true, value: 9, triggeredAt: at(0), joins: true }]),
    ).held;

    // Act
    const next = step(opened, input(1, [{ network: 'a2', open: true, value: 7, triggeredAt: at(1), joins }]));

    // Assess
    expect(next.held.set.members.map((m) => m.network)).toEqual(members);
  });

  it('under joins=false the members still leave and the last one resolves the incident', () => {
    // Prepare
    const opened = step(
      START,
      input(0, [{ network: 'a1', open: true, value: 9, triggeredAt: at(0), joins: true }]),
    ).held;

    // Act: an active member's open cell, not to join: it stays a member (nothing to write), then leaves.
    const steady = step(opened, input(1, [{ network: 'a1', open: true, value: 9, joins: false }]));
    const closed = step(opened, input(2, [{ network: 'a1', open: false, value: 1 }]));

    // Assess
    expect(unchanged(steady.judged)).toBe(true);
    expect('alerts' in closed.judged ? closed.judged.alerts.map((a) => a.event) : []).toEqual([
      'incident.resolved',
    ]);
    expect(closed.held.state?.open).toBeUndefined();
    expect(closed.held.set.members[0]?.triggers).toEqual([at(0)]);
  });

  it('a rejoin and an unseen reopening add their trigger times, at most MEMBER_TRIGGERS_MAX kept', () => {
    // Prepare
    let held = step(
      START,
      input(0, [{ network: 'a1', open: true, value: 9, triggeredAt: at(0), joins: true }]),
    ).held;
    held = step(
      held,
      input(1, [
        { network: 'a1', open: false, value: 1 },
        { network: 'a2', open: true, value: 9, triggeredAt: at(1), joins: true },
      ]),
    ).held;

    // Act: a1 back (a rejoin), then its cell reopened unseen, then the same cell again.
    const rejoined = step(
      held,
      input(2, [{ network: 'a1', open: true, value: 9, triggeredAt: at(2), joins: true }]),
    ).held;
    const reopened = step(
      rejoined,
      input(3, [{ network: 'a1', open: true, value: 9, triggeredAt: at(3), joins: true }]),
    ).held;
    const same = step(
      reopened,
      input(4, [{ network: 'a1', open: true, value: 9, triggeredAt: at(3), joins: true }]),
    );

    // Assess
    expect(rejoined.set.members[0]?.triggers).toEqual([at(0), at(2)]);
    expect(reopened.set.members[0]?.triggers).toEqual([at(2), at(3)].slice(-MEMBER_TRIGGERS_MAX));
    expect(unchanged(same.judged)).toBe(true);
  });
});

describe('isIncidentTransition: recorded only, or published per network', () => {
  const member = (network: string, extra: Record<string, unknown>) => ({
    network,
    joinedAt: at(0),
    announced: true,
    ...extra,
  });
  const scope = (open: unknown[], last: unknown[] = []): IncidentScopeState =>
    ({
      nextSeq: 1,
      shards: {},
      open: { id: 'flood@x', members: open },
      ...(last.length === 0 ? {} : { last: { id: 'flood@y', members: last } }),
    }) as unknown as IncidentScopeState;
  const alert = (network: string, triggeredAt: string) => ({
    network,
    incident: `flood/${network}/${triggeredAt}`,
  });

  it.each([
    ['no incident item', undefined, alert('a1', at(0)), false],
    ['a member under that trigger', scope([member('a1', { triggers: [at(0)] })]), alert('a1', at(0)), true],
    [
      'a member under another trigger',
      scope([member('a1', { triggers: [at(0)] })]),
      alert('a1', at(5)),
      false,
    ],
    ['another network', scope([member('a1', { triggers: [at(0)] })]), alert('a2', at(0)), false],
    [
      'a member of the latest resolved one',
      scope([], [member('a1', { triggers: [at(0)], leftAt: at(3) })]),
      alert('a1', at(0)),
      true,
    ],
    ['an earlier version, active', scope([member('a1', {})]), alert('a1', at(0)), true],
    [
      'an earlier version, triggered before it left',
      scope([member('a1', { leftAt: at(3) })]),
      alert('a1', at(2)),
      true,
    ],
    [
      'an earlier version, triggered after it left',
      scope([member('a1', { leftAt: at(3) })]),
      alert('a1', at(4)),
      false,
    ],
    [
      'a triggeredAt on the alert wins over the id',
      scope([member('a1', { triggers: [at(1)] })]),
      { ...alert('a1', at(0)), triggeredAt: at(1) },
      true,
    ],
  ])('%s', (_, state, transition, recordedOnly) => {
    // Act
    const grouped = isIncidentTransition(state, transition);

    // Assess
    expect(grouped).toBe(recordedOnly);
  });
});

describe('mayJoin: an open cell joins only before anyone could have sent its trigger', () => {
  const open: RuleCell = { open: true, run: 0, values: [], triggeredAt: at(0), incident: 'flood/a1/x' };
  it.each([
    ['its trigger queued by this cycle', open, true, true],
    [
      'its trigger held back by the alert cap',
      { ...open, held: { event: 'network.rule_triggered', at: at(0), values: [9] } },
      false,
      true,
    ],
    ['its trigger sent or waiting from before (a per-network incident)', open, false, false],
    [
      'a held resolve',
      { ...open, held: { event: 'network.rule_resolved', at: at(0), values: [1] } },
      false,
      false,
    ],
  ] as const)('%s', (_, cell, queued, joins) => {
    // Assess
    expect(mayJoin(cell as RuleCell, queued)).toBe(joins);
  });
});
