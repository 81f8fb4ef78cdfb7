// Integration tests of the embedded store's stale port (issue 19.4): after its server dies without cleaning
// up (OOM, SIGKILL, reboot), store.json still names its port and pid; another local process that takes that
// port must get nothing from the CLI that lets it act as the store or reach the real one (no token, no
// signature), and must not be taken for the store, however it answers. The server proves it holds the
// token first (a fresh nonce, HMAC-SHA256 under the token); only a proven server gets signed requests, and
// those are signed with a key bound to that server instance. Real detached servers, a real CLI, no mocks.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ListTablesCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensureEmbeddedStore, findEmbeddedStore, stopEmbeddedStore } from '../../cli/store/embedded.ts';
import { dynamo, removeStoreDir, serverPidsIn } from '../fixtures/embedded-store.ts';
import { type FakeApi, startFakeApi } from '../fixtures/fake-api.ts';

const execFileAsync = promisify(execFile);
const MODULE_PATH = fileURLToPath(new URL('../../cli/store/embedded.ts', import.meta.url));
const CLI = fileURLToPath(new URL('../../bin/shieldwatch.mjs', import.meta.url));

/** A process on the dead store's port: answers every request as the store would (its old pid, 200, a body), records every byte. */
interface Squatter {
  readonly port: number;
  /** Everything every client sent, as raw bytes turned to text. */
  received(): string;
  /** How many connections it accepted. */
  connections(): number;
  close(): Promise<void>;
}

async function squat(port: number, oldPid: number): Promise<Squatter> {
  let received = '';
  let connections = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let head = '';
    let answered = false;
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      head += chunk.toString('latin1');
      if (answered || !head.includes('\r\n\r\n')) return;
      answered = true;
      // Whatever was asked: the old pid in the header and in the body, a "proof", and what a store would say.
      const body = JSON.stringify({
        pid: oldPid,
        port,
        instance: 'f'.repeat(32),
        proof: '0'.repeat(64),
        TableNames: ['shieldwatch', 'things'],
        Items: [],
        Count: 0,
      });
      socket.end(
        'HTTP/1.1 200 OK\r\n' +
          'content-type: application/x-amz-json-1.0\r\n' +
          `x-shieldwatch-store-pid: ${oldPid}\r\n` +
          `content-length: ${Buffer.byteLength(body)}\r\n` +
          'connection: close\r\n\r\n' +
          body,
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    port,
    received: () => received,
    connections: () => connections,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** What nothing sent to a stranger may contain: the token, or any request signed with it or with a key made from it. */
function expectNothingSecret(text: string, token: string): void {
  expect(text).not.toContain(token);
  expect(text.toLowerCase()).not.toContain('authorization');
  expect(text).not.toContain('AWS4-HMAC-SHA256');
  expect(text).not.toContain('Credential=');
  expect(text.toLowerCase()).not.toContain('x-amz-security-token');
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return condition();
}

/** Kills the store's server as the OOM killer would: no chance to withdraw store.json. */
async function killHard(pid: number): Promise<void> {
  process.kill(pid, 'SIGKILL');
  expect(await waitFor(() => !isAlive(pid), 5000)).toBe(true);
}

function runCli(args: string[], cwd: string, env: Record<string, string> = {}) {
  return execFileAsync(process.execPath, [CLI, ...args], {
    cwd,
    env: {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      HOME: process.env['HOME'] ?? '/tmp',
      SHIELDWATCH_ENV_FILE: '/dev/null',
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
      ...env,
    },
    timeout: 60_000,
  });
}

let dir: string;
let squatter: Squatter | undefined;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'shieldwatch-stale-'));
});

afterEach(async () => {
  await squatter?.close();
  squatter = undefined;
  await removeStoreDir(dir);
});

describe("a listener on a dead store server's port", () => {
  it('gets no token and no signed request, and is not taken for the store', async () => {
    // Prepare: a store with an item, its server killed hard, its port taken by a squatter echoing its pid.
    const first = await ensureEmbeddedStore({ dir });
    const token = readFileSync(path.join(dir, 'token'), 'utf8').trim();
    const writer = dynamo(first);
    await writer.send(new ListTablesCommand({}));
    writer.destroy();
    await killHard(first.pid);
    const oldPort = Number(new URL(first.endpoint).port);
    squatter = await squat(oldPort, first.pid);

    // Act: every way the CLI's code finds its store.
    const found = await findEmbeddedStore(dir);
    const stoppedSquatter = await stopEmbeddedStore(dir);
    const second = await ensureEmbeddedStore({ dir });
    const client = dynamo(second);
    const tables = await client.send(new ListTablesCommand({}));
    client.destroy();

    // Assess: it was asked (so it had its chance), learnt nothing, and was not used.
    expect(squatter.connections()).toBeGreaterThan(0);
    expectNothingSecret(squatter.received(), token);
    expect(found).toBeUndefined();
    expect(stoppedSquatter).toBe(false);
    expect(second.started).toBe(true);
    expect(second.endpoint).not.toBe(first.endpoint);
    expect(second.pid).not.toBe(first.pid);
    expect(tables.TableNames).toEqual([]);
    expect(JSON.parse(await readFile(path.join(dir, 'store.json'), 'utf8')).pid).toBe(second.pid);
  });

  it('gets nothing secret from the real CLI, whose history stays whole on the new server', async () => {
    // Prepare: one poll makes the store and a snapshot; then the server dies and its port is taken.
    const api: FakeApi = await startFakeApi();
    try {
      api.filter = () => ({ body: { status: 'on' } });
      const env = { SHIELDWATCH_API_URL: api.url, SHIELDWATCH_API_KEY: api.key };
      const storeDir = path.join(dir, '.shieldwatch');
      const project = dir;
      await runCli(['poll'], project, env);
      const old = JSON.parse(await readFile(path.join(storeDir, 'store.json'), 'utf8')) as {
        pid: number;
        port: number;
      };
      const token = readFileSync(path.join(storeDir, 'token'), 'utf8').trim();
      await killHard(old.pid);
      squatter = await squat(old.port, old.pid);

      // Act: a poll that writes and a read of the history, as an operator would run them next.
      await runCli(['poll'], project, env);
      const history = await runCli(['history', '--filter', '--format', 'json'], project);

      // Assess
      expect(squatter.connections()).toBeGreaterThan(0);
      expectNothingSecret(squatter.received(), token);
      const rows = JSON.parse(history.stdout) as unknown[];
      expect(rows).toHaveLength(2);
      const now = JSON.parse(await readFile(path.join(storeDir, 'store.json'), 'utf8')) as { port: number };
      expect(now.port).not.toBe(old.port);
      await stopEmbeddedStore(storeDir);
    } finally {
      await api.close();
    }
  });

  it('leaves concurrent CLI processes sharing one new server', async () => {
    // Prepare
    const first = await ensureEmbeddedStore({ dir });
    const token = readFileSync(path.join(dir, 'token'), 'utf8').trim();
    await killHard(first.pid);
    squatter = await squat(Number(new URL(first.endpoint).port), first.pid);
    const script =
      `const { ensureEmbeddedStore } = await import(${JSON.stringify(MODULE_PATH)});` +
      `const s = await ensureEmbeddedStore({ dir: ${JSON.stringify(dir)} });` +
      'console.log(JSON.stringify({ endpoint: s.endpoint, started: s.started, pid: s.pid }));';
    const run = () =>
      execFileAsync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        env: { ...process.env, NODE_NO_WARNINGS: '1' },
      });

    // Act
    const results = await Promise.all([run(), run(), run()]);

    // Assess
    const stores = results.map(
      ({ stdout }) =>
        JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as {
          endpoint: string;
          started: boolean;
          pid: number;
        },
    );
    const info = JSON.parse(await readFile(path.join(dir, 'store.json'), 'utf8')) as {
      pid: number;
      port: number;
    };
    expect(stores.map((s) => s.pid)).toEqual([info.pid, info.pid, info.pid]);
    expect(new Set(stores.map((s) => s.endpoint)).size).toBe(1);
    expect(stores.filter((s) => s.started)).toHaveLength(1);
    expect(info.port).not.toBe(squatter.port);
    expect(await waitFor(() => serverPidsIn(dir).length === 1, 5000)).toBe(true);
    expectNothingSecret(squatter.received(), token);
  });

  it('is refused with a clear error, and told nothing, while the live server it stands for holds the data', async () => {
    // Prepare: a live server, but store.json pointed at a squatter that claims the live server's pid (an older
    // server that cannot prove itself, or a port and pid that are no longer what store.json says).
    const live = await ensureEmbeddedStore({ dir });
    const token = readFileSync(path.join(dir, 'token'), 'utf8').trim();
    const other = createServer();
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const port = (other.address() as { port: number }).port;
    await new Promise((resolve) => other.close(resolve));
    squatter = await squat(port, live.pid);
    const storeFile = path.join(dir, 'store.json');
    const info = JSON.parse(await readFile(storeFile, 'utf8')) as Record<string, unknown>;
    await writeFile(storeFile, JSON.stringify({ ...info, port, endpoint: `http://127.0.0.1:${port}` }));

    // Act
    const error = await ensureEmbeddedStore({ dir, startTimeoutMs: 2000 }).catch((err: Error) => err);

    // Assess: no token went out, the live server was not signalled, and the error says what to do.
    expectNothingSecret(squatter.received(), token);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toContain(`pid ${live.pid}`);
    expect((error as Error).message).toContain('did not prove');
    expect(isAlive(live.pid)).toBe(true);
    // Put store.json back so the cleanup stops the real server.
    await writeFile(storeFile, JSON.stringify(info));
  });
});

describe('requests to a proven server', () => {
  it('are signed with a key bound to that server: the token as access key id, or a former server’s key, is refused', async () => {
    // Prepare: a server, its credentials, a stop and a restart (on the same port, which is free again).
    const first = await ensureEmbeddedStore({ dir });
    const token = readFileSync(path.join(dir, 'token'), 'utf8').trim();
    await stopEmbeddedStore(dir);
    const second = await ensureEmbeddedStore({ dir });
    const replayed = dynamo({
      ...second,
      accessKeyId: first.accessKeyId,
      secretAccessKey: first.secretAccessKey,
    });
    const oldWay = dynamo({ ...second, accessKeyId: token, secretAccessKey: 'local' });
    const owner = dynamo(second);

    // Act
    const refusedReplay = await replayed.send(new ListTablesCommand({})).catch((err: Error) => err);
    const refusedOldWay = await oldWay.send(new ListTablesCommand({})).catch((err: Error) => err);
    const served = await owner.send(new ListTablesCommand({}));
    const query = await owner
      .send(
        new QueryCommand({
          TableName: 'missing',
          KeyConditionExpression: 'pk = :p',
          ExpressionAttributeValues: { ':p': { S: 'x' } },
        }),
      )
      .catch((err: Error) => err);
    for (const client of [replayed, oldWay, owner]) client.destroy();

    // Assess
    expect(second.endpoint).toBe(first.endpoint);
    expect(second.accessKeyId).not.toBe(first.accessKeyId);
    expect(second.secretAccessKey).not.toBe(first.secretAccessKey);
    expect(second.secretAccessKey).not.toContain(token);
    expect((refusedReplay as Error).name).toBe('UnrecognizedClientException');
    expect((refusedOldWay as Error).name).toBe('UnrecognizedClientException');
    expect(served.TableNames).toEqual([]);
    // A signed request with a body reaches dynalite whole (its answer is about the table, not the signature).
    expect((query as Error).name).toBe('ResourceNotFoundException');
  });
});
