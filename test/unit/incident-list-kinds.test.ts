/**
 * `listIncidents` over every kind of incident (CONTRACT §13): a status away from the expected one, the API's,
 * the blind spots, beside a rule's. Open ones from the state items, the others from their events paired by
 * `incident` id; sequences of stored events replayed as the store returns them.
 */
import { describe, expect, it } from 'vitest';
import { INITIAL_STATE, type MonitorState } from '../../lambda/core/detect/decide.ts';
import { type HealthState, INITIAL_HEALTH } from '../../lambda/core/detect/network-health.ts';
import { type IncidentEventRecord, listIncidents } from '../../lambda/core/incidents/incident-list.ts';

const T = (minute: number) => new Date(Date.UTC(2026, 4, 1, 10, minute)).toISOString();
const CLOSED = { count: 0, open: false } as const;

function monitor(fields: Partial<MonitorState> = {}): MonitorState {
  return { ...INITIAL_STATE, ...fields };
}

function health(fields: Partial<HealthState>): HealthState {
  return { ...INITIAL_HEALTH, ...fields };
}

let seq = 0;
function ev(minute: number, event: string, fields: Partial<IncidentEventRecord> = {}): IncidentEventRecord {
  seq += 1;
  return { at: T(minute), event, seq, ...fields };
}

describe("listIncidents: the monitor's own incidents with the API", () => {
  const id = `api.unreachable/${T(0)}`;

  it.each([
    {
      name: 'open in the monitor state, its alert stored: open since its first failing cycle',
      state: monitor({
        incidents: {
          ...INITIAL_STATE.incidents,
          unreachable: { count: 3, open: true, since: T(0), lastError: 'timeout' },
        },
      }),
      events: [ev(2, 'api.unreachable', { incident: id, detail: 'timeout' })],
      expected: { state: 'open', openedAt: T(0), detail: 'timeout' },
      resolvedAt: undefined,
    },
    {
      name: 'open in the monitor state, its alert still in the outbox: open all the same',
      state: monitor({
        incidents: { ...INITIAL_STATE.incidents, unreachable: { count: 3, open: true, since: T(0) } },
      }),
      events: [],
      expected: { state: 'open', openedAt: T(0) },
      resolvedAt: undefined,
    },
    {
      name: 'ended: resolved at its recovery',
      state: monitor(),
      events: [
        ev(2, 'api.unreachable', { incident: id, detail: 'timeout' }),
        ev(9, 'api.recovered', { incident: id, previousSince: T(0) }),
      ],
      expected: { state: 'resolved', openedAt: T(0) },
      resolvedAt: T(9),
    },
    {
      name: 'its opening before --since: resolved, opened at the time its id names',
      state: monitor(),
      events: [ev(9, 'api.recovered', { incident: id, previousSince: T(0) })],
      expected: { state: 'resolved', openedAt: T(0) },
      resolvedAt: T(9),
    },
    {
      name: 'no longer open and no end recorded: resolved, without an end',
      state: monitor(),
      events: [ev(2, 'api.unreachable', { incident: id })],
      expected: { state: 'resolved', openedAt: T(0) },
      resolvedAt: undefined,
    },
  ])('$name', ({ state, events, expected, resolvedAt }) => {
    // Act
    const views = listIncidents({ scopes: [], monitor: state, events });

    // Assess
    expect(views).toHaveLength(1);
    expect(views[0]).toMatchObject({ id, kind: 'api', about: 'API unreachable', networks: [], ...expected });
    expect(views[0]?.resolvedAt).toBe(resolvedAt);
    expect(views[0]?.rule).toBeUndefined();
  });

  it('the key rejected and the status unreadable are API incidents too, each with its own words', () => {
    // Prepare
    const state = monitor({
      incidents: {
        auth: { count: 1, open: true, since: T(1), lastError: 'HTTP 401' },
        unreachable: CLOSED,
        unreadable: { count: 3, open: true, since: T(3) },
      },
    });

    // Act
    const views = listIncidents({ scopes: [], monitor: state, events: [] });

    // Assess
    expect(views.map((v) => [v.id, v.kind, v.about, v.state])).toEqual([
      [`api.auth_failed/${T(1)}`, 'api', 'API key rejected', 'open'],
      [`filter.status_unreadable/${T(3)}`, 'api', 'filter status unreadable', 'open'],
    ]);
  });
});

describe('listIncidents: a status away from the expected one', () => {
  const id = `filter.status_changed/${T(1)}`;
  const away = [
    ev(1, 'filter.status_changed', { incident: id, from: 'active', to: 'mitigating', severity: 'high' }),
    ev(5, 'filter.status_reminder', { incident: id, to: 'mitigating', severity: 'high' }),
    ev(6, 'filter.status_changed', { incident: id, from: 'mitigating', to: 'blocked', severity: 'high' }),
  ];

  it('replayed: open while away (the status it is at now), then resolved by the change back', () => {
    // Prepare
    const open = monitor({ status: 'blocked', statusSince: T(6), awayIncident: id });
    const back = ev(8, 'filter.status_changed', {
      incident: id,
      from: 'blocked',
      to: 'active',
      severity: 'resolved',
    });

    // Act
    const [during] = listIncidents({ scopes: [], monitor: open, events: away });
    const [after] = listIncidents({
      scopes: [],
      monitor: monitor({ status: 'active' }),
      events: [...away, back],
    });

    // Assess
    expect(during).toMatchObject({
      id,
      kind: 'status',
      about: 'status away: "blocked"',
      state: 'open',
      openedAt: T(1),
      networks: [],
    });
    expect(during?.resolvedAt).toBeUndefined();
    expect(after).toMatchObject({ id, kind: 'status', state: 'resolved', openedAt: T(1), resolvedAt: T(8) });
    expect(after?.timeline.map((t) => [t.what, t.detail])).toEqual([
      ['opened', 'status "mitigating"'],
      ['reminded', 'status "mitigating"'],
      ['updated', 'status "blocked"'],
      ['resolved', 'status "active"'],
    ]);
    expect(after?.alerts.map((a) => a.event)).toEqual([
      'filter.status_changed',
      'filter.status_reminder',
      'filter.status_changed',
      'filter.status_changed',
    ]);
  });

  it('open in the state, its change away before --since: opened when it went away', () => {
    // Act
    const views = listIncidents({
      scopes: [],
      monitor: monitor({ status: 'mitigating', statusSince: T(1), awayIncident: id }),
      events: [],
    });

    // Assess
    expect(views).toEqual([expect.objectContaining({ id, state: 'open', openedAt: T(1) })]);
  });

  it('a change without an expected status is no incident', () => {
    // Act
    const views = listIncidents({
      scopes: [],
      monitor: monitor({ status: 'mitigating' }),
      events: [ev(1, 'filter.status_changed', { from: 'active', to: 'mitigating' })],
    });

    // Assess
    expect(views).toEqual([]);
  });
});

describe('listIncidents: the blind spots', () => {
  const id = `network.unreachable/0/${T(0)}`;

  it('open in the health item: its failing networks (no peak), acknowledged, opened by its first alert', () => {
    // Prepare
    const state = health({
      down: {
        'edge-2': { n: 2, since: T(0), kind: 'client', http: 404, open: true },
        'edge-3': { n: 1, since: T(2) },
      },
      downIncident: id,
      incidents: { [id]: { openedAt: T(1), stage: 1, acknowledged: { by: 'ops', at: T(3) } } },
    });

    // Act
    const views = listIncidents({
      scopes: [],
      monitor: monitor(),
      health: [{ shard: 0, state }],
      events: [],
    });

    // Assess
    expect(views).toEqual([
      expect.objectContaining({
        id,
        kind: 'network',
        about: 'network unreachable',
        state: 'acknowledged',
        openedAt: T(1),
        networks: [{ network: 'edge-2' }],
        acknowledged: { by: 'ops', at: T(3) },
      }),
    ]);
    expect(views[0]?.rule).toBeUndefined();
  });

  it('replayed from its events: networks join and leave, the last recovery resolves it', () => {
    // Prepare
    const events = [
      ev(1, 'network.unreachable', {
        incident: id,
        members: [{ network: 'edge-1' }, { network: 'edge-2' }],
        detail: 'edge-1, edge-2',
      }),
      ev(2, 'network.unreachable', {
        incident: id,
        members: [{ network: 'edge-3' }],
        remaining: ['edge-1', 'edge-2'],
      }),
      ev(3, 'incident.reminder', { incident: id, members: [{ network: 'edge-1' }] }),
      ev(4, 'network.recovered', {
        incident: id,
        members: [{ network: 'edge-1' }],
        remaining: ['edge-2', 'edge-3'],
      }),
      ev(6, 'network.recovered', {
        incident: id,
        members: [{ network: 'edge-2' }, { network: 'edge-3' }],
        remaining: [],
      }),
    ];

    // Act
    const [view] = listIncidents({ scopes: [], monitor: monitor(), health: [], events });

    // Assess
    expect(view).toMatchObject({ id, kind: 'network', state: 'resolved', openedAt: T(1), resolvedAt: T(6) });
    expect(view?.networks).toEqual([{ network: 'edge-1' }, { network: 'edge-2' }, { network: 'edge-3' }]);
    expect(view?.members).toEqual([
      { network: 'edge-1', joinedAt: T(1), leftAt: T(4) },
      { network: 'edge-2', joinedAt: T(1), leftAt: T(6) },
      { network: 'edge-3', joinedAt: T(2), leftAt: T(6) },
    ]);
    expect(view?.timeline.map((t) => [t.what, t.count])).toEqual([
      ['opened', 2],
      ['joined', 1],
      ['reminded', 1],
      ['left', 1],
      ['resolved', 2],
    ]);
  });

  it('still open in the health item: a recovery without `remaining` (as older stores read) is a network leaving', () => {
    // Prepare
    const state = health({ down: { 'edge-2': { n: 3, since: T(0), open: true } }, downIncident: id });
    const events = [
      ev(1, 'network.unreachable', { incident: id, detail: 'edge-1, edge-2' }),
      ev(4, 'network.recovered', { incident: id, detail: 'edge-1' }),
    ];

    // Act
    const [view] = listIncidents({ scopes: [], monitor: monitor(), health: [{ shard: 0, state }], events });

    // Assess
    expect(view).toMatchObject({ state: 'open', openedAt: T(1), networks: [{ network: 'edge-2' }] });
    expect(view?.resolvedAt).toBeUndefined();
    expect(view?.timeline.map((t) => [t.what, t.detail])).toEqual([
      ['opened', 'edge-1, edge-2'],
      ['left', 'edge-1'],
    ]);
  });

  it('a rule that reads nothing: its rule, its networks, and its incident.* events are not a rule incident', () => {
    // Prepare
    const blindId = `network.rule_unreadable/flood/1/${T(0)}`;
    const state = health({
      blind: { flood: { 'edge-1': { n: 3, since: T(0), open: true } } },
      blindIncidents: { flood: blindId },
      incidents: { [blindId]: { openedAt: T(2), stage: 2 } },
    });
    const events = [
      ev(2, 'network.rule_unreadable', {
        incident: blindId,
        rule: 'flood',
        ruleText: 'flood: traffic.in.pps > 5',
      }),
      ev(7, 'incident.escalated', { incident: blindId, rule: 'flood' }),
    ];

    // Act
    const views = listIncidents({ scopes: [], monitor: monitor(), health: [{ shard: 1, state }], events });

    // Assess
    expect(views).toEqual([
      expect.objectContaining({
        id: blindId,
        kind: 'rule_unreadable',
        rule: 'flood',
        about: 'rule flood reads nothing',
        ruleText: 'flood: traffic.in.pps > 5',
        state: 'open',
        openedAt: T(2),
        networks: [{ network: 'edge-1' }],
      }),
    ]);
    expect(views[0]?.timeline.map((t) => t.what)).toEqual(['opened', 'escalated']);
  });
});

describe('listIncidents: every kind together', () => {
  it('oldest first, a rule incident from its events beside the others', () => {
    // Prepare
    const events = [
      ev(1, 'api.auth_failed', { incident: `api.auth_failed/${T(1)}` }),
      ev(2, 'incident.opened', {
        incident: `flood@${T(2)}`,
        rule: 'flood',
        story: { kind: 'rule', openedAt: T(2), members: [{ network: 'edge-1', joinedAt: T(2), peak: 9 }] },
      }),
      ev(3, 'api.auth_restored', { incident: `api.auth_failed/${T(1)}`, previousSince: T(1) }),
    ];
    const state = monitor({
      status: 'mitigating',
      awayIncident: `filter.status_changed/${T(0)}`,
    });

    // Act
    const views = listIncidents({ scopes: [], monitor: state, health: [], events });

    // Assess
    expect(views.map((v) => [v.kind, v.state, v.openedAt])).toEqual([
      ['status', 'open', T(0)],
      ['api', 'resolved', T(1)],
      ['rule', 'open', T(2)],
    ]);
    expect(views[2]?.networks).toEqual([{ network: 'edge-1', peak: 9 }]);
  });
});

describe("listIncidents: the monitor's own incidents acknowledged (CONTRACT §14)", () => {
  const away = `filter.status_changed/${T(1)}`;
  const api = `api.unreachable/${T(0)}`;
  const ack = { by: 'alice', at: T(5), note: 'vendor ticket' };

  it('shows the status away and the API unreachable acknowledged, from the timers in the monitor state', () => {
    // Prepare
    const state = monitor({
      status: 'bypass',
      statusSince: T(1),
      awayIncident: away,
      incidents: { ...INITIAL_STATE.incidents, unreachable: { count: 3, open: true, since: T(0) } },
      incidentTimers: {
        [away]: { openedAt: T(1), stage: 2, acknowledged: ack },
        [api]: { openedAt: T(2), stage: 1 },
      },
    });
    const events = [
      ev(1, 'filter.status_changed', { incident: away, to: 'bypass', severity: 'high' }),
      ev(5, 'incident.acknowledged', { incident: away, to: 'bypass', detail: 'vendor ticket' }),
    ];

    // Act
    const views = listIncidents({ scopes: [], monitor: state, events });

    // Assess
    const status = views.find((v) => v.id === away);
    const unreachable = views.find((v) => v.id === api);
    expect(status).toMatchObject({ kind: 'status', state: 'acknowledged', acknowledged: ack });
    expect(status?.timeline.map((t) => t.what)).toEqual(['opened', 'acknowledged']);
    expect(unreachable).toMatchObject({ kind: 'api', state: 'open' });
    expect(unreachable?.acknowledged).toBeUndefined();
  });

  it('an item without timers (an older version) lists them open, not acknowledged', () => {
    const state = monitor({ status: 'bypass', statusSince: T(1), awayIncident: away });
    const [view] = listIncidents({ scopes: [], monitor: state, events: [] });
    expect(view).toMatchObject({ id: away, state: 'open' });
  });
});
