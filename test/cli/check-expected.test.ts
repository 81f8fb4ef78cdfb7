/**
 * `shieldwatch check` compares SHIELDWATCH_EXPECTED_STATUS with the status the API reports now and the statuses
 * the store recorded (issue 32.2): a difference of case or spaces, or a likely typo, is a failure (exit 1) that
 * names both texts; a status never reported, or one reported before but not now, is a warning (exit 0, said in
 * the last line). Real CLI processes against a loopback API and dynalite holding the history of two polls.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliTestTimeout, describeRun, runCli, startWorld, type World } from './helpers.ts';

describe('check: the expected status against the statuses seen', () => {
  let world: World;
  let status = 'maintenance';

  beforeAll(async () => {
    world = await startWorld({
      api: { filter: () => ({ body: { status } }), user: () => ({ body: { name: 'Owner' } }) },
    });
    // The store's history: "maintenance", then "active" (the status now).
    for (const next of ['maintenance', 'active']) {
      status = next;
      const poll = await runCli(['poll'], world.env);
      expect(poll.code, describeRun(poll)).toBe(0);
    }
  }, cliTestTimeout(2));
  afterAll(async () => {
    await world?.close();
  });

  const check = (expected: string) =>
    runCli(['check'], { ...world.env, SHIELDWATCH_EXPECTED_STATUS: expected });

  it(
    'the status now: ok, plainly ready (exit 0)',
    async () => {
      const run = await check('active');
      expect(run.code, describeRun(run)).toBe(0);
      expect(run.stdout).toContain('expected       ok "active": the status now');
      expect(run.stdout).toMatch(/^ready to monitor$/m);
    },
    cliTestTimeout(1),
  );

  it.each([
    ['Active', 'differs only in case from "active", the status the API reports now'],
    ['ACTIVE ', 'differs only in case and spaces from "active", the status the API reports now'],
    ['actvie', 'is probably a typo of "active", the status the API reports now'],
    ['Maintenance', 'differs only in case from "maintenance", a status reported before'],
  ])(
    '%j: FAIL naming the status it was meant to be, not ready (exit 1)',
    async (expected, said) => {
      const run = await check(expected);
      expect(run.code, describeRun(run)).toBe(1);
      expect(run.stdout, describeRun(run)).toContain(
        `expected       FAIL ${JSON.stringify(expected)} ${said}`,
      );
      expect(run.stdout).toMatch(/Set SHIELDWATCH_EXPECTED_STATUS=(active|maintenance)/);
      expect(run.stdout).toMatch(/^not ready: SHIELDWATCH_EXPECTED_STATUS /m);
      expect(run.stdout).not.toMatch(/^ready to monitor/m);
    },
    cliTestTimeout(1),
  );

  it(
    'reported before, not now: a warning that the first cycle finds it away (exit 0)',
    async () => {
      const run = await check('maintenance');
      expect(run.code, describeRun(run)).toBe(0);
      expect(run.stdout).toContain(
        'expected       warn "maintenance" is not the status now ("active"), though it was reported before',
      );
      expect(run.stdout).toMatch(
        /^ready to monitor, but the status now is away from SHIELDWATCH_EXPECTED_STATUS/m,
      );
    },
    cliTestTimeout(1),
  );

  it(
    'never reported: a warning naming the statuses seen, now and stored (exit 0)',
    async () => {
      const run = await check('enabled');
      expect(run.code, describeRun(run)).toBe(0);
      expect(run.stdout).toContain(
        `expected       warn "enabled" was never reported: not now ("active"), nor in the store's last 2 filter snapshot(s) ("maintenance", "active")`,
      );
      expect(run.stdout).toMatch(
        /^ready to monitor, but SHIELDWATCH_EXPECTED_STATUS "enabled" was never reported/m,
      );
    },
    cliTestTimeout(1),
  );

  it(
    'poll with the expected status away says so on its status line',
    async () => {
      const run = await runCli(['poll'], { ...world.env, SHIELDWATCH_EXPECTED_STATUS: 'Active' });
      expect(run.code, describeRun(run)).toBe(0);
      expect(run.stdout).toContain(
        'filter status: "active" (AWAY from expected "Active": an open incident; see shieldwatch status)',
      );
    },
    cliTestTimeout(1),
  );
});
