/**
 * `shieldwatch check` shows the digest settings as the deployed digest function reads them (CONTRACT §19,
 * docs/digest.md): checked, with the next due time; a bad one makes the setup not ready (exit 1), naming it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeApi, startFakeApi } from '../fixtures/fake-api.ts';
import { describeRun, runCli } from './helpers.ts';

describe('check shows the digest settings', () => {
  let api: FakeApi;

  beforeAll(async () => {
    api = await startFakeApi({ filter: () => ({ body: { status: 'active' } }) });
  });
  afterAll(async () => {
    await api.close();
  });

  const settings = (digest: Record<string, string>) => ({
    SHIELDWATCH_API_URL: api.url,
    SHIELDWATCH_API_KEY: api.key,
    SHIELDWATCH_RETRIES: '0',
    SHIELDWATCH_TIMEOUT_MS: '1000',
    ...digest,
  });

  it('a daily digest: its time, zone and next due time; ready', async () => {
    // Act
    const run = await runCli(
      ['check'],
      settings({
        SHIELDWATCH_DIGEST: 'daily',
        SHIELDWATCH_DIGEST_AT: '07:30',
        SHIELDWATCH_DIGEST_TZ: 'Europe/Berlin',
      }),
    );

    // Assess
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.stdout).toMatch(
      /^ {2}digest {7}daily at 07:30 Europe\/Berlin, next due \d{4}-\d{2}-\d{2}T(05|06):30:00Z \(published by the deployed stack\)$/m,
    );
  });

  it('a bad zone and a digestAt without digest: named, not ready (exit 1)', async () => {
    // Act
    const run = await runCli(['check'], settings({ SHIELDWATCH_DIGEST_TZ: 'Mars/Base' }));

    // Assess
    expect(run.code, describeRun(run)).toBe(1);
    expect(run.stdout).toContain('digest       FAIL SHIELDWATCH_DIGEST_TZ: "Mars/Base" is no IANA time zone');
    expect(run.stdout).toMatch(/not ready: the digest settings are invalid/);
  });

  it('unset: no digest line', async () => {
    const run = await runCli(['check'], settings({}));
    expect(run.code, describeRun(run)).toBe(0);
    expect(run.stdout).not.toContain('digest');
  });
});
