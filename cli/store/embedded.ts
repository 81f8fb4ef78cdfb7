// The CLI's embedded DynamoDB: a dynalite server shared by every CLI process working in the same
// directory. LevelDB (dynalite's disk store) can only be opened by one process, so instead of
// opening it here, the first process that needs the store starts cli/store/server.mjs detached; it
// owns the data and advertises itself in <dir>/store.json, and every process talks to it over
// HTTP on 127.0.0.1. The server exits by itself after an idle period; the next CLI command starts
// a new one on the same data (on the same port when it is free).
//
// Only the owner may use it: the directory is 0700 and holds the store's token (<dir>/token, 0600), which never
// leaves this process. store.json only says where a server was: after a server dies without withdrawing it
// (OOM, SIGKILL, reboot), another local process may hold that port and answer with the old pid. So before
// anything signed goes to a port, the server there must prove it holds the token: we send a fresh random
// nonce (nothing else) and it answers HMAC-SHA256(token, nonce, its pid, its port, its instance id). Only then
// do we sign requests (SigV4, checked by the server), and with a key made from the token and that server's
// random instance id, not the token: a signature that still reaches a stranger (the server died after the
// proof) can be replayed to no other server. An unproven listener is treated as no server at all.
// The server gets an allow-listed environment: none of the CLI's secrets (the API key, AWS credentials).

import { type ChildProcess, spawn } from 'node:child_process';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
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
  /**
   * The access key id of this server instance (public): requests are signed with it and {@link secretAccessKey}.
   * Both change when the server restarts.
   */
  readonly accessKeyId: string;
  /**
   * The secret access key of this server instance: made from the store's token and the instance id, given only
   * once the server has proven it holds the token. Not the token, and worth nothing to any other server.
   */
  readonly secretAccessKey: string;
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
/** Where the server proves it holds the token, and the header that carries our nonce (see server.mjs). */
const PROOF_PATH = '/.shieldwatch-store/proof';
const NONCE_HEADER = 'x-shieldwatch-store-nonce';
/** The same labels as server.mjs: they keep a proof (answered for any nonce) from ever being a session key. */
const PROOF_LABEL = 'shieldwatch-store-proof-v1';
const SESSION_LABEL = 'shieldwatch-store-session-v1';
const STOP_TIMEOUT_MS = 10_000;
const RESPAWN_INTERVAL_MS = 250;

const SERVER_SCRIPT = fileURLToPath(new URL('./server.mjs', import.meta.url));
/** The server's default idle time (see server.mjs), for a store.json that does not say. */
const DEFAULT_IDLE_MS = 600_000;
/** The only variables the server process gets from the CLI's environment: none can hold a secret. */
const SERVER_ENV_ALLOWED = ['PATH', 'LANG', 'LC_ALL', 'TZ', 'SYSTEMROOT'];
/** The region the embedded store's clients sign for; dynalite accepts any, the AWS CLI needs one. */
export const EMBEDDED_REGION = 'us-east-1';

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
  const found = (info: ProvenServer, started: boolean): EmbeddedStore => storeOf(dir, info, started, token);

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
  // Giving up: do not leave a half-started server of ours behind. Its exit is then ours, not why it failed
  // (on a busy machine it may not have started, nor found the lock, by the deadline).
  const failed = failure;
  child?.kill('SIGTERM');

  const logFile = path.join(dir, 'store.log');
  const recorded = await readStoreFile(dir);
  // Never signalled: an unproven pid may be anything. Sending it the token would be worse.
  const unproven =
    recorded !== undefined && isAlive(recorded.pid)
      ? `the server that store.json names (pid ${recorded.pid}, port ${recorded.port}) did not prove it holds ` +
        "the store's token (an older shieldwatch, or not a store server at all): stop that process if it is a " +
        'store server, or wait for it to stop idle, and run again'
      : undefined;
  const reason =
    failed !== undefined
      ? `the store server ${failed}`
      : lockedExits > 0
        ? unproven !== undefined
          ? `its data (${path.join(dir, 'data')}) is locked by another process, and ${unproven}`
          : `its data (${path.join(dir, 'data')}) is locked by another process that does not answer`
        : unproven !== undefined
          ? `no server of ours came up within ${startTimeoutMs} ms, and ${unproven}`
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
  return live === undefined || token === undefined ? undefined : storeOf(resolved, live, false, token);
}

/**
 * Keeps the server of `store` from stopping idle while a long-running command uses it: a signed request well
 * within each idle period, sent only after the server at the store's port has proven itself again (a proof
 * alone does not count as activity). A server that has gone meanwhile is left alone (the command restarts it
 * when it needs it, see {@link ensureEmbeddedStore}).
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
        const token = await readToken(current.dir);
        const live = token === undefined ? undefined : await findLiveServer(current.dir, token);
        if (live !== undefined && token !== undefined)
          await listTables(storeOf(current.dir, live, false, token));
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

/** A server that proved it holds the token, with the instance id it proved it for. */
interface ProvenServer extends StoreFile {
  instance: string;
}

/** The server advertised in store.json, if it proves it holds `token`; undefined otherwise. */
async function findLiveServer(dir: string, token: string): Promise<ProvenServer | undefined> {
  const info = await readStoreFile(dir);
  if (!info) return undefined;
  const instance = await prove(info, token);
  return instance === undefined ? undefined : { ...info, instance };
}

/** The store as callers see it: its endpoint and the session credentials of the proven instance. */
function storeOf(dir: string, info: ProvenServer, started: boolean, token: string): EmbeddedStore {
  return {
    endpoint: endpointOf(info),
    dir,
    started,
    accessKeyId: `store-${info.instance}`,
    secretAccessKey: hmacHex(token, `${SESSION_LABEL}\n${info.instance}`),
    pid: info.pid,
    idleMs: info.idleMs,
  };
}

function hmacHex(key: string, text: string): string {
  return createHmac('sha256', key).update(text, 'utf8').digest('hex');
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
 * Asks the port in store.json to prove it is that store's server: sends a fresh random nonce and nothing else
 * (no token, nothing signed), and accepts only HMAC-SHA256(token, nonce, pid, port, instance) for the pid in
 * store.json and the port asked. A pid alone may be reused and echoed by anything on the port, and a port may
 * since have been taken by another program or another directory's store. Binding the port keeps a listener
 * from relaying a real server's answer from elsewhere.
 *
 * @returns the proven server's instance id, or undefined.
 */
function prove(info: StoreFile, token: string): Promise<string | undefined> {
  const nonce = randomBytes(32).toString('hex');
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: info.port,
        method: 'GET',
        path: PROOF_PATH,
        // No keep-alive: a probe must not leave a socket holding this process open.
        agent: false,
        timeout: PROBE_TIMEOUT_MS,
        headers: { [NONCE_HEADER]: nonce, connection: 'close' },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          // A proof is ~200 bytes: a listener streaming more is not one.
          if (size > 4096) req.destroy(new Error('proof too large'));
          else chunks.push(chunk);
        });
        res.on('error', () => resolve(undefined));
        res.on('end', () =>
          resolve(res.statusCode === 200 ? checkProof(chunks, info, nonce, token) : undefined),
        );
      },
    );
    req.on('timeout', () => req.destroy(new Error('proof timed out')));
    req.on('error', () => resolve(undefined));
    req.end();
  });
}

/** The instance id of a valid proof for `nonce` from the server in `info`, or undefined. */
function checkProof(chunks: Buffer[], info: StoreFile, nonce: string, token: string): string | undefined {
  let answer: Record<string, unknown>;
  try {
    answer = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const { pid, port, instance, proof } = answer ?? {};
  if (pid !== info.pid || port !== info.port) return undefined;
  if (typeof instance !== 'string' || !/^[0-9a-f]{32}$/.test(instance)) return undefined;
  if (typeof proof !== 'string' || !/^[0-9a-f]{64}$/.test(proof)) return undefined;
  const expected = Buffer.from(
    hmacHex(token, `${PROOF_LABEL}\n${nonce}\n${pid}\n${port}\n${instance}`),
    'hex',
  );
  return timingSafeEqual(expected, Buffer.from(proof, 'hex')) ? instance : undefined;
}

/**
 * One signed ListTables to a proven server (the heartbeat: it counts as activity). Signed with the DynamoDB
 * client the CLI itself uses, so the server checks a real signature.
 */
async function listTables(store: EmbeddedStore): Promise<void> {
  const { DynamoDBClient, ListTablesCommand } = await import('@aws-sdk/client-dynamodb');
  const client = new DynamoDBClient({
    endpoint: store.endpoint,
    region: EMBEDDED_REGION,
    credentials: { accessKeyId: store.accessKeyId, secretAccessKey: store.secretAccessKey },
    maxAttempts: 1,
  });
  try {
    await client.send(new ListTablesCommand({ Limit: 1 }));
  } catch {
    // gone meanwhile: the command restarts it when it needs it
  } finally {
    client.destroy();
  }
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
