/**
 * `listIncidents` over a rule's incidents of one network (CONTRACT §13, `groupBy=none`): open ones from the rule
 * items' cells, the others from their `network.rule_*` events paired by incident id, each with its peak; and
 * those the `groupBy=rule` incidents across networks own (their items, their `incident.*` events) left out.
 */
import { describe, expect, it } from 'vitest';
import { INITIAL_STATE } from '../../lambda/core/detect/decide.ts';
import {
  type IncidentEventRecord,
  type IncidentSources,
  listIncidents,
  type RuleItemCells,
  ruleTriggersBefore,
} from '../../lambda/core/incidents/incident-list.ts';
import type { Incident, IncidentMember, StoryMember } from '../../lambda/core/incidents/incidents.ts';
import { incidentTimes } from '../../lambda/core/incidents/response-times.ts';
import type { RuleCell } from '../../lambda/core/rules/rule-types.ts';

const T = (minute: number) => new Date(Date.UTC(2026, 4, 1, 10, minute)).toISOString();
const id = (network: string, minute: number) => `flood/${network}/${T(minute)}`;

let seq = 0;
function ruleEvent(
  minute: number,
  event: 'network.rule_triggered' | 'network.rule_resolved',
  network: string,
  triggered: number,
  value: number,
  fields: Partial<IncidentEventRecord> = {},
): IncidentEventRecord {
  seq += 1;
  return {
    at: T(minute),
    event,
    seq,
    rule: 'flood',
    ruleText: 'flood: traffic.in.pps > 500k',
    network,
    value,
    threshold: 500_000,
    condition: { op: '>' },
    incident: id(network, triggered),
    triggeredAt: T(triggered),
    ...fields,
  };
}
const trigger = (network: string, minute: number, value: number, fields?: Partial<IncidentEventRecord>) =>
  ruleEvent(minute, 'network.rule_triggered', network, minute, value, fields);
const resolve = (
  network: string,
  minute: number,
  triggered: number,
  value: number,
  fields?: Partial<IncidentEventRecord>,
) => ruleEvent(minute, 'network.rule_resolved', network, triggered, value, fields);

function item(lastAt: number, cells: Record<string, RuleCell>): RuleItemCells {
  return { lastAt: T(lastAt), cells: { flood: cells } };
}
const openCell = (network: string, minute: number, fields: Partial<RuleCell> = {}): RuleCell => ({
  open: true,
  run: 0,
  values: [],
  triggeredAt: T(minute),
  incident: id(network, minute),
  ...fields,
});

function sources(fields: Partial<IncidentSources>): IncidentSources {
  return { scopes: [], monitor: INITIAL_STATE, events: [], ...fields };
}

function grouped(openedAt: number, members: IncidentMember[], resolvedAt?: number): Incident {
  return {
    id: `flood@${T(openedAt)}`,
    kind: 'rule',
    rule: 'flood',
    state: resolvedAt === undefined ? 'open' : 'resolved',
    openedAt: T(openedAt),
    ...(resolvedAt === undefined ? {} : { resolvedAt: T(resolvedAt) }),
    members,
    timeline: [],
    lastNoticeAt: T(openedAt),
    alerts: { sent: 1, suppressed: 0 },
    stage: 1,
  };
}
const member = (network: string, joined: number, left?: number): IncidentMember => ({
  network,
  joinedAt: T(joined),
  ...(left === undefined ? {} : { leftAt: T(left) }),
  announced: true,
});

function incidentEvent(
  minute: number,
  event: string,
  openedAt: number,
  members: StoryMember[],
  fields: { resolvedAt?: number; count?: number } = {},
): IncidentEventRecord {
  seq += 1;
  return {
    at: T(minute),
    event,
    seq,
    rule: 'flood',
    incident: `flood@${T(openedAt)}`,
    openedAt: T(openedAt),
    story: {
      kind: 'rule',
      openedAt: T(openedAt),
      ...(fields.resolvedAt === undefined ? {} : { resolvedAt: T(fields.resolvedAt) }),
      members,
      count: fields.count ?? members.length,
    },
  };
}

describe('listIncidents: a rule incident of one network', () => {
  it.each([
    {
      name: 'open in its cell, its trigger stored: open since it triggered, the trigger its peak',
      input: sources({
        ruleItems: [item(3, { 'edge-1': openCell('edge-1', 2) })],
        events: [trigger('edge-1', 2, 9e5)],
      }),
      expected: {
        id: id('edge-1', 2),
        kind: 'rule',
        rule: 'flood',
        about: 'flood on edge-1',
        ruleText: 'flood: traffic.in.pps > 500k',
        state: 'open',
        openedAt: T(2),
        networks: [{ network: 'edge-1', peak: 9e5, peakAt: T(2) }],
        timeline: [{ at: T(2), what: 'opened', count: 1, detail: 'value 900000, threshold 500000' }],
        alerts: [{ at: T(2), event: 'network.rule_triggered' }],
      },
    },
    {
      name: 'open in its cell, its trigger held back by the alert cap: open, the held value its peak',
      input: sources({
        ruleItems: [
          item(3, {
            'edge-1': openCell('edge-1', 2, {
              held: { event: 'network.rule_triggered', at: T(2), values: [7e5] },
            }),
          }),
        ],
      }),
      expected: {
        state: 'open',
        openedAt: T(2),
        networks: [{ network: 'edge-1', peak: 7e5, peakAt: T(2) }],
        timeline: [{ at: T(2), what: 'opened', count: 1, detail: 'its alert waits behind the alert cap' }],
        alerts: [],
      },
    },
    {
      name: 'triggered and resolved, no cell: resolved at its resolve, the worst reading its peak',
      input: sources({ events: [trigger('edge-1', 2, 9e5), resolve('edge-1', 8, 2, 1e3)] }),
      expected: {
        state: 'resolved',
        openedAt: T(2),
        resolvedAt: T(8),
        networks: [{ network: 'edge-1', peak: 9e5, peakAt: T(2) }],
        members: [{ network: 'edge-1', joinedAt: T(2), leftAt: T(8), value: 1e3, peak: 9e5, peakAt: T(2) }],
        timeline: [
          { at: T(2), what: 'opened', count: 1, detail: 'value 900000, threshold 500000' },
          { at: T(8), what: 'resolved', count: 1, detail: 'value 1000, threshold 500000' },
        ],
      },
    },
    {
      name: 'a rule for "<": the lowest reading is the peak',
      input: sources({
        events: [
          trigger('edge-1', 2, 10, { condition: { op: '<' }, threshold: 50 }),
          resolve('edge-1', 8, 2, 90, { condition: { op: '<' }, threshold: 50 }),
        ],
      }),
      expected: { state: 'resolved', networks: [{ network: 'edge-1', peak: 10, peakAt: T(2) }] },
    },
    {
      name: 'a record without its operator: read from the trigger against its threshold',
      input: sources({
        events: [
          trigger('edge-1', 2, 10, { condition: undefined, threshold: 50 }),
          resolve('edge-1', 8, 2, 90, { condition: undefined, threshold: 50 }),
        ],
      }),
      expected: { networks: [{ network: 'edge-1', peak: 10, peakAt: T(2) }] },
    },
    {
      name: 'triggered, no cell, no resolve recorded (its rule or network left): resolved without an end',
      input: sources({ events: [trigger('edge-1', 2, 9e5)] }),
      expected: { state: 'resolved', openedAt: T(2) },
      noEnd: true,
    },
    {
      name: 'its resolve held back by the alert cap: resolved when its cell closed',
      input: sources({
        ruleItems: [
          item(9, {
            'edge-1': {
              open: false,
              run: 0,
              values: [],
              triggeredAt: T(2),
              incident: id('edge-1', 2),
              held: { event: 'network.rule_resolved', at: T(8), values: [1e3] },
            },
          }),
        ],
        events: [trigger('edge-1', 2, 9e5)],
      }),
      expected: {
        state: 'resolved',
        resolvedAt: T(8),
        networks: [{ network: 'edge-1', peak: 9e5, peakAt: T(2) }],
        timeline: [
          { what: 'opened' },
          { at: T(8), what: 'resolved', count: 1, detail: 'its alert waits behind the alert cap' },
        ],
      },
    },
    {
      name: 'only its resolve in range: resolved, opened when it triggered, no peak (a resolve reads none)',
      input: sources({ events: [resolve('edge-1', 8, 2, 1e3)] }),
      expected: { state: 'resolved', openedAt: T(2), resolvedAt: T(8), networks: [{ network: 'edge-1' }] },
    },
    {
      name: 'only its resolve in range, its trigger read from further back: the trigger is its peak',
      input: sources({
        events: [resolve('edge-1', 8, 2, 1e3)],
        ruleEvents: [trigger('edge-1', 2, 9e5), resolve('edge-1', 8, 2, 1e3)],
      }),
      expected: { networks: [{ network: 'edge-1', peak: 9e5, peakAt: T(2) }] },
    },
    {
      name: 'open, its cell keeping a peak past the trigger: the cell peak and when',
      input: sources({
        ruleItems: [item(12, { 'edge-1': openCell('edge-1', 2, { peak: { value: 8.5e5, at: T(10) } }) })],
        events: [trigger('edge-1', 2, 8e5)],
      }),
      expected: {
        state: 'open',
        networks: [{ network: 'edge-1', peak: 8.5e5, peakAt: T(10) }],
        members: [{ network: 'edge-1', value: 8e5, peak: 8.5e5, peakAt: T(10) }],
      },
    },
    {
      name: 'open, its cell of the previous release (no peak): the trigger stays its peak',
      input: sources({
        ruleItems: [item(12, { 'edge-1': openCell('edge-1', 2) })],
        events: [trigger('edge-1', 2, 8e5)],
      }),
      expected: { networks: [{ network: 'edge-1', peak: 8e5, peakAt: T(2) }] },
    },
    {
      name: 'a cell kept no peak before an upgrade, its reading since is lower: the trigger stays its peak',
      input: sources({
        ruleItems: [item(12, { 'edge-1': openCell('edge-1', 2, { peak: { value: 6e5, at: T(11) } }) })],
        events: [trigger('edge-1', 2, 8e5)],
      }),
      expected: { networks: [{ network: 'edge-1', peak: 8e5, peakAt: T(2) }] },
    },
    {
      name: 'resolved, its resolve carrying the peak: that peak and when, its resolve value the latest',
      input: sources({
        events: [trigger('edge-1', 2, 8e5), resolve('edge-1', 20, 2, 1e3, { peak: 8.5e5, peakAt: T(10) })],
      }),
      expected: {
        state: 'resolved',
        networks: [{ network: 'edge-1', peak: 8.5e5, peakAt: T(10) }],
        members: [{ network: 'edge-1', value: 1e3, peak: 8.5e5, peakAt: T(10) }],
      },
    },
    {
      name: 'only its resolve in range, carrying the peak: that peak',
      input: sources({ events: [resolve('edge-1', 20, 2, 1e3, { peak: 8.5e5, peakAt: T(10) })] }),
      expected: { networks: [{ network: 'edge-1', peak: 8.5e5, peakAt: T(10) }] },
    },
    {
      name: 'a rule for "<": the lower of the trigger and the kept peak',
      input: sources({
        events: [
          trigger('edge-1', 2, 10, { condition: { op: '<' }, threshold: 50 }),
          resolve('edge-1', 8, 2, 90, { condition: { op: '<' }, threshold: 50, peak: 4, peakAt: T(5) }),
        ],
      }),
      expected: { networks: [{ network: 'edge-1', peak: 4, peakAt: T(5) }] },
    },
    {
      name: 'its resolve held back by the alert cap, the cell keeping the peak: that peak',
      input: sources({
        ruleItems: [
          item(9, {
            'edge-1': {
              open: false,
              run: 0,
              values: [],
              triggeredAt: T(2),
              incident: id('edge-1', 2),
              peak: { value: 9.5e5, at: T(5) },
              held: { event: 'network.rule_resolved', at: T(8), values: [1e3] },
            },
          }),
        ],
        events: [trigger('edge-1', 2, 9e5)],
      }),
      expected: { state: 'resolved', networks: [{ network: 'edge-1', peak: 9.5e5, peakAt: T(5) }] },
    },
  ])('$name', ({ input, expected, noEnd }) => {
    // Act
    const views = listIncidents(input);

    // Assess
    expect(views).toHaveLength(1);
    expect(views[0]).toMatchObject(expected);
    if (noEnd === true) expect(views[0]).not.toHaveProperty('resolvedAt');
  });

  it('two copies of a cell (an edit moved it): the copy of the newest item stands', () => {
    // Prepare: the older item still holds the cell open; the newer one closed it (resolved at 8).
    const input = sources({
      ruleItems: [
        item(9, { 'edge-1': { open: false, run: 0, values: [] } }),
        item(5, { 'edge-1': openCell('edge-1', 2) }),
      ],
      events: [trigger('edge-1', 2, 9e5), resolve('edge-1', 8, 2, 1e3)],
    });

    // Act
    const views = listIncidents(input);

    // Assess
    expect(views.map((v) => [v.id, v.state])).toEqual([[id('edge-1', 2), 'resolved']]);
  });

  it('lists every network on its own, oldest first, beside the other kinds', () => {
    // Prepare
    const input = sources({
      ruleItems: [item(6, { 'edge-2': openCell('edge-2', 5) })],
      events: [trigger('edge-1', 2, 9e5), resolve('edge-1', 4, 2, 1e3), trigger('edge-2', 5, 6e5)],
    });

    // Act
    const views = listIncidents(input);

    // Assess
    expect(views.map((v) => [v.id, v.state])).toEqual([
      [id('edge-1', 2), 'resolved'],
      [id('edge-2', 5), 'open'],
    ]);
  });

  it.each<[string, RuleCell['timers'], IncidentEventRecord[], object]>([
    [
      'who and the note from its cell, its event read or not (the report, the page: an ack older than their window)',
      { openedAt: T(2), stage: 1, acknowledged: { by: 'alice', at: T(5), note: 'on it' } },
      [],
      { by: 'alice', at: T(5), note: 'on it' },
    ],
    [
      'a cell of the previous release (when only): who and the note from its incident.acknowledged event',
      { openedAt: T(2), stage: 1, acknowledged: { by: '', at: T(5) } },
      [
        {
          at: T(5),
          event: 'incident.acknowledged',
          seq: 99,
          incident: id('edge-1', 2),
          acknowledgedBy: 'ops',
          detail: 'scrubbing',
        } as IncidentEventRecord,
      ],
      { by: 'ops', at: T(5), note: 'scrubbing' },
    ],
    [
      'a cell of the previous release, its event not read: acknowledged by unknown',
      { openedAt: T(2), stage: 1, acknowledged: { by: '', at: T(5) } },
      [],
      { by: 'unknown', at: T(5) },
    ],
  ])('acknowledged: %s', (_name, timers, events, acknowledged) => {
    // Prepare
    const input = sources({
      ruleItems: [item(6, { 'edge-1': openCell('edge-1', 2, { timers: timers! }) })],
      events: [trigger('edge-1', 2, 9e5), ...events],
    });

    // Act
    const [view] = listIncidents(input);

    // Assess
    expect(view?.state).toBe('acknowledged');
    expect(view?.acknowledged).toEqual(acknowledged);
  });

  it('resolved, it keeps its acknowledgement and reminders in its timeline and alerts: its time to acknowledge stays known', () => {
    // Prepare: triggered at 2, reminded at 4, acknowledged at 5 by ops, resolved at 8 (the cell closed).
    const step = (minute: number, event: string, fields: Partial<IncidentEventRecord> = {}) => {
      seq += 1;
      return { at: T(minute), event, seq, incident: id('edge-1', 2), ...fields } as IncidentEventRecord;
    };
    const input = sources({
      ruleItems: [item(9, { 'edge-1': { open: false, run: 0, values: [] } })],
      events: [
        trigger('edge-1', 2, 9e5),
        step(4, 'incident.reminder'),
        step(5, 'incident.acknowledged', { acknowledgedBy: 'ops', detail: 'on it' }),
        resolve('edge-1', 8, 2, 1e3),
      ],
    });

    // Act
    const [view] = listIncidents(input);

    // Assess
    expect(view?.state).toBe('resolved');
    expect(view?.timeline.map((l) => [l.at, l.what, l.by ?? '-', l.note ?? '-'])).toEqual([
      [T(2), 'opened', '-', '-'],
      [T(4), 'reminded', '-', '-'],
      [T(5), 'acknowledged', 'ops', 'on it'],
      [T(8), 'resolved', '-', '-'],
    ]);
    expect(view?.alerts.map((a) => a.event)).toEqual([
      'network.rule_triggered',
      'incident.reminder',
      'incident.acknowledged',
      'network.rule_resolved',
    ]);
    expect(incidentTimes(view!, Date.parse(T(10)))).toMatchObject({
      acknowledgedAt: T(5),
      timeToAcknowledgeMs: 3 * 60_000,
      timeToResolveMs: 6 * 60_000,
    });
  });
});

describe('listIncidents: the per-network transitions of an incident across networks (groupBy=rule)', () => {
  it.each([
    {
      name: 'open in the incident item, its network a member: only the incident across networks',
      input: sources({
        scopes: [{ open: grouped(2, [member('edge-1', 2), member('edge-2', 3)]) }],
        ruleItems: [item(4, { 'edge-1': openCell('edge-1', 2), 'edge-2': openCell('edge-2', 3) })],
        events: [trigger('edge-1', 2, 9e5), trigger('edge-2', 3, 6e5)],
      }),
      expected: [`flood@${T(2)}`],
    },
    {
      name: "the item's last incident: its members' transitions while they were members are its own",
      input: sources({
        scopes: [{ last: grouped(2, [member('edge-1', 2, 6)], 6) }],
        events: [trigger('edge-1', 2, 9e5), resolve('edge-1', 6, 2, 1e3)],
      }),
      expected: [`flood@${T(2)}`],
    },
    {
      name: 'a member that left and came back: its second trigger is the same incident across networks',
      input: sources({
        scopes: [{ last: grouped(2, [member('edge-1', 2, 9), member('edge-2', 3, 7)], 9) }],
        events: [
          trigger('edge-1', 2, 9e5),
          resolve('edge-1', 4, 2, 1e3),
          trigger('edge-1', 5, 8e5),
          trigger('edge-2', 3, 6e5),
          resolve('edge-2', 7, 3, 1e3),
          resolve('edge-1', 9, 5, 1e3),
        ],
      }),
      expected: [`flood@${T(2)}`],
    },
    {
      name: 'an older incident known from its events: its resolve names every member',
      input: sources({
        events: [
          incidentEvent(2, 'incident.opened', 2, [{ network: 'edge-1', joinedAt: T(2) }]),
          trigger('edge-1', 2, 9e5),
          resolve('edge-1', 6, 2, 1e3),
          incidentEvent(6, 'incident.resolved', 2, [{ network: 'edge-1', joinedAt: T(2), leftAt: T(6) }], {
            resolvedAt: 6,
          }),
        ],
      }),
      expected: [`flood@${T(2)}`],
    },
    {
      name: 'its resolve past the cap (not every member named): a transition within its time is its own',
      input: sources({
        events: [
          trigger('edge-9', 3, 6e5),
          resolve('edge-9', 5, 3, 1e3),
          incidentEvent(6, 'incident.resolved', 2, [{ network: 'edge-1', joinedAt: T(2), leftAt: T(6) }], {
            resolvedAt: 6,
            count: 1001,
          }),
        ],
      }),
      expected: [`flood@${T(2)}`],
    },
    {
      name: 'a network that was no member: its own incident',
      input: sources({
        scopes: [{ last: grouped(2, [member('edge-1', 2, 6)], 6) }],
        events: [trigger('edge-2', 3, 6e5), resolve('edge-2', 5, 3, 1e3)],
      }),
      expected: [`flood@${T(2)}`, id('edge-2', 3)],
    },
    {
      name: 'switched to none after the incident resolved: later transitions are incidents of their own',
      input: sources({
        scopes: [{ last: grouped(2, [member('edge-1', 2, 6)], 6) }],
        ruleItems: [item(12, { 'edge-1': openCell('edge-1', 10) })],
        events: [trigger('edge-1', 2, 9e5), resolve('edge-1', 6, 2, 1e3), trigger('edge-1', 10, 7e5)],
      }),
      expected: [`flood@${T(2)}`, id('edge-1', 10)],
    },
    {
      name: "another rule's incident across networks covers nothing of this rule",
      input: sources({
        scopes: [{ open: { ...grouped(2, [member('edge-1', 2)]), id: `other@${T(2)}`, rule: 'other' } }],
        ruleItems: [item(4, { 'edge-1': openCell('edge-1', 2) })],
        events: [trigger('edge-1', 2, 9e5)],
      }),
      expected: [id('edge-1', 2), `other@${T(2)}`],
    },
  ])('$name', ({ input, expected }) => {
    // Act
    const views = listIncidents(input);

    // Assess
    expect(views.map((v) => v.id)).toEqual(expected);
  });
});

describe('ruleTriggersBefore', () => {
  it('names the trigger times before --since of the incidents of one network listed, once each, oldest first', () => {
    // Prepare: edge-1 and edge-2 triggered at 2, edge-3 at 1 (resolved at 8), edge-4 at 6; a grouped one at 0.
    const input = sources({
      scopes: [{ open: grouped(0, [member('edge-9', 0)]) }],
      ruleItems: [
        item(9, {
          'edge-1': openCell('edge-1', 2),
          'edge-2': openCell('edge-2', 2),
          'edge-4': openCell('edge-4', 6),
          'edge-9': openCell('edge-9', 0),
        }),
      ],
      events: [resolve('edge-3', 8, 1, 1e3), trigger('edge-4', 6, 6e5)],
    });

    // Act
    const times = ruleTriggersBefore(input, T(5));

    // Assess
    expect(times).toEqual([T(1), T(2)]);
  });
});
