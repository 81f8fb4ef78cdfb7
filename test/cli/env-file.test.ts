/**
 * The settings file (README.md, Quick start): ./shieldwatch.env or `--env-file FILE`, under the environment
 * variables; a missing file is a usage error; a key in a file others can read is warned about.
 */
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeRun, PROJECT_ROOT, runCli, startWorld, TOPIC_ARN } from './helpers.ts';

describe.concurrent('the settings file (issue 13.4)', () => {
  /** A fresh directory holding `files`; removed by the returned function. */
  async function directory(
    files: Record<string, string>,
  ): Promise<{ dir: string; remove: () => Promise<void> }> {
    const dir = await mkdtemp(path.join(tmpdir(), 'shieldwatch-envfile-'));
    for (const [name, text] of Object.entries(files))
      await writeFile(path.join(dir, name), text, { mode: 0o600 });
    return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
  }
  const fileOf = (env: Record<string, string>) =>
    `# shieldwatch settings\n${Object.entries(env)
      .map(([name, value]) => `${name}=${value}`)
      .join('\n')}\n`;
  /** Reads ./shieldwatch.env as a user would: no SHIELDWATCH_ENV_FILE override from the test helper. */
  const useDefaultFile = { SHIELDWATCH_ENV_FILE: '' };

  it('check reads ./shieldwatch.env from the current directory: URL and key come from the file', async () => {
    // Prepare
    const world = await startWorld();
    const { SHIELDWATCH_API_URL, SHIELDWATCH_API_KEY } = world.env;
    const { dir, remove } = await directory({
      'shieldwatch.env': fileOf({
        SHIELDWATCH_API_URL: SHIELDWATCH_API_URL!,
        SHIELDWATCH_API_KEY: SHIELDWATCH_API_KEY!,
      }),
    });
    try {
      // Act
      const run = await runCli(['check'], useDefaultFile, { cwd: dir });

      // Assess
      expect(run.code, describeRun(run)).toBe(0);
      expect(run.stdout).toContain(`API          ${SHIELDWATCH_API_URL}`);
      expect(world.api.requests.length).toBeGreaterThan(0);
      expect(run.stdout + run.stderr).not.toContain(SHIELDWATCH_API_KEY!);
    } finally {
      await Promise.all([world.close(), remove()]);
    }
  });

  it('environment variables win over the file; what they leave unset comes from it', async () => {
    // Prepare
    const world = await startWorld();
    const { dir, remove } = await directory({
      'shieldwatch.env': fileOf({
        SHIELDWATCH_API_URL: 'https://file.example.com',
        SHIELDWATCH_API_KEY: 'file-key-0000',
        SHIELDWATCH_TIMEOUT_MS: '99999',
        SHIELDWATCH_TOPIC_ARN: TOPIC_ARN,
      }),
    });
    try {
      // Act
      const run = await runCli(
        ['check'],
        {
          ...useDefaultFile,
          SHIELDWATCH_API_URL: world.env.SHIELDWATCH_API_URL!,
          SHIELDWATCH_API_KEY: world.env.SHIELDWATCH_API_KEY!,
          SHIELDWATCH_TIMEOUT_MS: '5000',
        },
        { cwd: dir },
      );

      // Assess
      expect(run.code, describeRun(run)).toBe(0);
      expect(run.stdout).not.toContain('file.example.com');
      expect(run.stdout).toContain(`alerts       ${TOPIC_ARN}`);
    } finally {
      await Promise.all([world.close(), remove()]);
    }
  });

  it.each([
    { name: 'after the command', args: (file: string) => ['poll', '--env-file', file] },
    { name: 'before the command', args: (file: string) => ['--env-file', file, 'poll'] },
    { name: 'as --env-file=FILE', args: (file: string) => ['poll', `--env-file=${file}`] },
  ])('--env-file FILE $name is read instead of ./shieldwatch.env', async ({ args }) => {
    // Prepare
    const { dir, remove } = await directory({
      'shieldwatch.env': fileOf({ SHIELDWATCH_CONCURRENCY: '0' }),
      'other.env': fileOf({ SHIELDWATCH_RETRIES: '9' }),
    });
    try {
      // Act
      const run = await runCli(args(path.join(dir, 'other.env')), useDefaultFile, { cwd: dir });

      // Assess
      expect(run.code, describeRun(run)).toBe(2);
      expect(run.stderr).toContain('SHIELDWATCH_RETRIES must be a whole number');
      expect(run.stderr).not.toContain('SHIELDWATCH_CONCURRENCY');
    } finally {
      await remove();
    }
  });

  it('a missing --env-file is a usage error (exit 2) that names the file, run through the bin itself', async () => {
    // Prepare
    const { dir, remove } = await directory({});
    const missing = path.join(dir, 'missing.env');
    try {
      // Act: through the shebang, as `shieldwatch` on PATH runs it (Node 20 itself looks at `--env-file`)
      const run = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
        execFile(
          path.join(PROJECT_ROOT, 'bin', 'shieldwatch.mjs'),
          ['poll', '--env-file', missing],
          { cwd: dir, env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin' } },
          (error, _stdout, stderr) => {
            if (error !== null && typeof error.code !== 'number') reject(error);
            else resolve({ code: error === null ? 0 : (error.code as number), stderr });
          },
        );
      });

      // Assess
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toContain(`shieldwatch poll: --env-file "${missing}": no such file`);
    } finally {
      await remove();
    }
  });

  it('warns when the file holds the key and other users can read it', async () => {
    // Prepare
    const { dir, remove } = await directory({
      'shieldwatch.env': fileOf({ SHIELDWATCH_API_KEY: 'swk_in_file_0123', SHIELDWATCH_TABLE: 'x' }),
    });
    try {
      await chmod(path.join(dir, 'shieldwatch.env'), 0o644);

      // Act
      const run = await runCli(['poll'], useDefaultFile, { cwd: dir });

      // Assess
      expect(run.code, describeRun(run)).toBe(2);
      expect(run.stderr).toMatch(
        /warning: .*shieldwatch\.env holds SHIELDWATCH_API_KEY and other users can read it: run chmod 600/,
      );
      expect(run.stderr).not.toContain('swk_in_file_0123');
    } finally {
      await remove();
    }
  });
});
