#!/usr/bin/env node

// The embedded DynamoDB server behind the `shieldwatch` CLI when no AWS configuration is present.
//
// dynalite keeps its data in LevelDB, which only one process can open at a time, yet several CLI
// processes must share the store (`shieldwatch run` in one terminal, `shieldwatch history` in
// another). So one detached process of this script owns the LevelDB and serves it on
// 127.0.0.1; every CLI process talks to it over HTTP (see embedded.ts, which starts it).
//
// Plain JavaScript on purpose: it starts with plain `node`, no TypeScript loader, so a CLI command
// that needs it waits as little as possible.
//
// Usage: node server.mjs --dir <dir> [--idle-ms <ms>]
//   (or env SHIELDWATCH_STORE_DIR / SHIELDWATCH_STORE_IDLE_MS; arguments win over the environment).
//   The CLI starts it with arguments and an allow-listed environment, so no secret of the CLI's
//   environment (the API key, AWS credentials) reaches this process.
//
// Files under <dir> (the directory is private to its owner, 0700):
//   token       the store's secret (0600, made by the CLI). It never travels: a client first asks the server
//               to prove it holds it (GET /.shieldwatch-store/proof with a fresh nonce; the answer is
//               HMAC-SHA256(token, nonce, pid, port, instance)), then signs its requests (real SigV4, checked
//               here) with a key made from the token and this server's random instance id, so a signature
//               is worth nothing to any other server, and other local users cannot use the store
//   data/       the LevelDB store; its LOCK file is the mutex between would-be servers
//   store.json  { pid, port, endpoint, idleMs, startedAt }, written once listening (temp file + rename)
//   port        the last port served: a restarted server listens there again when it is free
//   store.log   errors only, kept small
//
// Exit codes: 0 normal stop (idle, SIGTERM, SIGINT, SIGHUP); 1 error (see store.log);
// 2 bad arguments; 3 the store is already owned by another live process (lost a start race).

import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { EventEmitter } from 'node:events';
import {
  appendFileSync,
  mkdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { parseArgs } from 'node:util';

/** Default idle time before the server exits by itself: 10 minutes. */
const DEFAULT_IDLE_MS = 10 * 60 * 1000;
/** Exit code that tells the starter "another server owns this store": not an error. */
const EXIT_LOCKED = 3;
/** store.log is trimmed to its tail when it grows past this, so it stays small. */
const LOG_MAX_BYTES = 64 * 1024;
const LOG_KEEP_BYTES = 16 * 1024;
/** Response header naming the serving pid, so a client can tell our server from whatever else got the port. */
const PID_HEADER = 'x-shieldwatch-store-pid';
/** Where a client asks the server to prove it holds the token, before it sends anything signed (see embedded.ts). */
const PROOF_PATH = '/.shieldwatch-store/proof';
/** Request header carrying the client's nonce: 32 random bytes, hex. */
const NONCE_HEADER = 'x-shieldwatch-store-nonce';
/**
 * Labels that keep the two uses of the token apart: the server answers proofs for any nonce anyone sends, so
 * no proof may ever equal a session key (their messages start differently and a nonce is only hex).
 * The same strings are in embedded.ts.
 */
const PROOF_LABEL = 'shieldwatch-store-proof-v1';
const SESSION_LABEL = 'shieldwatch-store-session-v1';
/** How far a request's x-amz-date may be from now, as on AWS: client and server share this machine's clock. */
const MAX_SIGNATURE_AGE_MS = 15 * 60 * 1000;
/** dynalite's own request size limit: a body is read whole (to check its hash) before dynalite sees it. */
const MAX_BODY_BYTES = 16 * 1024 * 1024;
/** How long a stop may wait for open requests and the LevelDB close before the process just exits. */
const STOP_GRACE_MS = 5000;
/** What a token looks like (see embedded.ts, which makes it). */
const TOKEN_PATTERN = /^[A-Za-z0-9]{20,128}$/;
/** DynamoDB's own answer to a request signed with an unknown access key, with the way to the right one. */
const REFUSED_BODY = JSON.stringify({
  __type: 'com.amazon.coral.service#UnrecognizedClientException',
  message:
    'The security token included in the request is invalid: sign requests to this store with the credentials of its current server (see `shieldwatch store`; they change when the server restarts)',
});
/** SigV4 Authorization header: key id, date, region, service, signed header names, signature. */
const AUTHORIZATION_PATTERN =
  /^AWS4-HMAC-SHA256\s+Credential=([^/,\s]+)\/(\d{8})\/([^/,\s]+)\/([^/,\s]+)\/aws4_request\s*,\s*SignedHeaders=([a-z0-9;._-]+)\s*,\s*Signature=([0-9a-f]{64})$/;

const require = createRequire(import.meta.url);

let logPath;

/** Appends one line to store.log; never throws, since logging must not take the server down. */
function logError(message, err) {
  if (!logPath) return;
  try {
    try {
      if (statSync(logPath).size > LOG_MAX_BYTES) {
        const text = readFileSync(logPath, 'utf8');
        writeFileSync(logPath, text.slice(-LOG_KEEP_BYTES).replace(/^[^\n]*\n/, ''));
      }
    } catch {
      // no log yet
    }
    const detail = err ? `: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}` : '';
    appendFileSync(logPath, `${new Date().toISOString()} [pid ${process.pid}] ${message}${detail}\n`);
  } catch {
    // nowhere left to report to
  }
}

function parseConfig() {
  const { values } = parseArgs({
    options: { dir: { type: 'string' }, 'idle-ms': { type: 'string' } },
    strict: true,
  });
  const dir = values.dir ?? process.env.SHIELDWATCH_STORE_DIR;
  if (!dir) throw new Error('missing --dir (or SHIELDWATCH_STORE_DIR)');
  const idleText = values['idle-ms'] ?? process.env.SHIELDWATCH_STORE_IDLE_MS;
  const idleMs = idleText === undefined || idleText === '' ? DEFAULT_IDLE_MS : Number(idleText);
  // setTimeout cannot wait longer than 2^31-1 ms; a larger value would fire at once.
  if (!Number.isInteger(idleMs) || idleMs <= 0 || idleMs > 2 ** 31 - 1) {
    throw new Error(
      `invalid idle time ${JSON.stringify(idleText)}: expected a positive integer of milliseconds`,
    );
  }
  return { dir: path.resolve(dir), idleMs };
}

/** True when the error (or its cause chain) is LevelDB refusing to open because another process holds the lock. */
function isLockError(err) {
  for (let e = err; e; e = e.cause) {
    if (e.code === 'LEVEL_LOCKED') return true;
    if (
      typeof e.message === 'string' &&
      /\block\b/i.test(e.message) &&
      /(held|unavailable|temporarily)/i.test(e.message)
    ) {
      return true;
    }
  }
  return false;
}

/** The store's token, from <dir>/token; throws when it is missing or malformed. */
function readToken(dir) {
  const token = readFileSync(path.join(dir, 'token'), 'utf8').trim();
  if (!TOKEN_PATTERN.test(token)) throw new Error(`malformed token file ${path.join(dir, 'token')}`);
  return Buffer.from(token);
}

function hmac(key, text) {
  return createHmac('sha256', key).update(text, 'utf8').digest();
}

function sha256Hex(data) {
  return createHash('sha256').update(data).digest('hex');
}

/** A header's canonical SigV4 value: every occurrence, trimmed, inner whitespace collapsed, joined by commas. */
function canonicalHeader(req, name) {
  const values = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i].toLowerCase() === name)
      values.push(req.rawHeaders[i + 1].trim().replace(/\s+/g, ' '));
  }
  return values.length === 0 ? undefined : values.join(',');
}

/** The parts of a SigV4 Authorization header, or undefined when it is not one. */
function parseAuthorization(header) {
  if (typeof header !== 'string') return undefined;
  const match = AUTHORIZATION_PATTERN.exec(header.trim());
  if (!match) return undefined;
  const [, keyId, date, region, service, signedHeaders, signature] = match;
  return { keyId, date, region, service, signedHeaders: signedHeaders.split(';'), signature };
}

/**
 * True when the request carries a valid SigV4 signature (Authorization header) made with this server's session
 * key, for this server's host and port, dated within {@link MAX_SIGNATURE_AGE_MS}, over exactly this body.
 * The session key is made from the token and this server's instance id, so a signature sent to whatever held
 * an old server's port cannot be replayed to this one, and the signed host keeps it from being relayed here
 * from another port.
 */
function isAuthorized(req, auth, body, session, port) {
  if (!timingSafeEqualText(auth.keyId, session.keyId)) return false;
  const amzDate = canonicalHeader(req, 'x-amz-date');
  const parts = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(amzDate ?? '');
  if (!parts || amzDate.slice(0, 8) !== auth.date) return false;
  const [, y, mo, d, h, mi, se] = parts.map(Number);
  if (Math.abs(Date.now() - Date.UTC(y, mo - 1, d, h, mi, se)) > MAX_SIGNATURE_AGE_MS) return false;
  const signed = auth.signedHeaders;
  if (!signed.includes('host') || !signed.includes('x-amz-date')) return false;
  const host = canonicalHeader(req, 'host');
  if (host !== `127.0.0.1:${port}` && host !== `localhost:${port}`) return false;
  // DynamoDB is POST / only; anything else would need a canonical path and query we do not serve.
  if (req.url !== '/') return false;
  const payloadHash = sha256Hex(body);
  const declared = canonicalHeader(req, 'x-amz-content-sha256');
  if (declared !== undefined && declared !== payloadHash) return false;
  const canonicalHeaders = signed.map((name) => `${name}:${canonicalHeader(req, name) ?? ''}\n`).join('');
  const canonicalRequest = [req.method, '/', '', canonicalHeaders, signed.join(';'), payloadHash].join('\n');
  const scope = `${auth.date}/${auth.region}/${auth.service}/aws4_request`;
  const stringToSign = `AWS4-HMAC-SHA256\n${amzDate}\n${scope}\n${sha256Hex(canonicalRequest)}`;
  let key = hmac(`AWS4${session.secretAccessKey}`, auth.date);
  for (const part of [auth.region, auth.service, 'aws4_request']) key = hmac(key, part);
  return timingSafeEqualText(createHmac('sha256', key).update(stringToSign).digest('hex'), auth.signature);
}

function timingSafeEqualText(a, b) {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * This server's credentials: a random instance id (its access key id) and a secret made from the token and
 * that id. Clients derive the same secret once the server has proven it holds the token.
 */
function sessionOf(token) {
  const instance = randomBytes(16).toString('hex');
  return {
    instance,
    keyId: `store-${instance}`,
    secretAccessKey: hmac(token, `${SESSION_LABEL}\n${instance}`).toString('hex'),
  };
}

/**
 * Answers a client's challenge: HMAC-SHA256 under the token of its nonce and of who answers (pid, port,
 * instance), so the answer proves this process holds the token and cannot be relayed from another port.
 * Answered for anyone: it reveals nothing about the token, and does not count as activity.
 */
function answerProof(req, res, token, session, port) {
  req.resume();
  const nonce = req.headers[NONCE_HEADER];
  if (typeof nonce !== 'string' || !/^[0-9a-f]{64}$/.test(nonce)) {
    res.writeHead(400, { 'content-type': 'text/plain' });
    res.end(`${NONCE_HEADER} must be 64 hex digits\n`);
    return;
  }
  const proof = hmac(
    token,
    `${PROOF_LABEL}\n${nonce}\n${process.pid}\n${port}\n${session.instance}`,
  ).toString('hex');
  const body = JSON.stringify({ pid: process.pid, port, instance: session.instance, proof });
  res.writeHead(200, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    [PID_HEADER]: String(process.pid),
  });
  res.end(body);
}

/** Answers as DynamoDB does a request with unknown credentials. */
function refuse(req, res) {
  req.resume();
  res.writeHead(400, {
    'content-type': 'application/x-amz-json-1.0',
    'content-length': Buffer.byteLength(REFUSED_BODY),
  });
  res.end(REFUSED_BODY);
}

/** The port the previous server used, if any: clients that copied the endpoint keep working after a restart. */
function lastPort(dir) {
  try {
    const port = Number(readFileSync(path.join(dir, 'port'), 'utf8').trim());
    return Number.isInteger(port) && port > 0 && port <= 65535 ? port : 0;
  } catch {
    return 0;
  }
}

/** Listens on 127.0.0.1:port, or on a free port when that one is taken. */
async function listen(server, port) {
  const attempt = (p) =>
    new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(p, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  if (port !== 0) {
    try {
      return await attempt(port);
    } catch (err) {
      if (err?.code !== 'EADDRINUSE' && err?.code !== 'EACCES') throw err;
    }
  }
  return attempt(0);
}

/** Reads store.json, or undefined when it is missing or unreadable. */
function readStoreFile(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

async function main() {
  let config;
  try {
    config = parseConfig();
  } catch (err) {
    // No reliable dir means no log file: stderr is all there is (usually ignored by the starter).
    process.stderr.write(`store-server: ${err.message}\n`);
    process.exit(2);
  }
  const { dir, idleMs } = config;
  const storeFile = path.join(dir, 'store.json');
  logPath = path.join(dir, 'store.log');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const token = readToken(dir);

  // dynalite does not expose its LevelDB, and it opens it lazily: a lock failure would only show up
  // as a crash on the first request, after store.json already advertised us. Wrapping its (CommonJS,
  // shared-cache) db factory gives us the store so we can open it first and fail before listening.
  const dbModule = require('dynalite/db');
  const originalCreate = dbModule.create;
  let store;
  dbModule.create = (options) => {
    store = originalCreate(options);
    return store;
  };
  const dynalite = require('dynalite');
  const server = dynalite({
    path: path.join(dir, 'data'),
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
  });
  dbModule.create = originalCreate;
  if (!store?.db || typeof store.db.open !== 'function') {
    throw new Error('unsupported dynalite version: cannot reach its LevelDB store');
  }
  try {
    // A non-passive open retries after the lazy open failed, so its rejection carries the real cause.
    await store.db.open();
  } catch (err) {
    // LevelDB's lock is an OS file lock, released when its holder dies: if it is held, a live
    // process owns the store, normally a concurrent starter that won. Say nothing; the starter
    // finds the winner through store.json.
    if (isLockError(err)) process.exit(EXIT_LOCKED);
    throw err;
  }

  let lastActivity = Date.now();
  let inFlight = 0;
  const session = sessionOf(token);
  // Every request passes the signature check before dynalite sees it: dynalite's own handlers are taken off
  // the server and called from here only for a request signed with this server's session key. The body is
  // read first (its hash is signed), then handed to dynalite as a stream of its own.
  const dynaliteHandlers = server.listeners('request');
  server.removeAllListeners('request');
  server.on('request', (req, res) => {
    const port = server.address()?.port;
    if (req.method === 'GET' && req.url === PROOF_PATH) {
      answerProof(req, res, token, session, port);
      return;
    }
    const auth = parseAuthorization(req.headers.authorization);
    if (auth === undefined || !timingSafeEqualText(auth.keyId, session.keyId)) {
      refuse(req, res);
      return;
    }
    const chunks = [];
    let size = 0;
    let tooLarge = false;
    req.on('error', () => undefined); // a client that went away; nothing to answer
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on('end', () => {
      if (tooLarge) {
        res.writeHead(413);
        res.end();
        return;
      }
      const body = Buffer.concat(chunks);
      if (!isAuthorized(req, auth, body, session, port)) {
        refuse(req, res);
        return;
      }
      lastActivity = Date.now();
      inFlight++;
      res.setHeader(PID_HEADER, String(process.pid));
      res.once('close', () => {
        inFlight--;
        lastActivity = Date.now();
      });
      // dynalite reads method, url, headers and the data/end events, and removes its listeners when done.
      const replay = Object.assign(new EventEmitter(), {
        method: req.method,
        url: req.url,
        headers: req.headers,
      });
      for (const handler of dynaliteHandlers) handler.call(server, replay, res);
      if (body.length > 0) replay.emit('data', body);
      replay.emit('end');
    });
  });

  let stopping = false;
  const stop = (code) => {
    if (stopping) return;
    stopping = true;
    // Withdraw the advertisement first so no new client picks a server that is going away, but only
    // if it is still ours: a successor may already have replaced it.
    if (readStoreFile(storeFile)?.pid === process.pid) {
      try {
        unlinkSync(storeFile);
      } catch {
        // already gone
      }
    }
    // Bounded: a client holding a request open must not keep the process (and the lock) forever.
    setTimeout(() => process.exit(code), STOP_GRACE_MS).unref();
    // dynalite's close() also closes the LevelDB, which flushes it and releases the lock.
    server.close((err) => {
      if (err) logError('error while closing the store', err);
      process.exit(code);
    });
    server.closeIdleConnections();
  };

  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => stop(0));
  process.on('uncaughtException', (err) => {
    // dynalite rethrows request stream errors; a client that disconnects mid-request must not
    // take the store down for everyone else.
    if (err?.code === 'ECONNRESET' || err?.message === 'aborted') return;
    logError('uncaught exception', err);
    stop(1);
  });
  process.on('unhandledRejection', (err) => {
    logError('unhandled rejection', err);
    stop(1);
  });

  // Loopback only: the signature check keeps other local users out, the bind keeps the network out.
  await listen(server, lastPort(dir));
  server.on('error', (err) => logError('server error', err));
  const { port } = server.address();
  try {
    writeFileSync(path.join(dir, 'port'), `${port}\n`, { mode: 0o600 });
  } catch (err) {
    logError('cannot remember the port', err);
  }

  const info = {
    pid: process.pid,
    port,
    endpoint: `http://127.0.0.1:${port}`,
    idleMs,
    startedAt: new Date().toISOString(),
  };
  // Temp file + rename: readers see either the old file or the complete new one, never half of it.
  const tmpFile = `${storeFile}.${process.pid}.tmp`;
  writeFileSync(tmpFile, `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });
  renameSync(tmpFile, storeFile);

  // Checked on a timer rather than reset per request, so a busy server does not churn timers.
  const checkIdle = () => {
    if (stopping) return;
    const idleFor = Date.now() - lastActivity;
    if (inFlight === 0 && idleFor >= idleMs) {
      stop(0);
      return;
    }
    setTimeout(checkIdle, inFlight > 0 ? Math.min(idleMs, 1000) : idleMs - idleFor);
  };
  setTimeout(checkIdle, idleMs);
}

main().catch((err) => {
  logError('store server failed', err);
  process.exit(1);
});
