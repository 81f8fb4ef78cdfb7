// The CLI's embedded DynamoDB: a dynalite server shared by every CLI process working in the same
// directory. LevelDB (dynalite's disk store) can only be opened by one process, so instead of
// opening it here, the first process that needs the store starts cli/store-server.mjs detached; it
// owns the data and advertises itself in <dir>/store.json, and every process talks to it over
// HTTP on 127.0.0.1. The server exits by itself after an idle period; the next CLI command starts
// a new one on the same data.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** A running embedded store, ready for a DynamoDB client. */
export interface EmbeddedStore {
  /** DynamoDB endpoint, always `http://127.0.0.1:<port>`. */
  readonly endpoint: string;
  /** Absolute path of the store directory. */
  readonly dir: string;
  /** True if this call started the server, false if it found one running (or a concurrent starter won). */
  readonly started: boolean;
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
}

const DEFAULT_DIR = '.shieldwatch';
const DEFAULT_START_TIMEOUT_MS = 10_000;
/** Liveness probes go to loopback: anything slower than this is not a server we want to use. */
const PROBE_TIMEOUT_MS = 1000;
const POLL_INTERVAL_MS = 50;
/** Exit code of store-server.mjs when another live process owns the store (see there). */
const EXIT_LOCKED = 3;
/** Header in which the server names its pid (see store-server.mjs). */
const PID_HEADER = 'x-shieldwatch-store-pid';
const STOP_TIMEOUT_MS = 10_000;
const RESPAWN_INTERVAL_MS = 250;

const SERVER_SCRIPT = fileURLToPath(new URL('./store-server.mjs', import.meta.url));

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

  const running = await findLiveServer(dir);
  if (running) return { endpoint: endpointOf(running), dir, started: false };

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
    const live = await findLiveServer(dir);
    // The winner may be a server a concurrent process started; then ours exits by itself (locked).
    if (live) return { endpoint: endpointOf(live), dir, started: live.pid === childPid };
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
  const live = await findLiveServer(resolved);
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

/** Creates the store dir (private to the user) and keeps it out of git. */
async function prepareDir(dir: string): Promise<void> {
  await mkdir(path.dirname(dir), { recursive: true });
  try {
    await mkdir(dir, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const gitignore = path.join(dir, '.gitignore');
  const current = await readFile(gitignore, 'utf8').catch(() => undefined);
  if (current !== '*\n') await writeFile(gitignore, '*\n');
}

function spawnServer(dir: string, idleMs: number | undefined): ChildProcess {
  const args = [SERVER_SCRIPT, '--dir', dir];
  if (idleMs !== undefined) args.push('--idle-ms', String(idleMs));
  // Plain node without our execArgv (e.g. a TypeScript loader): the script is plain JavaScript.
  // Detached in its own process group with no stdio, so it outlives this process and a Ctrl-C in
  // the terminal that started it; unref so this process can exit without waiting for it.
  const child = spawn(process.execPath, args, {
    cwd: dir,
    detached: true,
    stdio: 'ignore',
    windowsHide: true,
  });
  child.unref();
  return child;
}

/** The server advertised in store.json, if it answers as that server; undefined otherwise. */
async function findLiveServer(dir: string): Promise<StoreFile | undefined> {
  const info = await readStoreFile(dir);
  if (!info) return undefined;
  return (await probe(info)) ? info : undefined;
}

async function readStoreFile(dir: string): Promise<StoreFile | undefined> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(path.join(dir, 'store.json'), 'utf8'));
  } catch {
    return undefined; // missing, or torn by something other than the server's atomic rename
  }
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { pid, port } = parsed as Record<string, unknown>;
  if (!Number.isInteger(pid) || (pid as number) <= 0) return undefined;
  if (!Number.isInteger(port) || (port as number) <= 0 || (port as number) > 65535) return undefined;
  return { pid: pid as number, port: port as number };
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
function probe(info: StoreFile): Promise<boolean> {
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
          // dynalite requires a well-formed SigV4 header but does not check the signature.
          authorization:
            'AWS4-HMAC-SHA256 Credential=shieldwatch/20200101/us-east-1/dynamodb/aws4_request, ' +
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

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
