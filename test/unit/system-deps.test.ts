/**
 * `scripts/system-deps.sh`, which `npm test` runs first (CONTRIBUTING.md, Tests): on a machine without the AWS CLI
 * it installs it when root and otherwise stops at once with the one command to run. Run with a PATH of fakes
 * (`id`, `apt-get`), so nothing is installed and the machine's own `aws` is out of sight.
 */
import { spawnSync } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('../../scripts/system-deps.sh', import.meta.url));

describe('scripts/system-deps.sh without the AWS CLI', () => {
  let bin: string;

  beforeEach(async () => {
    bin = await mkdtemp(path.join(tmpdir(), 'system-deps-'));
    // apt-get records its arguments and "installs" aws as a fake on the same PATH.
    await writeFile(
      path.join(bin, 'apt-get'),
      `#!/bin/sh\necho "$*" >> "${bin}/apt.log"\nprintf '#!/bin/sh\\n' > "${bin}/aws"\n/bin/chmod +x "${bin}/aws"\n`,
    );
    await chmod(path.join(bin, 'apt-get'), 0o755);
  });
  afterEach(async () => rm(bin, { recursive: true, force: true }));

  const run = async (uid: number) => {
    await writeFile(path.join(bin, 'id'), `#!/bin/sh\necho ${uid}\n`);
    await chmod(path.join(bin, 'id'), 0o755);
    return spawnSync('/bin/sh', [SCRIPT], { env: { PATH: bin }, encoding: 'utf8' });
  };
  const aptCalls = async () => (await readFile(path.join(bin, 'apt.log'), 'utf8').catch(() => '')).trim();

  it('as root: installs awscli with apt-get, then passes', async () => {
    // Act
    const result = await run(0);

    // Assess
    expect(result.status, result.stderr).toBe(0);
    expect(await aptCalls()).toMatch(/^update -q\ninstall -y -q( chromium)? awscli$/);
  });

  it('as another user without sudo: fails at once, naming the one command, and installs nothing', async () => {
    // Act
    const result = await run(1000);

    // Assess
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/sudo sh -c 'apt-get update && apt-get install -y( chromium)? awscli'/);
    expect(await aptCalls()).toBe('');
  });
});
