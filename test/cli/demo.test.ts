import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { stopEmbeddedStore } from '../../cli/store/embedded.ts';
import { runCli } from './helpers.ts';

describe('the demo (npm start)', () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) {
      await stopEmbeddedStore(join(dir, '.shieldwatch'));
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('runs end to end on a fresh directory with no AWS and no terminal, shows the alerts and the history, and exits 0', async () => {
    // Prepare
    const cwd = await mkdtemp(join(tmpdir(), 'shieldwatch-demo-'));
    dirs.push(cwd);

    // Act
    const run = await runCli(
      ['demo', '--cycles', '8', '--every', '700ms'],
      { CI: 'true' },
      { cwd, timeoutMs: 60_000 },
    );

    // Assess
    expect(run.timedOut).toBe(false);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      /ALERT filter\.status_changed: \[shieldwatch\] HIGH: Filter status changed: active -> mitigating/,
    );
    expect(run.stdout).toMatch(/RESOLVED: Filter status changed: mitigating -> active/);
    expect(run.stdout).toMatch(/History of the filter status[\s\S]*mitigating/);
    expect(run.stdout).toMatch(
      /Events[\s\S]*filter\.status_changed\s+"active"\s+"mitigating"[\s\S]*filter\.status_changed\s+"mitigating"\s+"active"/,
    );
    expect(run.stdout).toMatch(/[╭╮╯╰]/);
    expect(run.stdout).not.toMatch(/\u001b\[/);
    expect(run.stdout.match(/^\d\d:\d\d:\d\d {2}filter/gm)).toHaveLength(8);
  });

  it('keeps its data in the embedded store for history afterwards', async () => {
    // Prepare
    const cwd = dirs[0]!;

    // Act
    const events = await runCli(
      ['events', '--format', 'json'],
      { SHIELDWATCH_TABLE: 'shieldwatch-demo' },
      { cwd },
    );

    // Assess
    expect(events.code, events.stderr).toBe(0);
    expect((JSON.parse(events.stdout) as Array<{ to: string }>).map((e) => e.to)).toEqual([
      'mitigating',
      'active',
    ]);
  });
});
