/**
 * Exactly one alert per transition (docs/design/exactly-once.md), seen from outside: CLI processes that run twice or at the
 * same time, and an SNS that fails for a while.
 */
import { describe, expect, it } from 'vitest';
import { itFullSize } from '../scale.ts';
import {
  type CliRun,
  cliTestTimeout,
  describeRun,
  parseJsonOutput,
  runCli,
  startWorld,
  type World,
} from './helpers.ts';

interface EventEntry {
  at: string;
  event: string;
  from?: string;
  to?: string;
}

async function poll(world: World): Promise<CliRun> {
  const run = await runCli(['poll'], world.env);
  expect(run.code, describeRun(run)).toBe(0);
  return run;
}

/** Starts `count` poll processes at once and waits for all of them. */
async function pollAtOnce(world: World, count: number): Promise<CliRun[]> {
  const runs = await Promise.all(Array.from({ length: count }, () => runCli(['poll'], world.env)));
  for (const run of runs) expect(run.code, describeRun(run)).toBe(0);
  return runs;
}

async function events(world: World): Promise<Array<[string | undefined, string | undefined]>> {
  const run = await runCli(['events', '--format', 'json'], world.storeEnv);
  expect(run.code, describeRun(run)).toBe(0);
  return parseJsonOutput<EventEntry[]>(run).map((e) => [e.from, e.to]);
}

/** The cycle deadline (`SHIELDWATCH_CYCLE_TIMEOUT_MS`) of the poll that meets a hung SNS. */
const HUNG_POLL_DEADLINE_MS = 3000;

const transitions = (world: World) =>
  world.sns.publishes.map((p) => [p.attributes['from'], p.attributes['to']]);

// One test at a time: on two cores (which the other vitest worker shares) tests running at once only
// lengthen each other's CLI processes, and starve this worker's loopback DynamoDB past a cycle's deadline.
describe('alert delivery across CLI processes', () => {
  it(
    '3 polls at once, first at the baseline and then after a change, publish the change exactly once',
    async () => {
      // Prepare: a slow status answer, so the three cycles overlap.
      const world = await startWorld();
      let status = 'enabled';
      world.api.filter = () => ({ body: { status, at: Date.now() }, delayMs: 300 });
      try {
        // Act
        await pollAtOnce(world, 3);
        const afterBaseline = world.sns.publishes.length;
        status = 'disabled';
        await pollAtOnce(world, 3);
        const [history, stored] = await Promise.all([
          runCli(['history', '--filter', '--format', 'json'], world.storeEnv),
          events(world),
        ]);

        // Assess
        expect(afterBaseline).toBe(0);
        expect(transitions(world)).toEqual([['enabled', 'disabled']]);
        expect(stored).toEqual([['enabled', 'disabled']]);
        expect(parseJsonOutput<unknown[]>(history)).toHaveLength(6);
      } finally {
        await world.close();
      }
    },
    cliTestTimeout(8),
  );

  it(
    'during an SNS outage (HTTP 500) A->B and B->A wait; the next poll after it publishes both, in order, once',
    async () => {
      // Prepare
      const world = await startWorld();
      let status = 'A-enforcing';
      world.api.filter = () => ({ body: { data: { state: status }, served: Date.now() } });
      try {
        await poll(world);

        // Act: A->B while SNS fails.
        world.sns.mode = 'internal-error';
        status = 'B-bypassed';
        const first = await poll(world);
        const attemptsDuringOutage = world.sns.requests.length;

        // Act: B->A, still during the outage.
        status = 'A-enforcing';
        const second = await poll(world);

        // Act: SNS back.
        world.sns.mode = 'ok';
        const recovered = await poll(world);

        // Assess
        expect(attemptsDuringOutage).toBeGreaterThan(0);
        expect(first.stdout).toMatch(/\b1 waiting\b/);
        expect(second.stdout).toMatch(/\b2 waiting\b/);
        expect(recovered.stdout).toMatch(/\b0 waiting\b/);
        const both = [
          ['A-enforcing', 'B-bypassed'],
          ['B-bypassed', 'A-enforcing'],
        ];
        expect(transitions(world)).toEqual(both);
        expect(await events(world)).toEqual(both);
      } finally {
        await world.close();
      }
    },
    cliTestTimeout(5),
  );

  // Full size only: two more SNS failures and three polls at once; in `npm test` the outage case above (HTTP 500)
  // and the first case (polls at once) stand for it, and the in-process SNS failures of outbox-faults.test.ts.
  itFullSize(
    'alerts refused (400 InvalidParameter) or cut off (reset) wait too; 3 polls at once after recovery send each once, in order',
    async () => {
      // Prepare
      const world = await startWorld();
      let status = 'on';
      world.api.filter = () => ({ body: { filter: { state: status } }, delayMs: 200 });
      try {
        await poll(world);
        world.sns.mode = 'invalid-parameter';
        status = 'off';
        await poll(world);
        world.sns.mode = 'reset';
        status = 'on';
        const waiting = await poll(world);

        // Act
        world.sns.mode = 'ok';
        await pollAtOnce(world, 3);

        // Assess
        expect(waiting.stdout).toMatch(/\b2 waiting\b/);
        expect(transitions(world)).toEqual([
          ['on', 'off'],
          ['off', 'on'],
        ]);
        expect(await events(world)).toEqual([
          ['on', 'off'],
          ['off', 'on'],
        ]);
      } finally {
        await world.close();
      }
    },
    cliTestTimeout(7),
  );

  // BUG: lambda/adapters/aws-clients.ts gives every AWS client `requestHandler: { requestTimeout: 10_000 }`, but
  // @smithy/node-http-handler 4.14 only logs a warning when requestTimeout passes unless `throwOnRequestTimeout`
  // is set, and lambda/cycle.ts drainOutbox calls publish without the cycle's deadline: an SNS that accepts the
  // connection and never answers keeps `poll` running forever (killed here after 9 s), far past the cycle's
  // deadline (SHIELDWATCH_CYCLE_TIMEOUT_MS, docs/design/cycle.md). DynamoDB and Secrets Manager hang the same way.
  it(
    'an SNS that never answers: poll still ends near its deadline, the alert waits and is sent later',
    async () => {
      // Prepare
      const world = await startWorld();
      let status = 'on';
      world.api.filter = () => ({ body: { status } });
      try {
        const first = await poll(world);
        world.sns.mode = 'hang';
        status = 'off';
        // "Near its deadline" on this machine now: the cycle's deadline, plus twice what a whole poll just took
        // (start, cycle, exit: 0.9-1.3 s idle, up to ~5 s with both cores busy), plus 2 s. A poll that waits on
        // the hung SNS would run until killed, 10 s later still.
        const near = HUNG_POLL_DEADLINE_MS + 2 * first.ms + 2000;

        // Act
        const hung = await runCli(
          ['poll'],
          { ...world.env, SHIELDWATCH_CYCLE_TIMEOUT_MS: String(HUNG_POLL_DEADLINE_MS) },
          { timeoutMs: near + 10_000 },
        );
        world.sns.mode = 'ok';
        const later = await poll(world);

        // Assess
        expect(hung.timedOut, describeRun(hung)).toBe(false);
        expect(hung.code, describeRun(hung)).toBe(0);
        expect(hung.ms, `a whole poll took ${first.ms} ms before`).toBeLessThan(near);
        expect(hung.stdout).toMatch(/\b1 waiting\b/);
        expect(later.stdout).toMatch(/\b0 waiting\b/);
        expect(transitions(world)).toEqual([['on', 'off']]);
      } finally {
        await world.close();
      }
    },
    cliTestTimeout(3, HUNG_POLL_DEADLINE_MS),
  );

  it(
    'an API down (503) for SHIELDWATCH_ALERT_AFTER cycles: one api.unreachable alert, then one api.recovered',
    async () => {
      // Prepare
      const world = await startWorld({
        settings: { SHIELDWATCH_ALERT_AFTER: '2', SHIELDWATCH_RETRIES: '0' },
      });
      let down = false;
      world.api.filter = () =>
        down ? { status: 503, body: { error: 'unavailable' } } : { body: { status: 'on' } };
      try {
        await poll(world);

        // Act
        down = true;
        await poll(world);
        const afterOne = world.sns.publishes.length;
        await poll(world);
        const afterTwo = world.sns.publishes.length;
        down = false;
        await poll(world);

        // Assess
        expect([afterOne, afterTwo]).toEqual([0, 1]);
        expect(world.sns.publishes.map((p) => p.attributes['event'])).toEqual([
          'api.unreachable',
          'api.recovered',
        ]);
        for (const publish of world.sns.publishes) {
          expect(publish.messageStructure).toBe('json');
          expect(publish.subject).toMatch(/^[\x20-\x7E]{1,99}$/);
          expect(Object.keys(JSON.parse(publish.message)).sort()).toEqual([
            'default',
            'email',
            'https',
            'sms',
            'sqs',
          ]);
          expect(JSON.parse(publish.message).sms.length).toBeLessThanOrEqual(160);
        }
        // The queue document pairs the incident's start and end for PagerDuty and webhooks.
        const [opened, closed] = world.sns.publishes.map((p) => JSON.parse(JSON.parse(p.message).sqs));
        expect([opened.action, closed.action]).toEqual(['trigger', 'resolve']);
        expect(opened.incident).toMatch(/^api\.unreachable\//);
        expect(closed.incident).toBe(opened.incident);
        const transitions = await runCli(
          ['events', '--event', 'filter.status_changed', '--format', 'json'],
          world.storeEnv,
        );
        expect(parseJsonOutput<EventEntry[]>(transitions)).toEqual([]);
        const run = await runCli(['events', '--format', 'json'], world.storeEnv);
        expect(parseJsonOutput<EventEntry[]>(run).map((e) => e.event)).toEqual([
          'api.unreachable',
          'api.recovered',
        ]);
      } finally {
        await world.close();
      }
    },
    cliTestTimeout(7),
  );
});
