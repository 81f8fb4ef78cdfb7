/**
 * Runs the CLI as a user would: `node bin/shieldwatch.mjs <args>` in its own process, with only the
 * environment a test gives it.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { type LocalDynamo, startDynamo } from '../fixtures/dynalite.ts';
import { type FakeApi, type FakeApiOptions, startFakeApi } from '../fixtures/fake-api.ts';
import { type FakeSns, startFakeSns } from '../fixtures/fake-aws.ts';

/** The project root, where `bin/shieldwatch.mjs` lives. */
export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ENTRY = fileURLToPath(new URL('../../bin/shieldwatch.mjs', import.meta.url));

/**
 * Wall time one CLI process may take in these tests, start to exit. Every run starts Node, registers tsx and
 * imports the CLI (about 0.5 s of CPU, 0.9-1.3 s wall on an idle 2-core machine), and a `poll` adds about
 * 0.1 s of CPU for its cycle. Measured on this project's 2-core machine with both cores kept busy by other
 * processes (load 11-23): a `poll` alone took 1.5-2.5 s; when the delivery and silence suites still ran their
 * tests at once, up to about 4.7 s each (28 s for a test of 6 processes, over 40 s beside two busy loops);
 * one test at a time beside two busy loops, 1.8-2.3 s each (the longest test, 11 processes, 25.6 s). The
 * budget is the concurrent worst case with a margin of 1.7, 3.5 times the sequential one.
 */
export const CLI_PROCESS_BUDGET_MS = 8_000;

/**
 * A CLI test's timeout from its measured budget: `processes` CLI runs ({@link CLI_PROCESS_BUDGET_MS} each,
 * counted one by one even when some run at once, since they share the same two cores) plus what the test waits
 * for on purpose (`fixedMs`: intervals, deadlines). Never less than vitest's default of 30 s.
 */
export function cliTestTimeout(processes: number, fixedMs = 0): number {
  return Math.max(30_000, processes * CLI_PROCESS_BUDGET_MS + fixedMs);
}

/** What one CLI run did. */
export interface CliRun {
  /** Exit code; `null` when it was killed (see `timedOut`). */
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Wall time, ms. */
  readonly ms: number;
  readonly timedOut: boolean;
}

/** Options of {@link runCli}. */
export interface RunCliOptions {
  /** Working directory. @default the project root */
  cwd?: string;
  /** Kill the process after this long. @default 45000 */
  timeoutMs?: number;
  /** Options for Node itself, before the entry (e.g. `--import` a hook). */
  nodeArgs?: readonly string[];
  /** Written to the CLI's standard input, which is then closed. @default - none: standard input is empty */
  input?: string;
}

/**
 * Spawns the CLI with a clean environment: `PATH` and `HOME` of this process plus `env`, nothing else, so no
 * `AWS_*` or `SHIELDWATCH_*` setting of the machine running the tests leaks in, nor a `shieldwatch.env` file.
 */
export function runCli(
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
  options: RunCliOptions = {},
): Promise<CliRun> {
  const started = Date.now();
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), ENTRY, ...args], {
    cwd: options.cwd ?? PROJECT_ROOT,
    // SHIELDWATCH_ENV_FILE: a developer's ./shieldwatch.env in the project root must not reach the tests.
    env: {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      HOME: process.env['HOME'] ?? '/tmp',
      SHIELDWATCH_ENV_FILE: '/dev/null',
      ...env,
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  // Without input, an empty standard input, as from /dev/null.
  child.stdin.end(options.input);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, options.timeoutMs ?? 45_000);
  return new Promise((resolve, reject) => {
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: Date.now() - started, timedOut });
    });
  });
}

/** Parses a command's `--format json` output, with the output in the message when it is not JSON. */
export function parseJsonOutput<T>(run: CliRun): T {
  try {
    return JSON.parse(run.stdout) as T;
  } catch {
    throw new Error(`not JSON (exit ${run.code}):\n${run.stdout}\n--- stderr ---\n${run.stderr}`);
  }
}

/** The run as text, for assertion messages. */
export function describeRun(run: CliRun): string {
  return `exit ${run.code} after ${run.ms} ms${run.timedOut ? ' (timed out)' : ''}\n--- stdout ---\n${run.stdout}\n--- stderr ---\n${run.stderr}`;
}

/** The topic every CLI test publishes to. */
export const TOPIC_ARN = 'arn:aws:sns:us-east-1:123456789012:alerts';

/** A DynamoDB (dynalite), an SNS and a protection API on loopback, and the environment that points the CLI at them. */
export interface World {
  readonly dynamo: LocalDynamo;
  readonly api: FakeApi;
  readonly sns: FakeSns;
  /** Everything `poll` needs: AWS endpoints, dummy credentials, API URL and key, table, topic. */
  readonly env: Record<string, string>;
  /** Only the store settings: what `history` and `events` need. */
  readonly storeEnv: Record<string, string>;
  close(): Promise<void>;
}

/** Options of {@link startWorld}. */
export interface WorldOptions {
  /** Extra `SHIELDWATCH_*` settings for `poll`. */
  settings?: Record<string, string>;
  api?: FakeApiOptions;
}

/** Starts a fresh table, SNS and API for one test. */
export async function startWorld(options: WorldOptions = {}): Promise<World> {
  const [dynamo, api, sns] = await Promise.all([startDynamo(), startFakeApi(options.api), startFakeSns()]);
  const storeEnv = {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'AKIDTEST',
    AWS_SECRET_ACCESS_KEY: 'test-secret',
    AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
    SHIELDWATCH_TABLE: dynamo.table,
  };
  const env = {
    ...storeEnv,
    AWS_ENDPOINT_URL_SNS: sns.url,
    SHIELDWATCH_API_URL: api.url,
    SHIELDWATCH_API_KEY: api.key,
    SHIELDWATCH_TOPIC_ARN: TOPIC_ARN,
    ...options.settings,
  };
  return {
    dynamo,
    api,
    sns,
    env,
    storeEnv,
    close: async () => {
      await Promise.all([dynamo.close(), api.close(), sns.close()]);
    },
  };
}

/** Every item of the world's table, as JSON text: for checking what was stored. */
export async function dumpTable(dynamo: LocalDynamo): Promise<string> {
  const items: unknown[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await dynamo.client.send(
      new ScanCommand({
        TableName: dynamo.table,
        ...(start === undefined ? {} : { ExclusiveStartKey: start as never }),
      }),
    );
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start !== undefined);
  return JSON.stringify(items);
}

/** The `default`, `email` and `sms` texts of a `MessageStructure: json` message. */
export function messageTexts(message: string): Record<string, string> {
  return JSON.parse(message) as Record<string, string>;
}
