/**
 * One store, one monitor (issue 32.1): the settings' fingerprint names what differs and holds no value, and
 * the heartbeat is judged as documented (docs/design/cycle.md, One store, one monitor).
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../lambda/config.ts';
import {
  FINGERPRINTED,
  fingerprintDifferences,
  fingerprinter,
  fingerprintSettings,
  type Heartbeat,
  judgeHeartbeat,
} from '../../lambda/core/live-monitor.ts';

const BASE = {
  SHIELDWATCH_API_URL: 'https://api.example.com',
  SHIELDWATCH_API_KEY: 'sk-live-0123456789abcdef',
  SHIELDWATCH_NETWORKS: 'edge-1,edge-2',
  SHIELDWATCH_RULES: 'pps: traffic.in.pps > 300k for 2; attack: attack.active == true',
  SHIELDWATCH_EXPECTED_STATUS: 'active',
  SHIELDWATCH_TOPIC_ARN: 'arn:aws:sns:us-east-1:123456789012:alerts',
};
const KEY = BASE.SHIELDWATCH_API_KEY;
const SALT = 'c2FsdHNhbHRzYWx0c2FsdA';
const fp = (env: Record<string, string | undefined>, key = KEY, salt = SALT) =>
  fingerprintSettings(loadConfig({ ...BASE, ...env }), key, salt);

describe('the settings fingerprint', () => {
  it('is the same for the same settings, whatever the order of networks and rules', async () => {
    const reordered = await fp({
      SHIELDWATCH_NETWORKS: 'edge-2,edge-1',
      SHIELDWATCH_RULES: 'attack: attack.active == true\npps: traffic.in.pps > 300k for 2',
    });
    expect(fingerprintDifferences(await fp({}), reordered)).toEqual([]);
  });

  it.each([
    [{ SHIELDWATCH_RULES: undefined }, ['rules']],
    [{ SHIELDWATCH_RULES: 'pps: traffic.in.pps > 300k for 3; attack: attack.active == true' }, ['rules']],
    [{ SHIELDWATCH_NETWORKS: 'edge-1,edge-2,edge-3' }, ['networks']],
    [{ SHIELDWATCH_EXPECTED_STATUS: 'Active' }, ['expectedStatus']],
    [{ SHIELDWATCH_EXPECTED_STATUS: undefined }, ['expectedStatus']],
    [{ SHIELDWATCH_GROUP_BY: 'none' }, ['groupBy']],
    [{ SHIELDWATCH_TOPIC_ARN: undefined }, ['topicArn']],
    [{ SHIELDWATCH_API_URL: 'https://api2.example.com' }, ['apiUrl']],
    [{ SHIELDWATCH_CONCURRENCY: '3', SHIELDWATCH_TIMEOUT_MS: '1000' }, []],
  ] as const)('%j differs in %j', async (env, differs) => {
    expect(fingerprintDifferences(await fp({}), await fp(env))).toEqual(differs);
  });

  it('a different key differs in apiKey only', async () => {
    expect(fingerprintDifferences(await fp({}), await fp({}, 'sk-other'))).toEqual(['apiKey']);
  });

  it('holds no value: neither the key, nor a rule, a URL, a network, a status or a topic', async () => {
    const text = JSON.stringify(await fp({}));
    for (const value of [KEY, 'traffic.in.pps', 'api.example.com', 'edge-1', '"active"', '123456789012']) {
      expect(text).not.toContain(value);
    }
    expect(Object.keys((await fp({})).digests).sort()).toEqual([...FINGERPRINTED].sort());
  });

  it('under another salt every digest is another (no digest can be looked up across stores)', async () => {
    const a = await fp({});
    const b = await fp({}, KEY, 'b3RoZXJzYWx0b3RoZXJzYQ');
    for (const name of FINGERPRINTED) expect(a.digests[name]).not.toBe(b.digests[name]);
  });

  it('a fingerprinter computes each salt once', async () => {
    const make = fingerprinter(loadConfig(BASE));
    expect(make(KEY, SALT)).toBe(make(KEY, SALT));
    expect(await make(KEY, SALT)).toEqual(await fp({}));
  });
});

describe('judgeHeartbeat', async () => {
  const NOW = Date.parse('2026-11-23T10:00:00.000Z');
  const theirs = await fp({ SHIELDWATCH_RULES: undefined });
  const mineFp = await fp({});
  const otherKey = await fp({}, 'sk-other');
  const heartbeat = (agoMs: number, owner: Partial<Heartbeat['owner']> = {}): Heartbeat => ({
    at: new Date(NOW - agoMs).toISOString(),
    everyMs: 5_000,
    owner: { id: 'other', kind: 'run', description: 'run', ...owner },
    fingerprint: theirs,
  });
  const judge = (hb: Heartbeat | undefined, mine = mineFp, alive = true) =>
    judgeHeartbeat({
      heartbeat: hb,
      nowMs: NOW,
      selfId: 'me',
      alive: () => alive,
      fingerprintUnder: () => mine,
    }).kind;

  it.each([
    ['no heartbeat', undefined, 'go'],
    ['fresh, other settings', heartbeat(1_000), 'refuse'],
    ['fresh at its limit (2 intervals + 30 s)', heartbeat(40_000), 'refuse'],
    ['stale (past 2 intervals + 30 s)', heartbeat(40_001), 'go'],
    ['this process wrote it', heartbeat(1_000, { id: 'me' }), 'go'],
    ['written by a clock ahead', heartbeat(-20_000), 'refuse'],
  ] as const)('%s: %s', (_name, hb, verdict) => {
    expect(judge(hb)).toBe(verdict);
  });

  it('the same settings go on; an owner that is gone does not count', () => {
    expect(judge(heartbeat(1_000), theirs)).toBe('go');
    expect(judge(heartbeat(1_000), mineFp, false)).toBe('go');
  });

  it('a refusal names what differs', () => {
    const verdict = judgeHeartbeat({
      heartbeat: heartbeat(1_000),
      nowMs: NOW,
      alive: () => true,
      fingerprintUnder: () => otherKey,
    });
    expect(verdict).toMatchObject({ kind: 'refuse', differs: ['apiKey', 'rules'] });
  });
});
