/**
 * The embedded store (README.md, Quick start): with no AWS configuration at all, `poll` and `history` in the same directory
 * share a dynalite kept under `.shieldwatch/`, also when several CLI processes start at once.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopEmbeddedStore } from '../../cli/store/embedded.ts';
import { type FakeApi, startFakeApi } from '../fixtures/fake-api.ts';
import { type CliRun, describeRun, parseJsonOutput, runCli } from './helpers.ts';

describe('the embedded store, without any AWS_* setting', () => {
  let dir: string;
  let api: FakeApi;
  let env: Record<string, string>;
  let status = 'on';

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'shieldwatch-embedded-'));
    api = await startFakeApi();
    api.filter = () => ({ body: { result: { state: status }, ts: Date.now() } });
    env = {
      SHIELDWATCH_API_URL: api.url,
      SHIELDWATCH_API_KEY: api.key,
      SHIELDWATCH_NETWORKS: 'home',
      SHIELDWATCH_STATUS_PATH: 'result.state',
      // A safety net only: the server is stopped in afterAll; should that not run, it goes away by itself.
      SHIELDWATCH_STORE_IDLE_MS: '120000',
    };
  });
  afterAll(async () => {
    await stopEmbeddedStore(path.join(dir, '.shieldwatch'));
    await api?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('two polls started at once share one store; a change is printed as an alert; history and events read it back', async () => {
    // Act
    const first = await Promise.all([
      runCli(['poll'], env, { cwd: dir }),
      runCli(['poll'], env, { cwd: dir }),
    ]);
    status = 'off';
    const change = await runCli(['poll'], env, { cwd: dir });
    const [history, network, events] = await Promise.all([
      runCli(['history', '--filter', '--format', 'json'], {}, { cwd: dir }),
      runCli(['history', '--network', 'home', '--format', 'json'], {}, { cwd: dir }),
      runCli(['events', '--format', 'json'], {}, { cwd: dir }),
    ]);

    // Assess
    const runs: CliRun[] = [...first, change, history, network, events];
    for (const run of runs) expect(run.code, describeRun(run)).toBe(0);
    expect(existsSync(path.join(dir, '.shieldwatch'))).toBe(true);
    expect(await readFile(path.join(dir, '.shieldwatch', 'store.json'), 'utf8')).toMatch(/"port"/);
    expect(change.stdout).toContain('filter.status_changed');
    expect(change.stdout).toMatch(/on -> off/);
    expect(parseJsonOutput<Array<{ status?: string }>>(history).map((e) => e.status)).toEqual([
      'on',
      'on',
      'off',
    ]);
    expect(parseJsonOutput<unknown[]>(network)).toHaveLength(3);
    expect(parseJsonOutput<Array<{ from?: string; to?: string }>>(events)).toEqual([
      expect.objectContaining({ event: 'filter.status_changed', from: 'on', to: 'off' }),
    ]);
    expect(api.requests.map((r) => r.url).sort()).toEqual([
      ...Array(3).fill('/api/filter/status'),
      ...Array(3).fill('/api/networks/home/realtime'),
    ]);
  });
});
