/**
 * A store you can find (issue 13.8, 13.9): reading from a directory without a store says so and creates
 * nothing; `shieldwatch store` says where the store is and prints an `aws dynamodb query` that the real AWS CLI
 * runs as printed against the embedded store.
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopEmbeddedStore } from '../../cli/store/embedded.ts';
import { type FakeApi, startFakeApi } from '../fixtures/fake-api.ts';
import { describeRun, parseJsonOutput, runCli } from './helpers.ts';

const execFileAsync = promisify(execFile);

/** The AWS CLI on PATH, or undefined. */
function awsCli(): string | undefined {
  try {
    return execFileSync('sh', ['-c', 'command -v aws'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

describe('reading from a directory without a store', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'shieldwatch-nostore-'));
  });
  afterAll(async () => rm(dir, { recursive: true, force: true }));

  it.each([
    [['history', '--filter']],
    [['history', '--network', 'net-1', '--format', 'json']],
    [['events']],
    [['uptime']],
    [['store']],
    [['store', '--aws']],
  ])('%j says this directory has no store, where it would be, and creates none', async (args) => {
    // Act
    const run = await runCli(args, {}, { cwd: dir });

    // Assess
    expect(run.code, describeRun(run)).toBe(1);
    expect(run.stderr).toContain('this directory has no embedded store yet');
    expect(run.stderr).toContain(path.join(dir, '.shieldwatch'));
    expect(run.stdout).toBe('');
    expect(existsSync(path.join(dir, '.shieldwatch'))).toBe(false);
  });
});

describe('shieldwatch store, on the embedded store', () => {
  let dir: string;
  let api: FakeApi;
  let status = 'on';

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'shieldwatch-store-cmd-'));
    api = await startFakeApi();
    api.filter = () => ({ body: { status } });
    const env = { SHIELDWATCH_API_URL: api.url, SHIELDWATCH_API_KEY: api.key };
    for (const next of ['on', 'off']) {
      status = next;
      const poll = await runCli(['poll'], env, { cwd: dir });
      expect(poll.code, describeRun(poll)).toBe(0);
    }
  });
  afterAll(async () => {
    await stopEmbeddedStore(path.join(dir, '.shieldwatch'));
    await api?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('prints the directory, endpoint, table and credentials', async () => {
    // Act
    const text = await runCli(['store'], {}, { cwd: dir });
    const json = await runCli(['store', '--format', 'json'], {}, { cwd: dir });

    // Assess
    expect(text.code, describeRun(text)).toBe(0);
    const info = parseJsonOutput<Record<string, unknown>>(json);
    expect(info).toMatchObject({
      kind: 'embedded',
      table: 'shieldwatch',
      dir: path.join(dir, '.shieldwatch'),
      region: 'us-east-1',
      endpoint: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
      // The current server's credentials, made from the token (issue 19.4), never the token itself.
      accessKeyId: expect.stringMatching(/^store-[0-9a-f]{32}$/),
      secretAccessKey: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const token = readFileSync(path.join(dir, '.shieldwatch', 'token'), 'utf8').trim();
    expect(text.stdout).not.toContain(token);
    expect(json.stdout).not.toContain(token);
    expect(text.stdout).toContain(`embedded DynamoDB (dynalite) in ${path.join(dir, '.shieldwatch')}`);
    expect(text.stdout).toContain(`endpoint:  ${info['endpoint']}`);
    expect(text.stdout).toContain(path.join(dir, '.shieldwatch', 'token'));
    // The command's first line: endpoint, region, credentials and table (its date moves with the clock).
    expect(text.stdout).toContain(String(info['awsCommand']).split('\n')[0]);
  });

  it('prints an aws dynamodb query that the AWS CLI runs as printed', async () => {
    // Prepare: the AWS CLI is required (.ci/run installs it); without it this test fails, it does not skip.
    const aws = awsCli();
    expect(aws, 'the AWS CLI (`aws`) is not on PATH: install it (apt-get install -y awscli)').toBeDefined();
    const printed = await runCli(['store', '--aws'], {}, { cwd: dir });
    expect(printed.code, describeRun(printed)).toBe(0);

    // Act: the printed text, as it is, through a shell, with no AWS setting of this machine around it.
    const { stdout } = await execFileAsync('sh', ['-c', printed.stdout], {
      cwd: dir,
      env: {
        PATH: process.env['PATH'] ?? '/usr/bin:/bin',
        HOME: process.env['HOME'] ?? '/tmp',
        AWS_CONFIG_FILE: '/dev/null',
        AWS_SHARED_CREDENTIALS_FILE: '/dev/null',
        AWS_EC2_METADATA_DISABLED: 'true',
      },
      timeout: 60_000,
    });

    // Assess: the two filter snapshots, newest first.
    const items = (JSON.parse(stdout) as { Items: Array<Record<string, { S?: string }>> }).Items;
    expect(items.map((item) => [item['pk']?.S, item['status']?.S])).toEqual([
      ['filter', 'off'],
      ['filter', 'on'],
    ]);
  });

  it('the printed credentials are needed: another access key id is refused', async () => {
    // Prepare
    const aws = awsCli();
    expect(aws, 'the AWS CLI (`aws`) is not on PATH: install it (apt-get install -y awscli)').toBeDefined();
    const printed = await runCli(['store', '--aws'], {}, { cwd: dir });
    const forged = printed.stdout.replace(
      /AWS_ACCESS_KEY_ID=store-[0-9a-f]+/,
      'AWS_ACCESS_KEY_ID=AKIDEXAMPLEEXAMPLE12',
    );

    // Act
    const refused = await execFileAsync('sh', ['-c', forged], {
      cwd: dir,
      env: {
        PATH: process.env['PATH'] ?? '',
        HOME: process.env['HOME'] ?? '/tmp',
        AWS_CONFIG_FILE: '/dev/null',
      },
      timeout: 60_000,
    }).catch((error: { code?: number; stderr?: string }) => error);

    // Assess
    expect(forged).not.toBe(printed.stdout);
    // The AWS CLI's exit code for an error from the service: 255 in v1, 254 in v2.
    expect([254, 255]).toContain((refused as { code?: number }).code);
    expect((refused as { stderr?: string }).stderr).toContain('UnrecognizedClientException');
  });
});
