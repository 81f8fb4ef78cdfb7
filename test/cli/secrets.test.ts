/**
 * The API key from Secrets Manager (`SHIELDWATCH_API_KEY_SECRET` through `AWS_ENDPOINT_URL_SECRETS_MANAGER`),
 * and the promise that the key never shows: not on stdout or stderr, not in anything stored.
 */
import { describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../fixtures/fake-api.ts';
import { type FakeSecretsManager, startFakeSecretsManager } from '../fixtures/fake-aws.ts';
import { type CliRun, describeRun, dumpTable, runCli, startWorld, type World } from './helpers.ts';

const PLAIN_KEY = 'swk_live_7Hq2mZp9RtXb4LcV';
const JSON_KEY = 'swk_live_J5nW8yKd3FgA6sQe';
const SECRET_ARN_PREFIX = 'arn:aws:secretsmanager:us-east-1:123456789012:secret:';

/** A world whose API takes `key`, whose key is in a fake Secrets Manager under `secretId`. */
async function startSecretWorld(
  key: string,
  secrets: Record<string, string>,
  secretId: string,
): Promise<{ world: World; secretsManager: FakeSecretsManager; env: Record<string, string> }> {
  const [world, secretsManager] = await Promise.all([
    startWorld({ settings: { SHIELDWATCH_NETWORKS: 'home,office' }, api: { key } }),
    startFakeSecretsManager(secrets),
  ]);
  const { SHIELDWATCH_API_KEY: _unused, ...rest } = world.env;
  const env = {
    ...rest,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: secretsManager.url,
    SHIELDWATCH_API_KEY_SECRET: secretId,
  };
  return { world, secretsManager, env };
}

/** Reads back what was stored (as JSON and as a table), so that the output can be searched for the key. */
async function readEverything(world: World): Promise<CliRun[]> {
  const reads = [
    ['history', '--filter', '--format', 'json'],
    ['history', '--network', 'home'],
  ];
  const runs = await Promise.all(reads.map((args) => runCli(args, world.storeEnv)));
  for (const run of runs) expect(run.code, describeRun(run)).toBe(0);
  return runs;
}

function expectKeyNowhere(key: string, runs: readonly CliRun[], stored: string): void {
  for (const run of runs) {
    expect(run.stdout).not.toContain(key);
    expect(run.stderr).not.toContain(key);
  }
  expect(stored).not.toContain(key);
}

const bearers = (requests: readonly RecordedRequest[]) =>
  new Set(requests.map((r) => r.headers.authorization));

describe.concurrent('the API key from Secrets Manager', () => {
  it('reads a plain SecretString by name, and the key appears in no output or stored item', async () => {
    // Prepare
    const { world, secretsManager, env } = await startSecretWorld(
      PLAIN_KEY,
      { 'shieldwatch/api-key': PLAIN_KEY },
      'shieldwatch/api-key',
    );
    world.api.filter = () => ({ body: { status: 'on' } });
    try {
      // Act
      const run = await runCli(['poll', '--verbose'], env);
      const reads = await readEverything(world);

      // Assess
      expect(run.code, describeRun(run)).toBe(0);
      expect(secretsManager.requests).toEqual(['shieldwatch/api-key']);
      expect(world.api.requests).toHaveLength(3);
      expect(bearers(world.api.requests)).toEqual(new Set([`Bearer ${PLAIN_KEY}`]));
      expectKeyNowhere(PLAIN_KEY, [run, ...reads], await dumpTable(world.dynamo));
    } finally {
      await Promise.all([world.close(), secretsManager.close()]);
    }
  });

  it('reads {"apiKey": ...} from a secret named by ARN; an API that echoes the key back does not get it stored or shown', async () => {
    // Prepare
    const secretId = `${SECRET_ARN_PREFIX}prod/shieldwatch-AbCdEf`;
    const { world, secretsManager, env } = await startSecretWorld(
      JSON_KEY,
      { 'prod/shieldwatch': JSON.stringify({ apiKey: JSON_KEY, note: 'rotated monthly' }) },
      secretId,
    );
    let status = 'on';
    world.api.filter = (req) => ({ body: { status, seenAuthorization: req.headers.authorization } });
    world.api.network = (id, req) => ({
      body: { id, blocked: 3, debug: { token: req.headers.authorization } },
    });
    try {
      // Act
      const first = await runCli(['poll', '--verbose'], env);
      status = 'off';
      const second = await runCli(['poll', '--verbose'], env);
      const reads = await readEverything(world);

      // Assess
      for (const run of [first, second]) expect(run.code, describeRun(run)).toBe(0);
      expect(secretsManager.requests).toEqual([secretId, secretId]);
      expect(bearers(world.api.requests)).toEqual(new Set([`Bearer ${JSON_KEY}`]));
      expect(world.sns.publishes).toHaveLength(1);
      const published = JSON.stringify(world.sns.publishes);
      expect(published).toContain('off');
      const stored = await dumpTable(world.dynamo);
      expect(stored).toContain('seenAuthorization');
      expect(stored).toContain('token');
      expectKeyNowhere(JSON_KEY, [first, second, ...reads], stored + published);
      expect(JSON.stringify(secretsManager.secrets)).toContain(JSON_KEY);
    } finally {
      await Promise.all([world.close(), secretsManager.close()]);
    }
  });

  it('a missing secret: exit 1 with a message naming the secret, and no request to the API', async () => {
    // Prepare
    const { world, secretsManager, env } = await startSecretWorld(PLAIN_KEY, {}, 'shieldwatch/missing');
    try {
      // Act
      const run = await runCli(['poll'], env);

      // Assess
      expect(run.code, describeRun(run)).toBe(1);
      expect(run.stderr).toContain('shieldwatch/missing');
      expect(run.stderr).toMatch(/ResourceNotFound|not found|can't find/i);
      expect(run.stderr).not.toMatch(/^\s+at /m);
      expect(secretsManager.requests.length).toBeGreaterThan(0);
      expect(world.api.requests).toEqual([]);
      expect(world.sns.requests).toEqual([]);
    } finally {
      await Promise.all([world.close(), secretsManager.close()]);
    }
  });

  it('a key the API rejects (401): recorded as a failure, alerted at once, exit 0, and the key shows nowhere', async () => {
    // Prepare
    const world = await startWorld({ api: { key: 'the-right-key-0123456789' } });
    const wrongKey = 'swk_wrong_Zq81LmNa0PpXc';
    try {
      // Act
      const run = await runCli(['poll', '--verbose'], { ...world.env, SHIELDWATCH_API_KEY: wrongKey });
      const reads = await readEverything(world);

      // Assess
      expect(run.code, describeRun(run)).toBe(0);
      expect(world.api.requests.length).toBeGreaterThan(0);
      expect(bearers(world.api.requests)).toEqual(new Set([`Bearer ${wrongKey}`]));
      const [filterHistory] = reads;
      expect(JSON.parse(filterHistory!.stdout)).toEqual([
        expect.objectContaining({ ok: false, httpStatus: 401 }),
      ]);
      expect(world.sns.publishes.map((p) => p.attributes['event'])).toEqual(['api.auth_failed']);
      const published = JSON.stringify(world.sns.publishes);
      expectKeyNowhere(wrongKey, [run, ...reads], (await dumpTable(world.dynamo)) + published);
    } finally {
      await world.close();
    }
  });
});
