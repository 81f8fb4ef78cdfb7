/**
 * The status page publisher (docs/status-page.md) against real parts on loopback: the table in dynalite, filled
 * by real poll cycles (test/fixtures/incident-scene.ts: an attack open for 8 days and acknowledged by its link,
 * a network unreachable, a `*` silence), the bucket in moto_server's S3 (started by the test, stopped by its pid;
 * the test fails at once without moto), and the page it wrote opened in Debian's chromium. Private: the reports
 * of 24 hours and 7 days, status.json whose open incidents are the listing's rows (CONTRACT §15, "One view"), a
 * landing page whose links carry the signature; public: status, open incidents (kind, time, count of networks,
 * an opaque id) and uptime only, no network, rule, figure or private id, and reports of an earlier private page
 * removed.
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
import { listingRow } from '../../lambda/core/incidents/incident-list.ts';
import { readReportAssets } from '../../lambda/report/build.ts';
import { PAGE_KEYS } from '../../lambda/status-page/pages.ts';
import { PAGE_CACHE_CONTROL, publishStatusPage } from '../../lambda/status-page/publish.ts';
import { PUBLISHER_ENV } from '../../lambda/status-page/publisher-env.ts';
import { describeRun, runCli } from '../cli/helpers.ts';
import { type LocalDynamo, startDynamo } from '../fixtures/dynalite.ts';
import { playIncidentScene, SCENE, SCENE_RULES, type Scene } from '../fixtures/incident-scene.ts';
import { type MotoServer, startMoto } from '../fixtures/moto-server.ts';

const CHROMIUM = '/usr/bin/chromium';
/** A network id and a figure that must never reach the public page. */
const NETWORK = SCENE.attacked;
const RULES = SCENE_RULES;
/** The public id key (the stack's secret, generated at deploy). */
const ID_KEY = 'k'.repeat(20) + 'public-id-key-of-this-test-stack-0123456789';

describe('the status page publisher, to S3 on loopback', () => {
  let moto: MotoServer;
  let dynamo: LocalDynamo;
  let s3: S3Client;
  let browser: Browser;
  let dir: string;
  let scene: Scene;
  let nowMs: number;

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

    // Prepare: the scene, by real cycles.
    scene = await playIncidentScene(dynamo);
    nowMs = scene.nowMs;
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
      PAGE_KEYS.feed,
      PAGE_KEYS.index,
    ]);
    expect(await keys(bucket)).toEqual(Object.values(PAGE_KEYS).sort());
    const status = await read(bucket, PAGE_KEYS.status);
    expect(status.type).toBe('application/json; charset=utf-8');
    expect(status.cache).toBe(PAGE_CACHE_CONTROL);
    const document = JSON.parse(status.text);
    // One view: the open incidents are the listing's rows, as `shieldwatch incidents --format json` prints them.
    const open_ = scene.listing.filter((v) => v.state !== 'resolved');
    expect(document.openIncidents).toEqual(JSON.parse(JSON.stringify(open_.map(listingRow))));
    const listed = await runCli(['incidents', '--format', 'json'], {
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'AKIDTEST',
      AWS_SECRET_ACCESS_KEY: 'test-secret',
      AWS_ENDPOINT_URL_DYNAMODB: dynamo.endpoint,
      SHIELDWATCH_TABLE: dynamo.table,
    });
    expect(listed.code, describeRun(listed)).toBe(0);
    const cliOpen = (JSON.parse(listed.stdout) as Array<{ state: string }>).filter(
      (r) => r.state !== 'resolved',
    );
    expect(document.openIncidents).toEqual(cliOpen);
    expect(document).toMatchObject({
      status: 'active',
      lastCycleAt: new Date(nowMs).toISOString(),
      silences: [
        expect.objectContaining({
          id: SCENE.silence.id,
          pattern: '*',
          reason: SCENE.silence.reason,
          active: true,
        }),
      ],
    });
    // The attack open for 8 days, by the alerts' id, acknowledged by the link with its note; the blind spot.
    const attack = document.openIncidents.find((i: { id: string }) => i.id === scene.attackId);
    expect(scene.attackId).toMatch(new RegExp(`^${SCENE.rule}@`));
    expect(attack).toMatchObject({
      kind: 'rule',
      rule: SCENE.rule,
      state: 'acknowledged',
      acknowledged: { by: SCENE.ack.by, note: SCENE.ack.note },
      networks: [{ network: NETWORK, peak: SCENE.peak }],
    });
    expect(nowMs - Date.parse(attack.openedAt)).toBeGreaterThan(8 * 86_400_000);
    expect(document.openIncidents.find((i: { id: string }) => i.id === scene.blindSpotId)).toMatchObject({
      kind: 'network',
      state: 'open',
      networks: [{ network: SCENE.unreachable }],
    });
    const day = await read(bucket, PAGE_KEYS.day);
    expect(day.type).toBe('text/html; charset=utf-8');
    expect(day.text).toContain(NETWORK);
    expect(day.text).toContain(scene.attackId);

    // Assess: in chromium, the landing page says what is happening and its links keep the signature
    const { page, errors } = await open(bucket, PAGE_KEYS.index, '?Policy=p&Signature=s&Key-Pair-Id=K1');
    expect(await page.locator('#headline').textContent()).toBe('2 open incidents');
    expect(await page.locator('#status').textContent()).toBe('active');
    const incidents = (await page.locator('#incidents').textContent()) ?? '';
    expect(incidents).toContain(NETWORK);
    expect(incidents).toContain(SCENE.unreachable);
    expect(incidents).toContain(`acknowledged by ${SCENE.ack.by}`);
    expect(incidents).toContain(SCENE.ack.note);
    expect(await page.locator('#silences').textContent()).toContain(SCENE.silence.reason);
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
      publicIdKey: ID_KEY,
    });
    const again = await publishStatusPage(dynamo.client, s3, {
      table: dynamo.table,
      bucket,
      mode: 'public',
      networks: [NETWORK],
      assets: readReportAssets(),
      everySeconds: 300,
      nowMs: nowMs + 300_000,
      rules: RULES,
      publicIdKey: ID_KEY,
    });

    // Assess
    expect([...result.removed].sort()).toEqual([PAGE_KEYS.day, PAGE_KEYS.week].sort());
    expect(await keys(bucket)).toEqual([PAGE_KEYS.index, PAGE_KEYS.status, PAGE_KEYS.feed].sort());
    const index = (await read(bucket, PAGE_KEYS.index)).text;
    const status = (await read(bucket, PAGE_KEYS.status)).text;
    // No rule name, network id, figure, private id, silence reason or who acknowledged.
    for (const text of [index, status]) {
      for (const secret of [
        NETWORK,
        SCENE.unreachable,
        SCENE.rule,
        String(SCENE.peak),
        scene.attackId,
        scene.blindSpotId,
        SCENE.silence.reason,
        SCENE.silence.id,
        SCENE.ack.note,
        'in.pps',
      ]) {
        expect(text).not.toContain(secret);
      }
      expect(text).not.toMatch(/"rule":|\bpps\b|peak|acknowledged/i);
    }
    const document = JSON.parse(status);
    expect(document).toMatchObject({ status: 'active', maintenanceUntil: expect.any(String) });
    expect(document.openIncidents).toEqual([
      {
        id: expect.stringMatching(/^i-[0-9a-f]{20}$/),
        kind: 'rule',
        openedAt: expect.any(String),
        networkCount: 1,
      },
      {
        id: expect.stringMatching(/^i-[0-9a-f]{20}$/),
        kind: 'network',
        openedAt: expect.any(String),
        networkCount: 1,
      },
    ]);
    // The same incident keeps its public id at the next publish.
    expect(again.document.openIncidents.map((i) => i.id)).toEqual(
      document.openIncidents.map((i: { id: string }) => i.id),
    );
    const { page, errors } = await open(bucket, PAGE_KEYS.index);
    expect(await page.locator('#headline').textContent()).toBe('2 open incidents');
    expect(await page.locator('#status').textContent()).toBe('active');
    expect(await page.locator('#incidents').textContent()).toContain('Traffic alert since');
    expect(await page.locator('#incidents').textContent()).toContain('Network unreachable since');
    expect(await page.locator('#maintenance').textContent()).toMatch(/^Maintenance until \d{4}-/);
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
      SHIELDWATCH_RULES: SCENE.rules,
      [PUBLISHER_ENV.bucket]: bucket,
      [PUBLISHER_ENV.mode]: 'private',
      [PUBLISHER_ENV.everySeconds]: '300',
    });
    try {
      // Act
      const { handler } = await import('../../lambda/status-page-handler.ts');
      const out = await handler();

      // Assess
      expect(out.written).toEqual([
        PAGE_KEYS.week,
        PAGE_KEYS.day,
        PAGE_KEYS.status,
        PAGE_KEYS.feed,
        PAGE_KEYS.index,
      ]);
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
