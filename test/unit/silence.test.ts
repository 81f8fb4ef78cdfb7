import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ALERT_EVENTS } from '../../lambda/core/alerts/alert-events.ts';
import { renderAlert, SMS_MAX_CHARS, SUBJECT_MAX_CHARS } from '../../lambda/core/alerts/alert-text.ts';
import {
  afterAlert,
  dueAnnouncements,
  eventsMatching,
  HELD_BUDGET_BYTES,
  type HeldChanges,
  isSilenceId,
  listedSilences,
  MAX_SILENCE_MS,
  newSilence,
  patternMatches,
  patternProblem,
  remainingMs,
  SILENCEABLE_EVENTS,
  type Silence,
  silenceFor,
  silenceId,
  silenceStatus,
  toHeldChanges,
  toSilence,
} from '../../lambda/core/silences/silence.ts';
import type { AlertEvent, AlertRecord } from '../../lambda/core/types.ts';

const T0 = Date.parse('2026-11-23T10:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();
const MIN = 60_000;

function silence(overrides: Partial<Silence> = {}): Silence {
  return {
    id: 's-aaaaaaaa',
    startsAt: iso(T0),
    endsAt: iso(T0 + 60 * MIN),
    pattern: '*',
    createdAt: iso(T0),
    ...overrides,
  };
}

describe('patternMatches', () => {
  it.each([
    ['*', 'filter.status_changed', true],
    ['*', 'network.rule_triggered', true],
    ['network.*', 'network.rule_triggered', true],
    ['network.*', 'network.rule_resolved', true],
    ['network.*', 'filter.status_changed', false],
    ['api.*', 'api.unreachable', true],
    ['api.*', 'filter.status_unreadable', false],
    ['filter.status_changed', 'filter.status_changed', true],
    ['filter.status_changed', 'filter.status_reminder', false],
    ['filter.status_*', 'filter.status_reminder', true],
    ['*.recovered', 'api.recovered', true],
    ['*reminder', 'filter.status_reminder', true],
    ['*status*', 'filter.status_readable', true],
    ['*status*', 'api.auth_failed', false],
    ['api.*ed', 'api.auth_failed', true],
    ['api.*ed', 'api.unreachable', false],
    ['a*a', 'a', false],
    ['**', 'api.recovered', true],
  ])('%j against %j is %j', (pattern, event, expected) => {
    expect(patternMatches(pattern, event)).toBe(expected);
  });

  it('a pattern without * is the name itself, and * matches every name (property)', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z._]{0,20}$/), fc.stringMatching(/^[a-z._]{0,20}$/), (p, e) => {
        expect(patternMatches(p, e)).toBe(p === e);
        expect(patternMatches('*', e)).toBe(true);
        expect(patternMatches(`${p}*`, e)).toBe(e.startsWith(p));
      }),
    );
  });
});

describe('patternProblem', () => {
  it.each([
    ['*', undefined],
    ['network.*', undefined],
    ['api.*', undefined],
    ['filter.status_changed', undefined],
    ['filter.status_reminder', undefined],
  ])('%j is accepted', (pattern, problem) => {
    expect(patternProblem(pattern)).toBe(problem);
  });

  it.each([
    ['', /empty/],
    ['netwrok.*', /matches no event.*one of: filter\.status_changed/],
    ['filter.status_change', /matches no event/],
    ['monitor.test', /monitor\.test is never silenced/],
    ['monitor.*', /matches no event/],
    ['Network.*', /only a-z, 0-9/],
    ['api.*; rm', /only a-z, 0-9/],
    ['a'.repeat(101), /longer than 100/],
  ])('%j is refused (%s)', (pattern, message) => {
    expect(patternProblem(pattern)).toMatch(message);
  });

  it('the list of events in the message is every event a silence can suppress', () => {
    const problem = patternProblem('nothing.*') ?? '';
    for (const event of SILENCEABLE_EVENTS) expect(problem).toContain(event);
    expect(SILENCEABLE_EVENTS).not.toContain('monitor.test');
    expect(SILENCEABLE_EVENTS).not.toContain('silence.still_holding');
    expect(SILENCEABLE_EVENTS).not.toContain('maintenance.started');
    expect(SILENCEABLE_EVENTS).not.toContain('maintenance.ended');
    expect(SILENCEABLE_EVENTS).not.toContain('monitor.digest');
    expect(SILENCEABLE_EVENTS.length).toBe(ALERT_EVENTS.length - 5);
  });

  it.each([
    [
      'network.*',
      [
        'network.rule_triggered',
        'network.rule_resolved',
        'network.unreachable',
        'network.recovered',
        'network.rule_unreadable',
        'network.rule_readable',
        // A rule incident's alerts (SHIELDWATCH_GROUP_BY=rule) with the per-network events they group.
        'incident.opened',
        'incident.updated',
        'incident.reminder',
        'incident.escalated',
        'incident.resolved',
      ],
    ],
    ['network.rule_resolved', ['network.rule_resolved', 'incident.resolved']],
    ['incident.*', ALERT_EVENTS.filter((e) => e.startsWith('incident.'))],
    ['api.*', ['api.auth_failed', 'api.auth_restored', 'api.unreachable', 'api.recovered']],
  ])('%j silences %j', (pattern, events) => {
    expect(eventsMatching(pattern).sort()).toEqual([...events].sort());
  });
});

describe('newSilence', () => {
  it('builds a silence from now for the duration, with the default pattern *', () => {
    const made = newSilence(
      { duration: '2h', reason: ' maintenance ', createdBy: 'ops@host' },
      T0,
      's-abcdefgh',
    );
    expect(made).toEqual({
      ok: true,
      silence: {
        id: 's-abcdefgh',
        startsAt: iso(T0),
        endsAt: iso(T0 + 120 * MIN),
        pattern: '*',
        reason: 'maintenance',
        createdAt: iso(T0),
        createdBy: 'ops@host',
      },
    });
  });

  it.each([
    ['7d', true],
    ['1w', true],
    ['168h', true],
    ['1m', true],
    ['169h', false],
    ['8d', false],
    ['2w', false],
    ['30s', false],
  ])('--for %s accepted: %s', (duration, ok) => {
    expect(newSilence({ duration }, T0, 's-abcdefgh').ok).toBe(ok);
  });

  it('a silence longer than 7 days is refused with a clear message', () => {
    const made = newSilence({ duration: '8d' }, T0, 's-abcdefgh');
    expect(made.ok).toBe(false);
    expect(!made.ok && made.problems.join('\n')).toMatch(
      /--for 8d is longer than the longest silence, 7 days/,
    );
    expect(MAX_SILENCE_MS).toBe(7 * 86_400_000);
  });

  it('every problem is told at once, each naming its option', () => {
    const made = newSilence(
      { duration: 'soon', pattern: 'nope.*', reason: `line\nbreak${'x'.repeat(300)}` },
      T0,
      's-abcdefgh',
    );
    expect(made.ok).toBe(false);
    const problems = made.ok ? [] : made.problems;
    expect(problems).toHaveLength(4);
    expect(problems[0]).toMatch(/^--for must be a duration like 30m, 2h or 3d \(got "soon"\)/);
    expect(problems[1]).toMatch(/^--event: the event pattern "nope\.\*" matches no event; one of: /);
    expect(problems[2]).toMatch(/^--reason is longer than 200/);
    expect(problems[3]).toMatch(/^--reason may not hold control characters/);
  });

  it('an empty reason is left out', () => {
    const made = newSilence({ duration: '1h', reason: '   ' }, T0, 's-abcdefgh');
    expect(made.ok && 'reason' in made.silence).toBe(false);
  });
});

describe('silenceFor', () => {
  const s = silence();
  it.each<[string, AlertEvent, number, boolean]>([
    ['observed at the start', 'filter.status_changed', T0, true],
    ['observed inside', 'filter.status_changed', T0 + 30 * MIN, true],
    ['observed a millisecond before the end', 'api.unreachable', T0 + 60 * MIN - 1, true],
    ['observed at the end (exclusive)', 'filter.status_changed', T0 + 60 * MIN, false],
    ['observed before the start (waiting in the outbox)', 'filter.status_changed', T0 - 1, false],
    ['a reminder inside', 'filter.status_reminder', T0 + MIN, true],
    ['a rule alert inside', 'network.rule_triggered', T0 + MIN, true],
    ['the test alert inside', 'monitor.test', T0 + MIN, false],
  ])('%s: %s suppressed %s', (_, event, atMs, suppressed) => {
    expect(silenceFor([s], { event, at: iso(atMs) })?.id).toBe(suppressed ? s.id : undefined);
  });

  it.each<[string, AlertEvent, boolean]>([
    ['network.*', 'network.rule_resolved', true],
    ['network.*', 'filter.status_changed', false],
    ['api.*', 'api.recovered', true],
    ['api.*', 'filter.status_unreadable', false],
    ['filter.status_changed', 'filter.status_changed', true],
    ['filter.status_changed', 'filter.status_reminder', false],
    // A rule incident's alerts are held by the per-network rule events they group (SHIELDWATCH_GROUP_BY=rule).
    ['network.*', 'incident.opened', true],
    ['network.*', 'incident.updated', true],
    ['network.*', 'incident.reminder', true],
    ['network.*', 'incident.escalated', true],
    ['network.rule_triggered', 'incident.opened', true],
    ['network.rule_resolved', 'incident.opened', false],
    ['network.unreachable', 'incident.opened', false],
    ['network.*', 'incident.acknowledged', false],
    ['incident.*', 'incident.opened', true],
    ['api.*', 'incident.opened', false],
  ])('pattern %j and %s: suppressed %s', (pattern, event, suppressed) => {
    const only = silence({ pattern });
    expect(silenceFor([only], { event, at: iso(T0 + MIN) }) === only).toBe(suppressed);
  });

  it('of several silences, the one that started first names the suppression, whatever their order', () => {
    const early = silence({ id: 's-zzzzzzzz', startsAt: iso(T0 - 10 * MIN) });
    const late = silence({ id: 's-bbbbbbbb', startsAt: iso(T0) });
    const tie = silence({ id: 's-aaaaaaaa', startsAt: iso(T0) });
    const alert = { event: 'filter.status_changed' as const, at: iso(T0 + MIN) };
    expect(silenceFor([late, early], alert)).toBe(early);
    expect(silenceFor([early, late], alert)).toBe(early);
    expect(silenceFor([late, tie], alert)).toBe(tie);
  });

  it('no silence, an unreadable time or a silence with bad times suppresses nothing', () => {
    expect(silenceFor([], { event: 'filter.status_changed', at: iso(T0) })).toBeUndefined();
    expect(silenceFor([s], { event: 'filter.status_changed', at: 'yesterday' })).toBeUndefined();
    expect(
      silenceFor([silence({ endsAt: 'never' })], { event: 'filter.status_changed', at: iso(T0) }),
    ).toBeUndefined();
  });
});

describe('silence ids', () => {
  it.each([
    [[0, 0, 0, 0, 0], 's-aaaaaaaa'],
    [[255, 255, 255, 255, 255], 's-77777777'],
    [[1, 2, 3, 4, 5], 's-aebagbaf'],
  ])('%j -> %s', (bytes, id) => {
    expect(silenceId(Uint8Array.from(bytes))).toBe(id);
    expect(isSilenceId(id)).toBe(true);
  });

  it('every 5 bytes give a distinct well-formed id (property)', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 5, maxLength: 5 }),
        fc.uint8Array({ minLength: 5, maxLength: 5 }),
        (a, b) => {
          expect(isSilenceId(silenceId(a))).toBe(true);
          expect(silenceId(a) === silenceId(b)).toBe(Buffer.from(a).equals(Buffer.from(b)));
        },
      ),
    );
  });

  it.each(['', 's-', 's-AAAAAAAA', 's-aaaaaaa1', 's-aaaaaaaaa', 'x-aaaaaaaa'])('%j is no id', (text) => {
    expect(isSilenceId(text)).toBe(false);
  });
});

describe('status, remaining time and listing', () => {
  it.each([
    [T0 - 1, 'pending', 60 * MIN + 1],
    [T0, 'active', 60 * MIN],
    [T0 + 59 * MIN, 'active', MIN],
    [T0 + 60 * MIN, 'ended', 0],
  ] as const)('at %d: %s, %d ms left', (now, status, left) => {
    expect(silenceStatus(silence(), now)).toBe(status);
    expect(remainingMs(silence(), now)).toBe(left);
  });

  it('lists the active ones (soonest end first), then the recently ended (latest first)', () => {
    const now = T0 + 2 * 86_400_000;
    const a = silence({ id: 's-aaaaaaaa', startsAt: iso(now - MIN), endsAt: iso(now + 10 * MIN) });
    const b = silence({ id: 's-bbbbbbbb', startsAt: iso(now - MIN), endsAt: iso(now + 5 * MIN) });
    const c = silence({ id: 's-cccccccc', endsAt: iso(now - 2 * MIN) });
    const d = silence({ id: 's-dddddddd', endsAt: iso(now - MIN) });
    const old = silence({ id: 's-eeeeeeee', endsAt: iso(now - 2 * 86_400_000) });
    expect(listedSilences([a, b, c, d, old], now, 86_400_000).map((x) => x.id)).toEqual([
      's-bbbbbbbb',
      's-aaaaaaaa',
      's-dddddddd',
      's-cccccccc',
    ]);
  });
});

describe('toSilence', () => {
  it('reads a stored item back, extra attributes dropped', () => {
    const s = silence({ reason: 'r', createdBy: 'me' });
    expect(toSilence({ pk: 'silence', sk: s.id, expiresAt: 1, ...s })).toEqual(s);
  });

  it.each([
    ['no id', { id: undefined }],
    ['a number for a time', { startsAt: 5 }],
    ['an unreadable end', { endsAt: 'soon' }],
    ['no pattern', { pattern: undefined }],
  ])('%s: not a silence', (_, change) => {
    expect(toSilence({ ...silence(), ...change })).toBeUndefined();
  });
});

describe('toSilence: the 7-day cap where silences are read', () => {
  it.each([
    ['30 days out', T0 + 30 * 86_400_000, T0 + MAX_SILENCE_MS],
    ['7 days and 1 ms', T0 + MAX_SILENCE_MS + 1, T0 + MAX_SILENCE_MS],
    ['exactly 7 days', T0 + MAX_SILENCE_MS, T0 + MAX_SILENCE_MS],
    ['2 hours', T0 + 120 * MIN, T0 + 120 * MIN],
  ])('an end %s after the start reads as %#', (_, end, expected) => {
    const read = toSilence({ ...silence(), endsAt: iso(end) });
    expect(read?.endsAt).toBe(iso(expected));
    expect(silenceFor([read!], { event: 'api.unreachable', at: iso(T0 + 8 * 86_400_000) })).toBeUndefined();
  });
});

describe('afterAlert: what a silence holds back, alert after alert', () => {
  const s = silence();
  const status = (seq: number, from: string, to: string, extra: Partial<AlertRecord> = {}): AlertRecord => ({
    seq,
    event: 'filter.status_changed',
    at: iso(T0 + seq * MIN),
    from,
    to,
    ...extra,
  });
  const away = { expected: 'A', severity: 'high' as const, incident: 'filter.status_changed/x' };
  const back = { expected: 'A', severity: 'resolved' as const, incident: 'filter.status_changed/x' };

  /** Replays alerts: [alert, closes, silenced] → the verdict's suppressedBy after each, and the held keys. */
  function replay(steps: ReadonlyArray<readonly [AlertRecord, boolean, boolean]>, start: HeldChanges = {}) {
    let held = start;
    return steps.map(([alert, closes, silenced]) => {
      const verdict = afterAlert(held, alert, closes, silenced ? s : undefined);
      held = verdict.held;
      return [
        verdict.suppressedBy,
        Object.values(held)
          .filter((h) => h.closedBy === undefined)
          .map((h) => h.to ?? h.rule),
      ];
    });
  }

  it('a resolve whose trigger was published is sent, also inside a silence (nothing held)', () => {
    expect(replay([[status(2, 'B', 'A', back), true, true]])).toEqual([[undefined, []]]);
  });

  it('a trigger held back, then its resolve: both suppressed, nothing left to announce', () => {
    expect(
      replay([
        [status(1, 'A', 'B', away), false, true],
        [status(2, 'B', 'A', back), true, false],
      ]),
    ).toEqual([
      [s.id, ['B']],
      [s.id, []],
    ]);
  });

  it('the same alert handled again (a crash between the two writes of a spilled alert) gets the same verdict', () => {
    const first = afterAlert({}, status(1, 'A', 'B', away), false, s);
    const resolve = status(2, 'B', 'A', back);
    const once = afterAlert(first.held, resolve, true, undefined);
    const again = afterAlert(once.held, resolve, true, undefined);
    expect(again).toEqual({ suppressedBy: s.id, held: once.held });
  });

  it('status changes without an expected status: A->B->C held as A->C; C->A closes it; a reminder is not held', () => {
    expect(
      replay([
        [status(1, 'A', 'B'), false, true],
        [status(2, 'B', 'C'), false, true],
        [{ seq: 3, event: 'filter.status_reminder', at: iso(T0), to: 'C', incident: 'i' }, false, true],
        [status(4, 'C', 'A'), false, true],
      ]),
    ).toEqual([
      [s.id, ['B']],
      [s.id, ['C']],
      [s.id, ['C']],
      [s.id, []],
    ]);
  });

  it('a change away that continues a published incident: its resolve is still sent', () => {
    expect(
      replay([
        [status(1, 'B', 'C', away), false, true],
        [status(2, 'C', 'A', back), true, false],
      ]),
    ).toEqual([
      [s.id, ['C']],
      [undefined, []],
    ]);
  });

  it('past the budget of remembered changes, a change is suppressed but not remembered (the item stays small)', () => {
    let held: HeldChanges = {};
    let remembered = 0;
    for (let seq = 1; seq <= 1000; seq++) {
      const trigger: AlertRecord = {
        seq,
        event: 'network.rule_triggered',
        at: iso(T0),
        rule: 'flood',
        network: `net-${seq}`,
        incident: `flood/net-${seq}/${iso(T0)}`,
      };
      const verdict = afterAlert(held, trigger, false, s);
      expect(verdict.suppressedBy).toBe(s.id);
      if (Object.keys(verdict.held).length > Object.keys(held).length) remembered++;
      held = verdict.held;
    }
    expect(remembered).toBeGreaterThan(50);
    expect(remembered).toBeLessThan(1000);
    expect(Buffer.byteLength(JSON.stringify(held))).toBeLessThanOrEqual(HELD_BUDGET_BYTES);
  });

  it('nothing held and nothing to hold: the very same object back (no write of what is held)', () => {
    const none: HeldChanges = {};
    expect(afterAlert(none, status(2, 'B', 'A', back), true, undefined).held).toBe(none);
    expect(afterAlert(none, status(2, 'A', 'B'), false, undefined).held).toBe(none);
  });

  it('a published change of what is held back drops the announcement', () => {
    expect(
      replay([
        [status(1, 'A', 'B'), false, true],
        [status(2, 'B', 'C'), false, false],
      ]),
    ).toEqual([
      [s.id, ['B']],
      [undefined, []],
    ]);
  });
});

describe('afterAlert: a rule incident across networks (SHIELDWATCH_GROUP_BY=rule)', () => {
  const s = silence();
  const INCIDENT = 'flood@2026-11-23T10:01:00.000Z';
  const grouped = (seq: number, event: AlertEvent): AlertRecord => ({
    seq,
    event,
    at: iso(T0 + seq * MIN),
    rule: 'flood',
    incident: INCIDENT,
    severity: event === 'incident.resolved' ? 'resolved' : 'high',
    // An escalation reaches stage 2 (docs/acknowledge.md); the other alerts are at the stage before it.
    ...(event === 'incident.escalated' ? { stage: 2 } : {}),
  });
  /** Replays [event, silenced] and gives each verdict's suppressedBy and the incidents still held. */
  function replay(steps: ReadonlyArray<readonly [AlertEvent, boolean]>, start: HeldChanges = {}) {
    let held = start;
    return steps.map(([event, silenced], i) => {
      const alert = grouped(i + 1, event);
      // As the outbox does: no silence is looked up for a resolve (mayBeSilenced).
      const closes = event === 'incident.resolved';
      const verdict = afterAlert(held, alert, closes, silenced && !closes ? s : undefined);
      held = verdict.held;
      const open = Object.entries(held).filter(([, h]) => h.closedBy === undefined);
      return [verdict.suppressedBy, open.map(([key, h]) => `${key} ${h.event}`)];
    });
  }

  it('an opening held back is remembered under the incident id; its updates keep it; its resolve goes with it', () => {
    expect(
      replay([
        ['incident.opened', true],
        ['incident.updated', true],
        ['incident.escalated', true],
        ['incident.resolved', false],
      ]),
    ).toEqual([
      [s.id, [`${INCIDENT} incident.opened`]],
      [s.id, [`${INCIDENT} incident.opened`]],
      [s.id, [`${INCIDENT} incident.opened`]],
      [s.id, []],
    ]);
  });

  it('an update held back of an incident whose opening was published is not remembered: its resolve is sent', () => {
    expect(
      replay([
        ['incident.updated', true],
        ['incident.reminder', true],
        ['incident.resolved', true],
      ]),
    ).toEqual([
      [s.id, []],
      [s.id, []],
      [undefined, []],
    ]);
  });

  it('an escalation held back of a published incident is remembered as opened: announced later, its resolve sent', () => {
    expect(
      replay([
        ['incident.updated', true],
        ['incident.escalated', true],
        ['incident.reminder', true],
        ['incident.resolved', true],
      ]),
    ).toEqual([
      [s.id, []],
      [s.id, [`${INCIDENT} incident.escalated`]],
      [s.id, [`${INCIDENT} incident.escalated`]],
      [undefined, []],
    ]);
  });

  it('the announcement of an escalation held back carries its stage, for the subscriptions of that stage', () => {
    const { held } = afterAlert({}, grouped(3, 'incident.escalated'), false, s);
    expect(held[INCIDENT]).toMatchObject({ stage: 2, opened: true, event: 'incident.escalated' });
    const [alert] = dueAnnouncements(held, [s], T0 + 61 * MIN).alerts;
    const rendered = renderAlert({ ...alert!, seq: 4 }, { networks: [], monitorName: 'shieldwatch' });
    expect(rendered.subject).toBe('[shieldwatch] still rule flood triggered after silence s-aaaaaaaa');
    expect(rendered.attributes).toMatchObject({ stage: '2', incident: INCIDENT, action: 'trigger' });
    // An opening held back, then its escalation: the announcement is the opening's, at the stage reached.
    const opened = afterAlert({}, grouped(1, 'incident.opened'), false, s).held;
    const both = afterAlert(opened, grouped(2, 'incident.escalated'), false, s).held;
    expect(both[INCIDENT]).toMatchObject({ event: 'incident.opened', stage: 2 });
    expect(both[INCIDENT]?.opened).toBeUndefined();
    const [announced] = dueAnnouncements(both, [s], T0 + 61 * MIN).alerts;
    expect(renderAlert({ ...announced!, seq: 3 }, { networks: [] }).attributes['stage']).toBe('2');
    // Kept through the store: a stage that is not a whole number of at least 1 is dropped.
    expect(toHeldChanges(JSON.parse(JSON.stringify(both)))[INCIDENT]?.stage).toBe(2);
    expect(toHeldChanges({ k: { ...both[INCIDENT], stage: 'x' } })['k']?.stage).toBeUndefined();
    expect(toHeldChanges({ k: { ...both[INCIDENT], stage: 0 } })['k']?.stage).toBeUndefined();
  });

  it("a blind spot's escalation held back is announced as the blind spot", () => {
    const id = `network.unreachable/0/${iso(T0)}`;
    const escalated: AlertRecord = {
      seq: 5,
      event: 'incident.escalated',
      at: iso(T0 + 10 * MIN),
      incident: id,
      stage: 2,
      members: [{ network: 'edge-1', since: iso(T0), errorKind: 'client', httpStatus: 404 }],
    };
    const { held, suppressedBy } = afterAlert(
      {},
      escalated,
      false,
      silence({ pattern: 'network.unreachable' }),
    );
    expect(suppressedBy).toBe('s-aaaaaaaa');
    expect(held[id]).toMatchObject({ event: 'incident.escalated', stage: 2, opened: true });
    const [alert] = dueAnnouncements(held, [s], T0 + 61 * MIN).alerts;
    const rendered = renderAlert({ ...alert!, seq: 6 }, { networks: [], monitorName: 'shieldwatch' });
    expect(rendered.subject).toBe('[shieldwatch] still network unreachable after silence s-aaaaaaaa');
    expect(rendered.attributes).toMatchObject({ stage: '2', incident: id });
  });

  it('an update published after the silence tells its own story: the opening is forgotten', () => {
    expect(
      replay([
        ['incident.opened', true],
        ['incident.updated', false],
        ['incident.resolved', false],
      ]),
    ).toEqual([
      [s.id, [`${INCIDENT} incident.opened`]],
      [undefined, []],
      [undefined, []],
    ]);
  });

  it('announced at the silence end with the incident id, as a trigger naming the rule', () => {
    const { held } = afterAlert({}, grouped(1, 'incident.opened'), false, s);
    const due = dueAnnouncements(held, [s], T0 + 61 * MIN);
    expect(due.held).toEqual({});
    expect(due.alerts).toEqual([
      expect.objectContaining({
        event: 'silence.still_holding',
        heldEvent: 'incident.opened',
        incident: INCIDENT,
        rule: 'flood',
      }),
    ]);
    const rendered = renderAlert({ ...due.alerts[0]!, seq: 2 }, { networks: [], monitorName: 'shieldwatch' });
    expect(rendered.subject).toBe('[shieldwatch] still rule flood triggered after silence s-aaaaaaaa');
    expect(JSON.parse(rendered.sqs)).toMatchObject({ incident: INCIDENT, action: 'trigger' });
    // A `network.*` silence still active holds the announcement back, as it holds the incident's alerts.
    expect(
      dueAnnouncements(
        held,
        [s, silence({ id: 's-bbbbbbbb', pattern: 'network.*', endsAt: iso(T0 + 90 * MIN) })],
        T0 + 61 * MIN,
      ).alerts,
    ).toEqual([]);
  });
});

describe('dueAnnouncements', () => {
  const held: HeldChanges = {
    'flood/net-1/t': {
      silence: 's-aaaaaaaa',
      event: 'network.rule_triggered',
      at: iso(T0 + MIN),
      since: iso(T0 + MIN),
      incident: 'flood/net-1/t',
      rule: 'flood',
      network: 'net-1',
    },
    'filter.status': {
      silence: 's-aaaaaaaa',
      event: 'filter.status_changed',
      at: iso(T0),
      since: iso(T0),
      from: 'A',
      to: 'B',
      closedBy: 7,
    },
  };

  it.each([
    ['while the silence is active: nothing', [silence()], T0 + 30 * MIN, 0],
    ['once it ended: the open change, once', [silence()], T0 + 61 * MIN, 1],
    ['when its item is gone (expired): the open change', [], T0 + 61 * MIN, 1],
    [
      'while another silence over the event is active: nothing',
      [silence(), silence({ id: 's-bbbbbbbb', endsAt: iso(T0 + 120 * MIN), pattern: 'network.*' })],
      T0 + 61 * MIN,
      0,
    ],
  ])('%s', (_, silences, now, count) => {
    const due = dueAnnouncements(held, silences, now);
    expect(due.alerts).toHaveLength(count);
    // A closed change's marker is dropped either way.
    expect(Object.keys(due.held)).toEqual(count === 0 ? ['flood/net-1/t'] : []);
  });

  it('the announcement: its own event, the silence, when it began, the same incident, a trigger', () => {
    const [alert] = dueAnnouncements(held, [silence()], T0 + 61 * MIN).alerts;
    expect(alert).toEqual({
      event: 'silence.still_holding',
      at: iso(T0 + 61 * MIN),
      heldSince: iso(T0 + MIN),
      silence: 's-aaaaaaaa',
      heldEvent: 'network.rule_triggered',
      incident: 'flood/net-1/t',
      rule: 'flood',
      network: 'net-1',
    });
    const rendered = renderAlert({ ...alert!, seq: 3 }, { networks: [] });
    expect(rendered.subject).toBe(
      '[shieldwatch] still flood triggered on net net-1 after silence s-aaaaaaaa',
    );
    expect(rendered.sms).toBe(
      'shieldwatch: still flood triggered on net net-1 after silence s-aaaaaaaa ended; began 2026-11-23 10:01 UTC.',
    );
    expect(JSON.parse(rendered.sqs)).toMatchObject({ action: 'trigger', incident: 'flood/net-1/t' });
    expect(rendered.email).toContain('Silence:');
  });

  it('texts stay within the limits, ASCII, whatever the names', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 400 }),
        fc.string({ maxLength: 400 }),
        fc.boolean(),
        (a, b, rule) => {
          const alert: AlertRecord = {
            seq: 1,
            event: 'silence.still_holding',
            at: iso(T0),
            heldSince: iso(T0 - MIN),
            silence: 's-aaaaaaaa',
            heldEvent: rule ? 'network.rule_triggered' : 'filter.status_changed',
            ...(rule ? { rule: a, network: b } : { from: a, to: b }),
          };
          const rendered = renderAlert(alert, { networks: [] });
          expect(rendered.subject.length).toBeLessThanOrEqual(SUBJECT_MAX_CHARS);
          expect(rendered.sms.length).toBeLessThanOrEqual(SMS_MAX_CHARS);
          expect(rendered.subject).toMatch(/^[\x20-\x7e]+$/);
          expect(rendered.sms).toMatch(/^[\x20-\x7e]+$/);
          expect(rendered.subject).toContain('after silence s-aaaaaaaa');
        },
      ),
    );
  });
});

describe('afterAlert and dueAnnouncements: an incident acknowledged inside a silence (docs/silences.md)', () => {
  const INCIDENT = 'flood@2026-11-23T10:01:00.000Z';
  const alert = (seq: number, event: AlertEvent, extra: Partial<AlertRecord> = {}): AlertRecord => ({
    seq,
    event,
    at: iso(T0 + seq * MIN),
    rule: 'flood',
    incident: INCIDENT,
    severity: event === 'incident.resolved' ? 'resolved' : 'high',
    ...extra,
  });
  const ack = (seq: number) =>
    alert(seq, 'incident.acknowledged', {
      acknowledgedBy: 'alice',
      claimedBy: 'c-1',
    } as Partial<AlertRecord>);
  const events = (held: HeldChanges, nowMs: number, silences = [silence({ pattern: 'network.*' })]) =>
    dueAnnouncements(held, silences, nowMs).alerts.map((a) => `${a.event}:${a.incident}`);

  it.each([
    ['network.*', 'not matching the acknowledgement'],
    ['*', 'matching it'],
  ])(
    'an opening held back by %s (%s): the acknowledgement is held with it and follows its announcement',
    (pattern) => {
      const s = silence({ pattern });
      const opened = afterAlert({}, alert(1, 'incident.opened'), false, s);
      const silenceOverAck = pattern === '*' ? s : undefined;
      const acked = afterAlert(opened.held, ack(2), false, silenceOverAck);

      expect(acked.suppressedBy).toBe(s.id);
      expect(acked.held[INCIDENT]?.acknowledgement?.record).not.toHaveProperty('claimedBy');
      expect(events(acked.held, T0 + 30 * MIN, [s])).toEqual([]);
      const due = dueAnnouncements(acked.held, [s], T0 + 61 * MIN);
      expect(due.alerts.map((a) => `${a.event}:${a.incident}`)).toEqual([
        `silence.still_holding:${INCIDENT}`,
        `incident.acknowledged:${INCIDENT}`,
      ]);
      // Sent at the announcement's time (a silence over acknowledgements must not hold it by its old time).
      expect(due.alerts[1]).toMatchObject({ at: iso(T0 + 61 * MIN), acknowledgedBy: 'alice' });
      expect(due.held).toEqual({});
    },
  );

  it('handled again after a crash (held already written): the same verdict', () => {
    const s = silence({ pattern: 'network.*' });
    const acked = afterAlert(
      afterAlert({}, alert(1, 'incident.opened'), false, s).held,
      ack(2),
      false,
      undefined,
    );
    const again = afterAlert(acked.held, ack(2), false, undefined);
    expect(again).toEqual({ suppressedBy: s.id, held: acked.held });
  });

  it('an opening published before: the acknowledgement is sent unless a silence is over it; then it is sent alone at its end', () => {
    const s = silence({ pattern: 'incident.*' });
    expect(afterAlert({}, ack(2), false, undefined)).toEqual({ held: {} });
    const held = afterAlert({}, ack(2), false, s);
    expect(held.suppressedBy).toBe(s.id);
    expect(events(held.held, T0 + 61 * MIN, [s])).toEqual([`incident.acknowledged:${INCIDENT}`]);
    // Its resolve is sent (the opening was published) and drops it.
    expect(afterAlert(held.held, alert(3, 'incident.resolved'), true, undefined)).toEqual({ held: {} });
  });

  it('the held opening sent after all (a later trigger, the silence over): the acknowledgement alone still follows', () => {
    const s = silence({ pattern: 'network.*' });
    const acked = afterAlert(
      afterAlert({}, alert(1, 'incident.opened'), false, s).held,
      ack(2),
      false,
      undefined,
    );
    const updated = afterAlert(acked.held, alert(3, 'incident.opened'), false, undefined);
    expect(updated.suppressedBy).toBeUndefined();
    expect(events(updated.held, T0 + 61 * MIN, [s])).toEqual([`incident.acknowledged:${INCIDENT}`]);
  });

  it('closed inside the silence: neither the announcement nor the acknowledgement', () => {
    const s = silence({ pattern: 'network.*' });
    const acked = afterAlert(
      afterAlert({}, alert(1, 'incident.opened'), false, s).held,
      ack(2),
      false,
      undefined,
    );
    const closed = afterAlert(acked.held, alert(3, 'incident.resolved'), true, undefined);
    expect(closed.suppressedBy).toBe(s.id);
    expect(events(closed.held, T0 + 61 * MIN, [s])).toEqual([]);
  });

  it('withdrawn inside the silence (the scope says it is not acknowledged now): the announcement alone', () => {
    const s = silence({ pattern: 'network.*' });
    const acked = afterAlert(
      afterAlert({}, alert(1, 'incident.opened'), false, s).held,
      ack(2),
      false,
      undefined,
    );
    const due = dueAnnouncements(acked.held, [s], T0 + 61 * MIN, () => false);
    expect(due.alerts.map((a) => a.event)).toEqual(['silence.still_holding']);
  });

  it('stored and read back, the held acknowledgement survives; a damaged one is left out', () => {
    const s = silence({ pattern: 'network.*' });
    const acked = afterAlert(
      afterAlert({}, alert(1, 'incident.opened'), false, s).held,
      ack(2),
      false,
      undefined,
    );
    expect(toHeldChanges(JSON.parse(JSON.stringify(acked.held)))).toEqual(acked.held);
    const damaged = { [INCIDENT]: { ...acked.held[INCIDENT], acknowledgement: { seq: 'x' } } };
    expect(toHeldChanges(damaged)[INCIDENT]).not.toHaveProperty('acknowledgement');
  });
});
