/**
 * How `shieldwatch report` reads the store, through the real CLI (issue 19.9, 19.10): a long history of large
 * bodies is read page by page and reduced as it is read, so it fits a small heap; `--networks` narrows what
 * is read; `--out` never writes through a symbolic link.
 */
import {
  existsSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoStore } from '../../lambda/adapters/dynamo-store.ts';
import type { Snapshot } from '../../lambda/core/types.ts';
import { type LocalDynamo, startDynamo } from '../fixtures/dynalite.ts';
import { type DynamoProxy, startDynamoProxy } from '../fixtures/fake-aws.ts';
import { bySize } from '../scale.ts';
import { describeRun, runCli } from './helpers.ts';

const T0 = Date.UTC(2026, 0, 5, 0, 0, 0);
const MINUTE = 60_000;
/** A long history: 4,000 snapshots in `npm run test:slow`; 1,500 in `npm test`, still more than the chart's 1,202 points. */
const SNAPSHOTS = bySize(1500, 4000);
const SPIKE_AT = bySize(1017, 2717);

/** A body of about 38 KB: two traffic figures and 640 links (many small objects once parsed). */
function body(i: number): string {
  const links = Array.from({ length: 640 }, (_, k) => ({ name: `link-${k}`, pps: (k * i) % 997, drops: k }));
  return JSON.stringify({
    traffic: { in_pps: i === SPIKE_AT ? 9_000_000 : 1000 + (i % 50), in_bps: 8000 * (1000 + (i % 50)) },
    links,
  });
}

function reportData(html: string): {
  networks: Array<{ id: string; fields: string[]; x: number[]; ys: Array<Array<number | null>> }>;
} {
  const match = /<script type="application\/json" id="report-data">([^<]*)<\/script>/.exec(html);
  expect(match, 'the data block').not.toBeNull();
  return JSON.parse(match![1]!);
}

describe('shieldwatch report reads a long history page by page', () => {
  let dynamo: LocalDynamo;
  let proxy: DynamoProxy;
  let dir: string;
  let env: Record<string, string>;
  const since = new Date(T0 - MINUTE).toISOString();
  const until = new Date(T0 + SNAPSHOTS * MINUTE).toISOString();

  beforeAll(async () => {
    dynamo = await startDynamo();
    proxy = await startDynamoProxy(dynamo.endpoint);
    dir = mkdtempSync(join(tmpdir(), 'shieldwatch-report-reading-'));
    const store = new DynamoStore(dynamo.client, dynamo.table);
    const expiresAt = Math.floor(T0 / 1000) + 86_400 * 365;
    for (let start = 0; start < SNAPSHOTS; start += 100) {
      const batch: Snapshot[] = [];
      for (let i = start; i < Math.min(SNAPSHOTS, start + 100); i++) {
        const at = new Date(T0 + i * MINUTE).toISOString();
        batch.push({ target: { kind: 'filter' }, at, cycleId: `c${i}`, ok: true, status: 'active' });
        batch.push({
          target: { kind: 'network', networkId: 'edge-1' },
          at,
          cycleId: `c${i}`,
          ok: true,
          bodyText: body(i),
          httpStatus: 200,
        });
      }
      await store.putSnapshots(batch, expiresAt);
    }
    // A small second network, and a rule alert that names it.
    await store.putSnapshots(
      [
        {
          target: { kind: 'network', networkId: 'edge-2' },
          at: new Date(T0).toISOString(),
          cycleId: 'c0',
          ok: true,
          bodyText: '{"traffic":{"in_pps":5}}',
        },
      ],
      expiresAt,
    );
    const at = new Date(T0 + 10 * MINUTE).toISOString();
    await DynamoDBDocumentClient.from(dynamo.client).send(
      new PutCommand({
        TableName: dynamo.table,
        Item: {
          pk: 'event',
          sk: `${at}#rules#0#000000000001`,
          at,
          event: 'network.rule_triggered',
          seq: 1,
          rule: 'flood',
          network: 'edge-2',
          ruleValues: JSON.stringify({ value: 9, threshold: 5 }),
        },
      }),
    );
    env = {
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'AKIDTEST',
      AWS_SECRET_ACCESS_KEY: 'test-secret',
      AWS_ENDPOINT_URL_DYNAMODB: proxy.url,
      SHIELDWATCH_TABLE: dynamo.table,
      SHIELDWATCH_NETWORKS: 'edge-1',
    };
  }, 180_000);
  afterAll(async () => {
    await proxy?.close();
    await dynamo?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('charts over a thousand snapshots (4,000 in test:slow) of 38 KB in a 128 MB heap, the spike kept', async () => {
    // Prepare
    const out = join(dir, 'long.html');

    // Act
    const run = await runCli(['report', '--since', since, '--until', until, '--out', out], env, {
      nodeArgs: ['--max-old-space-size=128'],
      timeoutMs: 150_000,
    });

    // Assess
    expect(run.code, describeRun(run)).toBe(0);
    const data = reportData(readFileSync(out, 'utf8'));
    const edge1 = data.networks.find((n) => n.id === 'edge-1')!;
    expect(edge1.fields.slice(0, 2)).toEqual(['traffic.in_pps', 'traffic.in_bps']);
    expect(edge1.x.length).toBeLessThanOrEqual(1202);
    expect(Math.max(...(edge1.ys[0]!.filter((v) => v !== null) as number[]))).toBe(9_000_000);
    expect(Math.min(...(edge1.ys[0]!.filter((v) => v !== null) as number[]))).toBe(1000);
  }, 180_000);

  it('reads only the networks --networks names (not those rule alerts name), and only what it charts', async () => {
    // Prepare
    const out = join(dir, 'narrow.html');
    proxy.requests.length = 0;

    // Act
    const run = await runCli(
      ['report', '--since', since, '--until', until, '--out', out, '--networks', 'edge-1'],
      env,
      { timeoutMs: 120_000 },
    );

    // Assess
    expect(run.code, describeRun(run)).toBe(0);
    const queries = proxy.requests.filter((r) => r.operation === 'Query');
    const keyOf = (r: (typeof queries)[number]) =>
      (r.body['ExpressionAttributeValues'] as Record<string, { S: string }>)[':pk']!.S;
    // Besides the snapshots and events: the one listing's state items (CONTRACT §15) and the silences (the
    // quiet times of the present); never another network's snapshots.
    expect(new Set(queries.map(keyOf))).toEqual(
      new Set(['filter', 'event', 'network#edge-1', 'state', 'silence']),
    );
    // The status band needs no body: the filter snapshots are read without theirs.
    for (const query of queries.filter((r) => keyOf(r) === 'filter')) {
      const names = Object.values((query.body['ExpressionAttributeNames'] ?? {}) as Record<string, string>);
      expect(names).toContain('status');
      expect(names).not.toContain('body');
    }
    expect(reportData(readFileSync(out, 'utf8')).networks.map((n) => n.id)).toEqual(['edge-1']);
    // Without --networks, the configured networks and those rule alerts name.
    proxy.requests.length = 0;
    const all = await runCli(['report', '--since', since, '--until', until, '--out', out], env, {
      timeoutMs: 120_000,
    });
    expect(all.code, describeRun(all)).toBe(0);
    expect(reportData(readFileSync(out, 'utf8')).networks.map((n) => n.id)).toEqual(['edge-1', 'edge-2']);
  }, 180_000);

  it('replaces a symbolic link at --out instead of writing through it, and leaves no temporary file', async () => {
    // Prepare
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'keep me\n');
    const out = join(dir, 'linked.html');
    symlinkSync(victim, out);

    // Act
    const run = await runCli(
      ['report', '--since', since, '--until', until, '--out', out, '--networks', 'edge-2'],
      env,
      { timeoutMs: 60_000 },
    );

    // Assess
    expect(run.code, describeRun(run)).toBe(0);
    expect(readFileSync(victim, 'utf8')).toBe('keep me\n');
    expect(lstatSync(out).isSymbolicLink()).toBe(false);
    expect(readFileSync(out, 'utf8')).toContain('<!doctype html>');
    expect(readdirSync(dir).filter((name) => name.includes('.tmp'))).toEqual([]);
    expect(existsSync(victim)).toBe(true);
  }, 120_000);
});
