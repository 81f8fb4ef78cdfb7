/**
 * The status page publisher (docs/status-page.md) against real parts on loopback: the table in dynalite, the
 * bucket in moto_server's S3 (started by the test, stopped by its pid; the test fails at once without moto),
 * and the page it wrote opened in Debian's chromium. Private: the reports of 24 hours and 7 days, status.json
 * and a landing page whose links carry the signature; public: status, open incidents and uptime only, no
 * network, rule or figure, and reports of an earlier private page removed.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  CreateBucketCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoStore } from '../../lambda/adapters/dynamo-store.ts';
import { parseRules } from '../../lambda/core/rules/rules.ts';
import type { Snapshot } from '../../lambda/core/types.ts';
import { readReportAssets } from '../../lambda/report/build.ts';
import { PAGE_KEYS } from '../../lambda/status-page/pages.ts';
import { PAGE_CACHE_CONTROL, publishStatusPage } from '../../lambda/status-page/publish.ts';
import { PUBLISHER_ENV } from '../../lambda/status-page/publisher-env.ts';
import { type LocalDynamo, startDynamo } from '../fixtures/dynalite.ts';
import { type MotoServer, startMoto } from '../fixtures/moto-server.ts';

const CHROMIUM = '/usr/bin/chromium';
const MINUTE = 60_000;
/** A network id and a figure that must never reach the public page. */
const NETWORK = 'edge-secret-7';
const PEAK = 987_654;
const RULES = parseRules('pps: traffic.in_pps > 500000').rules;

describe('the status page publisher, to S3 on loopback', () => {
  let moto: MotoServer;
  let dynamo: LocalDynamo;
  let s3: S3Client;
  let browser: Browser;
  let dir: string;
  const nowMs = Date.now();
  const iso = (ms: number) => new Date(ms).toISOString();

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
    moto = await startMoto();
    dynamo = await startDynamo();
    s3 = new S3Client({
      endpoint: moto.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    });
    dir = mkdtempSync(join(tmpdir(), 'status-page-'));
    browser = await chromium.launch({ executablePath: CHROMIUM });

    // Prepare: two hours of one-minute cycles, the filter "active", an attack on one network since 20 minutes.
    const store = new DynamoStore(dynamo.client, dynamo.table);
    const snapshots: Snapshot[] = [];
    for (let m = 120; m >= 1; m--) {
      const at = iso(nowMs - m * MINUTE);
      snapshots.push({ target: { kind: 'filter' }, at, cycleId: `c${m}`, ok: true, status: 'active' });
      const pps = m <= 20 ? PEAK - m : 1000 + m;
      snapshots.push({
        target: { kind: 'network', networkId: NETWORK },
        at,
        cycleId: `c${m}`,
        ok: true,
        bodyText: JSON.stringify({ traffic: { in_pps: pps, in_bps: pps * 8000 } }),
      });
    }
    for (let i = 0; i < snapshots.length; i += 25) {
      await store.putSnapshots(snapshots.slice(i, i + 25), Math.floor(nowMs / 1000) + 3600);
    }
    await store.recordEvent({
      seq: 1,
      event: 'network.rule_triggered',
      at: iso(nowMs - 20 * MINUTE),
      ...({
        rule: 'pps',
        network: NETWORK,
        value: PEAK - 20,
        threshold: 500_000,
        incident: 'pps/attack-1',
      } as object),
    } as never);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await dynamo?.close();
    s3?.destroy();
    await moto?.stop();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  async function makeBucket(name: string): Promise<string> {
    await s3.send(new CreateBucketCommand({ Bucket: name }));
    return name;
  }

  async function read(bucket: string, key: string): Promise<{ text: string; type?: string; cache?: string }> {
    const out = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return { text: await out.Body!.transformToString(), type: out.ContentType, cache: out.CacheControl };
  }

  async function keys(bucket: string): Promise<string[]> {
    const out = await s3.send(new ListObjectsV2Command({ Bucket: bucket }));
    return (out.Contents ?? []).map((o) => o.Key!).sort();
  }

  /** Copies the bucket's objects to a folder and opens `key` (with `search`) in chromium. */
  async function open(bucket: string, key: string, search = '') {
    const folder = mkdtempSync(join(dir, `${bucket}-`));
    for (const name of await keys(bucket)) writeFileSync(join(folder, name), (await read(bucket, name)).text);
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    await page.goto(`${pathToFileURL(join(folder, key)).href}${search}`);
    return { page, errors };
  }

  it('private: writes both reports, status.json and the landing page, which opens on the present', {
    timeout: 60_000,
  }, async () => {
    // Prepare
    const bucket = await makeBucket('page-private');

    // Act
    const result = await publishStatusPage(dynamo.client, s3, {
      table: dynamo.table,
      bucket,
      mode: 'private',
      networks: [NETWORK],
      assets: readReportAssets(),
      everySeconds: 300,
      nowMs,
      rules: RULES,
    });

    // Assess: the objects, reports first and the landing page last
    expect(result.written.map((w) => w.key)).toEqual([
      PAGE_KEYS.week,
      PAGE_KEYS.day,
      PAGE_KEYS.status,
      PAGE_KEYS.index,
    ]);
    expect(await keys(bucket)).toEqual(Object.values(PAGE_KEYS).sort());
    const status = await read(bucket, PAGE_KEYS.status);
    expect(status.type).toBe('application/json; charset=utf-8');
    expect(status.cache).toBe(PAGE_CACHE_CONTROL);
    const document = JSON.parse(status.text);
    expect(document).toMatchObject({
      status: 'active',
      lastCycleAt: iso(nowMs - MINUTE),
      openIncidents: [{ id: 'pps/attack-1', kind: 'rule', rule: 'pps', state: 'open' }],
    });
    expect(Date.parse(document.since)).toBeLessThanOrEqual(nowMs - 119 * MINUTE);
    expect(document.openIncidents[0].networks).toEqual([
      expect.objectContaining({ network: NETWORK, peak: PEAK - 1 }),
    ]);
    const day = await read(bucket, PAGE_KEYS.day);
    expect(day.type).toBe('text/html; charset=utf-8');
    expect(day.text).toContain(NETWORK);

    // Assess: in chromium, the landing page says what is happening and its links keep the signature
    const { page, errors } = await open(bucket, PAGE_KEYS.index, '?Policy=p&Signature=s&Key-Pair-Id=K1');
    expect(await page.locator('#headline').textContent()).toBe('1 open incident');
    expect(await page.locator('#status').textContent()).toBe('active');
    expect(await page.locator('#incidents').textContent()).toContain(NETWORK);
    const href = await page.locator(`a[href*="${PAGE_KEYS.day}"]`).getAttribute('href');
    expect(href).toMatch(/report-24h\.html\?Policy=p&Signature=s&Key-Pair-Id=K1$/);
    await page.locator(`a[href*="${PAGE_KEYS.day}"]`).click();
    await page.waitForURL(/report-24h\.html/);
    expect(await page.locator('body').textContent()).toContain(NETWORK);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('public: status, open incidents and uptime only; no network, rule or figure; old reports removed', async () => {
    // Prepare: the bucket of a page that was private before
    const bucket = await makeBucket('page-public');
    for (const key of [PAGE_KEYS.day, PAGE_KEYS.week]) {
      await s3.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: `<p>${NETWORK}</p>` }));
    }

    // Act
    const result = await publishStatusPage(dynamo.client, s3, {
      table: dynamo.table,
      bucket,
      mode: 'public',
      networks: [NETWORK],
      assets: readReportAssets(),
      everySeconds: 300,
      nowMs,
      rules: RULES,
    });

    // Assess
    expect([...result.removed].sort()).toEqual([PAGE_KEYS.day, PAGE_KEYS.week].sort());
    expect(await keys(bucket)).toEqual([PAGE_KEYS.index, PAGE_KEYS.status].sort());
    const index = (await read(bucket, PAGE_KEYS.index)).text;
    const status = (await read(bucket, PAGE_KEYS.status)).text;
    for (const text of [index, status]) {
      expect(text).not.toContain(NETWORK);
      expect(text).not.toContain(String(PEAK - 1));
      expect(text).not.toContain('in_pps');
      expect(text).not.toMatch(/"rule":|\bpps\b|peak/i);
    }
    expect(JSON.parse(status)).toMatchObject({
      status: 'active',
      openIncidents: [{ id: expect.stringMatching(/^[0-9a-f]{16}$/), kind: 'rule', networkCount: 1 }],
    });
    const { page, errors } = await open(bucket, PAGE_KEYS.index);
    expect(await page.locator('#headline').textContent()).toBe('1 open incident');
    expect(await page.locator('#status').textContent()).toBe('active');
    expect(await page.locator('#incidents').textContent()).toContain('Traffic alert since');
    expect(await page.locator('table.uptime').count()).toBe(2);
    expect(await page.locator('table.uptime').first().textContent()).toContain('100.0%');
    expect(await page.locator('script').count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('the Lambda entry publishes with the environment the stack gives it', async () => {
    // Prepare
    const bucket = await makeBucket('page-handler');
    const saved = { ...process.env };
    Object.assign(process.env, {
      ...moto.env,
      AWS_REGION: 'us-east-1',
      AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
      SHIELDWATCH_TABLE: dynamo.table,
      SHIELDWATCH_NETWORKS: NETWORK,
      [PUBLISHER_ENV.bucket]: bucket,
      [PUBLISHER_ENV.mode]: 'private',
      [PUBLISHER_ENV.everySeconds]: '300',
    });
    try {
      // Act
      const { handler } = await import('../../lambda/status-page-handler.ts');
      const out = await handler();

      // Assess
      expect(out.written).toEqual([PAGE_KEYS.week, PAGE_KEYS.day, PAGE_KEYS.status, PAGE_KEYS.index]);
      const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: PAGE_KEYS.index }));
      expect(head.ContentType).toBe('text/html; charset=utf-8');
    } finally {
      process.env = saved;
    }
  });

  it('fails, naming the bucket, when the bucket cannot be written', async () => {
    await expect(
      publishStatusPage(dynamo.client, s3, {
        table: dynamo.table,
        bucket: 'no-such-bucket',
        mode: 'private',
        networks: [],
        assets: readReportAssets(),
        everySeconds: 300,
        nowMs,
      }),
    ).rejects.toThrow(/bucket/i);
  });
});
