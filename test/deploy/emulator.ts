/**
 * The local AWS of the deploy test: moto_server (with the fillers of moto_with_fillers.py) on a free port of
 * 127.0.0.1, stopped by its pid; and the project's own CDK CLI run against it.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { launchMoto } from '../fixtures/moto-server.ts';

/** The project root. */
export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const LAUNCHER = fileURLToPath(new URL('./moto_with_fillers.py', import.meta.url));

/** The emulator's account and region (moto's default account). */
export const ACCOUNT = '123456789012';
export const REGION = 'us-east-1';

/** One resource the fillers made (or stood in for) where moto's CloudFormation would have skipped it. */
export interface Fill {
  readonly action: 'create' | 'delete';
  readonly logicalId: string;
  readonly type: string;
  readonly physicalId: string;
  /** The service API call that made it, or `stand-in only: ...` for a service moto does not emulate. */
  readonly via: string;
  readonly error?: string;
}

/** A running emulator. */
export interface Emulator {
  readonly pid: number;
  /** `http://localhost:PORT`: localhost, not 127.0.0.1, which moto's S3 would read as a bucket named `127`. */
  readonly endpoint: string;
  /** Fake credentials, region and endpoint: the environment every client of the emulator gets. */
  readonly env: Readonly<Record<string, string>>;
  /** What the fillers did so far. */
  fills(): Fill[];
  /** moto's own output, for a failure message. */
  output(): string;
  stop(): Promise<void>;
}

/** Fails at once, with the reason, when moto is not installed: the deploy test never passes by skipping. */
export function requireMoto(): void {
  const check = spawnSync('python3', ['-c', 'import moto, boto3; print(moto.__version__)'], {
    encoding: 'utf8',
  });
  if (check.status !== 0) {
    throw new Error(
      "npm run test:deploy needs moto 5 (moto_server) and boto3 for python3, and `python3 -c 'import moto'` " +
        `failed: ${(check.stderr || String(check.error ?? '')).trim()}. Install them (pip install 'moto[server]' boto3); ` +
        'see docs/deploy-test.md.',
    );
  }
}

/** Starts moto_server with the fillers on 127.0.0.1 and waits until it answers. */
export async function startEmulator(fillLog: string): Promise<Emulator> {
  requireMoto();
  const moto = await launchMoto({
    command: 'python3',
    args: [LAUNCHER],
    env: { SHIELDWATCH_FILL_LOG: fillLog },
  });
  return {
    pid: moto.pid,
    endpoint: moto.endpoint,
    env: {
      AWS_ENDPOINT_URL: moto.endpoint,
      AWS_ACCESS_KEY_ID: 'deploytest',
      AWS_SECRET_ACCESS_KEY: 'deploytest',
      AWS_REGION: REGION,
      AWS_DEFAULT_REGION: REGION,
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
    fills: () => {
      try {
        return readFileSync(fillLog, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as Fill);
      } catch {
        return [];
      }
    },
    output: moto.output,
    stop: moto.stop,
  };
}

/** What one command did. */
export interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a command to its end, with `input` on standard input. */
export function run(
  command: string,
  args: readonly string[],
  options: { env: Record<string, string | undefined>; cwd?: string; input?: string; timeoutMs?: number },
): Promise<Run> {
  const child = spawn(command, args, {
    cwd: options.cwd ?? PROJECT_ROOT,
    env: options.env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin.end(options.input);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => {
    stdout += c;
  });
  child.stderr.setEncoding('utf8').on('data', (c: string) => {
    stderr += c;
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Runs the project's own CDK CLI (node_modules/.bin/cdk) against the emulator; throws with its output on failure. */
export async function cdk(
  args: readonly string[],
  emulator: Emulator,
  options: { cwd?: string } = {},
): Promise<Run> {
  const result = await run(`${PROJECT_ROOT}node_modules/.bin/cdk`, args, {
    cwd: options.cwd ?? PROJECT_ROOT,
    env: {
      PATH: process.env['PATH'],
      HOME: process.env['HOME'],
      CDK_DISABLE_VERSION_CHECK: '1',
      CI: 'true',
      ...emulator.env,
    },
    timeoutMs: 180_000,
  });
  if (result.code !== 0) {
    throw new Error(
      `cdk ${args.join(' ')} failed (exit ${result.code}):\n${result.stdout}\n${result.stderr}\n` +
        `--- moto_server ---\n${emulator.output().slice(-4000)}`,
    );
  }
  return result;
}
