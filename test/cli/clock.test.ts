/**
 * `poll` and `run` on a machine whose clock is an hour ahead of the store's (issue 19.3, docs/design/cycle.md, Clocks): real
 * CLI processes against dynalite behind a loopback proxy whose answers carry the store's clock an hour
 * behind this machine's (as a shared table in AWS would, seen from a machine an hour ahead).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeRun, dumpTable, runCli, startWorld, type World } from './helpers.ts';

const HOUR = 3_600_000;

/** A proxy to `target` whose answers say the time is `offsetMs` from this machine's (the `Date` header). */
async function startClockProxy(target: string, offsetMs: number) {
  const upstream = new URL(target);
  const server = http.createServer((req, res) => {
    const forwarded = http.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: upstream.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, {
          ...answer.headers,
          date: new Date(Date.now() + offsetMs).toUTCString(),
        });
        answer.pipe(res);
      },
    );
    forwarded.on('error', () => res.destroy());
    req.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('a CLI whose clock is 1 h ahead of the store (issue 19.3)', () => {
  let world: World;
  let proxy: Awaited<ReturnType<typeof startClockProxy>>;
  let skewedEnv: Record<string, string>;
  beforeAll(async () => {
    world = await startWorld({ settings: { SHIELDWATCH_NETWORKS: 'net-1', SHIELDWATCH_CONFIRMATIONS: '1' } });
    proxy = await startClockProxy(world.dynamo.endpoint, -HOUR);
    skewedEnv = { ...world.env, AWS_ENDPOINT_URL_DYNAMODB: proxy.url };
  });
  afterAll(async () => {
    await proxy.close();
    await world.close();
  });

  it('poll refuses with exit 1, naming the offset and the fix, and writes nothing', async () => {
    // Act
    const run = await runCli(['poll'], skewedEnv);

    // Assess
    expect(run.code, describeRun(run)).toBe(1);
    expect(run.stderr).toMatch(/clock is 1 h 0 min( \d+ s)? ahead of the store's/);
    expect(run.stderr).toContain('NTP');
    expect(world.api.requests).toHaveLength(0);
    expect(await dumpTable(world.dynamo)).toBe('[]');
  });

  it('run logs each refused cycle and exits 1; a correct clock then polls and alerts as usual', async () => {
    // Act
    const refused = await runCli(['run', '--cycles', '2', '--every', '1s'], skewedEnv);
    world.api.filter = () => ({ body: { status: 'active' } });
    const baseline = await runCli(['poll'], world.env);
    world.api.filter = () => ({ body: { status: 'paused' } });
    const change = await runCli(['poll'], world.env);

    // Assess
    expect(refused.code, describeRun(refused)).toBe(1);
    expect(refused.stderr.match(/cycle could not run \(nothing stored[^\n]*1 h 0 min/g)).toHaveLength(2);
    expect(refused.stdout).toContain('stopped after 2 cycle(s), 2 of them could not run');
    expect(baseline.code, describeRun(baseline)).toBe(0);
    expect(change.code, describeRun(change)).toBe(0);
    expect(change.stdout).not.toContain('older than a cycle already applied');
    expect(world.sns.publishes.map((p) => p.attributes['event'])).toStrictEqual(['filter.status_changed']);
  });
});
