// The CLI's embedded DynamoDB: a dynalite server shared by every CLI process working in the same
// directory. LevelDB (dynalite's disk store) can only be opened by one process, so instead of
// opening it here, the first process that needs the store starts cli/store/server.mjs detached; it
// owns the data and advertises itself in <dir>/store.json, and every process talks to it over
// HTTP on 127.0.0.1. The server exits by itself after an idle period; the next CLI command starts
// a new one on the same data (on the same port when it is free).
//
// Only the owner may use it: the directory is 0700, and the server answers only requests signed with the
// store's token (<dir>/token, 0600) as their access key id, so the AWS SDK and CLI work with it as they are.
// The server gets an allow-listed environment: none of the CLI's secrets (the API key, AWS credentials).

import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, link, mkdir, readFile, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

/** A running embedded store, ready for a DynamoDB client. */
export interface EmbeddedStore {
  /** DynamoDB endpoint, always `http://127.0.0.1:<port>`. */
  readonly endpoint: string;
  /** Absolute path of the store directory. */
  readonly dir: string;
  /** True if this call started the server, false if it found one running (or a concurrent starter won). */
  readonly started: boolean;
  /** The access key id every request must be signed with (any secret key will do). */
  readonly token: string;
  /** The server's pid. */
  readonly pid: number;
  /** After how long without requests the server stops by itself, ms. */
  readonly idleMs: number;
}

/** Options of {@link ensureEmbeddedStore}. */
export interface EnsureEmbeddedStoreOptions {
  /** Store directory; default `path.resolve('.shieldwatch')`. */
  dir?: string;
  /**
   * Idle time after which a server started by this call exits; default the server's own
   * (10 minutes, or env `SHIELDWATCH_STORE_IDLE_MS`). Ignored when a server is already running.
   */
  idleMs?: number;
  /** How long to wait for a server to come up before failing; default 10000 ms. */
  startTimeoutMs?: number;
}

/** What the server writes to store.json. */
interface StoreFile {
  pid: number;
  port: number;
  idleMs: number;
}

const DEFAULT_DIR = '.shieldwatch';
const DEFAULT_START_TIMEOUT_MS = 10_000;
/** Liveness probes go to loopback: anything slower than this is not a server we want to use. */
const PROBE_TIMEOUT_MS = 1000;
const POLL_INTERVAL_MS = 50;
/** Exit code of server.mjs when another live process owns the store (see there). */
const EXIT_LOCKED = 3;
/** Header in which the server names its pid (see server.mjs). */
const PID_HEADER = 'x-shieldwatch-store-pid';
const STOP_TIMEOUT_MS = 10_000;
const RESPAWN_INTERVAL_MS = 250;

const SERVER_SCRIPT = fileURLToPath(new URL('./server.mjs', import.meta.url));
/** The server's default idle time (see server.mjs), for a store.json that does not say. */
const DEFAULT_IDLE_MS = 600_000;
/** The only variables the server process gets from the CLI's environment: none can hold a secret. */
const SERVER_ENV_ALLOWED = ['PATH', 'LANG', 'LC_ALL', 'TZ', 'SYSTEMROOT'];
/** The region the embedded store's clients sign for; dynalite accepts any, the AWS CLI needs one. */
export const EMBEDDED_REGION = 'us-east-1';
/** The secret access key the embedded store's clients sign with: not checked, the token is the secret. */
export const EMBEDDED_SECRET_KEY = 'local';

/** The default store directory, `.shieldwatch` in the current directory. */
export function defaultStoreDir(): string {
  return path.resolve(DEFAULT_DIR);
}

/** True when `dir` holds an embedded store (its data or its token), so reading it makes sense. */
export async function embeddedStoreExists(dir: string = DEFAULT_DIR): Promise<boolean> {
  const resolved = path.resolve(dir);
  for (const name of ['data', 'token']) {
    if (
      await stat(path.join(resolved, name)).then(
        () => true,
        () => false,
      )
    )
      return true;
  }
  return false;
}

/**
 * Returns a live embedded DynamoDB store for `dir`, starting its server if none is running.
 *
 * Safe to call from several processes at once: they all end up on the same server. A long-running
 * caller should call it again after a pause longer than the idle time, since the server may have
 * exited (and a new one listens on another port).
 *
 * @throws Error naming `<dir>/store.log` when no server comes up within `startTimeoutMs`.
 */
export async function ensureEmbeddedStore(options: EnsureEmbeddedStoreOptions = {}): Promise<EmbeddedStore> {
  const dir = path.resolve(options.dir ?? DEFAULT_DIR);
  const startTimeoutMs = options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
  if (options.idleMs !== undefined && (!Number.isInteger(options.idleMs) || options.idleMs <= 0)) {
    throw new RangeError(`idleMs must be a positive integer, got ${options.idleMs}`);
  }
  await prepareDir(dir);
  const token = await ensureToken(dir);
  const found = (info: StoreFile, started: boolean): EmbeddedStore => ({
    endpoint: endpointOf(info),
    dir,
    started,
    token,
    pid: info.pid,
    idleMs: info.idleMs,
  });

  const running = await findLiveServer(dir, token);
  if (running) return found(running, false);

  const deadline = Date.now() + startTimeoutMs;
  let child: ChildProcess | undefined;
  let childPid: number | undefined;
  /** Why our server failed, when it failed for a reason other than the lock. */
  let failure: string | undefined;
  let lockedExits = 0;
  let nextSpawnAt = 0;
  while (Date.now() < deadline) {
    // (Re)start when no server of ours is starting: the first time, and again when ours found the
    // store locked by a server that then went away without advertising itself (e.g. one shutting
    // down after its idle time just as we looked). Spaced out so a stuck lock holder does not make
    // us spawn a process per poll.
    if (!child && Date.now() >= nextSpawnAt) {
      nextSpawnAt = Date.now() + RESPAWN_INTERVAL_MS;
      const spawned = spawnServer(dir, options.idleMs);
      child = spawned;
      childPid = spawned.pid;
      spawned.once('exit', (code, signal) => {
        if (code === EXIT_LOCKED) lockedExits++;
        else failure = code === null ? `was killed by ${signal}` : `exited with code ${code}`;
        child = undefined;
      });
      // A failed spawn (e.g. EAGAIN) reports through 'error', and then 'exit' may never come.
      spawned.once('error', (err) => {
        failure = `could not be run (${err.message})`;
        child = undefined;
      });
    }
    await sleep(POLL_INTERVAL_MS);
    const live = await findLiveServer(dir, token);
    // The winner may be a server a concurrent process started; then ours exits by itself (locked).
    if (live) return found(live, live.pid === childPid);
    // Not the lock: the server failed on its own (it logged why), so retrying will not help.
    if (failure !== undefined) break;
  }
  // Giving up: do not leave a half-started server of ours behind.
  child?.kill('SIGTERM');

  const logFile = path.join(dir, 'store.log');
  const reason =
    failure !== undefined
      ? `the store server ${failure}`
      : lockedExits > 0
        ? `its data (${path.join(dir, 'data')}) is locked by another process that does not answer`
        : `no server answered within ${startTimeoutMs} ms`;
  throw new Error(`Could not start the embedded DynamoDB store in ${dir}: ${reason}. See ${logFile}`);
}

/**
 * Stops the embedded store server of `dir` (default `.shieldwatch`) and waits until it has exited,
 * so its data can be opened again at once.
 *
 * @returns true if a live server was stopped, false if none was running.
 */
export async function stopEmbeddedStore(dir: string = DEFAULT_DIR): Promise<boolean> {
  const resolved = path.resolve(dir);
  const token = await readToken(resolved);
  const live = token === undefined ? undefined : await findLiveServer(resolved, token);
  if (!live) {
    // Only signal a pid proven to be our server: a stale store.json may name a pid now reused by
    // an unrelated process.
    return false;
  }
  try {
    process.kill(live.pid, 'SIGTERM');
  } catch {
    return false; // exited in the meantime
  }
  const deadline = Date.now() + STOP_TIMEOUT_MS;
  while (isAlive(live.pid)) {
    if (Date.now() >= deadline) {
      // Its own grace period has long passed; the OS releases the LevelDB lock with the process.
      try {
        process.kill(live.pid, 'SIGKILL');
      } catch {
        // exited just now
      }
      break;
    }
    await sleep(25);
  }
  // The server removes its store.json itself; this covers a SIGKILL.
  const current = await readStoreFile(resolved);
  if (current?.pid === live.pid) await rm(path.join(resolved, 'store.json'), { force: true });
  return true;
}

/**
 * Finds the running server of `dir` without starting one.
 *
 * @returns the store, or undefined when no server of that store answers.
 */
export async function findEmbeddedStore(dir: string = DEFAULT_DIR): Promise<EmbeddedStore | undefined> {
  const resolved = path.resolve(dir);
  const token = await readToken(resolved);
  const live = token === undefined ? undefined : await findLiveServer(resolved, token);
  return live === undefined
    ? undefined
    : {
        endpoint: endpointOf(live),
        dir: resolved,
        started: false,
        token: token!,
        pid: live.pid,
        idleMs: live.idleMs,
      };
}

/**
 * Keeps the server of `store` from stopping idle while a long-running command uses it: a request well
 * within each idle period. A server that has gone meanwhile is left alone (the command restarts it when it
 * needs it, see {@link ensureEmbeddedStore}).
 *
 * @returns a function that stops the heartbeat.
 */
export function keepEmbeddedStoreAlive(store: () => EmbeddedStore): () => void {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const beat = () => {
    const current = store();
    timer = setTimeout(
      async () => {
        await findLiveServer(current.dir, current.token);
        if (!stopped) beat();
      },
      Math.max(POLL_INTERVAL_MS, Math.floor(current.idleMs / 3)),
    );
    // The heartbeat alone must not keep the process alive.
    timer.unref();
  };
  beat();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

/** Creates the store dir (private to the user) and keeps it out of git. */
async function prepareDir(dir: string): Promise<void> {
  await mkdir(path.dirname(dir), { recursive: true });
  try {
    await mkdir(dir, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  // A store dir made by hand or by an older version may be open to others: it holds the token.
  if (((await stat(dir)).mode & 0o077) !== 0) await chmod(dir, 0o700);
  const gitignore = path.join(dir, '.gitignore');
  const current = await readFile(gitignore, 'utf8').catch(() => undefined);
  if (current !== '*\n') await writeFile(gitignore, '*\n');
}

/** The store's token, made once per store: random, in a file only the owner can read. */
async function ensureToken(dir: string): Promise<string> {
  const existing = await readToken(dir);
  if (existing !== undefined) return existing;
  // Written under a temporary name and linked into place: a concurrent starter sees either no token or a
  // complete one, and if two race, the first link wins and both use its token.
  const tmp = path.join(dir, `token.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  await writeFile(tmp, `${randomBytes(20).toString('hex')}\n`, { mode: 0o600 });
  try {
    await link(tmp, path.join(dir, 'token'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
  const token = await readToken(dir);
  if (token === undefined)
    throw new Error(`the embedded store's token file ${path.join(dir, 'token')} is not valid`);
  return token;
}

/** The token in `<dir>/token`, or undefined when there is none (or it is not one). */
async function readToken(dir: string): Promise<string | undefined> {
  const file = path.join(dir, 'token');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  const token = text.trim();
  if (!/^[A-Za-z0-9]{20,128}$/.test(token)) return undefined;
  if (((await stat(file)).mode & 0o077) !== 0) await chmod(file, 0o600);
  return token;
}

function spawnServer(dir: string, idleMs: number | undefined): ChildProcess {
  const args = [SERVER_SCRIPT, '--dir', dir];
  if (idleMs !== undefined) args.push('--idle-ms', String(idleMs));
  // Plain node without our execArgv (e.g. a TypeScript loader): the script is plain JavaScript.
  // Detached in its own process group with no stdio, so it outlives this process and a Ctrl-C in
  // the terminal that started it; unref so this process can exit without waiting for it.
  // Only allow-listed variables: the API key and AWS credentials of the CLI's environment stay out of it.
  const env = Object.fromEntries(
    SERVER_ENV_ALLOWED.flatMap((name) => {
      const value = process.env[name];
      return value === undefined ? [] : [[name, value]];
    }),
  );
  const child = spawn(process.execPath, args, {
    cwd: dir,
    env,
    detached: true,
    stdio: 'ignore',
    windowsHide: true,
  });
  child.unref();
  return child;
}

/** The server advertised in store.json, if it answers as that server; undefined otherwise. */
async function findLiveServer(dir: string, token: string): Promise<StoreFile | undefined> {
  const info = await readStoreFile(dir);
  if (!info) return undefined;
  return (await probe(info, token)) ? info : undefined;
}

async function readStoreFile(dir: string): Promise<StoreFile | undefined> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(path.join(dir, 'store.json'), 'utf8'));
  } catch {
    return undefined; // missing, or torn by something other than the server's atomic rename
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { pid, port, idleMs } = parsed as Record<string, unknown>;
  if (!Number.isInteger(pid) || (pid as number) <= 0) return undefined;
  if (!Number.isInteger(port) || (port as number) <= 0 || (port as number) > 65535) return undefined;
  return {
    pid: pid as number,
    port: port as number,
    idleMs: Number.isInteger(idleMs) && (idleMs as number) > 0 ? (idleMs as number) : DEFAULT_IDLE_MS,
  };
}

/** Always built from the port: the file's own endpoint field is never trusted to stay on loopback. */
function endpointOf(info: StoreFile): string {
  return `http://127.0.0.1:${info.port}`;
}

/**
 * True when the port answers a real DynamoDB call (ListTables, which also proves the LevelDB is
 * open) and says it is served by the pid in store.json: a pid alone may be reused, and a port
 * may since have been taken by another program or by another directory's store.
 */
function probe(info: StoreFile, token: string): Promise<boolean> {
  return new Promise((resolve) => {
    const body = '{"Limit":1}';
    const req = request(
      {
        host: '127.0.0.1',
        port: info.port,
        method: 'POST',
        path: '/',
        // No keep-alive: a probe must not leave a socket holding this process open.
        agent: false,
        timeout: PROBE_TIMEOUT_MS,
        headers: {
          'content-type': 'application/x-amz-json-1.0',
          'content-length': Buffer.byteLength(body),
          'x-amz-target': 'DynamoDB_20120810.ListTables',
          // The server checks the access key id (the token); neither it nor dynalite checks the signature.
          authorization:
            `AWS4-HMAC-SHA256 Credential=${token}/20200101/${EMBEDDED_REGION}/dynamodb/aws4_request, ` +
            'SignedHeaders=host, Signature=0',
          'x-amz-date': '20200101T000000Z',
          connection: 'close',
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', () => resolve(false));
        res.on('end', () => {
          if (res.statusCode !== 200 || res.headers[PID_HEADER] !== String(info.pid)) return resolve(false);
          try {
            resolve(Array.isArray(JSON.parse(Buffer.concat(chunks).toString('utf8')).TableNames));
          } catch {
            resolve(false);
          }
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('probe timed out')));
    req.on('error', () => resolve(false));
    req.end(body);
  });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
