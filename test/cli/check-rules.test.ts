/**
 * `shieldwatch check` judges every rule against each network's live body (docs/rules.md), run for real against
 * a loopback API: per rule and network the value read, or "path missing" with a did-you-mean over the body's
 * numeric paths; a rule that reads nothing on any network fails the check (exit 1).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeApi, startFakeApi } from '../fixtures/fake-api.ts';
import { describeRun, runCli } from './helpers.ts';

describe('check evaluates every rule against each network body', () => {
  let api: FakeApi;

  beforeAll(async () => {
    api = await startFakeApi({
      filter: () => ({ body: { status: 'active' } }),
      user: () => ({ body: { name: 'Check Owner' } }),
      // The simulator's shape: traffic.in.pps, dropped.pps, attack.active.
      network: (id) => ({
        body: {
          traffic: { in: { pps: id === 'edge-1' ? 1200 : 80, bps: 9000 } },
          dropped: { pps: 5 },
          attack: { active: id === 'edge-1', vector: 'udp' },
        },
      }),
    });
  });
  afterAll(async () => {
    await api.close();
  });

  const settings = (rules: string) => ({
    SHIELDWATCH_API_URL: api.url,
    SHIELDWATCH_API_KEY: api.key,
    SHIELDWATCH_NETWORKS: 'edge-1,edge-2',
    SHIELDWATCH_RETRIES: '0',
    SHIELDWATCH_TIMEOUT_MS: '1000',
    SHIELDWATCH_RULES: rules,
  });

  it('a misspelt path: "path missing" on each network with did-you-mean, the rule named, exit 1', async () => {
    // Act
    const run = await runCli(['check'], settings('pps: traffic.in_pps > 50k; drop: dropped.pps > 1k'));

    // Assess
    expect(run.code, describeRun(run)).toBe(1);
    expect(run.stdout).toMatch(/FAIL pps: traffic\.in_pps > 50k/);
    expect(run.stdout).toContain('edge-1: path missing: traffic.in_pps (did you mean traffic.in.pps?)');
    expect(run.stdout).toContain('edge-2: path missing: traffic.in_pps (did you mean traffic.in.pps?)');
    expect(run.stdout).toMatch(/ok drop: dropped\.pps > 1k/);
    expect(run.stdout).toContain('edge-1: reads 5');
    expect(run.stdout).toMatch(/not ready: rule "pps" reads nothing on any network \(it can never trigger\)/);
    expect(run.stdout).not.toContain('ready to monitor\n');
  });

  it('a value of the wrong type is named and reads nothing (exit 1); every rule reading somewhere is ready (exit 0)', async () => {
    const run = await runCli(
      ['check'],
      settings(
        'pps: traffic.in.pps > 50k; attack: attack.active == true on edge-1; vec: attack.vector > 1 on edge-2; ok2: traffic.in.bps > 1',
      ),
    );
    // vec reads a string on its only network: it reads nothing anywhere.
    expect(run.code, describeRun(run)).toBe(1);
    expect(run.stdout).toContain('edge-1: reads 1200');
    expect(run.stdout).toContain('edge-1: reads true');
    expect(run.stdout).toContain('edge-2: not a number (string): attack.vector');
    expect(run.stdout).toMatch(/not ready: rule "vec" reads nothing/);

    const ready = await runCli(
      ['check'],
      settings('pps: traffic.in.pps > 50k; attack: attack.active == true'),
    );
    expect(ready.code, describeRun(ready)).toBe(0);
    expect(ready.stdout).toContain('ready to monitor');
  });

  it('lists the rules in force with what each reads and whether it meets its condition now; one met now warns (exit 0)', async () => {
    const run = await runCli(
      ['check'],
      settings(
        'pps: traffic.in.pps > 1k for 3; attack: attack.active == true on edge-2; surge: traffic.in.bps > 3x baseline',
      ),
    );
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.stdout).toContain(
      'rules          3 in force (SHIELDWATCH_RULES), each against each network that answered',
    );
    expect(run.stdout).toContain('edge-1: reads 1200 (condition MET now: triggers after 3 cycles in a row)');
    expect(run.stdout).toContain('edge-2: reads 80 (condition not met)');
    expect(run.stdout).toContain('edge-2: reads false (condition not met)');
    expect(run.stdout).toContain('edge-1: reads 9000 (its baseline is learned from the first 10 values read');
    expect(run.stdout).toMatch(
      /^ready to monitor, but rule "pps" meets its condition now on edge-1 \(it alerts within its first cycles\)/m,
    );
  });

  it('without rules says none is in force', async () => {
    const run = await runCli(['check'], settings(''));
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.stdout).toContain(
      'rules          none in force (SHIELDWATCH_RULES not set; see docs/rules.md)',
    );
    expect(run.stdout).toMatch(/^ready to monitor$/m);
  });
});
