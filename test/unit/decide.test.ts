import { describe, expect, it } from 'vitest';
import {
  type CycleObservation,
  type DecideSettings,
  type Decision,
  decide,
  INITIAL_STATE,
  type MonitorState,
  type RequestOutcome,
} from '../../lambda/core/detect/decide.ts';
import type { AlertRecord } from '../../lambda/core/types.ts';

/** Observation time of cycle `i`: one cycle a minute. */
function at(i: number): string {
  return new Date(Date.UTC(2026, 2, 1, 10, i)).toISOString();
}

// The answers a request can get, as the client reports them.
const OK: RequestOutcome = { ok: true, httpStatus: 200 };
const TIMEOUT: RequestOutcome = { ok: false, errorKind: 'transport', error: 'timed out after 5000 ms' };
const REFUSED: RequestOutcome = { ok: false, errorKind: 'transport', error: 'connection refused' };
const E500: RequestOutcome = { ok: false, errorKind: 'server', error: 'HTTP 500', httpStatus: 500 };
const E503: RequestOutcome = { ok: false, errorKind: 'server', error: 'HTTP 503', httpStatus: 503 };
const E429: RequestOutcome = { ok: false, errorKind: 'rate_limited', error: 'HTTP 429', httpStatus: 429 };
const E401: RequestOutcome = {
  ok: false,
  errorKind: 'auth',
  error: 'HTTP 401: key rejected',
  httpStatus: 401,
};
const E403: RequestOutcome = { ok: false, errorKind: 'auth', error: 'HTTP 403', httpStatus: 403 };
const E404: RequestOutcome = { ok: false, errorKind: 'client', error: 'HTTP 404', httpStatus: 404 };
const NOT_JSON: RequestOutcome = {
  ok: false,
  errorKind: 'contract',
  error: 'body is not JSON',
  httpStatus: 200,
};
const NO_STATUS: RequestOutcome = {
  ok: false,
  errorKind: 'contract',
  error: 'no status found at status, state',
  httpStatus: 200,
};

/** A cycle whose filter request read `status`; `networks` are the other requests of the cycle. */
function seen(i: number, status: string, ...networks: RequestOutcome[]): CycleObservation {
  return { at: at(i), filter: { ok: true, status }, outcomes: [OK, ...networks] };
}

/** A cycle whose filter request failed with `filter`. */
function failed(i: number, filter: RequestOutcome, ...networks: RequestOutcome[]): CycleObservation {
  return {
    at: at(i),
    filter: {
      ok: false,
      error: filter.error ?? 'failed',
      ...(filter.errorKind === undefined ? {} : { errorKind: filter.errorKind }),
      ...(filter.httpStatus === undefined ? {} : { httpStatus: filter.httpStatus }),
    },
    outcomes: [filter, ...networks],
  };
}

/** A cycle that polled networks only (no filter request). */
function networksOnly(i: number, ...networks: RequestOutcome[]): CycleObservation {
  return { at: at(i), outcomes: networks };
}

function changed(
  seq: number,
  from: string,
  to: string,
  atI: number,
  sinceI: number,
  cycles = 1,
): AlertRecord {
  return {
    event: 'filter.status_changed',
    at: at(atI),
    from,
    to,
    previousSince: at(sinceI),
    cycles,
    seq,
  };
}

type Raise = 'api.auth_failed' | 'api.unreachable' | 'filter.status_unreadable';
type Recovery = 'api.auth_restored' | 'api.recovered' | 'filter.status_readable';

const RAISE_OF: Record<Recovery, Raise> = {
  'api.auth_restored': 'api.auth_failed',
  'api.recovered': 'api.unreachable',
  'filter.status_readable': 'filter.status_unreadable',
};

/** An incident raised at cycle `atI`; its id names the first failing cycle (by default the run was unbroken). */
function raised(
  seq: number,
  event: Raise,
  atI: number,
  cycles: number,
  detail: string,
  sinceI = atI - cycles + 1,
): AlertRecord {
  return { event, at: at(atI), cycles, detail, incident: `${event}/${at(sinceI)}`, seq };
}

function recovered(
  seq: number,
  event: Recovery,
  atI: number,
  sinceI: number,
  cycles: number,
  detail: string,
): AlertRecord {
  return {
    event,
    at: at(atI),
    cycles,
    incident: `${RAISE_OF[event]}/${at(sinceI)}`,
    previousSince: at(sinceI),
    detail,
    seq,
  };
}

/** One observation and what the decision after it must be. */
interface Step {
  readonly observe: CycleObservation;
  readonly alerts: AlertRecord[];
  /** The confirmed status after the step (`undefined`: none yet). */
  readonly status?: string;
  /** When the confirmed status was first seen, as a cycle index. */
  readonly since?: number;
}

interface Sequence {
  readonly name: string;
  readonly settings?: Partial<DecideSettings>;
  readonly steps: Step[];
}

const DEFAULTS: DecideSettings = { alertAfter: 3, confirmations: 1 };

/** Replays `steps` from `start`, returning every decision. */
function replay(
  observations: readonly CycleObservation[],
  settings: DecideSettings,
  start?: MonitorState,
): Decision[] {
  let state = start;
  return observations.map((observation) => {
    const decision = decide(state, observation, settings);
    state = decision.state;
    return decision;
  });
}

function assessSequence({ settings, steps }: Sequence): void {
  // Act
  const decisions = replay(
    steps.map((s) => s.observe),
    { ...DEFAULTS, ...settings },
  );

  // Assess
  steps.forEach((step, i) => {
    const decision = decisions[i]!;
    const where = `after step ${i} (${step.observe.at})`;
    expect(decision.stale, where).toBe(false);
    expect(decision.alerts, where).toStrictEqual(step.alerts);
    expect(decision.state.status, where).toBe(step.status);
    if (step.since !== undefined) expect(decision.state.statusSince, where).toBe(at(step.since));
    expect(decision.state.lastObservationAt, where).toBe(step.observe.at);
  });
}

describe('INITIAL_STATE', () => {
  it('knows no status, no incident, and numbers alerts from 1', () => {
    // Assess
    expect(INITIAL_STATE).toStrictEqual({
      incidents: {
        auth: { count: 0, open: false },
        unreachable: { count: 0, open: false },
        unreadable: { count: 0, open: false },
      },
      nextSeq: 1,
    });
  });

  it('is what an undefined previous state means', () => {
    // Prepare
    const observation = failed(0, E401);

    // Act
    const fromUndefined = decide(undefined, observation, DEFAULTS);
    const fromInitial = decide(INITIAL_STATE, observation, DEFAULTS);

    // Assess
    expect(fromUndefined).toStrictEqual(fromInitial);
    expect(fromUndefined.alerts).toHaveLength(1);
  });
});

describe('decide: filter status', () => {
  it.each<Sequence>([
    {
      name: 'the first status is the baseline: no alert',
      steps: [
        { observe: seen(0, 'active'), alerts: [], status: 'active', since: 0 },
        { observe: seen(1, 'active'), alerts: [], status: 'active', since: 0 },
        { observe: seen(2, 'active'), alerts: [], status: 'active', since: 0 },
      ],
    },
    {
      name: 'a change A→B alerts once',
      steps: [
        { observe: seen(0, 'active'), alerts: [], status: 'active', since: 0 },
        {
          observe: seen(1, 'paused'),
          alerts: [changed(1, 'active', 'paused', 1, 0)],
          status: 'paused',
          since: 1,
        },
        { observe: seen(2, 'paused'), alerts: [], status: 'paused', since: 1 },
      ],
    },
    {
      name: 'A→B→A is two alerts, in order, each with the previous status duration',
      steps: [
        { observe: seen(0, 'active'), alerts: [], status: 'active', since: 0 },
        {
          observe: seen(3, 'paused'),
          alerts: [changed(1, 'active', 'paused', 3, 0)],
          status: 'paused',
          since: 3,
        },
        {
          observe: seen(7, 'active'),
          alerts: [changed(2, 'paused', 'active', 7, 3)],
          status: 'active',
          since: 7,
        },
      ],
    },
    {
      name: 'unreadable observations in between are no change and do not reset the status',
      steps: [
        { observe: seen(0, 'active'), alerts: [], status: 'active', since: 0 },
        { observe: failed(1, NOT_JSON), alerts: [], status: 'active', since: 0 },
        { observe: failed(2, TIMEOUT), alerts: [], status: 'active', since: 0 },
        { observe: failed(3, E500), alerts: [], status: 'active', since: 0 },
        { observe: failed(4, E404), alerts: [], status: 'active', since: 0 },
        { observe: seen(5, 'active'), alerts: [], status: 'active', since: 0 },
      ],
    },
    {
      name: 'a change across unreadable observations compares with the last readable status',
      steps: [
        { observe: seen(0, 'active'), alerts: [], status: 'active', since: 0 },
        { observe: failed(1, NO_STATUS), alerts: [], status: 'active', since: 0 },
        {
          observe: seen(2, 'paused'),
          alerts: [changed(1, 'active', 'paused', 2, 0)],
          status: 'paused',
          since: 2,
        },
      ],
    },
    {
      name: 'unreadable observations before the first readable one set no baseline',
      steps: [
        { observe: failed(0, TIMEOUT), alerts: [] },
        { observe: failed(1, NOT_JSON), alerts: [] },
        { observe: seen(2, 'active'), alerts: [], status: 'active', since: 2 },
        {
          observe: seen(3, 'paused'),
          alerts: [changed(1, 'active', 'paused', 3, 2)],
          status: 'paused',
          since: 3,
        },
      ],
    },
    {
      name: 'numbers as the caller gives them, exact text',
      steps: [
        { observe: seen(0, '1'), alerts: [], status: '1', since: 0 },
        { observe: seen(1, '0'), alerts: [changed(1, '1', '0', 1, 0)], status: '0', since: 1 },
        { observe: seen(2, '0.0'), alerts: [changed(2, '0', '0.0', 2, 1)], status: '0.0', since: 2 },
      ],
    },
    {
      name: 'booleans as the caller gives them',
      steps: [
        { observe: seen(0, 'true'), alerts: [], status: 'true', since: 0 },
        { observe: seen(1, 'false'), alerts: [changed(1, 'true', 'false', 1, 0)], status: 'false', since: 1 },
      ],
    },
    {
      name: 'the empty status is a status of its own, also as a baseline',
      steps: [
        { observe: seen(0, ''), alerts: [], status: '', since: 0 },
        { observe: seen(1, ''), alerts: [], status: '', since: 0 },
        { observe: seen(2, 'on'), alerts: [changed(1, '', 'on', 2, 0)], status: 'on', since: 2 },
        { observe: seen(3, ''), alerts: [changed(2, 'on', '', 3, 2)], status: '', since: 3 },
      ],
    },
    {
      name: 'statuses differing in case or spaces are different',
      steps: [
        { observe: seen(0, 'Active'), alerts: [], status: 'Active', since: 0 },
        {
          observe: seen(1, 'active'),
          alerts: [changed(1, 'Active', 'active', 1, 0)],
          status: 'active',
          since: 1,
        },
        {
          observe: seen(2, 'active '),
          alerts: [changed(2, 'active', 'active ', 2, 1)],
          status: 'active ',
          since: 2,
        },
      ],
    },
    {
      name: 'network failures beside a readable filter status change nothing about the status',
      steps: [
        { observe: seen(0, 'active', TIMEOUT, E404), alerts: [], status: 'active', since: 0 },
        { observe: seen(1, 'active', E503, NOT_JSON), alerts: [], status: 'active', since: 0 },
        {
          observe: seen(2, 'paused', TIMEOUT),
          alerts: [changed(1, 'active', 'paused', 2, 0)],
          status: 'paused',
          since: 2,
        },
      ],
    },
    {
      name: 'network-only cycles leave the status be',
      steps: [
        { observe: seen(0, 'active'), alerts: [], status: 'active', since: 0 },
        { observe: networksOnly(1, OK, OK), alerts: [], status: 'active', since: 0 },
        {
          observe: seen(2, 'paused'),
          alerts: [changed(1, 'active', 'paused', 2, 0)],
          status: 'paused',
          since: 2,
        },
      ],
    },
  ])('$name', assessSequence);
});

describe('decide: confirmations', () => {
  it.each<Sequence>([
    {
      name: '2: the baseline needs no confirmation',
      settings: { confirmations: 2 },
      steps: [{ observe: seen(0, 'active'), alerts: [], status: 'active', since: 0 }],
    },
    {
      name: '2: a new status seen twice in a row is a change dated when it was first seen',
      settings: { confirmations: 2 },
      steps: [
        { observe: seen(0, 'active'), alerts: [], status: 'active', since: 0 },
        { observe: seen(1, 'paused'), alerts: [], status: 'active', since: 0 },
        {
          observe: seen(2, 'paused'),
          alerts: [changed(1, 'active', 'paused', 1, 0, 2)],
          status: 'paused',
          since: 1,
        },
        { observe: seen(3, 'paused'), alerts: [], status: 'paused', since: 1 },
      ],
    },
    {
      name: '2: a blip seen once is no change',
      settings: { confirmations: 2 },
      steps: [
        { observe: seen(0, 'active'), alerts: [], status: 'active', since: 0 },
        { observe: seen(1, 'paused'), alerts: [], status: 'active', since: 0 },
        { observe: seen(2, 'active'), alerts: [], status: 'active', since: 0 },
        { observe: seen(3, 'active'), alerts: [], status: 'active', since: 0 },
      ],
    },
    {
      name: '2: an interrupted run starts over',
      settings: { confirmations: 2 },
      steps: [
        { observe: seen(0, 'active'), alerts: [], status: 'active' },
        { observe: seen(1, 'paused'), alerts: [], status: 'active' },
        { observe: seen(2, 'active'), alerts: [], status: 'active' },
        { observe: seen(3, 'paused'), alerts: [], status: 'active' },
        {
          observe: seen(4, 'paused'),
          alerts: [changed(1, 'active', 'paused', 3, 0, 2)],
          status: 'paused',
          since: 3,
        },
      ],
    },
    {
      name: '2: unreadable observations neither count towards nor break the run',
      settings: { confirmations: 2 },
      steps: [
        { observe: seen(0, 'active'), alerts: [], status: 'active' },
        { observe: seen(1, 'paused'), alerts: [], status: 'active' },
        { observe: failed(2, TIMEOUT), alerts: [], status: 'active' },
        { observe: failed(3, NO_STATUS), alerts: [], status: 'active' },
        {
          observe: seen(4, 'paused'),
          alerts: [changed(1, 'active', 'paused', 1, 0, 2)],
          status: 'paused',
          since: 1,
        },
      ],
    },
    {
      name: '2: a different candidate replaces the first one',
      settings: { confirmations: 2 },
      steps: [
        { observe: seen(0, 'active'), alerts: [], status: 'active' },
        { observe: seen(1, 'paused'), alerts: [], status: 'active' },
        { observe: seen(2, 'off'), alerts: [], status: 'active' },
        { observe: seen(3, 'off'), alerts: [changed(1, 'active', 'off', 2, 0, 2)], status: 'off', since: 2 },
      ],
    },
    {
      name: '3: three in a row',
      settings: { confirmations: 3 },
      steps: [
        { observe: seen(0, 'active'), alerts: [], status: 'active' },
        { observe: seen(1, 'paused'), alerts: [], status: 'active' },
        { observe: seen(2, 'paused'), alerts: [], status: 'active' },
        {
          observe: seen(3, 'paused'),
          alerts: [changed(1, 'active', 'paused', 1, 0, 3)],
          status: 'paused',
          since: 1,
        },
      ],
    },
    {
      name: '3: interrupted after two, then three more',
      settings: { confirmations: 3 },
      steps: [
        { observe: seen(0, 'active'), alerts: [], status: 'active' },
        { observe: seen(1, 'paused'), alerts: [], status: 'active' },
        { observe: seen(2, 'paused'), alerts: [], status: 'active' },
        { observe: seen(3, 'active'), alerts: [], status: 'active', since: 0 },
        { observe: seen(4, 'paused'), alerts: [], status: 'active' },
        { observe: seen(5, 'paused'), alerts: [], status: 'active' },
        {
          observe: seen(6, 'paused'),
          alerts: [changed(1, 'active', 'paused', 4, 0, 3)],
          status: 'paused',
          since: 4,
        },
      ],
    },
    {
      name: '3: a candidate change mid-run restarts the count',
      settings: { confirmations: 3 },
      steps: [
        { observe: seen(0, 'active'), alerts: [], status: 'active' },
        { observe: seen(1, 'paused'), alerts: [], status: 'active' },
        { observe: seen(2, 'paused'), alerts: [], status: 'active' },
        { observe: seen(3, 'off'), alerts: [], status: 'active' },
        { observe: seen(4, 'off'), alerts: [], status: 'active' },
        { observe: seen(5, 'off'), alerts: [changed(1, 'active', 'off', 3, 0, 3)], status: 'off', since: 3 },
      ],
    },
    {
      name: '2: A→B→A each confirmed, numbered in order',
      settings: { confirmations: 2 },
      steps: [
        { observe: seen(0, 'active'), alerts: [], status: 'active' },
        { observe: seen(1, 'paused'), alerts: [], status: 'active' },
        { observe: seen(2, 'paused'), alerts: [changed(1, 'active', 'paused', 1, 0, 2)], status: 'paused' },
        { observe: seen(3, 'active'), alerts: [], status: 'paused' },
        { observe: seen(4, 'active'), alerts: [changed(2, 'paused', 'active', 3, 1, 2)], status: 'active' },
      ],
    },
  ])('$name', assessSequence);

  it('keeps the candidate in the state between cycles', () => {
    // Prepare
    const settings = { ...DEFAULTS, confirmations: 3 };
    const [, afterOne, afterTwo, afterReadFailure] = replay(
      [seen(0, 'active'), seen(1, 'paused'), seen(2, 'paused'), failed(3, TIMEOUT)],
      settings,
    );

    // Assess
    expect(afterOne!.state.candidate).toStrictEqual({ status: 'paused', count: 1, firstAt: at(1) });
    expect(afterTwo!.state.candidate).toStrictEqual({ status: 'paused', count: 2, firstAt: at(1) });
    expect(afterReadFailure!.state.candidate).toStrictEqual({ status: 'paused', count: 2, firstAt: at(1) });
  });

  it('drops the candidate once the confirmed status is seen again', () => {
    // Act
    const decisions = replay([seen(0, 'active'), seen(1, 'paused'), seen(2, 'active')], {
      ...DEFAULTS,
      confirmations: 2,
    });

    // Assess
    expect(decisions[2]!.state).not.toHaveProperty('candidate');
  });
});

describe('decide: stale observations', () => {
  it.each([
    { name: 'older', staleAt: 4 },
    { name: 'equal', staleAt: 5 },
  ])('an $name observation changes nothing, not even incidents', ({ staleAt }) => {
    // Prepare
    const [, last] = replay([seen(0, 'active'), seen(5, 'active')], DEFAULTS);
    const previous = last!.state;
    const before = structuredClone(previous);

    // Act
    const decisions = [
      decide(previous, seen(staleAt, 'paused'), DEFAULTS),
      decide(previous, failed(staleAt, E401), DEFAULTS),
      decide(previous, failed(staleAt, TIMEOUT), { alertAfter: 1, confirmations: 1 }),
      decide(previous, failed(staleAt, NO_STATUS), { alertAfter: 1, confirmations: 1 }),
    ];

    // Assess
    for (const decision of decisions) {
      expect(decision).toStrictEqual({ state: before, alerts: [], stale: true });
      expect(decision.state).toBe(previous);
    }
    expect(previous).toStrictEqual(before);
  });

  it('a stale cycle in a sequence does not count towards a confirmation, and later cycles apply', () => {
    // Prepare
    const settings = { ...DEFAULTS, confirmations: 2 };
    let state = replay([seen(0, 'active'), seen(5, 'paused')], settings)[1]!.state;

    // Act
    const stale = decide(state, seen(4, 'paused'), settings);
    state = stale.state;
    const fresh = decide(state, seen(6, 'paused'), settings);

    // Assess
    expect(stale.stale).toBe(true);
    expect(stale.alerts).toStrictEqual([]);
    expect(stale.state.candidate).toStrictEqual({ status: 'paused', count: 1, firstAt: at(5) });
    expect(fresh.stale).toBe(false);
    expect(fresh.alerts).toStrictEqual([changed(1, 'active', 'paused', 5, 0, 2)]);
  });

  it('the same cycle applied twice alerts once', () => {
    // Prepare
    const first = replay([seen(0, 'active'), seen(1, 'paused')], DEFAULTS)[1]!;

    // Act
    const again = decide(first.state, seen(1, 'paused'), DEFAULTS);

    // Assess
    expect(first.alerts).toStrictEqual([changed(1, 'active', 'paused', 1, 0)]);
    expect(again.stale).toBe(true);
    expect(again.alerts).toStrictEqual([]);
  });
});

describe('decide: a cycle from a clock ahead (issue 19.3, README, Clocks)', () => {
  /** A cycle's observation `minutes` after 10:00, by a clock `aheadMs` ahead. */
  function skewed(i: number, aheadMs: number, status: string): CycleObservation {
    return { ...seen(i, status), at: new Date(Date.parse(at(i)) + aheadMs).toISOString() };
  }
  /** A cycle's decision deadline: 30 s after it observed (the CLI's default budget). */
  const deadline = (i: number) => Date.parse(at(i)) + 30_000;
  const HOUR = 3_600_000;

  it.each([
    { name: 'told its deadline', by: deadline },
    { name: 'not told its deadline', by: () => undefined },
  ])('one cycle 1 h ahead does not blind the cycles after it ($name)', ({ by }) => {
    // Prepare: a baseline, then one cycle from a machine whose clock is an hour ahead.
    const settings = { ...DEFAULTS, confirmations: 2 };
    const base = decide(undefined, seen(0, 'active'), settings, by(0));
    const ahead = decide(base.state, skewed(1, HOUR, 'active'), settings, by(1));

    // Act: correct clocks again; the status changes and is confirmed.
    const second = decide(ahead.state, seen(2, 'paused'), settings, by(2));
    const third = decide(second.state, seen(3, 'paused'), settings, by(3));

    // Assess
    expect(ahead.stale).toBe(false);
    expect(second.stale).toBe(false);
    expect(second.skewedLastAt).toBe(skewed(1, HOUR, 'active').at);
    expect(second.state.lastObservationAt).toBe(at(2));
    expect(third.stale).toBe(false);
    expect(third).not.toHaveProperty('skewedLastAt');
    expect(third.alerts).toStrictEqual([changed(1, 'active', 'paused', 2, 0, 2)]);
  });

  it('an API incident after a cycle 1 h ahead still alerts', () => {
    // Prepare
    const settings = { alertAfter: 2, confirmations: 1 };
    const base = decide(undefined, seen(0, 'active'), settings, deadline(0));
    const ahead = decide(base.state, skewed(1, HOUR, 'active'), settings, deadline(1));

    // Act
    const first = decide(ahead.state, failed(2, TIMEOUT), settings, deadline(2));
    const second = decide(first.state, failed(3, TIMEOUT), settings, deadline(3));

    // Assess
    expect(second.alerts.map((a) => a.event)).toStrictEqual(['api.unreachable']);
  });

  it.each([
    // The stored time was written within the tolerated skew of this cycle's deadline: a concurrent cycle
    // that applied first, not a clock ahead.
    { name: 'equal', storedAheadMs: 0, stale: true },
    { name: '1 min older', storedAheadMs: 60_000, stale: true },
    { name: 'older by its budget and twice the tolerance', storedAheadMs: 30_000 + 120_000, stale: true },
    { name: 'older than that by 1 s', storedAheadMs: 30_000 + 121_000, stale: false },
  ])('a cycle $name than the one applied is stale: $stale', ({ storedAheadMs, stale }) => {
    // Prepare
    const applied = decide(undefined, skewed(5, storedAheadMs, 'active'), DEFAULTS);

    // Act
    const decision = decide(applied.state, seen(5, 'paused'), DEFAULTS, deadline(5));

    // Assess
    expect(decision.stale).toBe(stale);
    expect(decision.alerts.length).toBe(stale ? 0 : 1);
  });

  it('the same cycle applied twice still alerts once after a clock ahead was disregarded', () => {
    // Prepare
    const base = decide(undefined, seen(0, 'active'), DEFAULTS, deadline(0));
    const ahead = decide(base.state, skewed(1, HOUR, 'active'), DEFAULTS, deadline(1));
    const first = decide(ahead.state, seen(2, 'paused'), DEFAULTS, deadline(2));

    // Act
    const again = decide(first.state, seen(2, 'paused'), DEFAULTS, deadline(2));

    // Assess
    expect(first.alerts).toStrictEqual([changed(1, 'active', 'paused', 2, 0)]);
    expect(again).toStrictEqual({ state: first.state, alerts: [], stale: true });
  });

  it('a reminder time left by a clock ahead does not hold reminders back by the skew', () => {
    // Prepare: away since 10:00; the clock-ahead cycle reminded "at 11:20".
    const settings = { ...DEFAULTS, expectedStatus: 'active', remindEveryMs: 10 * 60_000 };
    const base = decide(undefined, seen(0, 'paused'), settings, deadline(0));
    const ahead = decide(base.state, skewed(20, HOUR, 'paused'), settings, deadline(20));

    // Act: correct clocks again, one reminder interval on.
    const soon = decide(ahead.state, seen(21, 'paused'), settings, deadline(21));
    const later = decide(soon.state, seen(31, 'paused'), settings, deadline(31));

    // Assess
    expect(ahead.alerts.map((a) => a.event)).toStrictEqual(['filter.status_reminder']);
    expect(soon.alerts).toStrictEqual([]);
    expect(later.alerts.map((a) => a.event)).toStrictEqual(['filter.status_reminder']);
  });
});

describe('decide: alert sequence numbers', () => {
  it('continue from the state across calls, and only alerts use them', () => {
    // Prepare
    const start: MonitorState = {
      ...INITIAL_STATE,
      status: 'active',
      statusSince: at(0),
      lastObservationAt: at(0),
      nextSeq: 41,
    };

    // Act
    const decisions = replay(
      [seen(1, 'active'), seen(2, 'paused'), seen(3, 'paused'), failed(4, E401), seen(5, 'active')],
      DEFAULTS,
      start,
    );

    // Assess
    expect(decisions.map((d) => d.alerts.map((a) => a.seq))).toStrictEqual([[], [41], [], [42], [43, 44]]);
    expect(decisions.map((d) => d.state.nextSeq)).toStrictEqual([41, 42, 42, 43, 45]);
  });
});

describe('decide: expected status and reminders', () => {
  const expected = { expectedStatus: 'active', remindEveryMs: 10 * 60_000 };
  /** The away-from-expected incident that began at cycle `sinceI`. */
  const away = (sinceI: number) => `filter.status_changed/${at(sinceI)}`;
  const reminder = (
    seq: number,
    atI: number,
    sinceI: number,
    awayI: number,
    to = 'mitigating',
  ): AlertRecord => ({
    event: 'filter.status_reminder',
    at: at(atI),
    to,
    statusSince: at(sinceI),
    expected: 'active',
    severity: 'high',
    incident: away(awayI),
    seq,
  });

  it.each<Sequence>([
    {
      name: 'a change away is high, back is resolved, and reminders run every 10 min while away',
      settings: expected,
      steps: [
        { observe: seen(0, 'active'), alerts: [], status: 'active' },
        {
          observe: seen(1, 'mitigating'),
          alerts: [
            {
              ...changed(1, 'active', 'mitigating', 1, 0),
              expected: 'active',
              severity: 'high',
              incident: away(1),
            },
          ],
          status: 'mitigating',
        },
        { observe: seen(10, 'mitigating'), alerts: [], status: 'mitigating' },
        { observe: seen(11, 'mitigating'), alerts: [reminder(2, 11, 1, 1)], status: 'mitigating' },
        { observe: seen(20, 'mitigating'), alerts: [], status: 'mitigating' },
        { observe: failed(22, E503), alerts: [], status: 'mitigating' },
        { observe: seen(23, 'mitigating'), alerts: [reminder(3, 23, 1, 1)], status: 'mitigating' },
        {
          observe: seen(24, 'active'),
          alerts: [
            {
              ...changed(4, 'mitigating', 'active', 24, 1),
              expected: 'active',
              severity: 'resolved',
              incident: away(1),
            },
          ],
          status: 'active',
        },
        { observe: seen(40, 'active'), alerts: [], status: 'active' },
        {
          observe: seen(41, 'down'),
          alerts: [
            {
              ...changed(5, 'active', 'down', 41, 24),
              expected: 'active',
              severity: 'high',
              incident: away(41),
            },
          ],
          status: 'down',
        },
      ],
    },
    {
      name: 'a change between two statuses away from it is high, keeps the incident, and restarts the reminder clock',
      settings: expected,
      steps: [
        { observe: seen(0, 'blocked'), alerts: [], status: 'blocked' },
        { observe: seen(10, 'blocked'), alerts: [reminder(1, 10, 0, 0, 'blocked')], status: 'blocked' },
        {
          observe: seen(15, 'mitigating'),
          alerts: [
            {
              ...changed(2, 'blocked', 'mitigating', 15, 0),
              expected: 'active',
              severity: 'high',
              incident: away(0),
            },
          ],
          status: 'mitigating',
        },
        { observe: seen(24, 'mitigating'), alerts: [], status: 'mitigating' },
        { observe: seen(25, 'mitigating'), alerts: [reminder(3, 25, 15, 0)], status: 'mitigating' },
        {
          observe: seen(26, 'active'),
          alerts: [
            {
              ...changed(4, 'mitigating', 'active', 26, 15),
              expected: 'active',
              severity: 'resolved',
              incident: away(0),
            },
          ],
          status: 'active',
        },
      ],
    },
    {
      name: 'without a reminder interval there are no reminders, but severities still apply',
      settings: { expectedStatus: 'active' },
      steps: [
        { observe: seen(0, 'active'), alerts: [], status: 'active' },
        {
          observe: seen(1, 'down'),
          alerts: [
            {
              ...changed(1, 'active', 'down', 1, 0),
              expected: 'active',
              severity: 'high',
              incident: away(1),
            },
          ],
          status: 'down',
        },
        { observe: seen(100, 'down'), alerts: [], status: 'down' },
      ],
    },
    {
      name: 'without an expected status a change opens nothing: no incident',
      steps: [
        { observe: seen(0, 'active'), alerts: [], status: 'active' },
        { observe: seen(1, 'down'), alerts: [changed(1, 'active', 'down', 1, 0)], status: 'down' },
      ],
    },
  ])('$name', (sequence) => assessSequence(sequence));

  it('a state saved before incidents had ids closes the incident that began when the status went away', () => {
    // Prepare
    const saved: MonitorState = {
      ...INITIAL_STATE,
      status: 'down',
      statusSince: at(0),
      lastObservationAt: at(3),
      nextSeq: 7,
    };

    // Act
    const decision = decide(saved, seen(5, 'active'), { ...DEFAULTS, expectedStatus: 'active' });

    // Assess
    expect(decision.alerts).toStrictEqual([
      { ...changed(7, 'down', 'active', 5, 0), expected: 'active', severity: 'resolved', incident: away(0) },
    ]);
    expect(decision.state.awayIncident).toBeUndefined();
  });
});

describe('decide: rejected key (auth incident)', () => {
  it.each<Sequence>([
    {
      name: 'a 5xx or 429 between rejections neither restores nor re-raises the incident',
      steps: [
        { observe: seen(0, 'active'), alerts: [], status: 'active' },
        {
          observe: failed(1, E401),
          alerts: [raised(1, 'api.auth_failed', 1, 1, 'HTTP 401: key rejected')],
          status: 'active',
        },
        { observe: failed(2, E503, E500), alerts: [], status: 'active' },
        { observe: failed(3, E429), alerts: [], status: 'active' },
        { observe: failed(4, E401), alerts: [], status: 'active' },
      ],
    },
    {
      name: 'a 401 alerts at once and once only, restored on the next answer',
      steps: [
        { observe: seen(0, 'active'), alerts: [], status: 'active' },
        {
          observe: failed(1, E401, E401),
          alerts: [raised(1, 'api.auth_failed', 1, 1, 'HTTP 401: key rejected')],
          status: 'active',
        },
        { observe: failed(2, E401, E401), alerts: [], status: 'active' },
        { observe: failed(3, E403), alerts: [], status: 'active' },
        {
          observe: seen(4, 'active'),
          alerts: [recovered(2, 'api.auth_restored', 4, 1, 3, 'HTTP 403')],
          status: 'active',
        },
        { observe: seen(5, 'active'), alerts: [], status: 'active' },
        {
          observe: failed(6, E403),
          alerts: [raised(3, 'api.auth_failed', 6, 1, 'HTTP 403')],
          status: 'active',
        },
      ],
    },
    {
      name: 'a 401 on one network alone is a rejected key',
      steps: [
        {
          observe: seen(0, 'active', OK, E401),
          alerts: [raised(1, 'api.auth_failed', 0, 1, 'HTTP 401: key rejected')],
          status: 'active',
        },
        { observe: seen(1, 'active', OK, E401), alerts: [], status: 'active' },
        {
          observe: seen(2, 'active', OK, OK),
          alerts: [recovered(2, 'api.auth_restored', 2, 0, 2, 'HTTP 401: key rejected')],
          status: 'active',
        },
      ],
    },
    {
      name: 'the first 401 is the baseline of nothing: no status, still an alert',
      steps: [
        { observe: failed(0, E401), alerts: [raised(1, 'api.auth_failed', 0, 1, 'HTTP 401: key rejected')] },
      ],
    },
    {
      name: 'an auth failure without an error text gets one',
      steps: [
        {
          observe: { at: at(0), outcomes: [{ ok: false, errorKind: 'auth', httpStatus: 401 }] },
          alerts: [raised(1, 'api.auth_failed', 0, 1, 'the API key was rejected')],
        },
      ],
    },
    {
      name: 'cycles where every request failed by transport neither open nor close it',
      steps: [
        { observe: seen(0, 'active'), alerts: [], status: 'active' },
        { observe: failed(1, TIMEOUT, REFUSED), alerts: [], status: 'active' },
        {
          observe: failed(2, E401),
          alerts: [raised(1, 'api.auth_failed', 2, 1, 'HTTP 401: key rejected')],
          status: 'active',
        },
        { observe: failed(3, TIMEOUT, TIMEOUT), alerts: [], status: 'active' },
        { observe: failed(4, REFUSED), alerts: [], status: 'active' },
        {
          observe: seen(5, 'active'),
          alerts: [recovered(2, 'api.auth_restored', 5, 2, 1, 'HTTP 401: key rejected')],
          status: 'active',
        },
      ],
    },
    {
      name: 'a 429 says nothing about the key',
      steps: [
        { observe: failed(0, E401), alerts: [raised(1, 'api.auth_failed', 0, 1, 'HTTP 401: key rejected')] },
        { observe: failed(1, E429, E429), alerts: [] },
        { observe: failed(2, E401), alerts: [] },
      ],
    },
    {
      name: 'restored by a 2xx answer without a readable status',
      steps: [
        { observe: failed(0, E401), alerts: [raised(1, 'api.auth_failed', 0, 1, 'HTTP 401: key rejected')] },
        {
          observe: failed(1, NOT_JSON),
          alerts: [recovered(2, 'api.auth_restored', 1, 0, 1, 'HTTP 401: key rejected')],
        },
      ],
    },
    {
      name: 'restored by a 404 (the API answered and accepted the key)',
      steps: [
        { observe: failed(0, E403), alerts: [raised(1, 'api.auth_failed', 0, 1, 'HTTP 403')] },
        { observe: networksOnly(1, E404), alerts: [recovered(2, 'api.auth_restored', 1, 0, 1, 'HTTP 403')] },
      ],
    },
    {
      name: 'a rejected key never counts as unreachable, even beside transport failures',
      settings: { alertAfter: 2 },
      steps: [
        { observe: seen(0, 'active'), alerts: [], status: 'active' },
        {
          observe: failed(1, E401, TIMEOUT, E503),
          alerts: [raised(1, 'api.auth_failed', 1, 1, 'HTTP 401: key rejected')],
          status: 'active',
        },
        { observe: failed(2, E401, TIMEOUT, E503), alerts: [], status: 'active' },
        { observe: failed(3, TIMEOUT, E401, E429), alerts: [], status: 'active' },
        { observe: failed(4, E401), alerts: [], status: 'active' },
        { observe: failed(5, E401), alerts: [], status: 'active' },
      ],
    },
  ])('$name', assessSequence);

  it('stays open through transport-only cycles, counting only the cycles that showed it', () => {
    // Prepare
    const observations = [failed(0, E401), failed(1, TIMEOUT), failed(2, E401)];

    // Act
    const decisions = replay(observations, DEFAULTS);

    // Assess
    expect(decisions.map((d) => d.state.incidents.auth)).toStrictEqual([
      { count: 1, open: true, since: at(0), lastError: 'HTTP 401: key rejected' },
      { count: 1, open: true, since: at(0), lastError: 'HTTP 401: key rejected' },
      { count: 2, open: true, since: at(0), lastError: 'HTTP 401: key rejected' },
    ]);
  });
});

describe('decide: API unreachable', () => {
  it.each<Sequence>([
    {
      name: 'after alertAfter cycles in a row, once, then recovered once',
      steps: [
        { observe: seen(0, 'active'), alerts: [], status: 'active' },
        { observe: failed(1, TIMEOUT, TIMEOUT), alerts: [], status: 'active' },
        { observe: failed(2, TIMEOUT, TIMEOUT), alerts: [], status: 'active' },
        {
          observe: failed(3, TIMEOUT, TIMEOUT),
          alerts: [raised(1, 'api.unreachable', 3, 3, 'timed out after 5000 ms')],
          status: 'active',
        },
        { observe: failed(4, REFUSED, TIMEOUT), alerts: [], status: 'active' },
        { observe: failed(5, TIMEOUT), alerts: [], status: 'active' },
        {
          observe: seen(6, 'active', OK),
          alerts: [recovered(2, 'api.recovered', 6, 1, 5, 'timed out after 5000 ms')],
          status: 'active',
        },
        { observe: seen(7, 'active', OK), alerts: [], status: 'active' },
      ],
    },
    {
      name: 'transport, 5xx and 429 all count',
      steps: [
        { observe: failed(0, E503, TIMEOUT, E429), alerts: [] },
        { observe: failed(1, E500, E429), alerts: [] },
        { observe: failed(2, E429, REFUSED), alerts: [raised(1, 'api.unreachable', 2, 3, 'HTTP 429')] },
      ],
    },
    {
      name: 'a cycle where one request succeeded breaks the run',
      steps: [
        { observe: failed(0, TIMEOUT, TIMEOUT), alerts: [] },
        { observe: failed(1, TIMEOUT, TIMEOUT), alerts: [] },
        { observe: failed(2, TIMEOUT, OK), alerts: [] },
        { observe: failed(3, TIMEOUT, TIMEOUT), alerts: [] },
        { observe: failed(4, TIMEOUT, TIMEOUT), alerts: [] },
        {
          observe: failed(5, REFUSED, TIMEOUT),
          alerts: [raised(1, 'api.unreachable', 5, 3, 'connection refused')],
        },
      ],
    },
    {
      name: 'a 404 or a 2xx without a status is an answer: never unreachable',
      settings: { alertAfter: 1 },
      steps: [
        { observe: failed(0, E404, TIMEOUT), alerts: [] },
        {
          observe: failed(1, NOT_JSON, E503),
          alerts: [raised(1, 'filter.status_unreadable', 1, 1, 'body is not JSON')],
        },
        { observe: networksOnly(2, E404, E404), alerts: [] },
      ],
    },
    {
      name: 'network-only cycles count too',
      settings: { alertAfter: 2 },
      steps: [
        { observe: networksOnly(0, TIMEOUT, E503), alerts: [] },
        { observe: networksOnly(1, E503), alerts: [raised(1, 'api.unreachable', 1, 2, 'HTTP 503')] },
        {
          observe: networksOnly(2, OK, TIMEOUT),
          alerts: [recovered(2, 'api.recovered', 2, 0, 2, 'HTTP 503')],
        },
      ],
    },
    {
      name: 'a cycle without requests neither counts nor breaks the run',
      settings: { alertAfter: 2 },
      steps: [
        { observe: failed(0, TIMEOUT), alerts: [] },
        { observe: networksOnly(1), alerts: [] },
        {
          observe: failed(2, TIMEOUT),
          alerts: [raised(1, 'api.unreachable', 2, 2, 'timed out after 5000 ms', 0)],
        },
      ],
    },
    {
      name: 'alertAfter 1 alerts on the first such cycle',
      settings: { alertAfter: 1 },
      steps: [
        { observe: seen(0, 'active'), alerts: [], status: 'active' },
        {
          observe: failed(1, TIMEOUT),
          alerts: [raised(1, 'api.unreachable', 1, 1, 'timed out after 5000 ms')],
          status: 'active',
        },
        {
          observe: seen(2, 'paused'),
          alerts: [
            recovered(2, 'api.recovered', 2, 1, 1, 'timed out after 5000 ms'),
            changed(3, 'active', 'paused', 2, 0),
          ],
          status: 'paused',
        },
      ],
    },
    {
      name: 'a rejected key ends it: recovered, then the key alert',
      steps: [
        { observe: failed(0, TIMEOUT), alerts: [] },
        { observe: failed(1, TIMEOUT), alerts: [] },
        {
          observe: failed(2, TIMEOUT),
          alerts: [raised(1, 'api.unreachable', 2, 3, 'timed out after 5000 ms')],
        },
        {
          observe: failed(3, E401),
          alerts: [
            recovered(2, 'api.recovered', 3, 0, 3, 'timed out after 5000 ms'),
            raised(3, 'api.auth_failed', 3, 1, 'HTTP 401: key rejected'),
          ],
        },
      ],
    },
  ])('$name', assessSequence);
});

describe('decide: status unreadable from a 2xx answer', () => {
  it.each<Sequence>([
    {
      name: 'after alertAfter cycles in a row, once, then readable once',
      steps: [
        { observe: seen(0, 'active'), alerts: [], status: 'active' },
        { observe: failed(1, NO_STATUS), alerts: [], status: 'active' },
        { observe: failed(2, NOT_JSON), alerts: [], status: 'active' },
        {
          observe: failed(3, NO_STATUS),
          alerts: [raised(1, 'filter.status_unreadable', 3, 3, 'no status found at status, state')],
          status: 'active',
        },
        { observe: failed(4, NO_STATUS), alerts: [], status: 'active' },
        {
          observe: seen(5, 'active'),
          alerts: [recovered(2, 'filter.status_readable', 5, 1, 4, 'no status found at status, state')],
          status: 'active',
          since: 0,
        },
      ],
    },
    {
      name: 'a readable status in between breaks the run',
      steps: [
        { observe: seen(0, 'active'), alerts: [], status: 'active' },
        { observe: failed(1, NO_STATUS), alerts: [], status: 'active' },
        { observe: failed(2, NO_STATUS), alerts: [], status: 'active' },
        { observe: seen(3, 'active'), alerts: [], status: 'active' },
        { observe: failed(4, NO_STATUS), alerts: [], status: 'active' },
        { observe: failed(5, NO_STATUS), alerts: [], status: 'active' },
        {
          observe: failed(6, NOT_JSON),
          alerts: [raised(1, 'filter.status_unreadable', 6, 3, 'body is not JSON')],
          status: 'active',
        },
      ],
    },
    {
      name: 'failures without a 2xx answer neither count nor break the run',
      steps: [
        { observe: failed(0, NO_STATUS), alerts: [] },
        { observe: failed(1, TIMEOUT), alerts: [] },
        { observe: failed(2, E404), alerts: [] },
        { observe: failed(3, NO_STATUS), alerts: [] },
        { observe: networksOnly(4, OK), alerts: [] },
        {
          observe: failed(5, NO_STATUS),
          alerts: [raised(1, 'filter.status_unreadable', 5, 3, 'no status found at status, state', 0)],
        },
      ],
    },
    {
      name: 'a network answer that is not JSON is not the filter status',
      settings: { alertAfter: 1 },
      steps: [
        { observe: seen(0, 'active', NOT_JSON), alerts: [], status: 'active' },
        { observe: networksOnly(1, NOT_JSON), alerts: [], status: 'active' },
      ],
    },
    {
      name: 'a contract failure outside 2xx is not counted',
      settings: { alertAfter: 1 },
      steps: [
        {
          observe: failed(0, { ok: false, errorKind: 'contract', error: 'odd', httpStatus: 304 }),
          alerts: [],
        },
        { observe: failed(1, { ok: false, errorKind: 'contract', error: 'no answer code' }), alerts: [] },
      ],
    },
    {
      name: 'readable again with a new status: readable first, then the change',
      settings: { alertAfter: 2 },
      steps: [
        { observe: seen(0, 'active'), alerts: [], status: 'active' },
        { observe: failed(1, NOT_JSON), alerts: [], status: 'active' },
        {
          observe: failed(2, NOT_JSON),
          alerts: [raised(1, 'filter.status_unreadable', 2, 2, 'body is not JSON')],
          status: 'active',
        },
        {
          observe: seen(3, 'paused'),
          alerts: [
            recovered(2, 'filter.status_readable', 3, 1, 2, 'body is not JSON'),
            changed(3, 'active', 'paused', 3, 0),
          ],
          status: 'paused',
        },
      ],
    },
  ])('$name', assessSequence);
});

describe('decide: several alerts in one cycle', () => {
  it.each<Sequence>([
    {
      name: 'every recovery before the raises and the status change, recoveries in a fixed order',
      settings: { alertAfter: 2 },
      steps: [
        { observe: seen(0, 'active'), alerts: [], status: 'active' },
        { observe: failed(1, NO_STATUS), alerts: [], status: 'active' },
        {
          observe: failed(2, NO_STATUS),
          alerts: [raised(1, 'filter.status_unreadable', 2, 2, 'no status found at status, state')],
          status: 'active',
        },
        {
          observe: failed(3, E401),
          alerts: [raised(2, 'api.auth_failed', 3, 1, 'HTTP 401: key rejected')],
          status: 'active',
        },
        { observe: failed(4, TIMEOUT), alerts: [], status: 'active' },
        {
          observe: failed(5, TIMEOUT),
          alerts: [raised(3, 'api.unreachable', 5, 2, 'timed out after 5000 ms')],
          status: 'active',
        },
        {
          observe: seen(6, 'paused'),
          alerts: [
            recovered(4, 'api.recovered', 6, 4, 2, 'timed out after 5000 ms'),
            recovered(5, 'api.auth_restored', 6, 3, 1, 'HTTP 401: key rejected'),
            recovered(6, 'filter.status_readable', 6, 1, 2, 'no status found at status, state'),
            changed(7, 'active', 'paused', 6, 0),
          ],
          status: 'paused',
          since: 6,
        },
      ],
    },
    {
      name: 'a recovery before a new raise',
      settings: { alertAfter: 1 },
      steps: [
        { observe: seen(0, 'active'), alerts: [], status: 'active' },
        {
          observe: failed(1, TIMEOUT),
          alerts: [raised(1, 'api.unreachable', 1, 1, 'timed out after 5000 ms')],
          status: 'active',
        },
        {
          observe: failed(2, NO_STATUS),
          alerts: [
            recovered(2, 'api.recovered', 2, 1, 1, 'timed out after 5000 ms'),
            raised(3, 'filter.status_unreadable', 2, 1, 'no status found at status, state'),
          ],
          status: 'active',
        },
      ],
    },
    {
      name: 'two raises at once: the key first',
      settings: { alertAfter: 1 },
      steps: [
        {
          observe: failed(0, NO_STATUS, E403),
          alerts: [
            raised(1, 'api.auth_failed', 0, 1, 'HTTP 403'),
            raised(2, 'filter.status_unreadable', 0, 1, 'no status found at status, state'),
          ],
        },
      ],
    },
    {
      name: 'the key restored and the status changed: restored first',
      steps: [
        { observe: seen(0, 'active'), alerts: [], status: 'active' },
        {
          observe: failed(1, E401),
          alerts: [raised(1, 'api.auth_failed', 1, 1, 'HTTP 401: key rejected')],
          status: 'active',
        },
        {
          observe: seen(2, 'paused'),
          alerts: [
            recovered(2, 'api.auth_restored', 2, 1, 1, 'HTTP 401: key rejected'),
            changed(3, 'active', 'paused', 2, 0),
          ],
          status: 'paused',
        },
      ],
    },
  ])('$name', assessSequence);
});

describe('decide is pure', () => {
  it('does not change its inputs and gives the same answer twice', () => {
    // Prepare
    const previous = replay([seen(0, 'active'), failed(1, TIMEOUT), failed(2, TIMEOUT)], DEFAULTS)[2]!.state;
    const observation = failed(3, TIMEOUT);
    const settings = { ...DEFAULTS };
    const copies = structuredClone({ previous, observation, settings, initial: INITIAL_STATE });

    // Act
    const first = decide(previous, observation, settings);
    const second = decide(previous, observation, settings);

    // Assess
    expect(first).toStrictEqual(second);
    expect(first.alerts).toStrictEqual([raised(1, 'api.unreachable', 3, 3, 'timed out after 5000 ms')]);
    expect({ previous, observation, settings, initial: INITIAL_STATE }).toStrictEqual(copies);
  });
});
