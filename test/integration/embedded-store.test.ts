// Integration tests of the CLI's embedded DynamoDB (cli/store/embedded.ts + cli/store/server.mjs):
// real detached server processes on real temp directories, no mocks. Access rules: embedded-store-access.test.ts.
import { execFile } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import {
  CreateTableCommand,
  DescribeTableCommand,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ensureEmbeddedStore,
  findEmbeddedStore,
  keepEmbeddedStoreAlive,
  stopEmbeddedStore,
} from '../../cli/store/embedded.ts';
import { dynamo, removeStoreDir, serverPidsIn } from '../fixtures/embedded-store.ts';

const execFileAsync = promisify(execFile);
const MODULE_PATH = fileURLToPath(new URL('../../cli/store/embedded.ts', import.meta.url));

let dir: string;

interface StoreJson {
  pid: number;
  port: number;
  endpoint: string;
  startedAt: string;
}

async function readStoreJson(): Promise<StoreJson> {
  return JSON.parse(await readFile(path.join(dir, 'store.json'), 'utf8')) as StoreJson;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function serverPids(): number[] {
  return serverPidsIn(dir);
}

async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return condition();
}

async function createTableWithItem(client: DynamoDBClient): Promise<void> {
  await client.send(
    new CreateTableCommand({
      TableName: 'things',
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
  // Even with createTableMs 0, dynalite flips the table to ACTIVE on a timer after answering.
  const active = await waitFor(async () => {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: 'things' }));
    return Table?.TableStatus === 'ACTIVE';
  }, 2000);
  expect(active).toBe(true);
  await client.send(new PutItemCommand({ TableName: 'things', Item: { pk: { S: 'a' }, n: { N: '42' } } }));
}

async function getItem(client: DynamoDBClient): Promise<unknown> {
  const out = await client.send(new GetItemCommand({ TableName: 'things', Key: { pk: { S: 'a' } } }));
  return out.Item;
}

/** Resolves true if a TCP connection to host:port succeeds within a short time. */
function canConnect(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port, timeout: 500 });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(false));
  });
}

/** A port nothing listens on: bound and released again. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const { stdout } = await execFileAsync(process.execPath, ['-e', 'console.log(process.pid)']);
  return Number(stdout.trim());
}

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'shieldwatch-store-'));
});

afterEach(async () => {
  await removeStoreDir(dir);
});

describe('ensureEmbeddedStore', () => {
  it('starts a server once and reuses it on the next call', async () => {
    // Prepare: a fresh dir with nothing running.

    // Act
    const first = await ensureEmbeddedStore({ dir });
    const second = await ensureEmbeddedStore({ dir });

    // Assess
    expect(first.started).toBe(true);
    expect(first.dir).toBe(dir);
    expect(first.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(second).toEqual({ ...first, started: false });
    const info = await readStoreJson();
    expect(info.endpoint).toBe(first.endpoint);
    expect(isAlive(info.pid)).toBe(true);
    expect(serverPids()).toEqual([info.pid]);
    expect(await readFile(path.join(dir, '.gitignore'), 'utf8')).toBe('*\n');
  });

  it('creates the store dir private to the user', async () => {
    // Prepare
    const nested = path.join(dir, 'project', '.shieldwatch');

    // Act
    await ensureEmbeddedStore({ dir: nested });

    // Assess
    expect(statSync(nested).mode & 0o777).toBe(0o700);
    expect(await readFile(path.join(nested, '.gitignore'), 'utf8')).toBe('*\n');
    expect(await stopEmbeddedStore(nested)).toBe(true);
  });

  it('serves real DynamoDB calls', async () => {
    // Prepare
    const store = await ensureEmbeddedStore({ dir });
    const client = dynamo(store);

    // Act
    await createTableWithItem(client);
    const item = await getItem(client);
    client.destroy();

    // Assess
    expect(item).toEqual({ pk: { S: 'a' }, n: { N: '42' } });
  });

  it('gives separate processes starting at once the same single server', async () => {
    // Prepare: each process imports the module through tsx, as the CLI would, and prints its result.
    const script =
      `const { ensureEmbeddedStore } = await import(${JSON.stringify(MODULE_PATH)});` +
      `console.log(JSON.stringify(await ensureEmbeddedStore({ dir: ${JSON.stringify(dir)} })));`;
    const run = () =>
      execFileAsync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        env: { ...process.env, NODE_NO_WARNINGS: '1' },
      });

    // Act
    const results = await Promise.all([run(), run(), run()]);

    // Assess
    const stores = results.map(
      ({ stdout }) =>
        JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as { endpoint: string; started: boolean },
    );
    const info = await readStoreJson();
    expect(stores.map((s) => s.endpoint)).toEqual([info.endpoint, info.endpoint, info.endpoint]);
    expect(stores.filter((s) => s.started)).toHaveLength(1);
    // Losers of the start race exit by themselves once they find the data locked.
    expect(await waitFor(() => serverPids().length === 1, 5000)).toBe(true);
    expect(serverPids()).toEqual([info.pid]);
  });

  it('keeps the data across a stop and a restart', async () => {
    // Prepare
    const first = await ensureEmbeddedStore({ dir });
    const firstPid = (await readStoreJson()).pid;
    const writer = dynamo(first);
    await createTableWithItem(writer);
    writer.destroy();

    // Act
    const stopped = await stopEmbeddedStore(dir);
    const second = await ensureEmbeddedStore({ dir });
    const reader = dynamo(second);
    const item = await getItem(reader);
    reader.destroy();

    // Assess
    expect(stopped).toBe(true);
    expect(isAlive(firstPid)).toBe(false);
    expect(second.started).toBe(true);
    expect(item).toEqual({ pk: { S: 'a' }, n: { N: '42' } });
  });

  it('replaces a store.json naming a dead pid and a closed port', async () => {
    // Prepare
    const port = await closedPort();
    const stale = {
      pid: await deadPid(),
      port,
      endpoint: `http://127.0.0.1:${port}`,
      startedAt: new Date(0).toISOString(),
    };
    await writeFile(path.join(dir, 'store.json'), JSON.stringify(stale));

    // Act
    const store = await ensureEmbeddedStore({ dir });

    // Assess
    const info = await readStoreJson();
    expect(store.started).toBe(true);
    expect(info.pid).not.toBe(stale.pid);
    expect(isAlive(info.pid)).toBe(true);
    expect(store.endpoint).toBe(info.endpoint);
  });

  it('replaces a store.json whose live pid and port belong to something else', async () => {
    // Prepare: our own (live) pid, and a port that answers HTTP 200 but is not the store.
    const impostor: Server = createServer((_req, res) => res.end('{"TableNames":[]}'));
    await new Promise<void>((resolve) => impostor.listen(0, '127.0.0.1', resolve));
    const { port } = impostor.address() as { port: number };
    const stale = {
      pid: process.pid,
      port,
      endpoint: `http://127.0.0.1:${port}`,
      startedAt: new Date(0).toISOString(),
    };
    await writeFile(path.join(dir, 'store.json'), JSON.stringify(stale));

    // Act
    const store = await ensureEmbeddedStore({ dir }).finally(() => impostor.close());

    // Assess
    expect(store.started).toBe(true);
    expect(store.endpoint).not.toBe(stale.endpoint);
    expect((await readStoreJson()).pid).not.toBe(process.pid);
  });

  it('lets the server exit by itself after the idle time', async () => {
    // Prepare
    await ensureEmbeddedStore({ dir, idleMs: 300 });
    const { pid } = await readStoreJson();

    // Act
    const exited = await waitFor(() => !isAlive(pid), 5000);

    // Assess: gone, and its advertisement with it.
    expect(exited).toBe(true);
    expect(existsSync(path.join(dir, 'store.json'))).toBe(false);
    expect(await stopEmbeddedStore(dir)).toBe(false);
  });

  it('listens on 127.0.0.1 only', async () => {
    // Prepare
    await ensureEmbeddedStore({ dir });
    const { port } = await readStoreJson();
    const otherAddresses = Object.values(networkInterfaces())
      .flat()
      .filter((a) => a !== undefined && !a.internal)
      .map((a) => a!.address.split('%')[0] ?? '');

    // Act: 127.0.0.2 is loopback too on Linux, so only a wildcard bind would accept it.
    const results = await Promise.all(
      ['127.0.0.1', '127.0.0.2', '::1', ...otherAddresses].map(async (host) => [
        host,
        await canConnect(host, port),
      ]),
    );

    // Assess
    expect(Object.fromEntries(results)).toEqual(
      Object.fromEntries(results.map(([host]) => [host, host === '127.0.0.1'])),
    );
  });

  it('fails with the log path when the server cannot start', async () => {
    // Prepare: a file where the LevelDB directory must go.
    await writeFile(path.join(dir, 'data'), 'not a directory');

    // Act
    const attempt = ensureEmbeddedStore({ dir, startTimeoutMs: 5000 });

    // Assess
    await expect(attempt).rejects.toThrow(path.join(dir, 'store.log'));
    expect(await readFile(path.join(dir, 'store.log'), 'utf8')).toMatch(/store server failed/);
  });
});

describe('the embedded store across restarts', () => {
  it('comes back on the same port after a stop, so a copied endpoint keeps working', async () => {
    // Prepare
    const first = await ensureEmbeddedStore({ dir });
    await stopEmbeddedStore(dir);

    // Act
    const second = await ensureEmbeddedStore({ dir });

    // Assess
    expect(second.started).toBe(true);
    expect(second.pid).not.toBe(first.pid);
    expect(second.endpoint).toBe(first.endpoint);
  });

  it('stays up past its idle time while kept alive, and stops idle once released', async () => {
    // Prepare
    const store = await ensureEmbeddedStore({ dir, idleMs: 300 });

    // Act
    const release = keepEmbeddedStoreAlive(() => store);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const aliveWhileKept = isAlive(store.pid) && (await findEmbeddedStore(dir))?.pid === store.pid;
    release();
    const exitedOnceReleased = await waitFor(() => !isAlive(store.pid), 5000);

    // Assess
    expect(aliveWhileKept).toBe(true);
    expect(exitedOnceReleased).toBe(true);
  });
});
