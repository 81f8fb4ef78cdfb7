import { describe, expect, it } from 'vitest';
import {
  dueEscalation,
  type EscalationView,
  followTimers,
  parseEscalateAfter,
  stageAttribute,
} from '../../lambda/core/incidents/escalation.ts';

const MIN = 60_000;
const OPENED = Date.parse('2026-11-22T10:00:00.000Z');

describe('parseEscalateAfter', () => {
  it.each([
    ['10m,30m', [10 * MIN, 30 * MIN]],
    [' 1m , 2h, 7d ', [MIN, 120 * MIN, 7 * 1440 * MIN]],
    ['15m', [15 * MIN]],
    ['', []],
  ])('%j is %j', (text, schedule) => {
    expect(parseEscalateAfter(text)).toEqual({ ok: true, schedule });
  });

  it.each([
    ['30s', /outside 1m to 7d|not a duration/],
    ['0m', /outside 1m to 7d/],
    ['8d', /outside 1m to 7d/],
    ['30m,10m', /not later than the stage before/],
    ['10m,10m', /not later than the stage before/],
    ['10m,,30m', /not a duration/],
    ['soon', /not a duration/],
    ['1.5h', /not a duration/],
    ['1m,2m,3m,4m,5m,6m,7m,8m,9m,10m,11m', /at most 10 stages/],
  ])('%j is refused', (text, problem) => {
    const parsed = parseEscalateAfter(text);
    expect(parsed.ok).toBe(false);
    expect(parsed.ok ? '' : parsed.problem).toMatch(problem);
  });
});

describe('dueEscalation', () => {
  const schedule = [10 * MIN, 30 * MIN];
  const open: EscalationView = { openedAtMs: OPENED, stage: 1, acknowledged: false, resolved: false };

  it('replays the cycles of one incident: stage 2 at 10m, stage 3 at 30m, each once', () => {
    // Prepare: one cycle a minute for 40 minutes; what is published moves the incident's stage.
    let incident = open;
    const published: Array<[minute: number, stage: number]> = [];
    // Act
    for (let minute = 0; minute <= 40; minute++) {
      const due = dueEscalation(incident, schedule, OPENED + minute * MIN);
      if (due !== undefined) {
        published.push([minute, due]);
        incident = { ...incident, stage: due };
      }
    }
    // Assess
    expect(published).toEqual([
      [10, 2],
      [30, 3],
    ]);
  });

  it.each([
    ['just before 10m', 10 * MIN - 1, 1, undefined],
    ['at 10m', 10 * MIN, 1, 2],
    ['at 10m, stage 2 published', 10 * MIN, 2, undefined],
    ['at 31m after a gap', 31 * MIN, 1, 3],
    ['at 31m, stage 2 published', 31 * MIN, 2, 3],
    ['a day later, stage 3 published', 1440 * MIN, 3, undefined],
  ])('%s: stage %#', (_when, age, stage, due) => {
    expect(dueEscalation({ ...open, stage }, schedule, OPENED + age)).toBe(due);
  });

  it('an acknowledged or resolved incident never escalates', () => {
    expect(dueEscalation({ ...open, acknowledged: true }, schedule, OPENED + 60 * MIN)).toBeUndefined();
    expect(dueEscalation({ ...open, resolved: true }, schedule, OPENED + 60 * MIN)).toBeUndefined();
  });

  it('no schedule, no escalation', () => {
    expect(dueEscalation(open, [], OPENED + 1440 * MIN)).toBeUndefined();
  });

  it.each([
    [undefined, '1'],
    [1, '1'],
    [3, '3'],
    [0, '1'],
    [Number.NaN, '1'],
  ])('the stage attribute of %j is %j', (stage, text) => {
    expect(stageAttribute(stage)).toBe(text);
  });
});

describe('followTimers: one cycle of an open incident kept beside its state', () => {
  const T0 = Date.parse('2026-11-22T10:00:00.000Z');
  const at = (min: number) => new Date(T0 + min * 60_000).toISOString();
  const settings = { remindEveryMs: 4 * 60_000, escalateAfterMs: [3 * 60_000, 7 * 60_000] };

  it('reminds first, at the stage before the escalation of the same cycle, then escalates', () => {
    const followed = followTimers({ openedAt: at(0), stage: 1, lastRemindAt: at(0) }, at(4), settings);
    expect(followed.reminded).toEqual({ openedAt: at(0), stage: 1, lastRemindAt: at(4) });
    expect(followed.escalated).toEqual({ openedAt: at(0), stage: 2, lastRemindAt: at(4) });
    expect(followed.timers).toEqual(followed.escalated);
  });

  it('acknowledged: neither', () => {
    const followed = followTimers(
      { openedAt: at(0), stage: 1, acknowledged: { by: 'ops', at: at(1) } },
      at(30),
      settings,
    );
    expect(followed).toEqual({
      timers: { openedAt: at(0), stage: 1, acknowledged: { by: 'ops', at: at(1) } },
    });
  });

  it('times a clock ahead wrote are pulled back to the cycle: the ages count from it', () => {
    const ahead = { openedAt: at(180), stage: 1, lastRemindAt: at(180) };
    const first = followTimers(ahead, at(1), settings);
    expect(first.timers).toEqual({ openedAt: at(1), stage: 1, lastRemindAt: at(1) });
    expect(followTimers(first.timers, at(4), settings).escalated?.stage).toBe(2);
  });

  it('without reminders or a schedule, the timers only', () => {
    expect(followTimers({ openedAt: at(0), stage: 1 }, at(60), {})).toEqual({
      timers: { openedAt: at(0), stage: 1 },
    });
  });
});
