import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ALERT_EVENTS } from '../../lambda/core/alert-events.ts';
import {
  eventsMatching,
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
  toSilence,
} from '../../lambda/core/silence.ts';
import type { AlertEvent } from '../../lambda/core/types.ts';

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
    expect(SILENCEABLE_EVENTS.length).toBe(ALERT_EVENTS.length - 2);
  });

  it.each([
    ['network.*', ['network.rule_triggered', 'network.rule_resolved']],
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
