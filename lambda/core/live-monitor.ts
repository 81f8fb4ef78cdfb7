/**
 * A monitor that is live on a store (a `shieldwatch run`, the deployed schedule) records a heartbeat there with
 * a fingerprint of the settings it judges with; a cycle from another process with other settings is then
 * refused instead of judging the live monitor's state with them (an open incident resolved by a `poll` without
 * rules, `api.auth_failed` from a `poll` with a wrong key). See docs/design/cycle.md, One store, one monitor.
 *
 * The fingerprint holds no setting's value: each is a keyed hash (HMAC-SHA256) under a random salt of the
 * writer's, and the API key's is scrypt's (a slow hash), so what is stored tells whether two settings are equal
 * and nothing that lets anyone recompute one. Pure, apart from the hashing.
 */
import { createHmac, randomBytes, scrypt } from 'node:crypto';
import type { MonitorConfig } from '../config.ts';
import { printRule } from './rules/rules.ts';

/** The settings compared: those that decide what the monitor alerts, and where. */
export const FINGERPRINTED = [
  'apiUrl',
  'apiKey',
  'networks',
  'statusPath',
  'expectedStatus',
  'rules',
  'groupBy',
  'groupInterval',
  'confirmations',
  'alertAfter',
  'remindEvery',
  'escalateAfter',
  'topicArn',
  'monitorName',
] as const;

/** One setting compared. */
export type FingerprintedSetting = (typeof FINGERPRINTED)[number];

/** A digest per setting (base64url), under the salt it was made with. */
export interface SettingsFingerprint {
  readonly salt: string;
  readonly digests: Readonly<Record<FingerprintedSetting, string>>;
}

/** Who keeps the heartbeat: a `run` on some machine, or the deployed function. */
export interface HeartbeatOwner {
  /** Random per process (a `run`, a function instance). */
  readonly id: string;
  readonly kind: 'run' | 'lambda';
  /** A `run`'s machine and process id: a `run` that died on this machine is seen to be gone at once. */
  readonly host?: string;
  readonly pid?: number;
  /** How people know it, e.g. `run (pid 4242 on nocbox, every 5s)`, `the deployed function`. */
  readonly description: string;
}

/** What a live monitor records, every cycle. */
export interface Heartbeat {
  /** When its last cycle started (ISO). */
  readonly at: string;
  /** Its interval between cycles, ms: the heartbeat is fresh for twice that and 30 s. */
  readonly everyMs: number;
  readonly owner: HeartbeatOwner;
  readonly fingerprint: SettingsFingerprint;
}

/** Slack on top of two intervals before a heartbeat counts as stale: a slow cycle, a late schedule. */
export const HEARTBEAT_SLACK_MS = 30_000;

/** A fresh random salt, base64url. */
export function newSalt(): string {
  return randomBytes(16).toString('base64url');
}

/** Each setting's canonical text: order that changes nothing (networks, rules) does not count. */
function canonical(config: MonitorConfig): Record<Exclude<FingerprintedSetting, 'apiKey'>, string> {
  const optional = (value: string | number | undefined) =>
    value === undefined ? '\u0000unset' : String(value);
  return {
    apiUrl: config.apiUrl,
    networks: [...config.networks].sort().join('\n'),
    statusPath: optional(config.statusPath),
    expectedStatus: optional(config.expectedStatus),
    rules: config.rules.map(printRule).sort().join('\n'),
    groupBy: config.groupBy,
    groupInterval: String(config.groupIntervalMs),
    confirmations: String(config.confirmations),
    alertAfter: String(config.alertAfter),
    remindEvery: optional(config.remindEveryMs),
    escalateAfter: config.escalateAfterMs === undefined ? '\u0000unset' : config.escalateAfterMs.join(','),
    topicArn: optional(config.topicArn),
    monitorName: config.monitorName,
  };
}

/**
 * The API key's digest: scrypt (N 2^14, about 16 MB and tens of ms, off the event loop), so a stored digest is
 * no cheap test of guesses; computed once per process and salt by {@link fingerprinter}.
 */
function keyDigest(key: string, salt: string): Promise<string> {
  return new Promise((resolve, reject) => {
    scrypt(key, `shieldwatch-live-key\n${salt}`, 16, { N: 2 ** 14, r: 8, p: 1 }, (error, derived) => {
      if (error === null) resolve(derived.toString('base64url'));
      else reject(error);
    });
  });
}

/** The fingerprint of `config` and `key` under `salt`. */
export async function fingerprintSettings(
  config: MonitorConfig,
  key: string,
  salt: string,
): Promise<SettingsFingerprint> {
  const texts = canonical(config);
  const digest = (name: string, text: string) =>
    createHmac('sha256', salt).update(`shieldwatch-live\n${name}\n${text}`).digest('base64url').slice(0, 22);
  const apiKey = await keyDigest(key, salt);
  const digests = Object.fromEntries(
    FINGERPRINTED.map((name) => [name, name === 'apiKey' ? apiKey : digest(name, texts[name])]),
  ) as Record<FingerprintedSetting, string>;
  return { salt, digests };
}

/**
 * Fingerprints of one configuration under any salt, each computed once: a reader compares under the live
 * monitor's salt, a writer keeps its own. The key is asked for each time (a rotated secret changes it).
 */
export function fingerprinter(
  config: MonitorConfig,
): (key: string, salt: string) => Promise<SettingsFingerprint> {
  const cache = new Map<string, Promise<SettingsFingerprint>>();
  return (key, salt) => {
    const id = `${salt}\n${key}`;
    let found = cache.get(id);
    if (found === undefined) {
      found = fingerprintSettings(config, key, salt);
      if (cache.size >= 8) cache.clear();
      cache.set(id, found);
      found.catch(() => cache.delete(id));
    }
    return found;
  };
}

/** The settings whose digests differ (a setting the other fingerprint lacks counts as differing). */
export function fingerprintDifferences(
  mine: SettingsFingerprint,
  theirs: SettingsFingerprint,
): FingerprintedSetting[] {
  return FINGERPRINTED.filter((name) => mine.digests[name] !== theirs.digests[name]);
}

/** Whether the heartbeat still says its monitor is live at `nowMs`. */
export function isFresh(heartbeat: Pick<Heartbeat, 'at' | 'everyMs'>, nowMs: number): boolean {
  const at = Date.parse(heartbeat.at);
  return Number.isFinite(at) && nowMs - at <= 2 * heartbeat.everyMs + HEARTBEAT_SLACK_MS;
}

/** What a cycle from this process may do, given the store's heartbeat. */
export type LiveVerdict =
  /** No live monitor, the same settings, or this process is the live monitor: go on. */
  | { readonly kind: 'go' }
  /** Another live monitor judges with other settings: refuse, naming them. */
  | {
      readonly kind: 'refuse';
      readonly heartbeat: Heartbeat;
      readonly differs: readonly FingerprintedSetting[];
    };

/**
 * Judges the heartbeat for a cycle from this process. `alive` says whether a heartbeat's owner still runs (a
 * `run` on this machine whose process is gone is not); `fingerprintUnder` gives this process's fingerprint
 * under the heartbeat's salt (made beforehand: {@link fingerprinter}).
 */
export function judgeHeartbeat(input: {
  readonly heartbeat: Heartbeat | undefined;
  readonly nowMs: number;
  readonly selfId?: string;
  readonly alive: (owner: HeartbeatOwner) => boolean;
  readonly fingerprintUnder: (salt: string) => SettingsFingerprint;
}): LiveVerdict {
  const { heartbeat } = input;
  if (heartbeat === undefined || heartbeat.owner.id === input.selfId) return { kind: 'go' };
  if (!isFresh(heartbeat, input.nowMs) || !input.alive(heartbeat.owner)) return { kind: 'go' };
  const differs = fingerprintDifferences(
    input.fingerprintUnder(heartbeat.fingerprint.salt),
    heartbeat.fingerprint,
  );
  return differs.length === 0 ? { kind: 'go' } : { kind: 'refuse', heartbeat, differs };
}
