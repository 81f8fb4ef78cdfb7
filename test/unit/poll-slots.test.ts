import { describe, expect, it } from 'vitest';
import { parsePollEvery, planSlots, SLOT_GAP_MS } from '../../lambda/core/poll-slots.ts';
import { runSlots } from '../../lambda/poll-loop.ts';

const T = Date.parse('2026-11-27T10:00:00.000Z');

describe('pollEvery', () => {
  it('takes 10s to 60s dividing a minute, and says what is wrong otherwise', () => {
    expect(parsePollEvery('10s')).toEqual({ ok: true, everyMs: 10_000 });
    expect(parsePollEvery('1m')).toEqual({ ok: true, everyMs: 60_000 });
    expect(parsePollEvery('15s')).toEqual({ ok: true, everyMs: 15_000 });
    expect(parsePollEvery('5s')).toMatchObject({
      ok: false,
      problem: expect.stringContaining('outside 10s to 60s'),
    });
    expect(parsePollEvery('2m')).toMatchObject({ ok: false });
    expect(parsePollEvery('25s')).toMatchObject({
      ok: false,
      problem: expect.stringContaining('divide a minute'),
    });
    expect(parsePollEvery('ten')).toMatchObject({
      ok: false,
      problem: expect.stringContaining('not a duration'),
    });
  });
});

describe('the slots of one invocation', () => {
  it('at 10s: six slots from the scheduled time, each due before the next starts', () => {
    const slots = planSlots({ scheduledMs: T, nowMs: T + 300, everyMs: 10_000, endByMs: T + 67_000 });
    expect(slots.map((s) => s.startMs - T)).toEqual([0, 10_000, 20_000, 30_000, 40_000, 50_000]);
    expect(slots.map((s) => s.deadlineMs - s.startMs)).toEqual(Array(6).fill(10_000 - SLOT_GAP_MS));
  });

  it('a late invocation skips the slots whose time is gone; the function deadline bounds the last', () => {
    const slots = planSlots({ scheduledMs: T, nowMs: T + 26_000, everyMs: 10_000, endByMs: T + 55_000 });
    expect(slots.map((s) => s.startMs - T)).toEqual([30_000, 40_000, 50_000]);
    expect(slots.at(-1)!.deadlineMs).toBe(T + 55_000);
  });

  it('at 60s: one cycle, the whole invocation, as before', () => {
    expect(planSlots({ scheduledMs: T, nowMs: T + 500, everyMs: 60_000, endByMs: T + 27_000 })).toEqual([
      { startMs: T + 500, deadlineMs: T + 27_000 },
    ]);
  });
});

describe('running the slots', () => {
  /** A clock that moves only when slept on or when a cycle takes time. */
  function clock(start: number) {
    let now = start;
    return {
      now: () => now,
      sleep: async (ms: number) => {
        now += ms;
      },
      spend: (ms: number) => {
        now += ms;
      },
    };
  }

  it('runs one cycle per slot at its start; a cycle that overruns makes the next slot skipped, never two at once', async () => {
    const c = clock(T);
    const slots = planSlots({ scheduledMs: T, nowMs: T, everyMs: 10_000, endByMs: T + 67_000 });
    const started: number[] = [];
    let running = 0;
    const run = await runSlots({
      slots,
      now: c.now,
      sleep: c.sleep,
      cycle: async (slot) => {
        expect(running).toBe(0);
        running++;
        started.push(c.now() - T);
        // The second slot's cycle hangs until its deadline and past it.
        c.spend(slot.startMs === T + 10_000 ? 15_000 : 800);
        running--;
        return slot.startMs;
      },
    });
    expect(started).toEqual([0, 10_000, 30_000, 40_000, 50_000]);
    expect(run.slots.map((s) => s.outcome)).toEqual(['ran', 'ran', 'passed', 'ran', 'ran', 'ran']);
  });

  it('skips a slot another invocation claimed, goes on after a failed cycle, and throws only when none ran', async () => {
    const c = clock(T);
    const slots = planSlots({ scheduledMs: T, nowMs: T, everyMs: 20_000, endByMs: T + 67_000 });
    const run = await runSlots({
      slots,
      now: c.now,
      sleep: c.sleep,
      claim: async (slot) => slot.startMs !== T + 20_000,
      cycle: async (slot) => {
        if (slot.startMs === T) throw new Error('store down');
        return 'ok';
      },
    });
    expect(run.slots.map((s) => s.outcome)).toEqual(['failed', 'claimed-elsewhere', 'ran']);
    await expect(
      runSlots({
        slots: planSlots({ scheduledMs: T, nowMs: T, everyMs: 30_000, endByMs: T + 67_000 }),
        now: c.now,
        sleep: c.sleep,
        cycle: async () => {
          throw new Error('store down');
        },
      }),
    ).rejects.toThrow('store down');
  });

  it("while the API asks to slow down, runs only the minute's first slot", async () => {
    const c = clock(T);
    const run = await runSlots({
      slots: planSlots({ scheduledMs: T, nowMs: T, everyMs: 10_000, endByMs: T + 67_000 }),
      now: c.now,
      sleep: c.sleep,
      slowUntil: () => T + 35_000,
      cycle: async () => 'ok',
    });
    expect(run.slots.map((s) => s.outcome)).toEqual(['ran', 'slowed', 'slowed', 'slowed', 'ran', 'ran']);
  });
});

describe('what `for N` means in time (check)', () => {
  it('is (N - 1) to N poll intervals after the condition begins', async () => {
    const { forCyclesMeaning } = await import('../../cli/check/rules.ts');
    expect(forCyclesMeaning(3, 60_000)).toContain(
      'alerts 2 min to 3 min after the condition begins at pollEvery 1 min',
    );
    expect(forCyclesMeaning(3, 10_000)).toContain('alerts 20 s to 30 s after');
    expect(forCyclesMeaning(1, 10_000)).toContain('1 cycle in a row, so it alerts 0 to 10 s after');
  });
});
