import { describe, expect, it } from 'vitest';
import {
  CLAIM_GRACE_MS,
  cycleBudget,
  lambdaDeadline,
  pollDeadlines,
  runCycleDeadline,
} from '../../lambda/core/time-budget.ts';

describe('cycleBudget: the moments of one cycle', () => {
  it.each([
    // budget ms, store reserve, publish floor, hand-back
    { budget: 297_000, reserve: 5000, floor: 2500, handBack: 1000 }, // the Lambda: 5 min less 3 s
    { budget: 60_000, reserve: 5000, floor: 2500, handBack: 1000 }, // the CLI's default budget
    { budget: 20_000, reserve: 5000, floor: 2500, handBack: 1000 }, // a quarter reaches the cap
    { budget: 10_000, reserve: 2500, floor: 1250, handBack: 625 },
    { budget: 2_000, reserve: 500, floor: 250, handBack: 125 }, // `run` every 2 s
    { budget: 1_000, reserve: 300, floor: 150, handBack: 75 }, // the reserve's floor
    { budget: 0, reserve: 300, floor: 150, handBack: 75 },
  ])(
    'a $budget ms budget keeps $reserve ms for the store, publishes until $floor ms before the end',
    ({ budget, reserve, floor, handBack }) => {
      // Prepare
      const startMs = 1_700_000_000_000;
      // Act
      const b = cycleBudget(startMs, startMs + budget);
      // Assess
      expect(b).toEqual({
        startMs,
        deadlineMs: startMs + budget,
        storeReserveMs: reserve,
        requestDeadlineMs: startMs + budget - reserve,
        publishFloorMs: floor,
        handBackMs: handBack,
        claimUntilMs: startMs + budget + CLAIM_GRACE_MS,
      });
    },
  );
});

describe('the entries’ deadlines', () => {
  it.each([
    { now: 1000, remaining: 300_000, deadline: 298_000 },
    { now: 0, remaining: 3000, deadline: 0 },
  ])('the Lambda with $remaining ms left: $deadline', ({ now, remaining, deadline }) => {
    expect(lambdaDeadline(now, remaining)).toBe(deadline);
  });

  it.each([
    // process start, timeout, now at open, opening ms, now at cycle, cycle deadline
    { start: 0, timeout: 60_000, openAt: 400, opening: 59_100, cycleAt: 900, deadline: 59_500 },
    { start: 0, timeout: 60_000, openAt: 40_000, opening: 30_000, cycleAt: 45_000, deadline: 75_000 },
    { start: 0, timeout: 5_000, openAt: 200, opening: 4_300, cycleAt: 4_000, deadline: 6_500 },
  ])(
    'poll started at $start with $timeout ms: opening $opening ms, cycle until $deadline',
    ({ start, timeout, openAt, opening, cycleAt, deadline }) => {
      const poll = pollDeadlines(start, timeout);
      expect(poll.openingMs(openAt)).toBe(opening);
      expect(poll.cycleDeadline(cycleAt)).toBe(deadline);
    },
  );

  it.each([
    { every: 60_000, timeout: 30_000, deadline: 30_000 },
    { every: 10_000, timeout: 30_000, deadline: 10_000 },
    { every: 500, timeout: 30_000, deadline: 2_000 },
    { every: 500, timeout: 1_000, deadline: 1_000 },
  ])('run every $every ms, timeout $timeout: cycle until $deadline', ({ every, timeout, deadline }) => {
    expect(runCycleDeadline(0, timeout, every)).toBe(deadline);
  });
});
