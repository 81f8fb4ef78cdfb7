/**
 * `shieldwatch ack` and `unack` seen from outside (docs/acknowledge.md; CONTRACT §14): real CLI processes against
 * dynalite, a fake SNS and a fake protection API on loopback. An incident opened by `poll` is acknowledged (who:
 * this machine's user with a local store, the IAM principal from STS where one answers), the next poll
 * publishes incident.acknowledged once, a second ack changes nothing, unack withdraws; unknown and resolved ids
 * exit 1, bad usage 2; the output names the store written to.
 */
import { userInfo } from 'node:os';
import { describe, expect, it } from 'vitest';
import { requireMoto, startMoto } from '../fixtures/moto-server.ts';
import { itFullSize } from '../scale.ts';
import { type CliRun, cliTestTimeout, describeRun, dumpTable, runCli, startWorld } from './helpers.ts';

async function exits(code: number, run: Promise<CliRun>): Promise<CliRun> {
  const done = await run;
  expect(done.code, describeRun(done)).toBe(code);
  return done;
}

const RULES = { SHIELDWATCH_RULES: 'flood: traffic.in.pps > 500k', SHIELDWATCH_NETWORKS: 'net-1' };

// One test at a time: on two cores, tests running at once only lengthen each other's CLI processes.
describe('shieldwatch ack / unack', () => {
  it(
    'ack an incident opened by poll, published once by the next poll; again: nothing; unack; unknown and bad ids',
    async () => {
      // Prepare: an incident opened by poll.
      const world = await startWorld({ settings: RULES });
      let pps = 100;
      world.api.network = () => ({ body: { traffic: { in: { pps } } } });
      try {
        await exits(0, runCli(['poll'], world.env));
        pps = 900_000;
        await exits(0, runCli(['poll'], world.env));
        const opened = world.sns.publishes.find((p) => p.attributes['event'] === 'incident.opened');
        const id = opened!.attributes['incident']!;

        // Act
        const acked = await exits(0, runCli(['ack', id, '--note', 'scrubbing upstream'], world.storeEnv));
        const stored = await dumpTable(world.dynamo);
        const again = await exits(0, runCli(['ack', id], world.storeEnv));
        await exits(0, runCli(['poll'], world.env));
        await exits(0, runCli(['poll'], world.env));
        const events = world.sns.publishes.map((p) => p.attributes['event']);
        const unacked = await exits(0, runCli(['unack', id], world.storeEnv));
        const unknown = await exits(1, runCli(['ack', 'flood@2020-01-01T00:00:00.000Z'], world.storeEnv));
        const bad = await exits(2, runCli(['ack', 'not an incident'], world.storeEnv));
        const missing = await exits(2, runCli(['unack'], world.storeEnv));
        pps = 100;
        await exits(0, runCli(['poll'], world.env));
        const resolved = await exits(1, runCli(['ack', id], world.storeEnv));

        // Assess
        const user = userInfo().username;
        expect(acked.stdout).toContain(`incident ${id} acknowledged by ${user}`);
        expect(acked.stdout).toContain(
          `store: DynamoDB at ${world.dynamo.endpoint}, table ${world.dynamo.table}`,
        );
        expect(stored).toContain('scrubbing upstream');
        expect(stored).toContain(`\\"by\\":\\"${user}\\"`);
        expect(again.stdout).toContain(`was already acknowledged by ${user}`);
        expect(events).toEqual(['incident.opened', 'incident.acknowledged']);
        const ack = world.sns.publishes[1]!;
        expect(ack.attributes).toMatchObject({ action: 'acknowledge', incident: id, stage: '1' });
        expect(unacked.stdout).toContain(`acknowledgement of incident ${id} withdrawn by ${user}`);
        expect(unknown.stderr).toContain('is not open: no open incident has this id');
        expect(bad.stderr).toContain('is no incident id');
        expect(missing.stderr).toMatch(/ID|id/);
        expect(resolved.stderr).toContain(`incident ${id} is not open: it was resolved at`);
        expect(world.sns.publishes.map((p) => p.attributes['event']).at(-1)).toBe('incident.resolved');
      } finally {
        await world.close();
      }
    },
    cliTestTimeout(13),
  );

  // Full size only: the same commands as the first case, for a blind spot; in `npm test` the first case and
  // test/integration/incident-contract.test.ts (ack and unack of a blind spot, in process) stand for it.
  itFullSize(
    'ack a blind-spot incident (network.unreachable) by its id: published once by the next poll, the recovery still sent',
    async () => {
      // Prepare: net-1 fails its own request (404) while the API answers; one failed cycle opens the incident.
      const world = await startWorld({
        settings: {
          SHIELDWATCH_NETWORKS: 'net-1',
          SHIELDWATCH_ALERT_AFTER: '1',
          SHIELDWATCH_ESCALATE_AFTER: '1m',
        },
      });
      let failing = true;
      world.api.network = () => (failing ? { status: 404, body: { error: 'gone' } } : { body: { ok: 1 } });
      try {
        await exits(0, runCli(['poll'], world.env));
        const opened = world.sns.publishes.find((p) => p.attributes['event'] === 'network.unreachable');
        const id = (JSON.parse(JSON.parse(opened!.message).sqs) as { incident: string }).incident;

        // Act
        const acked = await exits(0, runCli(['ack', id, '--note', 'provider ticket 7'], world.storeEnv));
        const again = await exits(0, runCli(['ack', id], world.storeEnv));
        const stored = await dumpTable(world.dynamo);
        await exits(0, runCli(['poll'], world.env));
        await exits(0, runCli(['poll'], world.env));
        failing = false;
        await exits(0, runCli(['poll'], world.env));
        const resolved = await exits(1, runCli(['ack', id], world.storeEnv));

        // Assess
        const user = userInfo().username;
        expect(id).toMatch(/^network\.unreachable\/0\//);
        expect(acked.stdout).toContain(`incident ${id} acknowledged by ${user}`);
        expect(again.stdout).toContain(`was already acknowledged by ${user}`);
        expect(stored).toContain('provider ticket 7');
        expect(world.sns.publishes.map((p) => p.attributes['event'])).toEqual([
          'network.unreachable',
          'incident.acknowledged',
          'network.recovered',
        ]);
        expect(world.sns.publishes[1]!.attributes).toMatchObject({ action: 'acknowledge', stage: '1' });
        expect(world.sns.publishes[2]!.attributes['action']).toBe('resolve');
        expect(resolved.stderr).toContain(`incident ${id} is not open`);
      } finally {
        await world.close();
      }
    },
    cliTestTimeout(9),
  );

  it(
    'ack the filter status away from the expected one: status and incidents show it, published once, the change back still sent',
    async () => {
      // Prepare: the expected status is active; the filter goes to bypass.
      const world = await startWorld({ settings: { SHIELDWATCH_EXPECTED_STATUS: 'active' } });
      let status = 'active';
      world.api.filter = () => ({ body: { status } });
      try {
        await exits(0, runCli(['poll'], world.env));
        status = 'bypass';
        await exits(0, runCli(['poll'], world.env));
        const id = world.sns.publishes[0]!.attributes['incident']!;

        // Act
        const acked = await exits(0, runCli(['ack', id, '--note', 'maintenance window'], world.storeEnv));
        const shown = await exits(0, runCli(['status'], world.storeEnv));
        const json = await exits(0, runCli(['status', '--format', 'json'], world.storeEnv));
        const listed = await exits(0, runCli(['incidents', '--format', 'json'], world.storeEnv));
        await exits(0, runCli(['poll'], world.env));
        status = 'active';
        await exits(0, runCli(['poll'], world.env));
        const over = await exits(1, runCli(['ack', id], world.storeEnv));

        // Assess
        const user = userInfo().username;
        expect(id).toMatch(/^filter\.status_changed\//);
        expect(acked.stdout).toContain(`incident ${id} acknowledged by ${user}`);
        expect(shown.stdout).toMatch(
          new RegExp(`incident +${id.replace(/\./g, '\\.')} +stage 1 +ACKNOWLEDGED by ${user}`),
        );
        expect(JSON.parse(json.stdout).filter.incident).toMatchObject({
          id,
          stage: 1,
          acknowledged: { by: user, note: 'maintenance window' },
        });
        const row = (
          JSON.parse(listed.stdout) as Array<{ id: string; state: string; acknowledged?: unknown }>
        ).find((r) => r.id === id);
        expect(row).toMatchObject({ state: 'acknowledged', acknowledged: { by: user } });
        expect(world.sns.publishes.map((p) => p.attributes['event'])).toEqual([
          'filter.status_changed',
          'incident.acknowledged',
          'filter.status_changed',
        ]);
        expect(world.sns.publishes[1]!.attributes).toMatchObject({ action: 'acknowledge', incident: id });
        expect(world.sns.publishes[1]!.subject).toContain(
          `ACK by ${user.slice(0, 24)}: filter status still bypass`,
        );
        expect(world.sns.publishes[2]!.attributes).toMatchObject({ action: 'resolve', incident: id });
        expect(over.stderr).toContain(`incident ${id} is not open`);
      } finally {
        await world.close();
      }
    },
    cliTestTimeout(9),
  );

  it(
    'on AWS (an STS that answers): who is the IAM principal of the credentials',
    async () => {
      // Prepare
      requireMoto();
      const [world, moto] = await Promise.all([startWorld({ settings: RULES }), startMoto()]);
      world.api.network = () => ({ body: { traffic: { in: { pps: 900_000 } } } });
      try {
        await exits(0, runCli(['poll'], world.env));
        const id = world.sns.publishes[0]!.attributes['incident']!;

        // Act
        const acked = await exits(
          0,
          runCli(['ack', id], { ...world.storeEnv, AWS_ENDPOINT_URL_STS: moto.endpoint }),
        );

        // Assess: moto answers GetCallerIdentity with its default user.
        expect(acked.stdout).toMatch(
          new RegExp(`incident ${id} acknowledged by arn:aws:(iam|sts)::\\d{12}:`),
        );
        expect(await dumpTable(world.dynamo)).toMatch(/\\"by\\":\\"arn:aws:(iam|sts)::/);
      } finally {
        await Promise.all([world.close(), moto.stop()]);
      }
    },
    cliTestTimeout(2, 20_000),
  );
});
